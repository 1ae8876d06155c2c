#include "cloud/aws/credentials.h"

#include <fcntl.h>
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>
#include <pugixml.hpp>

#include "cloud/aws/shared_config.h"
#include "core/time.h"
#include "core/read_file.h"

namespace nodesmith::aws {
namespace {

using core::Result;
using core::Status;
using core::StatusCode;

// Temporary credentials are replaced when less than this remains, as the SDKs do, so that a
// request signed now is not refused as expired by the time it arrives.
constexpr core::Duration kRefreshMargin = std::chrono::minutes(5);

constexpr const char* kImdsEndpoint = "http://169.254.169.254";
constexpr const char* kImdsEndpointIpv6 = "http://[fd00:ec2::254]";
// The instance metadata service answers in microseconds or not at all (off EC2, or from a pod
// when the hop limit drops the answer): a short timeout and one immediate retry, as the SDKs.
constexpr double kImdsTimeoutSeconds = 1;
constexpr int kImdsAttempts = 2;
constexpr const char* kImdsTokenTtlSeconds = "21600";

constexpr const char* kContainerEndpoint = "http://169.254.170.2";
constexpr double kContainerTimeoutSeconds = 2;
constexpr int kContainerAttempts = 2;

constexpr double kStsTimeoutSeconds = 30;
constexpr int kStsAttempts = 2;

constexpr const char* kHowToConfigure =
    "set AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, annotate the service account for IRSA "
    "(AWS_ROLE_ARN + AWS_WEB_IDENTITY_TOKEN_FILE), or run on an instance with a role";

// The start of an answer's body on one line, for a message. Only for answers that carry no
// secret (error answers).
std::string Snippet(std::string_view body) {
  std::string_view t = TrimSpace(body);
  std::string out;
  for (char c : t.substr(0, 300)) out += (c == '\n' || c == '\r') ? ' ' : c;
  if (t.size() > 300) out += "...";
  return out;
}

// A token file, re-read on every fetch: the kubelet rotates projected tokens in place.
Result<std::string> ReadTokenFile(const std::string& path) {
  auto read = core::ReadWholeFile(path);
  if (!read.ok())
    return Status(StatusCode::kFailedPrecondition, "cannot read " + path + ": " + read.status().message());
  const std::string& text = *read;
  // A token never holds whitespace; a hand-written file often ends with a newline.
  std::string token(TrimSpace(text));
  if (token.empty()) return Status(StatusCode::kFailedPrecondition, path + " is empty");
  return token;
}

std::string FormEncode(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

// Sends `request`, and again at once (no sleep: callers hold a lock and a caller waits) after a
// failure to get an answer or a 5xx, up to `attempts` times in all.
Result<HttpResponse> SendWithRetry(HttpClient* http, const HttpRequest& request, int attempts) {
  Result<HttpResponse> r = http->Send(request);
  for (int i = 1; i < attempts && (!r.ok() || r->status >= 500); ++i) r = http->Send(request);
  return r;
}

StatusCode CodeOfHttpStatus(long status) {
  if (status == 401) return StatusCode::kUnauthenticated;
  if (status == 403) return StatusCode::kPermissionDenied;
  if (status == 404) return StatusCode::kNotFound;
  if (status == 429 || status >= 500) return StatusCode::kUnavailable;
  return StatusCode::kFailedPrecondition;
}

Result<core::Time> ParseExpiration(const std::string& text, const std::string& who) {
  Result<core::Time> t = core::ParseRfc3339(text);
  if (!t.ok()) return Status(StatusCode::kInternal, who + ": Expiration: " + t.status().message());
  return t;
}

// ---- Caching --------------------------------------------------------------------------------

using Fetch = std::function<Result<Credentials>()>;

// Keeps what `fetch` returned until kRefreshMargin before it expires, then fetches again. When
// that fails while the credentials in hand are still valid, they are returned, silently: the
// next Get tries again, and the source may well be back before they run out. Expired
// credentials are never returned. Thread-safe: a mutex, held during the fetch, so that callers
// arriving meanwhile wait for its answer instead of fetching too.
class CachingProvider : public CredentialsProvider {
 public:
  CachingProvider(Fetch fetch, const core::Clock* clock)
      : fetch_(std::move(fetch)), clock_(clock) {}

  Result<Credentials> Get() override {
    std::lock_guard<std::mutex> lock(mu_);
    const core::Time now = clock_->Now();
    if (cached_ && (!cached_->expiration || now < *cached_->expiration - kRefreshMargin)) {
      return *cached_;
    }
    Result<Credentials> fetched = fetch_();
    if (fetched.ok() && fetched->expiration && *fetched->expiration <= now) {
      fetched = Status(StatusCode::kUnauthenticated,
                       "the credentials it gave expired at " +
                           core::FormatRfc3339(*fetched->expiration) + " (it is now " +
                           core::FormatRfc3339(now) + ")");
    }
    if (fetched.ok()) {
      cached_ = *fetched;
      return fetched;
    }
    if (cached_ && (!cached_->expiration || now < *cached_->expiration)) return *cached_;
    if (cached_) {
      return fetched.status().WithPrefix("cannot replace the credentials that expired at " +
                                         core::FormatRfc3339(*cached_->expiration));
    }
    return fetched.status();
  }

  void Invalidate() override {
    std::lock_guard<std::mutex> lock(mu_);
    cached_.reset();
  }

 private:
  const Fetch fetch_;
  const core::Clock* const clock_;
  std::mutex mu_;
  std::optional<Credentials> cached_;  // guarded by mu_
};

class StaticProvider : public CredentialsProvider {
 public:
  explicit StaticProvider(Credentials credentials) : credentials_(std::move(credentials)) {}
  Result<Credentials> Get() override { return credentials_; }

 private:
  const Credentials credentials_;
};

// ---- Web identity ---------------------------------------------------------------------------

struct WebIdentity {
  std::string role_arn;
  std::string token_file;
  std::string session_name;  // empty: one made from the time
  std::string source;        // for Credentials::source
};

std::string StsUrl(const std::string& endpoint) {
  size_t scheme = endpoint.find("://");
  size_t path = endpoint.find('/', scheme == std::string::npos ? 0 : scheme + 3);
  return path == std::string::npos ? endpoint + "/" : endpoint;
}

// sts:AssumeRoleWithWebIdentity, unsigned: the token is the proof of identity.
Result<Credentials> AssumeRoleWithWebIdentity(HttpClient* http, const core::Clock* clock,
                                              const std::string& sts_endpoint,
                                              const WebIdentity& w) {
  const std::string who = "sts:AssumeRoleWithWebIdentity for " + w.role_arn;
  if (sts_endpoint.empty()) {
    return Status(StatusCode::kFailedPrecondition, who + ": no STS endpoint to call");
  }
  Result<std::string> token = ReadTokenFile(w.token_file);
  if (!token.ok()) return token.status().WithPrefix("the web identity token");
  std::string session = w.session_name;
  if (session.empty()) {
    session = "nodesmith-" + std::to_string(clock->Now().unix_nanos / 1000000000);
  }
  HttpRequest request;
  request.method = "POST";
  request.url = StsUrl(sts_endpoint);
  request.timeout_seconds = kStsTimeoutSeconds;
  request.headers = {{"Content-Type", "application/x-www-form-urlencoded; charset=utf-8"}};
  request.body = "Action=AssumeRoleWithWebIdentity&Version=2011-06-15&RoleArn=" +
                 FormEncode(w.role_arn) + "&RoleSessionName=" + FormEncode(session) +
                 "&WebIdentityToken=" + FormEncode(*token);
  Result<HttpResponse> response = SendWithRetry(http, request, kStsAttempts);
  if (!response.ok()) return response.status().WithPrefix(who);
  if (response->status != 200) return DecodeStsError(*response, who + " at " + request.url);

  return DecodeAssumeRoleWithWebIdentityAnswer(response->body, who, request.url, w.source);
}

// ---- Container credentials ------------------------------------------------------------------

// Plain http carries the token and the credentials in the clear, so the SDKs allow it only to
// the container agents' link-local addresses and to loopback.
Status CheckContainerUri(const std::string& uri) {
  const std::string what = "AWS_CONTAINER_CREDENTIALS_FULL_URI " + Quoted(uri);
  if (uri.rfind("https://", 0) == 0) return Status::Ok();
  if (uri.rfind("http://", 0) != 0) {
    return Status(StatusCode::kFailedPrecondition, what + ": not an http or https URL");
  }
  std::string authority = uri.substr(7, uri.find('/', 7) == std::string::npos
                                            ? std::string::npos
                                            : uri.find('/', 7) - 7);
  if (size_t at = authority.rfind('@'); at != std::string::npos) authority.erase(0, at + 1);
  std::string host;
  if (!authority.empty() && authority.front() == '[') {
    host = authority.substr(0, authority.find(']') + 1);
  } else {
    host = authority.substr(0, authority.find(':'));
  }
  host = LowerAscii(host);
  if (host == "localhost" || host.rfind("127.", 0) == 0 || host == "[::1]" ||
      host == "169.254.170.2" || host == "169.254.170.23" || host == "[fd00:ec2::23]") {
    return Status::Ok();
  }
  return Status(StatusCode::kFailedPrecondition,
                what + ": plain http is allowed only to loopback, 169.254.170.2 (ECS) or "
                       "169.254.170.23 (EKS Pod Identity); use https");
}

Result<Credentials> FetchContainerCredentials(HttpClient* http,
                                              const CredentialsEnvironment& env) {
  HttpRequest request;
  request.timeout_seconds = kContainerTimeoutSeconds;
  // The relative URI wins, as in the SDKs: it is what the ECS agent sets.
  if (auto relative = EnvValue(env, "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI")) {
    request.url = std::string(kContainerEndpoint) + (relative->front() == '/' ? "" : "/") +
                  *relative;
  } else {
    request.url = EnvValue(env, "AWS_CONTAINER_CREDENTIALS_FULL_URI").value_or("");
    NS_RETURN_IF_ERROR(CheckContainerUri(request.url));
  }
  std::string token;
  if (auto file = EnvValue(env, "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE")) {
    Result<std::string> read = ReadTokenFile(*file);
    if (!read.ok()) return read.status().WithPrefix("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE");
    token = *read;
  } else {
    token = EnvValue(env, "AWS_CONTAINER_AUTHORIZATION_TOKEN").value_or("");
  }
  if (token.find_first_of("\r\n") != std::string::npos) {
    return Status(StatusCode::kFailedPrecondition,
                  "the container authorization token holds a line break");
  }
  request.headers.emplace_back("Accept", "application/json");
  if (!token.empty()) request.headers.emplace_back("Authorization", token);
  Result<HttpResponse> response = SendWithRetry(http, request, kContainerAttempts);
  if (!response.ok()) return response.status();
  if (response->status != 200) {
    return Status(CodeOfHttpStatus(response->status),
                  request.url + " answered HTTP " + std::to_string(response->status) + ": " +
                      Snippet(response->body));
  }
  return DecodeCredentialsJson(response->body, request.url, "container credentials");
}

// ---- Instance metadata ----------------------------------------------------------------------

bool ImdsDisabled(const CredentialsEnvironment& env) {
  return LowerAscii(EnvValue(env, "AWS_EC2_METADATA_DISABLED").value_or("")) == "true";
}

std::string ImdsEndpoint(const CredentialsEnvironment& env) {
  std::string endpoint;
  if (auto e = EnvValue(env, "AWS_EC2_METADATA_SERVICE_ENDPOINT")) {
    endpoint = *e;
  } else if (LowerAscii(EnvValue(env, "AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE").value_or("")) == "ipv6") {
    endpoint = kImdsEndpointIpv6;
  } else {
    endpoint = kImdsEndpoint;
  }
  while (!endpoint.empty() && endpoint.back() == '/') endpoint.pop_back();
  return endpoint;
}

// An IMDSv2 session token. One per fetch, as botocore does: fetches are hours apart, and the
// token's lifetime would otherwise need a clock of its own.
Result<std::string> ImdsToken(HttpClient* http, const std::string& endpoint) {
  HttpRequest request;
  request.method = "PUT";
  request.url = endpoint + "/latest/api/token";
  request.timeout_seconds = kImdsTimeoutSeconds;
  request.headers = {{"X-aws-ec2-metadata-token-ttl-seconds", kImdsTokenTtlSeconds}};
  Result<HttpResponse> response = SendWithRetry(http, request, kImdsAttempts);
  if (!response.ok()) {
    return Status(StatusCode::kUnavailable,
                  "no answer to the IMDSv2 token request (PUT " + request.url + ": " +
                      response.status().message() +
                      "): not on EC2, or in a pod whose instance has a metadata hop limit of 1 "
                      "(IMDSv2 from a pod needs 2)");
  }
  if (response->status != 200) {
    std::string text = "the IMDSv2 token request (PUT " + request.url + ") was answered HTTP " +
                       std::to_string(response->status);
    if (std::string body = Snippet(response->body); !body.empty()) text += ": " + body;
    if (response->status == 403) text += "; the instance metadata service may be turned off";
    return Status(CodeOfHttpStatus(response->status), text);
  }
  std::string token(TrimSpace(response->body));
  if (token.empty()) {
    return Status(StatusCode::kInternal, "PUT " + request.url + " answered an empty token");
  }
  return token;
}

Result<HttpResponse> ImdsGet(HttpClient* http, const std::string& endpoint,
                             const std::string& token, const std::string& path) {
  HttpRequest request;
  request.url = endpoint + path;
  request.timeout_seconds = kImdsTimeoutSeconds;
  request.headers = {{"X-aws-ec2-metadata-token", token}};
  return SendWithRetry(http, request, kImdsAttempts);
}

Status ImdsAnswerError(const HttpResponse& response, const std::string& url) {
  return Status(CodeOfHttpStatus(response.status),
                "GET " + url + " was answered HTTP " + std::to_string(response.status) +
                    (response.body.empty() ? "" : ": " + Snippet(response.body)));
}

Result<Credentials> FetchImdsCredentials(HttpClient* http, const std::string& endpoint) {
  Result<std::string> token = ImdsToken(http, endpoint);
  if (!token.ok()) return token.status();
  const std::string roles_path = "/latest/meta-data/iam/security-credentials/";
  Result<HttpResponse> roles = ImdsGet(http, endpoint, *token, roles_path);
  if (!roles.ok()) return roles.status();
  if (roles->status == 404) {
    return Status(StatusCode::kNotFound,
                  "the instance has no IAM role (no instance profile is attached; " +
                      endpoint + roles_path + " answered 404)");
  }
  if (roles->status != 200) return ImdsAnswerError(*roles, endpoint + roles_path);
  std::string_view list = TrimSpace(roles->body);
  std::string role(TrimSpace(list.substr(0, list.find('\n'))));
  if (role.empty()) {
    return Status(StatusCode::kNotFound,
                  "the instance has no IAM role (" + endpoint + roles_path + " lists none)");
  }
  const std::string url = endpoint + roles_path + role;
  Result<HttpResponse> answer = ImdsGet(http, endpoint, *token, roles_path + role);
  if (!answer.ok()) return answer.status();
  if (answer->status != 200) return ImdsAnswerError(*answer, url);
  return DecodeImdsCredentialsAnswer(answer->body, url, role);
}

// ---- The chain ------------------------------------------------------------------------------

// One link of the default chain.
class Source {
 public:
  explicit Source(std::string name) : name_(std::move(name)) {}
  virtual ~Source() = default;
  const std::string& name() const { return name_; }
  // Why the source is not configured here, or nullopt when it is; Get then answers with
  // credentials or with what is wrong with the configuration.
  virtual std::optional<std::string> Absent() = 0;
  virtual Result<Credentials> Get() = 0;
  virtual void Invalidate() {}
  // True for the instance metadata service, which is configured by being on EC2 with a role:
  // until it has answered once, its failure says only that it is not there.
  virtual bool FailureMeansAbsent() const { return false; }

 private:
  const std::string name_;
};

class EnvironmentSource : public Source {
 public:
  explicit EnvironmentSource(const CredentialsEnvironment& env)
      : Source("environment"), env_(env) {}
  std::optional<std::string> Absent() override {
    if (EnvValue(env_, "AWS_ACCESS_KEY_ID") || EnvValue(env_, "AWS_SECRET_ACCESS_KEY")) return std::nullopt;
    return "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set";
  }
  Result<Credentials> Get() override {
    std::optional<std::string> id = EnvValue(env_, "AWS_ACCESS_KEY_ID");
    std::optional<std::string> secret = EnvValue(env_, "AWS_SECRET_ACCESS_KEY");
    if (!id || !secret) {
      return Status(StatusCode::kFailedPrecondition,
                    std::string(id ? "AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not"
                                   : "AWS_SECRET_ACCESS_KEY is set but AWS_ACCESS_KEY_ID is not") +
                        "; set both");
    }
    Credentials c;
    c.access_key_id = *id;
    c.secret_access_key = *secret;
    c.session_token = EnvValue(env_, "AWS_SESSION_TOKEN").value_or("");
    c.source = "environment";
    return c;
  }

 private:
  const CredentialsEnvironment& env_;
};

class WebIdentitySource : public Source {
 public:
  WebIdentitySource(const CredentialsEnvironment& env, HttpClient* http,
                    const core::Clock* clock, const std::string& sts_endpoint)
      : Source("web identity"),
        env_(env),
        cache_(
            [this, http, clock, &sts_endpoint] {
              WebIdentity w;
              w.role_arn = EnvValue(env_, "AWS_ROLE_ARN").value_or("");
              w.token_file = EnvValue(env_, "AWS_WEB_IDENTITY_TOKEN_FILE").value_or("");
              w.session_name = EnvValue(env_, "AWS_ROLE_SESSION_NAME").value_or("");
              w.source = "web identity";
              return AssumeRoleWithWebIdentity(http, clock, sts_endpoint, w);
            },
            clock) {}
  std::optional<std::string> Absent() override {
    if (EnvValue(env_, "AWS_WEB_IDENTITY_TOKEN_FILE")) return std::nullopt;
    if (EnvValue(env_, "AWS_ROLE_ARN")) {
      return "AWS_ROLE_ARN is set but AWS_WEB_IDENTITY_TOKEN_FILE is not";
    }
    return "AWS_ROLE_ARN and AWS_WEB_IDENTITY_TOKEN_FILE are not set";
  }
  Result<Credentials> Get() override {
    if (!EnvValue(env_, "AWS_ROLE_ARN")) {
      return Status(StatusCode::kFailedPrecondition,
                    "AWS_WEB_IDENTITY_TOKEN_FILE is set but AWS_ROLE_ARN, the role to assume, "
                    "is not");
    }
    return cache_.Get();
  }
  void Invalidate() override { cache_.Invalidate(); }

 private:
  const CredentialsEnvironment& env_;
  CachingProvider cache_;
};

// The profile of the shared files, and whichever of its kinds of credentials it has.
class SharedFilesSource : public Source {
 public:
  SharedFilesSource(const CredentialsEnvironment& env, HttpClient* http,
                    const core::Clock* clock, const std::string& sts_endpoint)
      : Source("shared files"),
        env_(env),
        http_(http),
        clock_(clock),
        sts_endpoint_(sts_endpoint) {}

  std::optional<std::string> Absent() override {
    std::lock_guard<std::mutex> lock(mu_);
    provider_.reset();
    error_ = Status::Ok();
    Result<SharedConfig> config = LoadSharedConfig(env_);
    if (!config.ok()) {
      error_ = config.status();
      return std::nullopt;
    }
    const std::string name = SelectedProfile(env_);
    std::optional<Profile> profile = config->Find(name);
    if (!profile) {
      std::string files = DescribeFile(config->credentials) + " or " + DescribeFile(config->config);
      if (!EnvValue(env_, "AWS_PROFILE")) return "no profile \"default\" in " + files;
      // A profile asked for by name that is not there is a mistake, not an absence: the SDKs
      // fail rather than fall back to another source.
      error_ = Status(StatusCode::kFailedPrecondition,
                      "AWS_PROFILE is " + Quoted(name) + ", a profile that is not in " + files);
      return std::nullopt;
    }
    Result<ProfileCredentials> kind = CredentialsOfProfile(*profile);
    if (!kind.ok()) {
      error_ = kind.status();
      return std::nullopt;
    }
    switch (kind->kind) {
      case ProfileCredentials::Kind::kNone:
        return profile->Describe() + " sets no credentials";
      case ProfileCredentials::Kind::kStatic:
        provider_ = StaticCredentials(kind->static_credentials);
        break;
      case ProfileCredentials::Kind::kWebIdentity: {
        WebIdentity w;
        w.role_arn = kind->role_arn;
        w.token_file = kind->web_identity_token_file;
        w.session_name = kind->role_session_name;
        w.source = "web identity (profile " + name + ")";
        provider_ = std::make_unique<CachingProvider>(
            [http = http_, clock = clock_, sts = sts_endpoint_, w] {
              return AssumeRoleWithWebIdentity(http, clock, sts, w);
            },
            clock_);
        break;
      }
      case ProfileCredentials::Kind::kProcess: {
        std::string source = "credential_process (profile " + name + ")";
        std::string where = profile->Describe("credential_process");
        provider_ = std::make_unique<CachingProvider>(
            [command = kind->credential_process, source, where] {
              Result<Credentials> c = RunCredentialProcess(command, source);
              return c.ok() ? c : Result<Credentials>(c.status().WithPrefix(where));
            },
            clock_);
        break;
      }
    }
    return std::nullopt;
  }

  Result<Credentials> Get() override {
    CredentialsProvider* provider;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!error_.ok()) return error_;
      provider = provider_.get();
    }
    if (provider == nullptr) {
      return Status(StatusCode::kFailedPrecondition, "the profile sets no credentials");
    }
    return provider->Get();
  }

