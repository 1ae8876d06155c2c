#include "operator/http_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>

namespace nodesmith::op {

using core::Status;
using core::StatusCode;
using Clock = std::chrono::steady_clock;

struct HttpServer::Connection {
  int fd = -1;
  std::thread thread;
  std::atomic<bool> done{false};
};

namespace {

const char* Reason(int status) {
  switch (status) {
    case 200: return "OK";
    case 201: return "Created";
    case 204: return "No Content";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 304: return "Not Modified";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 413: return "Request Entity Too Large";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return status < 400 ? "OK" : status < 500 ? "Client Error" : "Server Error";
  }
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool IsTokenChar(char c) {
  if (std::isalnum(static_cast<unsigned char>(c))) return true;
  return std::strchr("!#$%&'*+-.^_`|~", c) != nullptr && c != '\0';
}

bool IsToken(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), IsTokenChar);
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

std::string ErrnoText(int err) {
  std::string s = std::strerror(err);
  if (!s.empty()) s[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(s[0])));
  return s;
}

Response PlainText(int status, std::string body) {
  Response r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

// The outcome of waiting on a socket.
enum class Io { kOk, kClosed, kTimeout, kStopped, kError };

// Waits until `fd` is ready for `events`, the deadline passes or the wake fd fires.
Io Wait(int fd, short events, int wake_fd, Clock::time_point deadline) {
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return Io::kTimeout;
    pollfd fds[2] = {{fd, events, 0}, {wake_fd, POLLIN, 0}};
    const int n = ::poll(fds, 2, static_cast<int>(std::min<int64_t>(left, 1 << 30)));
    if (n < 0) {
      if (errno == EINTR) continue;
      return Io::kError;
    }
    if (fds[0].revents != 0) return Io::kOk;  // ready, or an error the next call reports
    if (fds[1].revents != 0) return Io::kStopped;
  }
}

// Appends what the peer sends next to `buf`.
Io ReadSome(int fd, int wake_fd, Clock::time_point deadline, std::string* buf) {
  for (;;) {
    char chunk[8192];
    const ssize_t n = ::recv(fd, chunk, sizeof(chunk), 0);
    if (n > 0) {
      buf->append(chunk, static_cast<size_t>(n));
      return Io::kOk;
    }
    if (n == 0) return Io::kClosed;
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) return Io::kError;
    const Io w = Wait(fd, POLLIN, wake_fd, deadline);
    if (w != Io::kOk) return w;
  }
}

Io WriteAll(int fd, int wake_fd, Clock::time_point deadline, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n > 0) {
      data.remove_prefix(static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return Io::kError;
    const Io w = Wait(fd, POLLOUT, wake_fd, deadline);
    if (w != Io::kOk) return w;
  }
  return Io::kOk;
}

std::string Serialize(const Response& r, bool head, bool close, bool http10) {
  std::string out = "HTTP/1.1 " + std::to_string(r.status) + " " + Reason(r.status) + "\r\n";
  out += "Content-Type: " + r.content_type + "\r\n";
  out += "Content-Length: " + std::to_string(r.body.size()) + "\r\n";
  for (const auto& [k, v] : r.headers) out += k + ": " + v + "\r\n";
  if (close) {
    out += "Connection: close\r\n";
  } else if (http10) {
    out += "Connection: keep-alive\r\n";
  }
  out += "\r\n";
  if (!head) out += r.body;
  return out;
}

// Before closing a connection that was answered: stop sending, then read and drop what the
// client still sends for a short while. Closing with unread input would reset the connection,
// and the client could lose the answer (an error answer given before its request was read).
void LingeringClose(int fd, int wake_fd) {
  ::shutdown(fd, SHUT_WR);
  const auto deadline = Clock::now() + std::chrono::milliseconds(500);
  std::string drop;
  size_t total = 0;
  while (total < 256 * 1024 && ReadSome(fd, wake_fd, deadline, &drop) == Io::kOk) {
    total += drop.size();
    drop.clear();
  }
}

// A parsed request head, or the error answer to give instead.
struct Head {
  Request request;
  bool http10 = false;
  bool keep_alive = true;
  size_t content_length = 0;
  bool chunked = false;
  int error_status = 0;  // non-zero: answer this and close
  std::string error;
};

