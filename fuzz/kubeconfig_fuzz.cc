// LoadKubeconfig on an arbitrary kubeconfig file (--kubeconfig, KUBECONFIG): YAML that a user or a
// tool wrote, with base64 fields, exec plugins, file references and context selection. Loading
// must end in a RestConfig or a clean error. The input is written to a file in a directory of its
// own that also holds a CA bundle, a client certificate and key and a token, so that relative
// references in the input can resolve and the loader goes past them.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

#include "fuzz_check.h"
#include "kube/kubeconfig.h"

namespace {

void WriteFile(const std::filesystem::path& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  if (!out) nodesmith::fuzz::Fail("cannot write", path.string());
}

// The directory of this process's kubeconfig, created once with the files a seed may name and
// removed at exit. The path is never destroyed, so the exit handler can still read it.
const std::filesystem::path& Dir() {
  static const std::filesystem::path* dir = [] {
    auto* d = new std::filesystem::path(std::filesystem::temp_directory_path() /
                                        ("nodesmith-kubeconfig-fuzz-" + std::to_string(::getpid())));
    std::filesystem::create_directories(*d);
    std::atexit([] {
      std::error_code ignored;
      std::filesystem::remove_all(Dir(), ignored);
    });
    const std::string pem = "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUfuzz\n-----END CERTIFICATE-----\n";
    WriteFile(*d / "ca.crt", pem);
    WriteFile(*d / "client.crt", pem);
    WriteFile(*d / "client.key", "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIfuzz\n-----END EC PRIVATE KEY-----\n");
    WriteFile(*d / "token", "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQ6a3ViZS1zeXN0ZW06bm9kZXNtaXRoIn0.c2ln\n");
    return d;
  }();
  return *dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::filesystem::path config = Dir() / "config";
  WriteFile(config, text);
  nodesmith::kube::KubeconfigOptions options;
  options.kubeconfig = config.string();
  // Nothing from the environment: the result depends on the input alone.
  options.env = [](const std::string&) -> std::optional<std::string> { return std::nullopt; };
  auto loaded = nodesmith::kube::LoadKubeconfig(options);
  if (loaded.ok() && loaded->server.empty()) nodesmith::fuzz::Fail("a loaded kubeconfig has no server", text);
  return 0;
}