  void Invalidate() override {
    std::lock_guard<std::mutex> lock(mu_);
    if (provider_) provider_->Invalidate();
  }

 private:
  static std::string DescribeFile(const SharedFile& file) {
    return file.path + (file.exists ? "" : " (no such file)");
  }

  const CredentialsEnvironment& env_;
  HttpClient* const http_;
  const core::Clock* const clock_;
  const std::string sts_endpoint_;
  std::mutex mu_;
  // What the last Absent() found, for Get: an error, or (when configured) the provider.
  Status error_;                                 // guarded by mu_
  std::unique_ptr<CredentialsProvider> provider_;  // guarded by mu_; kept once selected
};

class ContainerSource : public Source {
 public:
  ContainerSource(const CredentialsEnvironment& env, HttpClient* http, const core::Clock* clock)
      : Source("container credentials"),
        env_(env),
        cache_([this, http] { return FetchContainerCredentials(http, env_); }, clock) {}
  std::optional<std::string> Absent() override {
    if (EnvValue(env_, "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI") ||
        EnvValue(env_, "AWS_CONTAINER_CREDENTIALS_FULL_URI")) {
      return std::nullopt;
    }
    return "AWS_CONTAINER_CREDENTIALS_FULL_URI and AWS_CONTAINER_CREDENTIALS_RELATIVE_URI are "
           "not set";
  }
  Result<Credentials> Get() override { return cache_.Get(); }
  void Invalidate() override { cache_.Invalidate(); }