Head ParseHead(std::string_view text) {
  Head h;
  auto fail = [&h](int status, std::string why) {
    h.error_status = status;
    h.error = std::move(why);
    return h;
  };
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  if (lines.empty()) return fail(400, "empty request");

  // Request line: METHOD SP target SP HTTP/x.y
  const std::string_view line = lines[0];
  const size_t sp1 = line.find(' ');
  const size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos) {
    return fail(400, "malformed request line");
  }
  const std::string_view method = line.substr(0, sp1);
  std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  const std::string_view version = line.substr(sp2 + 1);
  if (!IsToken(method) || target.empty()) return fail(400, "malformed request line");
  if (version == "HTTP/1.0") {
    h.http10 = true;
    h.keep_alive = false;
  } else if (version != "HTTP/1.1") {
    if (version.size() == 8 && version.starts_with("HTTP/") && version[5] >= '2' &&
        version[5] <= '9' && version[6] == '.') {
      return fail(505, "unsupported HTTP version");
    }
    return fail(400, "malformed HTTP version");
  }
  h.request.method = std::string(method);

  for (size_t i = 1; i < lines.size(); ++i) {
    const std::string_view l = lines[i];
    if (l.empty()) continue;  // the blank line that ends the head
    if (l.front() == ' ' || l.front() == '\t') return fail(400, "folded header line");
    const size_t colon = l.find(':');
    if (colon == std::string_view::npos || !IsToken(l.substr(0, colon))) {
      return fail(400, "malformed header line");
    }
    const std::string name = Lower(std::string(l.substr(0, colon)));
    const std::string value(Trim(l.substr(colon + 1)));
    auto [it, inserted] = h.request.headers.try_emplace(name, value);
    if (!inserted) {
      if (name == "content-length" && it->second != value) {
        return fail(400, "conflicting Content-Length");
      }
      if (name != "content-length") it->second += "," + value;
    }
  }
  const auto& headers = h.request.headers;
  if (!h.http10 && headers.count("host") == 0) return fail(400, "missing required Host header");
  if (auto it = headers.find("connection"); it != headers.end()) {
    const std::string v = Lower(it->second);
    if (v.find("close") != std::string::npos) h.keep_alive = false;
    if (h.http10 && v.find("keep-alive") != std::string::npos) h.keep_alive = true;
  }
  if (auto it = headers.find("content-length"); it != headers.end()) {
    const std::string& v = it->second;
    if (v.empty() || v.size() > 18 ||
        !std::all_of(v.begin(), v.end(), [](char d) { return d >= '0' && d <= '9'; })) {
      return fail(400, "malformed Content-Length");
    }
    h.content_length = std::stoull(v);
  }
  h.chunked = headers.count("transfer-encoding") > 0;

  // Origin form "/path?query", or absolute form "http://host/path?query".
  if (target.starts_with("http://") || target.starts_with("https://")) {
    target.remove_prefix(target.find("//") + 2);
    const size_t slash = target.find('/');
    target = slash == std::string_view::npos ? "/" : target.substr(slash);
  }
  if (target.front() != '/') {
    if (h.request.method == "GET" || h.request.method == "HEAD") {
      return fail(400, "malformed request target");
    }
    target = "/";
  }
  const size_t q = target.find('?');
  h.request.path = std::string(target.substr(0, q));
  if (q != std::string_view::npos) h.request.query = std::string(target.substr(q + 1));
  return h;
}

// Where a request head ends in `buf` (one past its blank line), or npos.
size_t HeadEnd(const std::string& buf) {
  // Blank lines before the request line are skipped, as RFC 9112 allows.
  size_t start = 0;
  while (start < buf.size() && (buf[start] == '\r' || buf[start] == '\n')) ++start;
  const size_t crlf = buf.find("\r\n\r\n", start);
  const size_t lf = buf.find("\n\n", start);
  if (crlf == std::string::npos && lf == std::string::npos) return std::string::npos;
  if (lf == std::string::npos || (crlf != std::string::npos && crlf + 2 < lf)) return crlf + 4;
  return lf + 2;
}

// "host:port" as a person reads it: ":8080", "127.0.0.1:8080", "[::1]:8080".
std::string DisplayAddress(const std::string& address, int port) {
  const bool v6 = address.find(':') != std::string::npos;
  return (v6 ? "[" + address + "]" : address) + ":" + std::to_string(port);
}

}  // namespace

HttpServer::HttpServer(ServerOptions options) : options_(std::move(options)) {}

HttpServer::~HttpServer() { Stop(); }

