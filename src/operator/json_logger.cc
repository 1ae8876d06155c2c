#include "operator/json_logger.h"

#include <cerrno>
#include <cstring>
#include <ctime>
#include <sstream>

namespace nodesmith::op {

namespace {

const char* LevelName(LogSeverity s) {
  switch (s) {
    case LogSeverity::kDebug:
      return "DEBUG";
    case LogSeverity::kInfo:
      return "INFO";
    case LogSeverity::kWarn:
      return "WARN";
    case LogSeverity::kError:
      return "ERROR";
  }
  return "INFO";
}

std::vector<std::string> SplitPaths(const std::string& paths) {
  std::vector<std::string> out;
  std::stringstream in(paths);
  std::string p;
  while (std::getline(in, p, ',')) {
    while (!p.empty() && p.front() == ' ') p.erase(p.begin());
    while (!p.empty() && p.back() == ' ') p.pop_back();
    if (!p.empty()) out.push_back(p);
  }
  return out;
}

}  // namespace

std::string FormatLogTime(core::Time time) {
  int64_t nanos = time.unix_nanos;
  int64_t secs = nanos / 1'000'000'000;
  int64_t rem = nanos % 1'000'000'000;
  if (rem < 0) {
    rem += 1'000'000'000;
    --secs;
  }
  const std::time_t t = static_cast<std::time_t>(secs);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[96];
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(rem / 1'000'000));
  return buf;
}

core::Result<std::vector<JsonLogger::Sink>> JsonLogger::Open(const std::string& paths) {
  std::vector<Sink> sinks;
  for (const std::string& p : SplitPaths(paths)) {
    if (p == "stdout") {
      sinks.push_back({stdout, false});
    } else if (p == "stderr") {
      sinks.push_back({stderr, false});
    } else {
      FILE* f = std::fopen(p.c_str(), "a");
      if (f == nullptr) {
        for (Sink& s : sinks) {
          if (s.owned) std::fclose(s.file);
        }
        return core::Status::Invalid("cannot open log output " + p + ": " +
                                     std::strerror(errno));
      }
      sinks.push_back({f, true});
    }
  }
  return sinks;
}

core::Result<std::unique_ptr<JsonLogger>> JsonLogger::Create(const std::string& level,
                                                             const std::string& output_paths,
                                                             const std::string& error_output_paths,
                                                             std::string commit) {
  std::unique_ptr<JsonLogger> logger(new JsonLogger());
  if (level == "debug") {
    logger->threshold_ = LogSeverity::kDebug;
  } else if (level == "info") {
    logger->threshold_ = LogSeverity::kInfo;
  } else if (level == "error") {
    logger->threshold_ = LogSeverity::kError;
  } else {
    return core::Status::Invalid("invalid log level \"" + level + "\"");
  }
  logger->commit_ = std::move(commit);
  auto out = Open(output_paths);
  if (!out.ok()) return out.status();
  logger->outputs_ = std::move(*out);
  auto err = Open(error_output_paths);
  if (!err.ok()) return err.status();
  logger->error_outputs_ = std::move(*err);
  return logger;
}

JsonLogger::~JsonLogger() {
  for (auto* sinks : {&outputs_, &error_outputs_}) {
    for (Sink& s : *sinks) {
      if (s.owned) {
        std::fclose(s.file);
      } else {
        std::fflush(s.file);
      }
    }
  }
}

bool JsonLogger::Enabled(LogSeverity severity) const {
  const LogSeverity effective = severity == LogSeverity::kWarn ? LogSeverity::kInfo : severity;
  return effective >= threshold_;
}

std::string JsonLogger::Format(LogSeverity severity, core::Time time,
                               const std::string& controller, const std::string& message,
                               const nlohmann::ordered_json& fields) const {
  nlohmann::ordered_json line;
  line["level"] = LevelName(severity);
  line["time"] = FormatLogTime(time);
  line["logger"] = "controller";
  line["message"] = message;
  line["commit"] = commit_;
  if (!controller.empty()) line["controller"] = controller;
  if (fields.is_object()) {
    for (const auto& [key, value] : fields.items()) line[key] = value;
  }
  return line.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

void JsonLogger::Log(LogSeverity severity, core::Time time, const std::string& controller,
                     const std::string& message, const nlohmann::ordered_json& fields) {
  if (!Enabled(severity)) return;
  const std::string line = Format(severity, time, controller, message, fields) + "\n";
  std::lock_guard<std::mutex> lock(mu_);
  for (Sink& s : outputs_) {
    if (std::fwrite(line.data(), 1, line.size(), s.file) != line.size() ||
        std::fflush(s.file) != 0) {
      // The logger's own failures go to the error outputs, as zap's ErrorOutputPaths.
      const std::string note = FormatLogTime(time) + " write error: " + std::strerror(errno) + "\n";
      for (Sink& e : error_outputs_) {
        std::fwrite(note.data(), 1, note.size(), e.file);
        std::fflush(e.file);
      }
    }
  }
}

}  // namespace nodesmith::op