 private:
  const CredentialsEnvironment& env_;
  CachingProvider cache_;
};

class InstanceMetadataSource : public Source {
 public:
  InstanceMetadataSource(const CredentialsEnvironment& env, HttpClient* http,
                         const core::Clock* clock)
      : Source("instance metadata"),
        env_(env),
        cache_([this, http] { return FetchImdsCredentials(http, ImdsEndpoint(env_)); }, clock) {}
  std::optional<std::string> Absent() override {
    if (ImdsDisabled(env_)) return "disabled by AWS_EC2_METADATA_DISABLED=true";
    return std::nullopt;
  }
  Result<Credentials> Get() override { return cache_.Get(); }
  void Invalidate() override { cache_.Invalidate(); }
  bool FailureMeansAbsent() const override { return true; }

 private:
  const CredentialsEnvironment& env_;
  CachingProvider cache_;
};

// The first source that is configured is chosen, and kept once it has given credentials: a
// source that answered once is the process's identity, and its later failures are errors, not
// a reason to switch identity. Until then every Get looks again (a profile may be written, the
// metadata service may come up). Thread-safe: mu_ serialises the choice; a chosen source is
// asked without it.
class DefaultChain : public CredentialsProvider {
 public:
  DefaultChain(CredentialsEnvironment env, HttpClient* http, const core::Clock* clock,
               std::string sts_endpoint)
      : env_(std::move(env)), sts_endpoint_(std::move(sts_endpoint)) {
    sources_.push_back(std::make_unique<EnvironmentSource>(env_));
    sources_.push_back(std::make_unique<WebIdentitySource>(env_, http, clock, sts_endpoint_));
    sources_.push_back(std::make_unique<SharedFilesSource>(env_, http, clock, sts_endpoint_));
    sources_.push_back(std::make_unique<ContainerSource>(env_, http, clock));
    sources_.push_back(std::make_unique<InstanceMetadataSource>(env_, http, clock));
  }

