// RunSubprocess: runs a program to completion with a deadline, capturing what it prints.
//
// For the credential helpers nodesmith runs (a kubeconfig's exec plugin such as
// `aws eks get-token`, an AWS profile's credential_process). stdin is /dev/null; the child leads
// its own process group, so a timeout kills whatever it started too; signals the parent blocks
// or ignores are reset in the child. The deadline is monotonic time: it bounds a wait and says
// nothing about credentials' expiry, which callers judge by their Clock.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "core/status.h"

namespace nodesmith::core {

struct SubprocessResult {
  int exit_code = 0;
  int signal = 0;  // non-zero when killed by a signal
  bool timed_out = false;
  bool output_too_large = false;  // stdout passed max_output; the child was killed
  std::string out;
  std::string err;  // the last `stderr_kept` bytes
};

struct SubprocessLimits {
  std::chrono::nanoseconds timeout = std::chrono::minutes(1);
  size_t max_output = 4 << 20;
  size_t stderr_kept = 64 << 10;
};

// Runs `path` with `argv` (argv[0] included) and `envp` ("NAME=value"). Fails only when the
// program cannot be started (kFailedPrecondition naming it) or no pipe can be made.
Result<SubprocessResult> RunSubprocess(const std::string& path, const std::vector<std::string>& argv,
                                       const std::vector<std::string>& envp,
                                       const SubprocessLimits& limits);

// This process's environment as "NAME=value" strings.
std::vector<std::string> CurrentEnvironment();

// The last `max_chars` of a program's stderr, trimmed, on one line ("; " for newlines), for an
// error message.
std::string StderrTail(const std::string& err, size_t max_chars = 1000);

}  // namespace nodesmith::core
