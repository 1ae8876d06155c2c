#include "cloud/aws/sigv4.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <map>

namespace nodesmith::aws {
namespace {

constexpr std::string_view kAlgorithm = "AWS4-HMAC-SHA256";
constexpr char kHexDigits[] = "0123456789abcdef";
constexpr char kUpperHexDigits[] = "0123456789ABCDEF";

using Digest = std::string;  // 32 raw bytes

std::string Hex(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out += kHexDigits[c >> 4];
    out += kHexDigits[c & 15];
  }
  return out;
}

Digest HmacSha256(std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  // HMAC() fails only when it cannot allocate; `len` then stays 0 and the request goes out with
  // a signature AWS rejects, which is reported like any other authentication error.
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &len);
  return Digest(reinterpret_cast<const char*>(out), len);
}

char AsciiLower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = AsciiLower(c);
  return out;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (AsciiLower(a[i]) != AsciiLower(b[i])) return false;
  }
  return true;
}

// The whitespace Python's str.split() drops in botocore's trimming, ASCII part. Header values
// are ASCII in practice; non-ASCII spaces (U+00A0, ...) are left as they are.
bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

// Trims and collapses each inner run of whitespace to one space.
std::string TrimAll(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  bool pending_space = false;
  for (char c : value) {
    if (IsSpace(c)) {
      pending_space = !out.empty();
      continue;
    }
    if (pending_space) out += ' ';
    pending_space = false;
    out += c;
  }
  return out;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// RFC 3986 percent-decoding; a '%' not followed by two hex digits is kept as a literal, so
// re-encoding it gives "%25".
std::string PercentDecode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && HexValue(s[i + 1]) >= 0 && HexValue(s[i + 2]) >= 0) {
      out += static_cast<char>(HexValue(s[i + 1]) * 16 + HexValue(s[i + 2]));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// botocore's remove_dot_segments: empty and "." segments go, ".." drops the segment before it
// (none at the root), a leading slash stays, and a trailing one stays only when a segment
// remains. So "/a/." is "/a" where RFC 3986 would say "/a/"; nodesmith signs what botocore signs.
std::string NormalizePath(std::string_view path) {
  if (path.empty()) return "/";
  std::vector<std::string_view> kept;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view segment = path.substr(start, end - start);
    if (segment == "..") {
      if (!kept.empty()) kept.pop_back();
    } else if (!segment.empty() && segment != ".") {
      kept.push_back(segment);
    }
    start = end + 1;
  }
  std::string out = path.front() == '/' ? "/" : "";
  for (size_t i = 0; i < kept.size(); ++i) {
    if (i > 0) out += '/';
    out.append(kept[i]);
  }
  if (path.back() == '/' && !kept.empty()) out += '/';
  return out;
}

std::string CanonicalQuery(std::string_view query) {
  if (query.empty()) return "";
  std::vector<std::pair<std::string, std::string>> params;
  size_t start = 0;
  // Every '&'-separated piece is a parameter, an empty one included ("a=1&" signs "=&a=1"), as
  // botocore signs it. botocore takes names and values as sent, without re-encoding; decoding
  // and re-encoding changes nothing for a query encoded as UriEncode does, and gives raw UTF-8
  // the escapes the test suite's get-vanilla-utf8-query expects.
  while (start <= query.size()) {
    size_t end = query.find('&', start);
    if (end == std::string_view::npos) end = query.size();
    std::string_view piece = query.substr(start, end - start);
    size_t eq = piece.find('=');
    std::string_view name = piece.substr(0, eq);
    std::string_view value = eq == std::string_view::npos ? "" : piece.substr(eq + 1);
    params.emplace_back(UriEncode(PercentDecode(name)), UriEncode(PercentDecode(value)));
    start = end + 1;
  }
  // By name, then value: the pair, not the joined "name=value" ('=' sorts after '-' and '.').
  std::sort(params.begin(), params.end());
  std::string out;
  for (const auto& [name, value] : params) {
    if (!out.empty()) out += '&';
    out += name;
    out += '=';
    out += value;
  }
  return out;
}

bool IsUnsignedHeader(std::string_view lower_name) {
  return lower_name == "user-agent" || lower_name == "expect" || lower_name == "x-amzn-trace-id";
}

struct Canonical {
  std::string request;
  std::string signed_headers;  // "host;x-amz-date"
};

