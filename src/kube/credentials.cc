#include "kube/credentials.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
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

#include "core/duration.h"

extern char** environ;

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
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::Unavailable(std::strerror(errno));
  std::string out;
  char buf[8192];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      return Status::Unavailable(std::strerror(err));
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

std::string EncodeBase64(std::string_view in) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    uint32_t v = (static_cast<uint8_t>(in[i]) << 16) | (static_cast<uint8_t>(in[i + 1]) << 8) |
                 static_cast<uint8_t>(in[i + 2]);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (i < in.size()) {
    uint32_t v = static_cast<uint8_t>(in[i]) << 16;
    if (i + 1 < in.size()) v |= static_cast<uint8_t>(in[i + 1]) << 8;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += i + 1 < in.size() ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

// The last part of a plugin's stderr, on one line, for an error message.
std::string StderrTail(const std::string& err) {
  std::string t = Trim(err);
  if (t.size() > kStderrShown) t = "..." + t.substr(t.size() - kStderrShown);
  std::string out;
  for (char c : t) {
    if (c == '\n') {
      out += "; ";
    } else if (c != '\r') {
      out += c;
    }
  }
  return out;
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

struct ProcessResult {
  int exit_code = 0;
  int signal = 0;  // non-zero when killed by a signal
  bool timed_out = false;
  bool output_too_large = false;
  std::string out;
  std::string err;  // the last kStderrKept bytes
};

void CloseFd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// Runs `path` with `argv` and `envp`, stdin from /dev/null, capturing stdout and stderr. The
// child leads its own process group so that a timeout kills whatever it started as well.
Result<ProcessResult> RunProcess(const std::string& path, const std::vector<std::string>& argv,
                                 const std::vector<std::string>& envp,
                                 std::chrono::nanoseconds timeout) {
  int out_pipe[2] = {-1, -1};
  int err_pipe[2] = {-1, -1};
  if (::pipe2(out_pipe, O_CLOEXEC) != 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0) {
    int err = errno;
    CloseFd(out_pipe[0]);
    CloseFd(out_pipe[1]);
    return Status::Internal(std::string("cannot create a pipe: ") + std::strerror(err));
  }

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t no_signals;
  sigemptyset(&no_signals);
  sigset_t default_signals;
  sigemptyset(&default_signals);
  sigaddset(&default_signals, SIGPIPE);
  sigaddset(&default_signals, SIGINT);
  sigaddset(&default_signals, SIGTERM);
  sigaddset(&default_signals, SIGCHLD);
  posix_spawnattr_setsigmask(&attr, &no_signals);
  posix_spawnattr_setsigdefault(&attr, &default_signals);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  std::vector<char*> c_argv;
  for (const auto& a : argv) c_argv.push_back(const_cast<char*>(a.c_str()));
  c_argv.push_back(nullptr);
  std::vector<char*> c_envp;
  for (const auto& e : envp) c_envp.push_back(const_cast<char*>(e.c_str()));
  c_envp.push_back(nullptr);

  pid_t pid = -1;
  int rc = posix_spawn(&pid, path.c_str(), &actions, &attr, c_argv.data(), c_envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  CloseFd(out_pipe[1]);
  CloseFd(err_pipe[1]);
  if (rc != 0) {
    CloseFd(out_pipe[0]);
    CloseFd(err_pipe[0]);
    return Status(StatusCode::kFailedPrecondition,
                  std::string("cannot run ") + path + ": " + std::strerror(rc));
  }

  ProcessResult result;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  auto remaining_ms = [&]() -> int {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    return left.count() < 0 ? 0 : static_cast<int>(std::min<int64_t>(left.count(), 1 << 30));
  };
  int fds[2] = {out_pipe[0], err_pipe[0]};
  char buf[16384];
  while (fds[0] >= 0 || fds[1] >= 0) {
    int left = remaining_ms();
    if (left == 0) {
      result.timed_out = true;
      break;
    }
    pollfd pfds[2];
    nfds_t n = 0;
    int which[2];
    for (int i = 0; i < 2; ++i) {
      if (fds[i] >= 0) {
        pfds[n] = pollfd{fds[i], POLLIN, 0};
        which[n++] = i;
      }
    }
    int ready = ::poll(pfds, n, left);
    if (ready < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (nfds_t k = 0; k < n; ++k) {
      if (pfds[k].revents == 0) continue;
      int i = which[k];
      ssize_t got = ::read(fds[i], buf, sizeof buf);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        CloseFd(fds[i]);
        continue;
      }
      if (i == 0) {
        result.out.append(buf, static_cast<size_t>(got));
        if (result.out.size() > kMaxPluginOutput) result.output_too_large = true;
      } else {
        result.err.append(buf, static_cast<size_t>(got));
        if (result.err.size() > 2 * kStderrKept)
          result.err.erase(0, result.err.size() - kStderrKept);
      }
    }
    if (result.output_too_large) break;
  }
  CloseFd(fds[0]);
  CloseFd(fds[1]);

  int status = 0;
  bool reaped = false;
  while (!result.timed_out && !result.output_too_large) {
    pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid) {
      reaped = true;
      break;
    }
    if (w < 0 && errno == ECHILD) {  // reaped elsewhere (SIGCHLD ignored): status unknown
      reaped = true;
      break;
    }
    if (w < 0 && errno != EINTR) break;
    if (remaining_ms() == 0) {
      result.timed_out = true;
      break;
    }
    ::poll(nullptr, 0, 5);  // closed its output but has not exited yet
  }
  if (!reaped) {
    ::kill(-pid, SIGKILL);
    ::kill(pid, SIGKILL);
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  if (result.err.size() > kStderrKept) result.err.erase(0, result.err.size() - kStderrKept);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  return result;
}

// The environment of the plugin: ours, then the kubeconfig's `env` and KUBERNETES_EXEC_INFO,
// later names replacing earlier ones.
std::vector<std::string> PluginEnv(const std::vector<std::pair<std::string, std::string>>& extra) {
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) env.emplace_back(*e);
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
      cluster["certificate-authority-data"] = EncodeBase64(config.ca_pem);
    }
    spec["cluster"] = std::move(cluster);
  }
  nlohmann::json request = {
      {"apiVersion", exec.api_version}, {"kind", "ExecCredential"}, {"spec", std::move(spec)}};
  return request.dump();
}

struct ParsedCredential {
  Credentials credentials;
  std::optional<core::Time> expiry;
};

// Parses the ExecCredential a plugin printed. Messages never quote the output: it holds secrets.
Result<ParsedCredential> ParseExecCredential(const std::string& out, const std::string& want) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(out);
  } catch (const nlohmann::json::parse_error& e) {
    if (Trim(out).empty()) return Status::Internal("printed nothing on stdout");
    return Status::Internal("did not print an ExecCredential as JSON (invalid JSON at byte " +
                            std::to_string(e.byte) + ")");
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

core::Time SystemNow() {
  return core::Time{std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::system_clock::now().time_since_epoch())
                        .count()};
}

}  // namespace

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
  auto run = RunProcess(*path, argv, PluginEnv(extra), options_.exec_timeout);
  if (!run.ok()) return run.status().WithPrefix(name);
  const ProcessResult& r = *run;
  const std::string tail = StderrTail(r.err);
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