  Result<Credentials> Get() override {
    std::unique_lock<std::mutex> lock(mu_);
    if (chosen_ != nullptr) {
      Source* chosen = chosen_;
      lock.unlock();
      Result<Credentials> c = chosen->Get();
      return c.ok() ? c : Result<Credentials>(c.status().WithPrefix(chosen->name()));
    }
    std::string tried;
    int n = 0;
    for (auto& source : sources_) {
      std::string why;
      if (std::optional<std::string> absent = source->Absent()) {
        why = *absent;
      } else {
        Result<Credentials> c = source->Get();
        if (c.ok()) {
          chosen_ = source.get();
          return c;
        }
        if (!source->FailureMeansAbsent()) return c.status().WithPrefix(source->name());
        why = c.status().message();
      }
      ++n;
      tried += (n > 1 ? "; " : "") + std::to_string(n) + ") " + source->name() + ": " + why;
    }
    return Status(StatusCode::kUnauthenticated,
                  "no AWS credentials found; tried " + tried + ". To give nodesmith an identity, " +
                      kHowToConfigure);
  }

  void Invalidate() override {
    Source* chosen;
    {
      std::lock_guard<std::mutex> lock(mu_);
      chosen = chosen_;
    }
    if (chosen != nullptr) chosen->Invalidate();
  }