Canonical Canonicalize(const SigningRequest& request) {
  // std::map orders names bytewise, which is the spec's character-code order for ASCII names.
  std::map<std::string, std::vector<std::string>> headers;
  const std::string* payload_hash = nullptr;
  for (const auto& [name, value] : request.headers) {
    std::string lower = AsciiLower(name);
    if (IsUnsignedHeader(lower)) continue;
    if (lower == "x-amz-content-sha256" && payload_hash == nullptr) payload_hash = &value;
    headers[std::move(lower)].push_back(TrimAll(value));
  }

  Canonical c;
  std::string& cr = c.request;
  for (char ch : request.method) cr += ch >= 'a' && ch <= 'z' ? static_cast<char>(ch - 'a' + 'A') : ch;
  cr += '\n';
  cr += UriEncode(NormalizePath(request.path), /*encode_slash=*/false);
  cr += '\n';
  cr += CanonicalQuery(request.query);
  cr += '\n';
  for (const auto& [name, values] : headers) {
    cr += name;
    cr += ':';
    for (size_t i = 0; i < values.size(); ++i) {
      if (i > 0) cr += ',';
      cr += values[i];
    }
    cr += '\n';
    if (!c.signed_headers.empty()) c.signed_headers += ';';
    c.signed_headers += name;
  }
  cr += '\n';
  cr += c.signed_headers;
  cr += '\n';
  // The header's value as given, untrimmed, as botocore reads it.
  cr += payload_hash != nullptr ? *payload_hash : Sha256Hex(request.body);
  return c;
}

std::string CredentialScope(const SigningScope& scope) {
  return AmzDate(scope.time).substr(0, 8) + "/" + scope.region + "/" + scope.service +
         "/aws4_request";
}

std::string StringToSign(const Canonical& canonical, const SigningScope& scope) {
  std::string sts(kAlgorithm);
  sts += '\n';
  sts += AmzDate(scope.time);
  sts += '\n';
  sts += CredentialScope(scope);
  sts += '\n';
  sts += Sha256Hex(canonical.request);
  return sts;
}

std::string Signature(std::string_view string_to_sign, const SigningScope& scope,
                      const std::string& secret) {
  Digest key = HmacSha256("AWS4" + secret, AmzDate(scope.time).substr(0, 8));
  key = HmacSha256(key, scope.region);
  key = HmacSha256(key, scope.service);
  key = HmacSha256(key, "aws4_request");
  return Hex(HmacSha256(key, string_to_sign));
}

void RemoveHeader(SigningRequest& request, std::string_view name) {
  std::erase_if(request.headers, [&](const auto& h) { return EqualsIgnoreCase(h.first, name); });
}

}  // namespace

std::string Sha256Hex(std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), out, &len, EVP_sha256(), nullptr);
  return Hex(std::string_view(reinterpret_cast<const char*>(out), len));
}

std::string UriEncode(std::string_view value, bool encode_slash) {
  std::string out;
  out.reserve(value.size());
  for (unsigned char c : value) {
    const bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                            (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' || c == '~';
    if (unreserved || (c == '/' && !encode_slash)) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kUpperHexDigits[c >> 4];
      out += kUpperHexDigits[c & 15];
    }
  }
  return out;
}

std::string AmzDate(core::Time t) {
  // Floor to the second, so an instant before the epoch still names the second it falls in.
  int64_t seconds = t.unix_nanos / 1'000'000'000;
  if (t.unix_nanos % 1'000'000'000 < 0) --seconds;
  const std::time_t tt = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[80];  // room for any int the format could print, not just the 16 a date needs
  std::snprintf(buf, sizeof buf, "%04d%02d%02dT%02d%02d%02dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
  return buf;
}

std::string CanonicalRequest(const SigningRequest& request) { return Canonicalize(request).request; }

std::string StringToSign(const SigningRequest& request, const SigningScope& scope) {
  return StringToSign(Canonicalize(request), scope);
}

std::string AuthorizationHeader(const SigningRequest& request, const SigningScope& scope,
                                const Credentials& credentials) {
  const Canonical canonical = Canonicalize(request);
  std::string out(kAlgorithm);
  out += " Credential=";
  out += credentials.access_key_id;
  out += '/';
  out += CredentialScope(scope);
  out += ", SignedHeaders=";
  out += canonical.signed_headers;
  out += ", Signature=";
  out += Signature(StringToSign(canonical, scope), scope, credentials.secret_access_key);
  return out;
}

void SignRequest(SigningRequest& request, const SigningScope& scope, const Credentials& credentials) {
  // A stale Authorization must not be signed into the new one.
  RemoveHeader(request, "Authorization");
  RemoveHeader(request, "X-Amz-Date");
  request.headers.emplace_back("X-Amz-Date", AmzDate(scope.time));
  if (!credentials.session_token.empty()) {
    RemoveHeader(request, "X-Amz-Security-Token");
    request.headers.emplace_back("X-Amz-Security-Token", credentials.session_token);
  }
  std::string authorization = AuthorizationHeader(request, scope, credentials);
  request.headers.emplace_back("Authorization", std::move(authorization));
}

}  // namespace nodesmith::aws