void HttpServer::Handle(std::string path, Handler handler) {
  handlers_[std::move(path)] = std::move(handler);
}

Status HttpServer::Start() {
  if (started_) return Status(StatusCode::kFailedPrecondition, "the server was already started");
  const std::string where = DisplayAddress(options_.address, options_.port);
  auto fail = [&](const std::string& what, int err) {
    if (listen_fd_ >= 0) ::close(listen_fd_);
    listen_fd_ = -1;
    return Status(StatusCode::kUnavailable, "listen on " + where + ": " + what + ErrnoText(err));
  };
  if (options_.port < 0 || options_.port > 65535) {
    return Status::Invalid("listen on " + where + ": invalid port");
  }

  sockaddr_storage addr{};
  socklen_t addr_len = 0;
  int family = AF_INET6;
  if (options_.address.empty() || options_.address == "::") {
    auto* a6 = reinterpret_cast<sockaddr_in6*>(&addr);
    a6->sin6_family = AF_INET6;
    a6->sin6_addr = in6addr_any;
    a6->sin6_port = htons(static_cast<uint16_t>(options_.port));
    addr_len = sizeof(sockaddr_in6);
    listen_fd_ = ::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (listen_fd_ >= 0) {
      int off = 0;  // dual stack: IPv4 clients too
      ::setsockopt(listen_fd_, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off));
    } else if (options_.address.empty()) {  // no IPv6 here: every IPv4 interface
      addr = {};
      auto* a4 = reinterpret_cast<sockaddr_in*>(&addr);
      a4->sin_family = AF_INET;
      a4->sin_addr.s_addr = htonl(INADDR_ANY);
      a4->sin_port = htons(static_cast<uint16_t>(options_.port));
      addr_len = sizeof(sockaddr_in);
      family = AF_INET;
    }
  } else {
    std::string host = options_.address;
    if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
      host = host.substr(1, host.size() - 2);
    }
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    addrinfo* res = nullptr;
    const std::string port = std::to_string(options_.port);
    const int rc = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &res);
    if (rc != 0 || res == nullptr) {
      return Status(StatusCode::kInvalidArgument,
                    "listen on " + where + ": cannot resolve address: " + ::gai_strerror(rc));
    }
    std::memcpy(&addr, res->ai_addr, res->ai_addrlen);
    addr_len = res->ai_addrlen;
    family = res->ai_family;
    ::freeaddrinfo(res);
  }
  if (listen_fd_ < 0) listen_fd_ = ::socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) return fail("socket: ", errno);
  int one = 1;
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), addr_len) != 0) return fail("", errno);
  if (::listen(listen_fd_, 128) != 0) return fail("", errno);
  if (::fcntl(listen_fd_, F_SETFL, O_NONBLOCK) != 0) return fail("", errno);

  sockaddr_storage bound{};
  socklen_t bound_len = sizeof(bound);
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&bound), &bound_len);
  port_ = ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                            : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);

  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC | O_NONBLOCK) != 0) return fail("pipe: ", errno);
  wake_read_fd_ = pipe_fds[0];
  wake_write_fd_ = pipe_fds[1];
  started_ = true;
  acceptor_ = std::thread(&HttpServer::AcceptLoop, this);
  return Status::Ok();
}

void HttpServer::Stop() {
  if (!started_ || stopping_.exchange(true)) return;
  // The wake pipe stays readable from now on, so every poll in every thread returns.
  (void)!::write(wake_write_fd_, "x", 1);
  if (acceptor_.joinable()) acceptor_.join();
  ::close(listen_fd_);
  listen_fd_ = -1;
  std::list<Connection> all;
  {
    std::lock_guard<std::mutex> lock(mu_);
    all.splice(all.end(), connections_);
  }
  for (auto& c : all) {
    if (c.thread.joinable()) c.thread.join();
  }
  ::close(wake_read_fd_);
  ::close(wake_write_fd_);
  wake_read_fd_ = wake_write_fd_ = -1;
}

void HttpServer::ReapFinished() {
  std::list<Connection> finished;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = connections_.begin(); it != connections_.end();) {
      auto next = std::next(it);
      if (it->done.load()) finished.splice(finished.end(), connections_, it);
      it = next;
    }
  }
  for (auto& c : finished) c.thread.join();
}

