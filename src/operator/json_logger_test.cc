#include "operator/json_logger.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace nodesmith::op {
namespace {

TEST(JsonLoggerTest, LinesHaveKarpentersKeysInOrder) {
  auto logger = JsonLogger::Create("info", "", "", "abc1234");
  ASSERT_TRUE(logger.ok());
  const core::Time t = *core::ParseRfc3339("2026-12-01T10:00:00.1239Z");
  const std::string line = (*logger)->Format(
      LogSeverity::kInfo, t, "provisioner", "created nodeclaim",
      {{"NodePool", {{"name", "default"}}}, {"NodeClaim", {{"name", "default-x2k4q"}}}});
  EXPECT_EQ(line,
            R"({"level":"INFO","time":"2026-12-01T10:00:00.123Z","logger":"controller",)"
            R"("message":"created nodeclaim","commit":"abc1234","controller":"provisioner",)"
            R"("NodePool":{"name":"default"},"NodeClaim":{"name":"default-x2k4q"}})");
}

TEST(JsonLoggerTest, LevelFiltersAndWarnCountsAsInfo) {
  auto info = JsonLogger::Create("info", "", "", "");
  auto error = JsonLogger::Create("error", "", "", "");
  auto debug = JsonLogger::Create("debug", "", "", "");
  ASSERT_TRUE(info.ok() && error.ok() && debug.ok());
  EXPECT_FALSE((*info)->Enabled(LogSeverity::kDebug));
  EXPECT_TRUE((*info)->Enabled(LogSeverity::kWarn));
  EXPECT_FALSE((*error)->Enabled(LogSeverity::kWarn));
  EXPECT_TRUE((*error)->Enabled(LogSeverity::kError));
  EXPECT_TRUE((*debug)->Enabled(LogSeverity::kDebug));
  EXPECT_FALSE(JsonLogger::Create("trace", "", "", "").ok());
}

TEST(JsonLoggerTest, WritesEachLineToEveryOutputPath) {
  char a[] = "/tmp/nodesmith-log-a-XXXXXX";
  char b[] = "/tmp/nodesmith-log-b-XXXXXX";
  close(mkstemp(a));
  close(mkstemp(b));
  {
    auto logger = JsonLogger::Create("info", std::string(a) + "," + b, "", "");
    ASSERT_TRUE(logger.ok()) << logger.status().message();
    (*logger)->Log(LogSeverity::kInfo, core::Time{}, "", "one");
    (*logger)->Log(LogSeverity::kDebug, core::Time{}, "", "dropped");
    (*logger)->Log(LogSeverity::kError, core::Time{}, "disruption", "two");
  }
  for (const char* path : {a, b}) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_THAT(text.str(), ::testing::HasSubstr(R"("message":"one")"));
    EXPECT_THAT(text.str(), ::testing::HasSubstr(R"("level":"ERROR")"));
    EXPECT_THAT(text.str(), ::testing::Not(::testing::HasSubstr("dropped")));
    std::remove(path);
  }
}

TEST(JsonLoggerTest, AnUnwritablePathIsAnErrorNamingIt) {
  auto logger = JsonLogger::Create("info", "/nonexistent-dir/x.log", "", "");
  ASSERT_FALSE(logger.ok());
  EXPECT_THAT(logger.status().message(), ::testing::HasSubstr("/nonexistent-dir/x.log"));
}

}  // namespace
}  // namespace nodesmith::op
