#include "kube/credentials.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/base64.h"
#include "core/duration.h"
#include "core/read_file.h"
#include "core/subprocess.h"

namespace nodesmith::kube {
namespace {

using core::Result;
using core::Status;
using core::StatusCode;
using SteadyTime = std::chrono::steady_clock::time_point;

constexpr size_t kMaxPluginOutput = 4 << 20;  // an ExecCredential is a few KiB
constexpr size_t kStderrKept = 64 << 10;
constexpr size_t kStderrShown = 1000;

std::string Quote(const std::string& s) { return "\"" + s + "\""; }

std::string Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

Result<std::string> ReadFile(const std::string& path) {
  auto content = core::ReadWholeFile(path);
  if (!content.ok()) return Status::Unavailable(content.status().message());
  return content;
}



bool IsExecutableFile(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

// Finds the program to run as execvp would: a command with a '/' as is, else the first
// executable file of that name in a PATH directory. nullopt when there is none.
std::optional<std::string> FindExecutable(const std::string& command) {
  if (command.find('/') != std::string::npos) {
    if (IsExecutableFile(command)) return command;
    return std::nullopt;
  }
  const char* path_env = std::getenv("PATH");
  std::string path = path_env != nullptr ? path_env : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    std::string dir = path.substr(start, end - start);
    if (dir.empty()) dir = ".";
    std::string candidate = dir + "/" + command;
    if (IsExecutableFile(candidate)) return candidate;
    start = end + 1;
  }
  return std::nullopt;
}

// The environment of the plugin: ours, then the kubeconfig's `env` and KUBERNETES_EXEC_INFO,
// later names replacing earlier ones.
std::vector<std::string> PluginEnv(const std::vector<std::pair<std::string, std::string>>& extra) {
  std::vector<std::string> env = core::CurrentEnvironment();
  for (const auto& [name, value] : extra) {
    const std::string prefix = name + "=";
    bool replaced = false;
    for (auto& e : env) {
      if (e.compare(0, prefix.size(), prefix) == 0) {
        e = prefix + value;
        replaced = true;
      }
    }
    if (!replaced) env.push_back(prefix + value);
  }
  return env;
}

std::string ExecInfo(const ExecConfig& exec, const RestConfig& config) {
  nlohmann::json spec = {{"interactive", false}};
  if (exec.provide_cluster_info) {
    nlohmann::json cluster = {{"server", config.server}};
    if (!config.tls_server_name.empty()) cluster["tls-server-name"] = config.tls_server_name;
    if (config.insecure_skip_tls_verify) cluster["insecure-skip-tls-verify"] = true;
    if (!config.ca_pem.empty()) {
      cluster["certificate-authority-data"] = core::Base64Encode(config.ca_pem);
    }
    spec["cluster"] = std::move(cluster);
  }
  nlohmann::json request = {
      {"apiVersion", exec.api_version}, {"kind", "ExecCredential"}, {"spec", std::move(spec)}};
  return request.dump();
}

core::Time SystemNow() {
  return core::Time{std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::system_clock::now().time_since_epoch())
                        .count()};
}

}  // namespace