 private:
  // The sources keep references to these: they are constructed first and never change.
  const CredentialsEnvironment env_;
  const std::string sts_endpoint_;
  std::vector<std::unique_ptr<Source>> sources_;
  std::mutex mu_;
  Source* chosen_ = nullptr;  // guarded by mu_; set once
};

}  // namespace

Result<Credentials> DecodeCredentialsJson(const std::string& body, const std::string& who,
                                          std::string source) {
  nlohmann::json j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return Status(StatusCode::kInternal, who + " answered " + std::to_string(body.size()) +
                                             " bytes that are not a JSON object");
  }
  auto text = [&](const char* field) -> std::string {
    auto it = j.find(field);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  Credentials out;
  out.access_key_id = text("AccessKeyId");
  out.secret_access_key = text("SecretAccessKey");
  out.session_token = text("Token");
  out.source = std::move(source);
  if (out.access_key_id.empty() || out.secret_access_key.empty()) {
    return Status(StatusCode::kInternal, who + " answered without AccessKeyId or SecretAccessKey");
  }
  if (std::string expiration = text("Expiration"); !expiration.empty()) {
    Result<core::Time> t = ParseExpiration(expiration, who);
    if (!t.ok()) return t.status();
    out.expiration = *t;
  }
  return out;
}

Result<Credentials> DecodeImdsCredentialsAnswer(const std::string& body, const std::string& url,
                                                const std::string& role) {
  nlohmann::json j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_object() && j.contains("Code") && j["Code"] != "Success") {
    std::string code = j["Code"].is_string() ? j["Code"].get<std::string>() : j["Code"].dump();
    // Only a string Message is quoted: json::value() throws on a member of another type.
    auto m = j.find("Message");
    std::string message = m != j.end() && m->is_string() ? m->get<std::string>() : std::string();
    return Status(StatusCode::kUnavailable, "GET " + url + ": Code " + code +
                                                (message.empty() ? "" : ": " + message));
  }
  return DecodeCredentialsJson(body, "GET " + url, "instance metadata (role " + role + ")");
}

