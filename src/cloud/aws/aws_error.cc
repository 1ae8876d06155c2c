#include "cloud/aws/aws_error.h"

#include <array>
#include <cctype>
#include <string_view>

namespace nodesmith::aws {

namespace {

template <size_t N>
bool In(const std::array<std::string_view, N>& set, const std::string& code) {
  for (std::string_view c : set)
    if (c == code) return true;
  return false;
}

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

bool IsThrottlingCode(const std::string& code) {
  static constexpr std::array<std::string_view, 13> kCodes = {
      "Throttling", "ThrottlingException", "ThrottledException", "RequestThrottledException",
      "TooManyRequestsException", "ProvisionedThroughputExceededException",
      "TransactionInProgressException", "RequestLimitExceeded", "BandwidthLimitExceeded",
      "LimitExceededException", "RequestThrottled", "SlowDown", "EC2ThrottledException"};
  return In(kCodes, code);
}

bool IsTransientCode(const std::string& code) {
  static constexpr std::array<std::string_view, 6> kCodes = {
      "RequestTimeout", "RequestTimeoutException", "PriorRequestNotComplete", "InternalError",
      "InternalFailure", "ServiceUnavailable"};
  return In(kCodes, code);
}

bool IsClockSkewCode(const std::string& code) {
  static constexpr std::array<std::string_view, 6> kCodes = {
      "RequestTimeTooSkewed", "RequestExpired", "RequestInTheFuture", "InvalidSignatureException",
      "SignatureDoesNotMatch", "AuthFailure"};
  return In(kCodes, code);
}

bool IsExpiredCredentialsCode(const std::string& code) {
  static constexpr std::array<std::string_view, 4> kCodes = {
      "ExpiredToken", "ExpiredTokenException", "RequestExpired", "InvalidClientTokenId"};
  return In(kCodes, code);
}

bool IsInsufficientCapacityCode(const std::string& code) {
  static constexpr std::array<std::string_view, 8> kCodes = {
      "InsufficientInstanceCapacity", "MaxSpotInstanceCountExceeded", "VcpuLimitExceeded",
      "UnfulfillableCapacity", "Unsupported", "InsufficientFreeAddressesInSubnet",
      "MaxFleetCountExceeded", "ReservationCapacityExceeded"};
  return In(kCodes, code);
}

core::Status AwsError::ToStatus() const {
  std::string text = (code.empty() ? std::string("HTTP ") + std::to_string(http_status) : code) +
                     ": " + (message.empty() ? std::string("(no message)") : message) + " (" +
                     service + " " + operation +
                     (request_id.empty() ? std::string() : ", request id " + request_id) + ")";
  core::StatusCode sc = core::StatusCode::kInvalidArgument;
  if (IsThrottlingCode(code) || IsTransientCode(code) || IsInsufficientCapacityCode(code) ||
      http_status >= 500) {
    sc = core::StatusCode::kUnavailable;
  } else if (IsExpiredCredentialsCode(code) || code == "AuthFailure" ||
             code == "UnrecognizedClientException" || code == "MissingAuthenticationToken") {
    sc = core::StatusCode::kUnauthenticated;
  } else if (code == "UnauthorizedOperation" || code == "AccessDenied" ||
             code == "AccessDeniedException" || http_status == 403) {
    sc = core::StatusCode::kPermissionDenied;
  } else if (EndsWith(code, ".NotFound") || EndsWith(code, "NotFound") ||
             EndsWith(code, "NotFoundException") || code == "NoSuchEntity" ||
             code == "ParameterNotFound" || code == "AWS.SimpleQueueService.NonExistentQueue" ||
             code == "QueueDoesNotExist") {
    sc = core::StatusCode::kNotFound;
  }
  return core::Status(sc, text);
}

std::string ErrorCodeOf(const core::Status& status) {
  const std::string& m = status.message();
  // The shape ends with "(<service> <Operation>...)"; a Status without it has no AWS code.
  if (status.ok() || m.empty() || m.back() != ')' || m.find(" (") == std::string::npos) return "";
  // Context added on the way up ("launch: ...") comes first, in lower case; the code is the
  // first segment that is a code: a capital letter, then letters, digits and dots.
  size_t start = 0;
  while (start < m.size()) {
    size_t colon = m.find(": ", start);
    if (colon == std::string::npos) return "";
    std::string segment = m.substr(start, colon - start);
    bool code = !segment.empty() && std::isupper(static_cast<unsigned char>(segment[0]));
    for (char c : segment)
      code = code && (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_');
    if (code) return segment;
    start = colon + 2;
  }
  return "";
}

}  // namespace nodesmith::aws