Result<ParsedCredential> ParseExecCredential(const std::string& out, const std::string& want) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(out);
  } catch (const nlohmann::json::parse_error& e) {
    if (Trim(out).empty()) return Status::Internal("printed nothing on stdout");
    return Status::Internal("did not print an ExecCredential as JSON (invalid JSON at byte " +
                            std::to_string(e.byte) + ")");
  } catch (const nlohmann::json::out_of_range&) {
    // nlohmann/json's error for a number beyond a double (1e400), which is no parse_error.
    return Status::Internal(
        "did not print an ExecCredential as JSON (a number beyond the range of a double)");
  }
  if (!j.is_object()) return Status::Internal("did not print an ExecCredential JSON object");
  auto str = [](const nlohmann::json& o, const char* key) -> std::optional<std::string> {
    auto it = o.find(key);
    if (it == o.end() || it->is_null()) return std::string();
    if (!it->is_string()) return std::nullopt;
    return it->get<std::string>();
  };
  auto kind = str(j, "kind");
  if (!kind || *kind != "ExecCredential") {
    return Status::Internal("printed kind " + Quote(kind.value_or("?")) +
                            ", not an ExecCredential");
  }
  auto api_version = str(j, "apiVersion");
  if (!api_version || *api_version != want) {
    return Status::Internal("printed apiVersion " + Quote(api_version.value_or("?")) +
                            " but the kubeconfig's exec.apiVersion is " + Quote(want) +
                            "; set exec.apiVersion to the version the plugin prints");
  }
  auto status_it = j.find("status");
  if (status_it == j.end() || !status_it->is_object()) {
    return Status::Internal("printed an ExecCredential without a status");
  }
  const nlohmann::json& st = *status_it;
  ParsedCredential parsed;
  auto token = str(st, "token");
  auto cert = str(st, "clientCertificateData");
  auto key = str(st, "clientKeyData");
  auto expiry = str(st, "expirationTimestamp");
  if (!token || !cert || !key || !expiry) {
    return Status::Internal(
        "printed an ExecCredential whose status fields are not all strings (token, "
        "clientCertificateData, clientKeyData, expirationTimestamp)");
  }
  if (token->empty() && cert->empty() && key->empty()) {
    return Status::Internal(
        "printed an ExecCredential with neither a token nor a client "
        "certificate and key");
  }
  if (cert->empty() != key->empty()) {
    return Status::Internal(
        "printed only one of clientCertificateData and clientKeyData; both "
        "are needed");
  }
  parsed.credentials.bearer_token = *token;
  parsed.credentials.client_cert_pem = *cert;
  parsed.credentials.client_key_pem = *key;
  if (!expiry->empty()) {
    auto t = core::ParseRfc3339(*expiry);
    if (!t.ok()) {
      return Status::Internal("printed an expirationTimestamp that is not RFC 3339: " +
                              Quote(*expiry));
    }
    parsed.expiry = *t;
  }
  return parsed;
}

CredentialProvider::CredentialProvider(RestConfig config, CredentialProviderOptions options)
    : config_(std::move(config)), options_([&] {
        if (!options.now) options.now = [] { return std::chrono::steady_clock::now(); };
        if (!options.wall_now) options.wall_now = SystemNow;
        return std::move(options);
      }()) {}

Result<Credentials> CredentialProvider::Current() {
  std::lock_guard<std::mutex> lock(mu_);
  Credentials c;
  c.client_cert_pem = config_.client_cert_pem;
  c.client_key_pem = config_.client_key_pem;
  c.bearer_token = config_.bearer_token;
  if (!config_.token_file.empty()) {
    auto token = FileTokenLocked();
    if (token.ok()) {
      c.bearer_token = *token;
    } else if (config_.bearer_token.empty()) {
      return token.status();
    }
  }
  // A bearer token already in hand is what client-go sends; the plugin is not consulted.
  if (config_.exec && c.bearer_token.empty()) {
    auto exec = ExecCredentialsLocked();
    if (!exec.ok()) return exec.status();
    c.bearer_token = exec->bearer_token;
    if (c.client_cert_pem.empty()) {
      c.client_cert_pem = exec->client_cert_pem;
      c.client_key_pem = exec->client_key_pem;
    }
  }
  return c;
}

void CredentialProvider::Invalidate() {
  std::lock_guard<std::mutex> lock(mu_);
  exec_cache_.reset();
  file_token_stale_ = true;
}

