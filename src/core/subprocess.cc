#include "core/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cctype>
#include <cstring>

extern char** environ;

namespace nodesmith::core {

namespace {

void CloseFd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace

Result<SubprocessResult> RunSubprocess(const std::string& path, const std::vector<std::string>& argv,
                                       const std::vector<std::string>& envp,
                                       const SubprocessLimits& limits) {
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

  SubprocessResult result;
  const auto deadline = std::chrono::steady_clock::now() + limits.timeout;
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
        if (result.out.size() > limits.max_output) result.output_too_large = true;
      } else {
        result.err.append(buf, static_cast<size_t>(got));
        if (result.err.size() > 2 * limits.stderr_kept)
          result.err.erase(0, result.err.size() - limits.stderr_kept);
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
  if (result.err.size() > limits.stderr_kept) result.err.erase(0, result.err.size() - limits.stderr_kept);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  return result;
}

std::vector<std::string> CurrentEnvironment() {
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) env.emplace_back(*e);
  return env;
}

std::string StderrTail(const std::string& err, size_t max_chars) {
  size_t b = 0, e = err.size();
  while (b < e && std::isspace(static_cast<unsigned char>(err[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(err[e - 1]))) --e;
  std::string t = err.substr(b, e - b);
  if (t.size() > max_chars) t = "..." + t.substr(t.size() - max_chars);
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

}  // namespace nodesmith::core
