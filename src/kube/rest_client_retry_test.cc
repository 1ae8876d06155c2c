// How the REST client retries, against a loopback HTTP server that answers from a script:
// reads are retried on 5xx, 429 and silence; writes only when the server certainly did not apply
// them; a PodDisruptionBudget's 429 is an answer.
#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <deque>
#include <mutex>
#include <thread>

#include "kube/rest_client.h"

namespace nodesmith::kube {
namespace {

using ::testing::HasSubstr;

// Answers each request with the next scripted status (then 200 with "{}"); "hang" answers never.
class ScriptedServer {
 public:
  explicit ScriptedServer(std::deque<std::string> script) : script_(std::move(script)) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    socklen_t len = sizeof addr;
    getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    listen(fd_, 16);
    thread_ = std::thread([this] { Serve(); });
  }
  ~ScriptedServer() {
    stop_ = true;
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    thread_.join();
    for (int c : hung_) close(c);
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int requests() const { return requests_.load(); }

 private:
  void Serve() {
    while (!stop_) {
      int c = accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      // One request per connection is enough here: answer and close.
      std::string request;
      char buf[4096];
      while (request.find("\r\n\r\n") == std::string::npos) {
        ssize_t n = read(c, buf, sizeof buf);
        if (n <= 0) break;
        request.append(buf, n);
      }
      ++requests_;
      std::string next;
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (!script_.empty()) {
          next = script_.front();
          script_.pop_front();
        }
      }
      if (next == "hang") {
        hung_.push_back(c);
        continue;
      }
      std::string status = next.empty() ? "200 OK" : next;
      std::string body = status.rfind("429", 0) == 0
                             ? R"({"kind":"Status","code":429,"message":"Cannot evict pod as it would violate the pod's disruption budget.","reason":"TooManyRequests"})"
                             : status.rfind("200", 0) == 0 ? std::string("{}")
                                                           : R"({"kind":"Status","message":"etcdserver: leader changed"})";
      std::string response = "HTTP/1.1 " + status + "\r\nContent-Type: application/json\r\nRetry-After: 0\r\n"
                             "Connection: close\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
      (void)!write(c, response.data(), response.size());
      close(c);
    }
  }

  std::mutex mu_;
  std::deque<std::string> script_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> requests_{0};
  std::vector<int> hung_;
  std::thread thread_;
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