Result<std::string> CredentialProvider::FileTokenLocked() {
  const SteadyTime now = options_.now();
  if (!file_token_.empty() && !file_token_stale_ &&
      now - file_token_read_at_ < options_.token_file_refresh) {
    return file_token_;
  }
  std::string who = config_.identity.empty() ? "" : " (" + config_.identity + ")";
  auto content = ReadFile(config_.token_file);
  Status error;
  if (content.ok()) {
    std::string token = Trim(*content);
    if (!token.empty()) {
      file_token_ = std::move(token);
      file_token_read_at_ = now;
      file_token_stale_ = false;
      return file_token_;
    }
    error = Status::Unavailable("token file " + config_.token_file + who + " is empty");
  } else {
    error = content.status().WithPrefix("token file " + config_.token_file + who);
  }
  // As client-go's cached token source: a failed re-read keeps the last good token (and tries
  // again on the next call), unless the server has just refused that token.
  if (!file_token_.empty() && !file_token_stale_) return file_token_;
  return error;
}

Result<Credentials> CredentialProvider::ExecCredentialsLocked() {
  const SteadyTime now = options_.now();
  if (exec_cache_ && (!exec_cache_->valid_until || now < *exec_cache_->valid_until)) {
    return exec_cache_->credentials;
  }
  exec_cache_.reset();
  const ExecConfig& exec = *config_.exec;
  std::string name = "exec credential plugin " + Quote(exec.command);
  if (!config_.identity.empty()) name += " for " + config_.identity;

  if (exec.interactive_mode == "Always") {
    return Status(StatusCode::kFailedPrecondition,
                  name +
                      ": its interactiveMode is Always, but nodesmith runs plugins without a "
                      "terminal; set exec.interactiveMode to IfAvailable or Never");
  }
  std::optional<std::string> path = FindExecutable(exec.command);
  if (!path) {
    std::string msg =
        name + ": executable " + Quote(exec.command) +
        (exec.command.find('/') != std::string::npos ? " does not exist or is not executable"
                                                     : " not found on PATH");
    msg += exec.install_hint.empty()
               ? "; install it or fix users[].user.exec.command in the kubeconfig"
               : ". " + Trim(exec.install_hint);
    return Status(StatusCode::kFailedPrecondition, msg);
  }

  std::vector<std::string> argv = {exec.command};
  argv.insert(argv.end(), exec.args.begin(), exec.args.end());
  auto extra = exec.env;
  extra.emplace_back("KUBERNETES_EXEC_INFO", ExecInfo(exec, config_));
  core::SubprocessLimits limits;
  limits.timeout = options_.exec_timeout;
  limits.max_output = kMaxPluginOutput;
  limits.stderr_kept = kStderrKept;
  auto run = core::RunSubprocess(*path, argv, PluginEnv(extra), limits);
  if (!run.ok()) return run.status().WithPrefix(name);
  const core::SubprocessResult& r = *run;
  const std::string tail = core::StderrTail(r.err, kStderrShown);
  const std::string stderr_part = tail.empty() ? "" : ": " + tail;
  if (r.timed_out) {
    return Status::Unavailable(name + ": did not finish within " +
                               core::FormatDuration(options_.exec_timeout) + " and was killed" +
                               stderr_part);
  }
  if (r.output_too_large) {
    return Status::Internal(name + ": printed more than " + std::to_string(kMaxPluginOutput >> 20) +
                            " MiB; it is not an "
                            "ExecCredential");
  }
  if (r.signal != 0) {
    return Status::Unavailable(name + ": killed by signal " + std::to_string(r.signal) +
                               stderr_part);
  }
  if (r.exit_code != 0) {
    return Status::Unavailable(name + ": exited with status " + std::to_string(r.exit_code) +
                               stderr_part);
  }
  auto parsed = ParseExecCredential(r.out, exec.api_version);
  if (!parsed.ok()) return parsed.status().WithPrefix(name);

  ExecCache cache{parsed->credentials, std::nullopt};
  if (parsed->expiry) {
    // Expiry is wall time; hold it as a monotonic deadline so a clock step cannot extend it.
    auto left = (*parsed->expiry - options_.wall_now()) - options_.exec_expiry_margin;
    cache.valid_until = left.count() > 0 ? now + left : now;
  }
  exec_cache_ = cache;
  return cache.credentials;
}

}  // namespace nodesmith::kube
