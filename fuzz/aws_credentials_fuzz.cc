// What the credential sources of the AWS chain read, on arbitrary text: the answer of
// sts:AssumeRoleWithWebIdentity (XML, and its <ErrorResponse> for any other status), the JSON
// answers of the container endpoint (EKS Pod Identity, ECS) and of the instance metadata service,
// and what a profile's credential_process prints. The endpoint, a proxy in the way or the
// command chooses every byte. Each decoder must end in credentials or a clean error. Decoded
// credentials written back in the same form (with the expiration as FormatRfc3339 prints it)
// must decode to the same keys, token and expiration.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "cloud/aws/credentials.h"
#include "cloud/aws/shared_config.h"
#include "core/time.h"
#include "fuzz_check.h"

namespace {

namespace aws = nodesmith::aws;
using nlohmann::json;
using nodesmith::fuzz::Fail;

constexpr const char* kStsUrl = "https://sts.us-east-1.amazonaws.com/";
constexpr const char* kWho = "sts:AssumeRoleWithWebIdentity for arn:aws:iam::111122223333:role/nodesmith";
constexpr const char* kImdsUrl = "http://169.254.169.254/latest/meta-data/iam/security-credentials/node";

bool Same(const aws::Credentials& a, const aws::Credentials& b) {
  return a.access_key_id == b.access_key_id && a.secret_access_key == b.secret_access_key &&
         a.session_token == b.session_token && a.expiration == b.expiration;
}

// XML character data that reads back byte for byte: the markup characters and every control
// character as references (a raw \r would read back as \n).
std::string XmlText(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '&') {
      out += "&amp;";
    } else if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += "&#" + std::to_string(static_cast<int>(c)) + ";";
    } else {
      out += c;
    }
  }
  return out;
}

std::string StsAnswerOf(const aws::Credentials& c) {
  return "<AssumeRoleWithWebIdentityResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\">"
         "<AssumeRoleWithWebIdentityResult><Credentials>"
         "<AccessKeyId>" + XmlText(c.access_key_id) + "</AccessKeyId>"
         "<SecretAccessKey>" + XmlText(c.secret_access_key) + "</SecretAccessKey>"
         "<SessionToken>" + XmlText(c.session_token) + "</SessionToken>"
         "<Expiration>" + nodesmith::core::FormatRfc3339(*c.expiration) + "</Expiration>"
         "</Credentials></AssumeRoleWithWebIdentityResult></AssumeRoleWithWebIdentityResponse>";
}

void CheckSts(const std::string& body) {
  for (long status : {400L, 403L, 503L}) {
    aws::HttpResponse response{status, {{"x-amzn-requestid", "req-1"}}, body};
    if (aws::DecodeStsError(response, kWho).ok()) Fail("an STS error answer decodes as no error", body);
  }
  auto decoded = aws::DecodeAssumeRoleWithWebIdentityAnswer(body, kWho, kStsUrl, "web identity");
  if (!decoded.ok()) return;
  if (!decoded->expiration) Fail("STS credentials without an expiration", "");
  const std::string written = StsAnswerOf(*decoded);
  auto again = aws::DecodeAssumeRoleWithWebIdentityAnswer(written, kWho, kStsUrl, "web identity");
  if (!again.ok()) Fail("a written STS answer does not decode", again.status().message() + "\n" + written);
  if (!Same(*decoded, *again)) Fail("a written STS answer decodes differently", written);
}

// The container endpoint's and IMDS's answer, as the endpoints write it.
json JsonAnswerOf(const aws::Credentials& c) {
  json answer = {{"AccessKeyId", c.access_key_id}, {"SecretAccessKey", c.secret_access_key}, {"Token", c.session_token}};
  if (c.expiration) answer["Expiration"] = nodesmith::core::FormatRfc3339(*c.expiration);
  return answer;
}

void CheckJson(const std::string& body) {
  auto container = aws::DecodeCredentialsJson(body, "http://169.254.170.23/v1/credentials", "container credentials");
  if (container.ok()) {
    const std::string written = JsonAnswerOf(*container).dump();
    auto again = aws::DecodeCredentialsJson(written, "http://169.254.170.23/v1/credentials", "container credentials");
    if (!again.ok() || !Same(*container, *again)) Fail("a written container answer decodes differently", written);
  }
  auto imds = aws::DecodeImdsCredentialsAnswer(body, kImdsUrl, "node");
  if (imds.ok()) {
    json answer = JsonAnswerOf(*imds);
    answer["Code"] = "Success";
    answer["Type"] = "AWS-HMAC";
    const std::string written = answer.dump();
    auto again = aws::DecodeImdsCredentialsAnswer(written, kImdsUrl, "node");
    if (!again.ok() || !Same(*imds, *again)) Fail("a written IMDS answer decodes differently", written);
  }
}

void CheckProcess(const std::string& body) {
  auto printed = aws::ParseCredentialProcessOutput(body, "/usr/local/bin/creds", "credential_process");
  if (!printed.ok()) return;
  json answer = JsonAnswerOf(*printed);
  answer.erase("Token");
  answer["Version"] = 1;
  if (!printed->session_token.empty()) answer["SessionToken"] = printed->session_token;
  const std::string written = answer.dump();
  auto again = aws::ParseCredentialProcessOutput(written, "/usr/local/bin/creds", "credential_process");
  if (!again.ok() || !Same(*printed, *again)) Fail("written credential_process output parses differently", written);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string body(reinterpret_cast<const char*>(data), size);
  CheckSts(body);
  CheckJson(body);
  CheckProcess(body);
  return 0;
}