Result<Credentials> DecodeAssumeRoleWithWebIdentityAnswer(std::string_view body,
                                                          const std::string& who,
                                                          const std::string& url,
                                                          std::string source) {
  pugi::xml_document doc;
  if (!doc.load_buffer(body.data(), body.size())) {
    return Status(StatusCode::kInternal, who + " at " + url + ": the answer is not XML");
  }
  pugi::xml_node c = doc.child("AssumeRoleWithWebIdentityResponse")
                         .child("AssumeRoleWithWebIdentityResult")
                         .child("Credentials");
  Credentials out;
  out.access_key_id = TrimSpace(c.child("AccessKeyId").text().get());
  out.secret_access_key = TrimSpace(c.child("SecretAccessKey").text().get());
  out.session_token = TrimSpace(c.child("SessionToken").text().get());
  out.source = std::move(source);
  std::string expiration(TrimSpace(c.child("Expiration").text().get()));
  if (out.access_key_id.empty() || out.secret_access_key.empty() || out.session_token.empty() ||
      expiration.empty()) {
    return Status(StatusCode::kInternal,
                  who + " at " + url +
                      ": the answer has no AssumeRoleWithWebIdentityResult/Credentials with "
                      "AccessKeyId, SecretAccessKey, SessionToken and Expiration");
  }
  Result<core::Time> t = ParseExpiration(expiration, who);
  if (!t.ok()) return t.status();
  out.expiration = *t;
  return out;
}

