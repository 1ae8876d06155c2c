// `nodesmith controller [flags]`: the operator in a cluster (src/operator/, operator.md). The
// settings come from Karpenter's environment variables and flags; SIGTERM and SIGINT stop it
// cleanly (the reconcile in flight finishes, Events are flushed, the leader Lease is released)
// and it exits 0; a second signal exits at once with 1. Bad configuration exits 2 with one line
// naming the variable and its flag.
#include <signal.h>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <thread>

#include "cli/command.h"
#include "core/system_clock.h"
#include "operator/json_logger.h"
#include "operator/operator.h"
#include "operator/options.h"

namespace nodesmith::cli {
namespace {

int RunController(const op::RawOptions& raw) {
  auto options = op::ResolveOptions(raw, op::ProcessEnvironment());
  if (!options.ok()) {
    std::cerr << "nodesmith controller: " << options.status().message() << "\n";
    return kExitBadInput;
  }
  auto logger = op::JsonLogger::Create(options->log_level, options->log_output_paths,
                                       options->log_error_output_paths, NODESMITH_COMMIT);
  if (!logger.ok()) {
    std::cerr << "nodesmith controller: invalid LOG_OUTPUT_PATHS (--log-output-paths): "
              << logger.status().message() << "\n";
    return kExitBadInput;
  }

  // Signals are taken by one thread with sigwait; every other thread (started below) inherits
  // the mask and never sees them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  op::Operator controller(*options, **logger);
  std::atomic<bool> done{false};
  std::thread watcher([&] {
    int received = 0;
    const timespec tick{0, 200'000'000};
    while (!done.load()) {
      const int sig = sigtimedwait(&signals, nullptr, &tick);
      if (sig < 0) continue;
      if (++received == 1) {
        (*logger)->Log(op::LogSeverity::kInfo, core::SystemNow(), "",
                       "received signal, shutting down",
                       {{"signal", sig == SIGTERM ? "SIGTERM" : "SIGINT"}});
        controller.Shutdown();
      } else {
        (*logger)->Log(op::LogSeverity::kError, core::SystemNow(), "",
                       "received a second signal, exiting now");
        std::_Exit(kExitFailure);
      }
    }
  });
  const int code = controller.Run();
  done = true;
  watcher.join();
  return code;
}

}  // namespace

void RegisterController(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand(
      "controller",
      "Run the autoscaler in a cluster, as Karpenter's controller (settings from Karpenter's "
      "environment variables; each also a flag)");
  auto raw = std::make_shared<op::RawOptions>();
  op::AddOptionFlags(cmd, raw.get());
  cmd->callback([raw, exit_code] { *exit_code = RunController(*raw); });
}

}  // namespace nodesmith::cli
