// How the REST client retries, against a loopback HTTP server that answers from a script:
// reads are retried on 5xx, 429 and silence; writes only when the server certainly did not apply
// them; a PodDisruptionBudget's 429 is an answer.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <deque>
#include <mutex>

#include "kube/rest_client.h"
#include "loopback_http_server.h"

namespace nodesmith::kube {
namespace {

using ::testing::HasSubstr;

// Answers each request with the next scripted status (then 200 with "{}"); "hang" answers never.
class ScriptedServer {
 public:
  explicit ScriptedServer(std::deque<std::string> script)
      : script_(std::move(script)), server_([this](const testing::LoopbackRequest&) { return Next(); }) {}
  std::string url() const { return server_.url(); }
  int requests() const { return static_cast<int>(server_.request_count()); }

 private:
  testing::LoopbackResponse Next() {
    std::string next;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!script_.empty()) {
        next = script_.front();
        script_.pop_front();
      }
    }
    if (next == "hang") return {0, "", {}};
    int status = next.empty() ? 200 : std::stoi(next.substr(0, 3));
    std::string body = status == 429
                           ? R"({"kind":"Status","code":429,"message":"Cannot evict pod as it would violate the pod's disruption budget.","reason":"TooManyRequests"})"
                       : status == 200 ? std::string("{}")
                                       : R"({"kind":"Status","message":"etcdserver: leader changed"})";
    return {status, body, {{"Content-Type", "application/json"}, {"Retry-After", "0"}}};
  }

  std::mutex mu_;
  std::deque<std::string> script_;
  testing::LoopbackHttpServer server_;  // last: its thread calls Next, which uses the above
};

RestConfig ConfigFor(const ScriptedServer& server) {
  RestConfig config;
  config.server = server.url();
  config.identity = "user \"test\"";
  config.timeout_seconds = 0.5;
  return config;
}

TEST(RestClientRetryTest, ReadsAreRetriedOn5xxAnd429UntilTheyAnswer) {
  ScriptedServer server({"503 Service Unavailable", "500 Internal Server Error", "429 Too Many Requests"});
  RestClient client(ConfigFor(server));
  auto r = client.Get(resources::kNodes, "", "n1");
  EXPECT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(server.requests(), 4);
}

TEST(RestClientRetryTest, ReadsGiveUpAfterFiveTriesWithTheServersMessage) {
  ScriptedServer server({"500 Internal Server Error", "500 Internal Server Error", "500 Internal Server Error",
                         "500 Internal Server Error", "500 Internal Server Error", "500 Internal Server Error"});
  RestClient client(ConfigFor(server));
  auto r = client.Get(resources::kNodes, "", "n1");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), core::StatusCode::kUnavailable);
  EXPECT_THAT(r.status().message(), HasSubstr("answered 500 to get nodes: etcdserver: leader changed"));
  EXPECT_EQ(server.requests(), 5);
}

TEST(RestClientRetryTest, AWriteIsNotRepeatedAfterA500ButIsAfterA503) {
  {
    ScriptedServer server({"500 Internal Server Error"});
    RestClient client(ConfigFor(server));
    auto r = client.Create(resources::kNodes, "", {{"metadata", {{"name", "n1"}}}});
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(server.requests(), 1);  // the server may have stored it: do not create twice
  }
  {
    ScriptedServer server({"503 Service Unavailable"});
    RestClient client(ConfigFor(server));
    auto r = client.Create(resources::kNodes, "", {{"metadata", {{"name", "n1"}}}});
    EXPECT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(server.requests(), 2);
  }
}

TEST(RestClientRetryTest, ABudgetRefusingAnEvictionIsAnsweredOnce) {
  ScriptedServer server({"429 Too Many Requests"});
  RestClient client(ConfigFor(server));
  core::Status st = client.Evict("default", "web-1");
  EXPECT_EQ(st.code(), core::StatusCode::kUnavailable);
  EXPECT_THAT(st.message(), HasSubstr("disruption budget"));
  EXPECT_EQ(server.requests(), 1);
}

TEST(RestClientRetryTest, AServerThatNeverAnswersTimesOut) {
  ScriptedServer server({"hang", "hang", "hang", "hang", "hang"});
  RestClient client(ConfigFor(server));
  auto r = client.Get(resources::kNodes, "", "n1");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), core::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(r.status().message(), HasSubstr("did not answer in time"));
  EXPECT_EQ(server.requests(), 5);
}

}  // namespace
}  // namespace nodesmith::kube
