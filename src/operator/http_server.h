// HttpServer: a small HTTP/1.1 server for /metrics, /healthz and /readyz.
//
// Serves GET and HEAD on exact paths registered with Handle; anything else gets a plain-text
// answer: 404 for an unknown path, 405 (with `Allow: GET, HEAD`) for another method, 400 for a
// request that is not HTTP/1.x, 431 for a request head over the limit, 503 when all connection
// slots are taken. Connections are kept alive as HTTP/1.1 says. Each connection has a worker
// thread, at most `max_connections` at once; a client that does not send a whole request (or
// does not read the answer) within `read_timeout` is disconnected, so a silent client cannot hold
// a worker.
//
// Thread-safety: Handle must be called before Start. Start and Stop may be called from any one
// thread; handlers run concurrently on the worker threads and must be thread-safe. Stop closes
// the listener, ends the connections (a handler already running finishes first) and joins every
// thread; the destructor calls Stop.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <list>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/status.h"

namespace nodesmith::op {

struct Request {
  std::string method;                          // "GET" or "HEAD" (others never reach a handler)
  std::string path;                            // "/metrics", without the query
  std::string query;                           // after '?', undecoded; "" when none
  std::map<std::string, std::string> headers;  // names lower-cased; repeated names joined by ","
};

struct Response {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;                                          // not sent for HEAD
  std::vector<std::pair<std::string, std::string>> headers;  // extra response headers
};

using Handler = std::function<Response(const Request&)>;

struct ServerOptions {
  // Numeric IPv4/IPv6 address or host name to bind; "" binds every interface (IPv6 and IPv4).
  std::string address;
  int port = 0;  // 0: the system picks a free port (see HttpServer::port())
  int max_connections = 32;
  std::chrono::milliseconds read_timeout{10000};  // per request head, and per answer written
  std::chrono::milliseconds idle_timeout{60000};  // a kept-alive connection waiting for a request
  size_t max_header_bytes = 16 * 1024;
  size_t max_body_bytes = 64 * 1024;  // a GET or HEAD body is read and ignored up to this
};

class HttpServer {
 public:
  explicit HttpServer(ServerOptions options);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Serves `path` (exact match, e.g. "/metrics") with `handler`; a later call for the same path
  // replaces the handler. REQUIRES: Start has not been called.
  void Handle(std::string path, Handler handler);

  // Binds, listens and starts accepting. On failure nothing keeps running and the Status names
  // the address: "listen on :8080: address already in use". REQUIRES: not started before.
  core::Status Start();

  // Stops accepting, disconnects every client and joins every thread. Idempotent.
  void Stop();

  // The port listened on (the chosen one when options.port was 0); 0 before Start.
  int port() const { return port_.load(); }
  // Connections being served now (for tests and diagnostics).
  int active_connections() const { return active_.load(); }

 private:
  struct Connection;
  void AcceptLoop();
  void Serve(Connection* c);
  // Answers `status` with `body`, then closes the connection's sending side gracefully.
  void Refuse(int fd, int status, const char* body);
  void ReapFinished();  // joins the threads of finished connections

  const ServerOptions options_;
  std::map<std::string, Handler> handlers_;  // read-only after Start
  std::atomic<int> port_{0};
  std::atomic<int> active_{0};
  std::atomic<bool> stopping_{false};
  bool started_ = false;
  int listen_fd_ = -1;
  int wake_read_fd_ = -1;  // readable once Stop is called: wakes every poll
  int wake_write_fd_ = -1;
  std::thread acceptor_;
  std::mutex mu_;
  std::list<Connection> connections_;  // guarded by mu_
};

}  // namespace nodesmith::op
