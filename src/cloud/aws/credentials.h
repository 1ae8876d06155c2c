// AWS credentials and where they come from: the SDKs' default chain.
//
// A CredentialsProvider answers Get() with credentials valid now, fetching or refreshing them
// when needed; providers are thread-safe and cache what they fetched until shortly before it
// expires. DefaultCredentialsChain tries, in order and as the AWS SDKs do:
//   1. the environment: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN;
//   2. web identity (IRSA): AWS_ROLE_ARN + AWS_WEB_IDENTITY_TOKEN_FILE [+ AWS_ROLE_SESSION_NAME],
//      through sts:AssumeRoleWithWebIdentity (unsigned);
//   3. the shared files: AWS_SHARED_CREDENTIALS_FILE (~/.aws/credentials) and AWS_CONFIG_FILE
//      (~/.aws/config), profile AWS_PROFILE or "default";
//   4. container credentials (EKS Pod Identity, ECS): AWS_CONTAINER_CREDENTIALS_RELATIVE_URI on
//      169.254.170.2, else AWS_CONTAINER_CREDENTIALS_FULL_URI (https, or http to loopback or the
//      agents' link-local addresses), with the token of AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE
//      (or AWS_CONTAINER_AUTHORIZATION_TOKEN);
//   5. IMDSv2: a session token (PUT /latest/api/token), then the instance role's credentials
//      (AWS_EC2_METADATA_SERVICE_ENDPOINT overrides http://169.254.169.254; disabled by
//      AWS_EC2_METADATA_DISABLED=true).
// The first source that is configured is used (the instance metadata service counts as
// configured once it has answered), and kept once it has given credentials; when none is, Get()
// fails with one message listing each source and why it did not apply. Errors name the source,
// the file or URL, and what to fix. Temporary credentials are replaced when less than 5 minutes
// of them remain; if that fails while they are still valid they are returned, and expired
// credentials never are. Token files are re-read on every refresh (the kubelet rotates them).
// Time comes from the Clock only; the providers never sleep (retries are immediate).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "cloud/aws/http_client.h"
#include "core/clock.h"
#include "core/status.h"

namespace nodesmith::aws {

struct Credentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;          // empty for long-term keys
  std::optional<core::Time> expiration;  // none for long-term keys
  std::string source;                 // "environment", "web identity", "shared file (profile p)", ...
};

class CredentialsProvider {
 public:
  virtual ~CredentialsProvider() = default;
  virtual core::Result<Credentials> Get() = 0;
  // Forgets cached credentials (after an ExpiredToken answer), so the next Get fetches anew.
  virtual void Invalidate() {}
};

// Where the chain reads its configuration: the process environment and home directory in
// production, a map in tests.
struct CredentialsEnvironment {
  std::function<std::optional<std::string>(const std::string&)> getenv;
  std::string home;  // for ~/.aws/
  static CredentialsEnvironment Process();
};

// REQUIRES: `http` and `clock` outlive the chain. `sts_endpoint` is where AssumeRoleWithWebIdentity
// goes (the endpoint resolver's answer for "sts" in the region).
std::unique_ptr<CredentialsProvider> DefaultCredentialsChain(CredentialsEnvironment env,
                                                             HttpClient* http,
                                                             const core::Clock* clock,
                                                             std::string sts_endpoint);

// Fixed credentials (tests, and `--profile`-less tools that were handed keys).
std::unique_ptr<CredentialsProvider> StaticCredentials(Credentials credentials);

// The region, as the SDKs find it: AWS_REGION, AWS_DEFAULT_REGION, the profile's `region` in the
// config file, then IMDS (placement/region). Empty when none answers.
std::string ResolveRegion(const CredentialsEnvironment& env, HttpClient* http);

// The decoding of what the credential endpoints answer, as the chain's sources call it. Public
// so that the parse of an answer can be tested (and fuzzed) without an endpoint. Messages never
// quote a success answer: it holds a secret.
//
// A JSON credentials answer (the container endpoint's, and IMDS's once its Code is Success):
// AccessKeyId, SecretAccessKey, Token, Expiration (RFC 3339). `who` names the endpoint in
// messages; `source` goes into the credentials.
core::Result<Credentials> DecodeCredentialsJson(const std::string& body, const std::string& who,
                                                std::string source);
// IMDS's answer for the instance role `role` at `url`: an error when its Code is not "Success",
// else DecodeCredentialsJson.
core::Result<Credentials> DecodeImdsCredentialsAnswer(const std::string& body,
                                                      const std::string& url,
                                                      const std::string& role);
// A 200 answer of sts:AssumeRoleWithWebIdentity (XML), from `url`; `who` names the call.
core::Result<Credentials> DecodeAssumeRoleWithWebIdentityAnswer(std::string_view body,
                                                                const std::string& who,
                                                                const std::string& url,
                                                                std::string source);
// Any other answer of STS (<ErrorResponse>), as a Status whose code says whether to retry.
core::Status DecodeStsError(const HttpResponse& response, const std::string& who);

}  // namespace nodesmith::aws
