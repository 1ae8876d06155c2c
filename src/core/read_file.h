// ReadWholeFile: a file's bytes, read with retries on EINTR, for the small files credentials
// and configuration live in (token files, kubeconfigs, AWS shared files).
#pragma once

#include <string>

#include "core/status.h"

namespace nodesmith::core {

// The error's message is strerror's alone ("No such file or directory"); callers name the file
// and what it was for. kNotFound when the file (or a directory on its path) does not exist,
// kFailedPrecondition for anything else (permissions, a directory, I/O).
Result<std::string> ReadWholeFile(const std::string& path);

}  // namespace nodesmith::core
