// TempDir: a directory of its own for a test's files, removed with everything in it at the end.
// Write replaces a file by writing a sibling and renaming it over, as the kubelet swaps projected
// token files, so a reader never sees half a file.
#pragma once

#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace nodesmith::testing {

class TempDir {
 public:
  TempDir() {
    namespace fs = std::filesystem;
    std::string tmpl = (fs::temp_directory_path() / "nodesmith-test-XXXXXX").string();
    char* made = ::mkdtemp(tmpl.data());
    path_ = made != nullptr ? made : "";
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // Writes `content` to path()/rel (directories made as needed); returns the file's path.
  std::string Write(const std::string& rel, const std::string& content) const {
    namespace fs = std::filesystem;
    fs::path p = fs::path(path_) / rel;
    fs::create_directories(p.parent_path());
    fs::path tmp = p.string() + ".tmp";
    std::ofstream(tmp, std::ios::binary | std::ios::trunc) << content;
    fs::rename(tmp, p);
    return p.string();
  }
  // An executable /bin/sh script with `body`.
  std::string Script(const std::string& rel, const std::string& body) const {
    std::string p = Write(rel, "#!/bin/sh\n" + body);
    ::chmod(p.c_str(), 0755);
    return p;
  }
  std::string Read(const std::string& rel) const {
    std::ifstream in(std::filesystem::path(path_) / rel, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

 private:
  std::string path_;
};

}  // namespace nodesmith::testing