Status DecodeStsError(const HttpResponse& response, const std::string& who) {
  pugi::xml_document doc;
  doc.load_buffer(response.body.data(), response.body.size());
  pugi::xml_node root = doc.child("ErrorResponse");
  pugi::xml_node error = root.child("Error");
  std::string code = error.child("Code").text().get();
  std::string message = error.child("Message").text().get();
  std::string request_id = root.child("RequestId").text().get();
  if (request_id.empty()) request_id = error.child("RequestId").text().get();
  if (request_id.empty()) {
    auto it = response.headers.find("x-amzn-requestid");
    if (it != response.headers.end()) request_id = it->second;
  }
  std::string text = who + ": HTTP " + std::to_string(response.status);
  if (code.empty()) {
    text += ": " + Snippet(response.body);
  } else {
    text += " " + code + ": " + message;
  }
  if (!request_id.empty()) text += " (request id " + request_id + ")";
  StatusCode status = CodeOfHttpStatus(response.status);
  if (code == "AccessDenied") {
    status = StatusCode::kPermissionDenied;
    text += "; the role's trust policy must allow this token's issuer and subject";
  } else if (code == "InvalidIdentityToken" || code == "ExpiredTokenException" ||
             code == "IDPRejectedClaim") {
    status = StatusCode::kUnauthenticated;
  } else if (code == "IDPCommunicationError" || code == "Throttling") {
    status = StatusCode::kUnavailable;
  }
  return Status(status, text);
}

