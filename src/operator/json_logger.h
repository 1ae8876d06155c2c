// JsonLogger: the operator's log, one JSON object a line, in the shape Karpenter's zap logger
// writes, so a user's log queries keep working:
//   {"level":"INFO","time":"2026-12-01T10:00:00.123Z","logger":"controller",
//    "message":"created nodeclaim","commit":"abc1234","controller":"provisioner",
//    "NodePool":{"name":"default"},"NodeClaim":{"name":"default-x2k4q"},...}
// `fields` are appended after the fixed keys in their given order.
//
// Lines below the level (LOG_LEVEL: debug < info < error; WARN lines count as info) are dropped.
// Every line goes to each of LOG_OUTPUT_PATHS; LOG_ERROR_OUTPUT_PATHS get the logger's own
// failures (a line that could not be written), as zap's ErrorOutputPaths ("stdout", "stderr" or
// file paths, opened for append).
// Thread-safe: lines from different threads never interleave.
#pragma once

#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/status.h"
#include "core/time.h"

namespace nodesmith::op {

enum class LogSeverity { kDebug, kInfo, kWarn, kError };

class JsonLogger {
 public:
  // `level` is debug|info|error; paths are comma-separated. Fails naming a file it cannot open.
  static core::Result<std::unique_ptr<JsonLogger>> Create(const std::string& level,
                                                          const std::string& output_paths,
                                                          const std::string& error_output_paths,
                                                          std::string commit);
  ~JsonLogger();
  JsonLogger(const JsonLogger&) = delete;
  JsonLogger& operator=(const JsonLogger&) = delete;

  bool Enabled(LogSeverity severity) const;
  // Writes one line stamped with `time`. `controller` is omitted when empty.
  void Log(LogSeverity severity, core::Time time, const std::string& controller,
           const std::string& message, const nlohmann::ordered_json& fields = {});
  // The line Log would write (tests).
  std::string Format(LogSeverity severity, core::Time time, const std::string& controller,
                     const std::string& message, const nlohmann::ordered_json& fields) const;

 private:
  struct Sink {
    FILE* file = nullptr;
    bool owned = false;
  };
  JsonLogger() = default;
  static core::Result<std::vector<Sink>> Open(const std::string& paths);

  LogSeverity threshold_ = LogSeverity::kInfo;
  std::string commit_;
  std::vector<Sink> outputs_;
  std::vector<Sink> error_outputs_;
  std::mutex mu_;
};

// "2026-12-01T10:00:00.123Z": ISO 8601 in UTC with milliseconds, as zap's ISO8601 encoder.
std::string FormatLogTime(core::Time time);

}  // namespace nodesmith::op
