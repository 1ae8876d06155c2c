// HttpServer on real loopback sockets, driven by a raw-socket client written here, so every byte
// the server sends is visible. (Named *_unit_test.cc: *_server_test.cc files are the suites that
// need the test control plane.)
#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "operator/http_server.h"

namespace nodesmith::op {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using namespace std::chrono_literals;

// A blocking client connection with a receive timeout.
class Client {
 public:
  explicit Client(int port, const char* ip = "127.0.0.1") {
    fd_ = ::socket(ip[0] == ':' ? AF_INET6 : AF_INET, SOCK_STREAM, 0);
    timeval tv{5, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    int rc;
    if (ip[0] == ':') {
      sockaddr_in6 a{};
      a.sin6_family = AF_INET6;
      a.sin6_port = htons(static_cast<uint16_t>(port));
      ::inet_pton(AF_INET6, ip, &a.sin6_addr);
      rc = ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a));
    } else {
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_port = htons(static_cast<uint16_t>(port));
      ::inet_pton(AF_INET, ip, &a.sin_addr);
      rc = ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a));
    }
    connected_ = rc == 0;
  }
  ~Client() {
    if (fd_ >= 0) ::close(fd_);
  }
  bool connected() const { return connected_; }
  void Send(std::string_view data) {
    ASSERT_EQ(::send(fd_, data.data(), data.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(data.size()));
  }
  // Everything until the server closes the connection (or the 5 s timeout).
  std::string ReadToClose() {
    std::string out;
    char buf[4096];
    for (;;) {
      const ssize_t n = ::recv(fd_, buf, sizeof(buf), 0);
      if (n <= 0) break;
      out.append(buf, static_cast<size_t>(n));
    }
    return out;
  }
  // One response: the head, then Content-Length bytes of body (none for HEAD).
  std::string ReadResponse(bool head_request = false) {
    std::string out;
    char c;
    while (out.find("\r\n\r\n") == std::string::npos && ::recv(fd_, &c, 1, 0) == 1) out += c;
    size_t length = 0;
    const size_t at = out.find("Content-Length: ");
    if (at != std::string::npos) length = std::stoul(out.substr(at + 16));
    if (head_request) return out;
    while (length > 0 && ::recv(fd_, &c, 1, 0) == 1) {
      out += c;
      --length;
    }
    return out;
  }
  // True when the server closed the connection (recv gives 0 or an error before `wait`).
  bool ClosedWithin(std::chrono::milliseconds wait) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(wait.count())) <= 0) return false;
    char c;
    return ::recv(fd_, &c, 1, MSG_DONTWAIT) <= 0;
  }

 private:
  int fd_ = -1;
  bool connected_ = false;
};

std::string Get(const std::string& path) {
  return "GET " + path + " HTTP/1.1\r\nHost: localhost\r\n\r\n";
}

int StatusOf(const std::string& response) {
  if (response.size() < 12 || !response.starts_with("HTTP/1.1 ")) return 0;
  return std::stoi(response.substr(9, 3));
}

std::string BodyOf(const std::string& response) {
  const size_t at = response.find("\r\n\r\n");
  return at == std::string::npos ? "" : response.substr(at + 4);
}

class HttpServerTest : public ::testing::Test {
 protected:
  void StartServer(ServerOptions o = {}) {
    if (o.address.empty()) o.address = "127.0.0.1";
    server_ = std::make_unique<HttpServer>(o);
    server_->Handle("/metrics", [](const Request&) {
      Response r;
      r.content_type = "text/plain; version=0.0.4; charset=utf-8";
      r.body = "# HELP up 1\n# TYPE up gauge\nup 1\n";
      return r;
    });
    server_->Handle("/healthz", [](const Request&) { return Response{200, "text/plain", "ok"}; });
    server_->Handle("/echo", [](const Request& req) {
      Response r;
      r.body = req.method + " " + req.path + " ?" + req.query +
               " ua=" + (req.headers.count("user-agent") ? req.headers.at("user-agent") : "");
      r.headers.emplace_back("X-Test", "1");
      return r;
    });
    server_->Handle("/slow", [this](const Request&) {
      slow_entered_ = true;
      while (!release_slow_.load()) std::this_thread::sleep_for(5ms);
      return Response{200, "text/plain", "slow"};
    });
    server_->Handle("/throws", [](const Request&) -> Response { throw std::runtime_error("x"); });
    const core::Status st = server_->Start();
    ASSERT_TRUE(st.ok()) << st.message();
    port_ = server_->port();
    ASSERT_GT(port_, 0);
  }
  void TearDown() override {
    release_slow_ = true;
    if (server_) server_->Stop();
  }

