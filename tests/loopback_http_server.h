// LoopbackHttpServer: an HTTP/1.1 server on 127.0.0.1 for tests, answering each request with
// what a handler returns. It plays the endpoints a test cannot otherwise have on this machine
// (the instance metadata service, a container credentials endpoint, an AWS service that throttles
// or fails on cue). One request per connection, answered and closed; requests are kept for
// assertions. A handler answer with status 0 is "never answer" (the connection hangs until the
// server is destroyed), for timeouts. Thread-safe; the handler runs on the server's thread.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace nodesmith::testing {

struct LoopbackRequest {
  std::string method;
  std::string target;                          // path and query
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;
};

struct LoopbackResponse {
  int status = 200;  // 0: never answer
  std::string body;
  std::map<std::string, std::string> headers;
};

class LoopbackHttpServer {
 public:
  using Handler = std::function<LoopbackResponse(const LoopbackRequest&)>;

  explicit LoopbackHttpServer(Handler handler) : handler_(std::move(handler)) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    socklen_t len = sizeof addr;
    getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    listen(fd_, 64);
    thread_ = std::thread([this] { Serve(); });
  }
  ~LoopbackHttpServer() {
    stop_ = true;
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    thread_.join();
    for (int c : hung_) close(c);
  }
  LoopbackHttpServer(const LoopbackHttpServer&) = delete;
  LoopbackHttpServer& operator=(const LoopbackHttpServer&) = delete;

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int port() const { return port_; }
  std::vector<LoopbackRequest> requests() const {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }
  size_t request_count() const {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_.size();
  }

 private:
  void Serve() {
    while (!stop_) {
      int c = accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      LoopbackRequest request;
      if (!Read(c, request)) {
        close(c);
        continue;
      }
      {
        std::lock_guard<std::mutex> lock(mu_);
        requests_.push_back(request);
      }
      LoopbackResponse response = handler_(request);
      if (response.status == 0) {
        hung_.push_back(c);
        continue;
      }
      std::string out = "HTTP/1.1 " + std::to_string(response.status) + " Status\r\n";
      for (const auto& [k, v] : response.headers) out += k + ": " + v + "\r\n";
      out += "Connection: close\r\nContent-Length: " + std::to_string(response.body.size()) +
             "\r\n\r\n" + response.body;
      size_t sent = 0;
      while (sent < out.size()) {
        ssize_t n = write(c, out.data() + sent, out.size() - sent);
        if (n <= 0) break;
        sent += static_cast<size_t>(n);
      }
      close(c);
    }
  }

  static bool Read(int c, LoopbackRequest& request) {
    std::string data;
    char buf[8192];
    size_t head_end;
    while ((head_end = data.find("\r\n\r\n")) == std::string::npos) {
      ssize_t n = read(c, buf, sizeof buf);
      if (n <= 0) return false;
      data.append(buf, static_cast<size_t>(n));
    }
    std::string head = data.substr(0, head_end);
    size_t line_end = head.find("\r\n");
    std::string first = head.substr(0, line_end);
    size_t sp1 = first.find(' ');
    size_t sp2 = first.find(' ', sp1 + 1);
    request.method = first.substr(0, sp1);
    request.target = first.substr(sp1 + 1, sp2 - sp1 - 1);
    size_t pos = line_end == std::string::npos ? head.size() : line_end + 2;
    while (pos < head.size()) {
      size_t end = head.find("\r\n", pos);
      if (end == std::string::npos) end = head.size();
      std::string line = head.substr(pos, end - pos);
      size_t colon = line.find(':');
      if (colon != std::string::npos) {
        std::string name = line.substr(0, colon);
        std::transform(name.begin(), name.end(), name.begin(),
                       [](unsigned char ch) { return std::tolower(ch); });
        size_t v = line.find_first_not_of(' ', colon + 1);
        request.headers[name] = v == std::string::npos ? "" : line.substr(v);
      }
      pos = end + 2;
    }
    size_t length = 0;
    if (auto it = request.headers.find("content-length"); it != request.headers.end())
      length = std::stoul(it->second);
    request.body = data.substr(head_end + 4);
    while (request.body.size() < length) {
      ssize_t n = read(c, buf, sizeof buf);
      if (n <= 0) return false;
      request.body.append(buf, static_cast<size_t>(n));
    }
    return true;
  }

  Handler handler_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  mutable std::mutex mu_;
  std::vector<LoopbackRequest> requests_;
  std::vector<int> hung_;
};

}  // namespace nodesmith::testing