void HttpServer::AcceptLoop() {
  while (!stopping_.load()) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_read_fd_, POLLIN, 0}};
    const int n = ::poll(fds, 2, 1000);  // wakes at least every second to reap
    ReapFinished();
    if (n < 0 && errno != EINTR) break;
    if (fds[1].revents != 0) break;
    if (n <= 0 || (fds[0].revents & POLLIN) == 0) continue;
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        pollfd wake = {wake_read_fd_, POLLIN, 0};
        ::poll(&wake, 1, 100);  // out of descriptors: back off instead of spinning
      }
      continue;
    }
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (active_.load() >= options_.max_connections) {
      const std::string busy =
          Serialize(PlainText(503, "too many connections\n"), false, true, false);
      (void)!::send(fd, busy.data(), busy.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      ::close(fd);
      continue;
    }
    std::lock_guard<std::mutex> lock(mu_);
    Connection& c = connections_.emplace_back();
    c.fd = fd;
    ++active_;
    c.thread = std::thread(&HttpServer::Serve, this, &c);
  }
}

void HttpServer::Refuse(int fd, int status, const char* body) {
  if (WriteAll(fd, wake_read_fd_, Clock::now() + options_.read_timeout,
               Serialize(PlainText(status, body), false, true, false)) == Io::kOk) {
    LingeringClose(fd, wake_read_fd_);
  }
}

void HttpServer::Serve(Connection* c) {
  const int fd = c->fd;
  std::string buf;
  bool first = true;
  for (;;) {
    // Wait for a request to begin (idle on a kept-alive connection), then for its whole head.
    const auto wait_start = Clock::now();
    auto deadline = wait_start + (first ? options_.read_timeout : options_.idle_timeout);
    bool started = !buf.empty();
    if (started) deadline = wait_start + options_.read_timeout;
    size_t end = HeadEnd(buf);
    Io io = Io::kOk;
    while (end == std::string::npos && buf.size() <= options_.max_header_bytes) {
      io = ReadSome(fd, wake_read_fd_, deadline, &buf);
      if (io != Io::kOk) break;
      if (!started) {
        started = true;
        deadline = Clock::now() + options_.read_timeout;
      }
      end = HeadEnd(buf);
    }
    first = false;
    if (end == std::string::npos || end > options_.max_header_bytes) {
      if (end != std::string::npos || io == Io::kOk) {
        Refuse(fd, 431, "request header too large\n");
      } else if (io == Io::kTimeout && started) {
        Refuse(fd, 408, "request timeout\n");
      }  // else: closed by the client, an idle timeout or Stop: nothing to say
      break;
    }

    Head head = ParseHead(std::string_view(buf).substr(0, end));
    buf.erase(0, end);
    const bool is_head = head.request.method == "HEAD";
    Response response;
    bool close = !head.keep_alive;
    if (head.error_status != 0) {
      response = PlainText(head.error_status, head.error + "\n");
      close = true;
    } else if (head.request.method != "GET" && !is_head) {
      response = PlainText(405, "method not allowed\n");
      response.headers.emplace_back("Allow", "GET, HEAD");
      close = true;  // its body, if any, is not read
    } else if (head.chunked) {
      response = PlainText(400, "a request body is not accepted here\n");
      close = true;
    } else if (head.content_length > options_.max_body_bytes) {
      response = PlainText(413, "request body too large\n");
      close = true;
    } else {
      // A body on GET/HEAD means nothing here: read it so the next request starts cleanly.
      const auto body_deadline = Clock::now() + options_.read_timeout;
      while (buf.size() < head.content_length && io == Io::kOk) {
        io = ReadSome(fd, wake_read_fd_, body_deadline, &buf);
      }
      if (buf.size() < head.content_length) break;
      buf.erase(0, head.content_length);
      auto it = handlers_.find(head.request.path);
      if (it == handlers_.end()) {
        response = PlainText(404, "404 page not found\n");
      } else {
        try {
          response = it->second(head.request);
        } catch (...) {
          response = PlainText(500, "internal error\n");
        }
      }
    }
    if (stopping_.load()) close = true;
    const Io w = WriteAll(fd, wake_read_fd_, Clock::now() + options_.read_timeout,
                          Serialize(response, is_head, close, head.http10));
    if (w != Io::kOk) break;
    if (close) {
      LingeringClose(fd, wake_read_fd_);
      break;
    }
  }
  ::close(fd);
  --active_;
  c->done = true;
}

}  // namespace nodesmith::op