  std::unique_ptr<HttpServer> server_;
  int port_ = 0;
  std::atomic<bool> slow_entered_{false};
  std::atomic<bool> release_slow_{false};
};

TEST_F(HttpServerTest, ServesGetAndHead) {
  StartServer();
  Client c(port_);
  ASSERT_TRUE(c.connected());
  c.Send(Get("/metrics"));
  const std::string get = c.ReadResponse();
  EXPECT_THAT(get, StartsWith("HTTP/1.1 200 OK\r\n"));
  EXPECT_THAT(get, HasSubstr("\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n"));
  EXPECT_THAT(get, HasSubstr("\r\nContent-Length: 33\r\n"));
  EXPECT_EQ(BodyOf(get), "# HELP up 1\n# TYPE up gauge\nup 1\n");

  // HEAD: the same head, no body; the connection stays usable.
  c.Send("HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
  const std::string head = c.ReadResponse(/*head_request=*/true);
  EXPECT_THAT(head, StartsWith("HTTP/1.1 200 OK\r\n"));
  EXPECT_THAT(head, HasSubstr("Content-Length: 33\r\n"));
  c.Send(Get("/healthz"));
  EXPECT_EQ(BodyOf(c.ReadResponse()), "ok");
}

TEST_F(HttpServerTest, PathQueryAndHeadersReachTheHandler) {
  StartServer();
  Client c(port_);
  c.Send("GET /echo?a=1&b=2 HTTP/1.1\r\nHost: x\r\nUser-Agent:  Prometheus/2.53  \r\n\r\n");
  const std::string r = c.ReadResponse();
  EXPECT_EQ(BodyOf(r), "GET /echo ?a=1&b=2 ua=Prometheus/2.53");
  EXPECT_THAT(r, HasSubstr("\r\nX-Test: 1\r\n"));
  // Absolute form, as a proxy sends it.
  c.Send("GET http://10.0.0.1:8080/echo HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(BodyOf(c.ReadResponse()), "GET /echo ? ua=");
}

TEST_F(HttpServerTest, UnknownPathIs404OtherMethodsAre405) {
  StartServer();
  {
    Client c(port_);
    c.Send(Get("/nope"));
    const std::string r = c.ReadResponse();
    EXPECT_EQ(StatusOf(r), 404);
    EXPECT_EQ(BodyOf(r), "404 page not found\n");
  }
  for (const char* method : {"POST", "PUT", "DELETE", "PATCH", "OPTIONS"}) {
    Client c(port_);
    c.Send(std::string(method) + " /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc");
    const std::string r = c.ReadToClose();
    EXPECT_EQ(StatusOf(r), 405) << method;
    EXPECT_THAT(r, HasSubstr("\r\nAllow: GET, HEAD\r\n"));
    EXPECT_THAT(r, HasSubstr("\r\nConnection: close\r\n"));
  }
}

TEST_F(HttpServerTest, MalformedRequestsAre400) {
  StartServer();
  const std::pair<std::string, int> cases[] = {
      {"garbage\r\n\r\n", 400},
      {"GET /metrics\r\n\r\n", 400},
      {"GET  /metrics HTTP/1.1\r\nHost: x\r\n\r\n", 400},
      {"GET /metrics HTTP/1.1\r\n\r\n", 400},            // no Host
      {"GET /metrics HTTP/1.1\r\nHost x\r\n\r\n", 400},  // no colon
      {"GET /metrics HTTP/1.1\r\nBad Name: v\r\nHost: x\r\n\r\n", 400},
      {"GET /metrics HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n", 400},
      {"GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", 400},
      {"GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400},
      {"GET /metrics HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n", 400},
      {"GET metrics HTTP/1.1\r\nHost: x\r\n\r\n", 400},
      {"GET /metrics FTP/1.0\r\n\r\n", 400},
      {"GET /metrics HTTP/2.0\r\nHost: x\r\n\r\n", 505},
      {"GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 999999999\r\n\r\n", 413},
  };
  for (const auto& [request, status] : cases) {
    Client c(port_);
    c.Send(request);
    const std::string r = c.ReadToClose();  // the server answers and closes
    EXPECT_EQ(StatusOf(r), status) << request;
  }
  // The server is still fine.
  Client c(port_);
  c.Send(Get("/healthz"));
  EXPECT_EQ(StatusOf(c.ReadResponse()), 200);
}

TEST_F(HttpServerTest, KeepAlivePipeliningAndHttp10) {
  StartServer();
  {
    Client c(port_);
    // Two pipelined requests, the first with a body to skip, the second asking to close.
    c.Send(
        "GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nbody"
        "GET /echo HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    const std::string all = c.ReadToClose();
    EXPECT_THAT(all, HasSubstr("\r\n\r\nok"));
    EXPECT_THAT(all, HasSubstr("Connection: close\r\n\r\nGET /echo ? ua="));
  }
  {
    Client c(port_);
    c.Send("GET /healthz HTTP/1.0\r\n\r\n");  // HTTP/1.0 closes unless asked otherwise
    const std::string r = c.ReadToClose();
    EXPECT_EQ(StatusOf(r), 200);
    EXPECT_THAT(r, HasSubstr("Connection: close\r\n"));
  }
  {
    Client c(port_);
    c.Send("GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
    EXPECT_THAT(c.ReadResponse(), HasSubstr("Connection: keep-alive\r\n"));
    c.Send("GET /healthz HTTP/1.0\r\n\r\n");
    EXPECT_EQ(BodyOf(c.ReadToClose()), "ok");
  }
}

TEST_F(HttpServerTest, HandlerFailureIs500AndHugeHeadsAre431) {
  StartServer({.max_header_bytes = 1024});
  {
    Client c(port_);
    c.Send(Get("/throws"));
    EXPECT_EQ(StatusOf(c.ReadResponse()), 500);
  }
  Client c(port_);
  c.Send("GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(4096, 'a') + "\r\n\r\n");
  EXPECT_EQ(StatusOf(c.ReadToClose()), 431);
}

TEST_F(HttpServerTest, SilentClientsAreDisconnected) {
  StartServer({.read_timeout = 300ms, .idle_timeout = 300ms});
  Client silent(port_);
  Client partial(port_);
  partial.Send("GET /metrics HTTP/1.1\r\nHost:");
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(silent.ClosedWithin(3s));
  EXPECT_EQ(StatusOf(partial.ReadToClose()), 408);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
  // A kept-alive connection that goes quiet is closed after the idle timeout too.
  Client idle(port_);
  idle.Send(Get("/healthz"));
  EXPECT_EQ(StatusOf(idle.ReadResponse()), 200);
  EXPECT_TRUE(idle.ClosedWithin(3s));
}

TEST_F(HttpServerTest, ConnectionsAreBounded) {
  StartServer({.max_connections = 2, .read_timeout = 10s});
  Client a(port_), b(port_);
  a.Send("GET /metrics HTTP/1.1\r\n");  // both hold a worker
  b.Send("GET /metrics HTTP/1.1\r\n");
  for (int i = 0; i < 200 && server_->active_connections() < 2; ++i)
    std::this_thread::sleep_for(5ms);
  ASSERT_EQ(server_->active_connections(), 2);
  Client third(port_);
  const std::string busy = third.ReadToClose();
  EXPECT_EQ(StatusOf(busy), 503);
  // Finishing one frees a slot.
  a.Send("Host: x\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(StatusOf(a.ReadToClose()), 200);
  for (int i = 0; i < 200 && server_->active_connections() > 1; ++i)
    std::this_thread::sleep_for(5ms);
  Client fourth(port_);
  fourth.Send(Get("/healthz"));
  EXPECT_EQ(StatusOf(fourth.ReadResponse()), 200);
}

TEST_F(HttpServerTest, ManyConcurrentClients) {
  StartServer({.max_connections = 16});
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      Client c(port_);
      for (int i = 0; i < 50; ++i) {
        c.Send(Get("/metrics"));
        if (StatusOf(c.ReadResponse()) == 200) ++ok;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(ok.load(), 400);
}

TEST_F(HttpServerTest, PortInUseIsAClearError) {
  StartServer();
  HttpServer second({.address = "127.0.0.1", .port = port_});
  const core::Status st = second.Start();
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(),
            "listen on 127.0.0.1:" + std::to_string(port_) + ": address already in use");
  second.Stop();  // harmless on a server that never started

  // Every interface (":port" as Karpenter's flags print it), dual stack.
  HttpServer any({.port = 0});
  ASSERT_TRUE(any.Start().ok());
  HttpServer clash({.port = any.port()});
  const core::Status st2 = clash.Start();
  ASSERT_FALSE(st2.ok());
  EXPECT_EQ(st2.message(), "listen on :" + std::to_string(any.port()) + ": address already in use");
  any.Stop();
}

TEST_F(HttpServerTest, AllInterfacesServeIpv4AndIpv6) {
  HttpServer any({.port = 0});
  any.Handle("/healthz", [](const Request&) { return Response{200, "text/plain", "ok"}; });
  ASSERT_TRUE(any.Start().ok());
  Client v4(any.port(), "127.0.0.1");
  v4.Send(Get("/healthz"));
  EXPECT_EQ(StatusOf(v4.ReadResponse()), 200);
  Client v6(any.port(), "::1");
  if (v6.connected()) {  // loopback IPv6 may be disabled in a container
    v6.Send(Get("/healthz"));
    EXPECT_EQ(StatusOf(v6.ReadResponse()), 200);
  }
  any.Stop();
}

TEST_F(HttpServerTest, StopIsPromptWithClientsConnected) {
  StartServer({.read_timeout = 60s, .idle_timeout = 60s});
  Client idle(port_), partial(port_), kept(port_);
  partial.Send("GET /metrics HTTP/1.1\r\n");
  kept.Send(Get("/healthz"));
  EXPECT_EQ(StatusOf(kept.ReadResponse()), 200);
  const auto start = std::chrono::steady_clock::now();
  server_->Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
  EXPECT_TRUE(idle.ClosedWithin(1s));
  EXPECT_TRUE(partial.ClosedWithin(1s));
  EXPECT_TRUE(kept.ClosedWithin(1s));
  Client after(port_);
  EXPECT_FALSE(after.connected());  // the listener is closed
  server_->Stop();                  // idempotent
}

TEST_F(HttpServerTest, StopLetsARunningHandlerAnswer) {
  StartServer();
  Client c(port_);
  c.Send(Get("/slow"));
  for (int i = 0; i < 400 && !slow_entered_.load(); ++i) std::this_thread::sleep_for(5ms);
  ASSERT_TRUE(slow_entered_.load());
  std::thread stopper([&] { server_->Stop(); });
  std::this_thread::sleep_for(50ms);
  release_slow_ = true;
  stopper.join();
  const std::string r = c.ReadToClose();
  EXPECT_EQ(StatusOf(r), 200);
  EXPECT_EQ(BodyOf(r), "slow");
  EXPECT_THAT(r, HasSubstr("Connection: close\r\n"));
}

}  // namespace
}  // namespace nodesmith::op
