// Status and Result<T>: the value types for expected failures.
//
// A Status is either OK or carries a code and a message a person can act on. Result<T> holds
// either a T or a non-OK Status. Neither throws; callers check ok() before using the value.
// Both are cheap to move and safe to copy.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace nodesmith::core {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // bad input: exit code 2 at the CLI
  kNotFound,
  kAlreadyExists,
  kFailedPrecondition,
  kUnavailable,       // e.g. insufficient capacity, retry later
  kInternal,
  kPermissionDenied,  // the server refused the caller (HTTP 403: RBAC)
  kUnauthenticated,   // the server does not know the caller (HTTP 401: missing or expired credentials)
  kDeadlineExceeded,  // no answer in time
  kConflict,  // the object changed since it was read (HTTP 409 on a stale resourceVersion or a
              // precondition): read it again and retry if the change still applies
  kExpired,   // the resourceVersion or continue token is older than the server keeps (HTTP 410
              // Gone): list again
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }
  static Status Invalid(std::string m) { return Status(StatusCode::kInvalidArgument, std::move(m)); }
  static Status NotFound(std::string m) { return Status(StatusCode::kNotFound, std::move(m)); }
  static Status Internal(std::string m) { return Status(StatusCode::kInternal, std::move(m)); }
  static Status Unavailable(std::string m) { return Status(StatusCode::kUnavailable, std::move(m)); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // Returns a copy whose message is "prefix: message" (used to add context on the way up).
  Status WithPrefix(const std::string& prefix) const {
    if (ok()) return *this;
    return Status(code_, prefix + ": " + message_);
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}                        // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) { assert(!std::get<Status>(v_).ok()); }  // NOLINT

  bool ok() const { return std::holds_alternative<T>(v_); }
  // REQUIRES: !ok()
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(v_);
  }
  // REQUIRES: ok()
  const T& value() const& { return std::get<T>(v_); }
  T& value() & { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace nodesmith::core

// Returns early from the calling function when `expr` (a Status) is not OK.
#define NS_RETURN_IF_ERROR(expr)                 \
  do {                                           \
    ::nodesmith::core::Status _st = (expr);      \
    if (!_st.ok()) return _st;                   \
  } while (0)