CredentialsEnvironment CredentialsEnvironment::Process() {
  CredentialsEnvironment env;
  env.getenv = [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    env.home = home;
  } else if (const passwd* pw = ::getpwuid(::getuid()); pw != nullptr && pw->pw_dir != nullptr) {
    env.home = pw->pw_dir;
  }
  return env;
}

std::unique_ptr<CredentialsProvider> DefaultCredentialsChain(CredentialsEnvironment env,
                                                             HttpClient* http,
                                                             const core::Clock* clock,
                                                             std::string sts_endpoint) {
  return std::make_unique<DefaultChain>(std::move(env), http, clock, std::move(sts_endpoint));
}

std::unique_ptr<CredentialsProvider> StaticCredentials(Credentials credentials) {
  return std::make_unique<StaticProvider>(std::move(credentials));
}

std::string ResolveRegion(const CredentialsEnvironment& env, HttpClient* http) {
  if (auto region = EnvValue(env, "AWS_REGION")) return *region;
  if (auto region = EnvValue(env, "AWS_DEFAULT_REGION")) return *region;
  // The config file alone, as the SDKs read it: a malformed credentials file (an error for the
  // credentials chain, which reports it) does not hide the region.
  Result<SharedFile> config = ReadSharedFile(SharedConfigPath(env), SharedFileKind::kConfig);
  if (config.ok()) {
    auto profile = config->profiles.find(SelectedProfile(env));
    if (profile != config->profiles.end()) {
      if (auto region = profile->second.Get("region")) return *region;
    }
  }
  if (http == nullptr || ImdsDisabled(env)) return "";
  const std::string endpoint = ImdsEndpoint(env);
  Result<std::string> token = ImdsToken(http, endpoint);
  if (!token.ok()) return "";
  Result<HttpResponse> region =
      ImdsGet(http, endpoint, *token, "/latest/meta-data/placement/region");
  if (!region.ok() || region->status != 200) return "";
  return std::string(TrimSpace(region->body));
}

}  // namespace nodesmith::aws
