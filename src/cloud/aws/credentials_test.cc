// The default credentials chain: which source wins, profiles, credential_process, caching and
// refresh on a fake clock, and the endpoints it calls (STS, the container endpoint, IMDSv2)
// played by a loopback HTTP server reached through the real libcurl client, so the tests see
// the requests as they go on the wire. Every test disables the instance metadata service or
// points it at loopback: none ever reaches 169.254.169.254.
#include "cloud/aws/credentials.h"

#include <stdlib.h>
#include <sys/stat.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "loopback_http_server.h"
#include "temp_dir.h"

namespace nodesmith::aws {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;
using nodesmith::testing::LoopbackHttpServer;
using nodesmith::testing::LoopbackRequest;
using nodesmith::testing::LoopbackResponse;
using namespace std::chrono_literals;

namespace fs = std::filesystem;

const core::Time kStart = core::Time::FromUnixSeconds(1735689600);  // 2025-01-01T00:00:00Z

using nodesmith::testing::TempDir;

std::string ContainerJson(const std::string& key_id, core::Time expiration) {
  return R"({"AccessKeyId": ")" + key_id + R"(", "SecretAccessKey": "secret", "Token": "token", )" +
         R"("Expiration": ")" + core::FormatRfc3339(expiration) + R"("})";
}

std::string ImdsJson(const std::string& key_id, core::Time expiration) {
  return R"({"Code": "Success", "LastUpdated": "2025-01-01T00:00:00Z", "Type": "AWS-HMAC", )"
         R"("AccessKeyId": ")" +
         key_id + R"(", "SecretAccessKey": "secret", "Token": "token", "Expiration": ")" +
         core::FormatRfc3339(expiration) + R"("})";
}

std::string StsAnswer(const std::string& key_id, core::Time expiration) {
  return R"(<AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <AssumeRoleWithWebIdentityResult>
    <SubjectFromWebIdentityToken>system:serviceaccount:kube-system:nodesmith</SubjectFromWebIdentityToken>
    <Audience>sts.amazonaws.com</Audience>
    <AssumedRoleUser>
      <Arn>arn:aws:sts::123456789012:assumed-role/nodesmith/s</Arn>
      <AssumedRoleId>AROAEXAMPLE:s</AssumedRoleId>
    </AssumedRoleUser>
    <Credentials>
      <SessionToken>web-session-token</SessionToken>
      <SecretAccessKey>web-secret</SecretAccessKey>
      <Expiration>)" +
         core::FormatRfc3339(expiration) + R"(</Expiration>
      <AccessKeyId>)" +
         key_id + R"(</AccessKeyId>
    </Credentials>
    <Provider>arn:aws:iam::123456789012:oidc-provider/oidc.eks.us-west-2.amazonaws.com/id/X</Provider>
  </AssumeRoleWithWebIdentityResult>
  <ResponseMetadata>
    <RequestId>c6104cbe-af31-11e0-8154-cbc7ccf896c7</RequestId>
  </ResponseMetadata>
</AssumeRoleWithWebIdentityResponse>
)";
}

// Plays the instance metadata service: IMDSv2 only, one role, credentials valid 6 hours.
struct FakeImds {
  std::atomic<int> fetches{0};
  std::atomic<int> token_status{200};
  core::Time expiration = kStart + 6h;
  LoopbackResponse operator()(const LoopbackRequest& r) {
    if (r.method == "PUT" && r.target == "/latest/api/token") {
      if (r.headers.count("x-aws-ec2-metadata-token-ttl-seconds") == 0) return {400, "", {}};
      if (token_status != 200) return {token_status, "", {}};
      return {200, "imds-session-token", {}};
    }
    auto token = r.headers.find("x-aws-ec2-metadata-token");
    if (token == r.headers.end() || token->second != "imds-session-token") return {401, "", {}};
    if (r.target == "/latest/meta-data/iam/security-credentials/") return {200, "node-role", {}};
    if (r.target == "/latest/meta-data/iam/security-credentials/node-role") {
      return {200, ImdsJson("ASIAIMDS" + std::to_string(++fetches), expiration), {}};
    }
    if (r.target == "/latest/meta-data/placement/region") return {200, "ap-southeast-2", {}};
    return {404, "", {}};
  }
};

class CredentialsTest : public ::testing::Test {
 protected:
  CredentialsEnvironment Environment() const {
    CredentialsEnvironment env;
    env.getenv = [vars = vars_](const std::string& name) -> std::optional<std::string> {
      auto it = vars.find(name);
      if (it == vars.end()) return std::nullopt;
      return it->second;
    };
    env.home = dir_.path();
    return env;
  }
  std::unique_ptr<CredentialsProvider> Chain(std::string sts_endpoint = "") {
    return DefaultCredentialsChain(Environment(), &http_, &clock_, std::move(sts_endpoint));
  }
  Credentials MustGet(CredentialsProvider& p) {
    core::Result<Credentials> c = p.Get();
    EXPECT_TRUE(c.ok()) << c.status().message();
    return c.ok() ? *c : Credentials{};
  }
  void UseWebIdentity(const std::string& token = "jwt-1") {
    vars_["AWS_ROLE_ARN"] = "arn:aws:iam::123456789012:role/nodesmith";
    vars_["AWS_WEB_IDENTITY_TOKEN_FILE"] = dir_.Write("token", token);
  }

  TempDir dir_;
  core::FakeClock clock_{kStart};
  CurlHttpClient http_;
  std::map<std::string, std::string> vars_ = {{"AWS_EC2_METADATA_DISABLED", "true"}};
};

// ---- Precedence -----------------------------------------------------------------------------

TEST_F(CredentialsTest, EnvironmentBeatsWebIdentityFilesContainerAndImds) {
  LoopbackHttpServer server([](const LoopbackRequest&) { return LoopbackResponse{500, "", {}}; });
  vars_["AWS_ACCESS_KEY_ID"] = "AKIDENV";
  vars_["AWS_SECRET_ACCESS_KEY"] = "envsecret";
  vars_["AWS_SESSION_TOKEN"] = "envtoken";
  UseWebIdentity();
  dir_.Write(".aws/credentials",
             "[default]\naws_access_key_id = AKIDFILE\naws_secret_access_key = s\n");
  vars_["AWS_CONTAINER_CREDENTIALS_FULL_URI"] = server.url() + "/creds";
  vars_.erase("AWS_EC2_METADATA_DISABLED");
  vars_["AWS_EC2_METADATA_SERVICE_ENDPOINT"] = server.url();
  auto chain = Chain(server.url());
  Credentials c = MustGet(*chain);
  EXPECT_EQ(c.access_key_id, "AKIDENV");
  EXPECT_EQ(c.secret_access_key, "envsecret");
  EXPECT_EQ(c.session_token, "envtoken");
  EXPECT_EQ(c.source, "environment");
  EXPECT_FALSE(c.expiration.has_value());
  EXPECT_EQ(server.request_count(), 0u);
}

TEST_F(CredentialsTest, HalfTheEnvironmentKeysIsAnError) {
  vars_["AWS_ACCESS_KEY_ID"] = "AKIDENV";
  dir_.Write(".aws/credentials", "[default]\naws_access_key_id = A\naws_secret_access_key = s\n");
  core::Result<Credentials> c = Chain()->Get();
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(),
              HasSubstr("environment: AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not"));
}

TEST_F(CredentialsTest, WebIdentityBeatsSharedFiles) {
  LoopbackHttpServer sts([](const LoopbackRequest&) {
    return LoopbackResponse{200, StsAnswer("ASIAWEB", kStart + 1h), {}};
  });
  UseWebIdentity();
  dir_.Write(".aws/credentials",
             "[default]\naws_access_key_id = AKIDFILE\naws_secret_access_key = s\n");
  Credentials c = MustGet(*Chain(sts.url()));
  EXPECT_EQ(c.access_key_id, "ASIAWEB");
  EXPECT_EQ(c.source, "web identity");
}

TEST_F(CredentialsTest, SharedFilesBeatContainerCredentials) {
  LoopbackHttpServer container([](const LoopbackRequest&) {
    return LoopbackResponse{200, ContainerJson("ASIACONTAINER", kStart + 1h), {}};
  });
  dir_.Write(".aws/credentials",
             "[default]\naws_access_key_id = AKIDFILE\naws_secret_access_key = s\n");
  vars_["AWS_CONTAINER_CREDENTIALS_FULL_URI"] = container.url() + "/creds";
  Credentials c = MustGet(*Chain());
  EXPECT_EQ(c.access_key_id, "AKIDFILE");
  EXPECT_EQ(c.source, "shared file (profile default)");
  EXPECT_EQ(container.request_count(), 0u);
}

TEST_F(CredentialsTest, ContainerCredentialsBeatImds) {
  LoopbackHttpServer container([](const LoopbackRequest&) {
    return LoopbackResponse{200, ContainerJson("ASIACONTAINER", kStart + 1h), {}};
  });
  FakeImds imds_state;
  LoopbackHttpServer imds([&](const LoopbackRequest& r) { return imds_state(r); });
  vars_.erase("AWS_EC2_METADATA_DISABLED");
  vars_["AWS_EC2_METADATA_SERVICE_ENDPOINT"] = imds.url();
  vars_["AWS_CONTAINER_CREDENTIALS_FULL_URI"] = container.url() + "/creds";
  Credentials c = MustGet(*Chain());
  EXPECT_EQ(c.access_key_id, "ASIACONTAINER");
  EXPECT_EQ(c.source, "container credentials");
  EXPECT_EQ(imds.request_count(), 0u);
}

TEST_F(CredentialsTest, ASourceThatIsConfiguredButFailsDoesNotFallThrough) {
  LoopbackHttpServer container([](const LoopbackRequest&) {
    return LoopbackResponse{200, ContainerJson("ASIACONTAINER", kStart + 1h), {}};
  });
  // A profile that credential_process cannot serve: the SDKs report it rather than quietly
  // taking another identity.
  dir_.Write(".aws/config", "[default]\ncredential_process = /bin/false\n");
  vars_["AWS_CONTAINER_CREDENTIALS_FULL_URI"] = container.url() + "/creds";
  core::Result<Credentials> c = Chain()->Get();
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), StartsWith("shared files: profile \"default\" ("));
  EXPECT_THAT(c.status().message(),
              HasSubstr("credential_process \"/bin/false\" exited with status 1"));
  EXPECT_EQ(container.request_count(), 0u);
}

// ---- Profiles -------------------------------------------------------------------------------

TEST_F(CredentialsTest, AwsProfileSelectsTheProfile) {
  dir_.Write(".aws/credentials",
             "[default]\naws_access_key_id = AKIDDEFAULT\naws_secret_access_key = s\n"
             "[dev]\naws_access_key_id = AKIDDEV\naws_secret_access_key = s\n"
             "aws_session_token = devtoken\n");
  vars_["AWS_PROFILE"] = "dev";
  Credentials c = MustGet(*Chain());
  EXPECT_EQ(c.access_key_id, "AKIDDEV");
  EXPECT_EQ(c.session_token, "devtoken");
  EXPECT_EQ(c.source, "shared file (profile dev)");
}

TEST_F(CredentialsTest, ConfigFileProfilesNeedThePrefix) {
  // AWS_CONFIG_FILE names the file; in it `[profile dev]` is dev and `[qa]` is no profile.
  std::string config = dir_.Write("elsewhere/config",
                                  "[profile dev]\naws_access_key_id = AKIDDEV\n"
                                  "aws_secret_access_key = s\n"
                                  "[qa]\naws_access_key_id = AKIDQA\naws_secret_access_key = s\n");
  vars_["AWS_CONFIG_FILE"] = config;
  vars_["AWS_PROFILE"] = "dev";
  EXPECT_EQ(MustGet(*Chain()).access_key_id, "AKIDDEV");

  vars_["AWS_PROFILE"] = "qa";
  core::Result<Credentials> qa = Chain()->Get();
  ASSERT_FALSE(qa.ok());
  EXPECT_THAT(qa.status().message(),
              HasSubstr("shared files: AWS_PROFILE is \"qa\", a profile that is not in " +
                        dir_.path() + "/.aws/credentials (no such file) or " + config));
}

TEST_F(CredentialsTest, AnAssumeRoleProfileIsAClearError) {
  dir_.Write(".aws/config",
             "[profile base]\naws_access_key_id = A\naws_secret_access_key = s\n"
             "[profile admin]\nrole_arn = arn:aws:iam::123456789012:role/admin\n"
             "source_profile = base\n");
  vars_["AWS_PROFILE"] = "admin";
  core::Result<Credentials> c = Chain()->Get();
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), core::StatusCode::kFailedPrecondition);
  EXPECT_THAT(c.status().message(),
              HasSubstr("profile \"admin\" (" + dir_.path() + "/.aws/config:6)"));
  EXPECT_THAT(c.status().message(), HasSubstr("source_profile is sts:AssumeRole"));
  EXPECT_THAT(c.status().message(), HasSubstr("nodesmith does not support it"));
}

TEST_F(CredentialsTest, AMalformedFileNamesFileAndLine) {
  dir_.Write(".aws/credentials", "[default]\naws_access_key_id = A\n[broken\n");
  core::Result<Credentials> c = Chain()->Get();
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(),
              HasSubstr("shared files: " + dir_.path() + "/.aws/credentials:3: section header"));
}

TEST_F(CredentialsTest, AProfileWithoutCredentialsLetsTheChainGoOn) {
  LoopbackHttpServer container([](const LoopbackRequest&) {
    return LoopbackResponse{200, ContainerJson("ASIACONTAINER", kStart + 1h), {}};
  });
  dir_.Write(".aws/config", "[default]\nregion = us-west-2\n");
  vars_["AWS_CONTAINER_CREDENTIALS_FULL_URI"] = container.url() + "/creds";
  EXPECT_EQ(MustGet(*Chain()).source, "container credentials");
}

TEST_F(CredentialsTest, CredentialProcessIsRunAndRefreshedBeforeExpiry) {
  // Each run prints the next key, valid for an hour from the fake start.
  std::string counter = dir_.path() + "/runs";
  std::string script = dir_.Script(
      "creds.sh", "n=$(cat " + counter + " 2>/dev/null || echo 0); n=$((n+1)); echo $n > " +
                      counter +
                      "\necho '{\"Version\": 1, \"AccessKeyId\": \"AKIDPROC'$n'\", "
                      "\"SecretAccessKey\": \"S\", \"SessionToken\": \"T\", \"Expiration\": \"" +
                      core::FormatRfc3339(kStart + 1h) + "\"}'\n");
  dir_.Write(".aws/config", "[profile tools]\ncredential_process = " + script + "\n");
  vars_["AWS_PROFILE"] = "tools";
  auto chain = Chain();
  Credentials c = MustGet(*chain);
  EXPECT_EQ(c.access_key_id, "AKIDPROC1");
  EXPECT_EQ(c.session_token, "T");
  EXPECT_EQ(c.source, "credential_process (profile tools)");
  clock_.Step(54min);  // 6 minutes left: kept
  EXPECT_EQ(MustGet(*chain).access_key_id, "AKIDPROC1");
  clock_.Step(1min + 1s);  // under 5 minutes left: run again
  EXPECT_EQ(MustGet(*chain).access_key_id, "AKIDPROC2");
}

// ---- Caching, refresh and expiry (through the container endpoint) ---------------------------

struct ScriptedContainer {
  std::mutex mu;
  int fetches = 0;
  int status = 200;
  core::Time expiration = kStart + 1h;
  LoopbackResponse operator()(const LoopbackRequest&) {
    std::lock_guard<std::mutex> lock(mu);
    if (status != 200) return {status, R"({"code": "Oops", "message": "agent restarting"})", {}};
    return {200, ContainerJson("ASIA" + std::to_string(++fetches), expiration), {}};
  }
  void Set(int s, core::Time e) {
    std::lock_guard<std::mutex> lock(mu);
    status = s;
    expiration = e;
  }
};

TEST_F(CredentialsTest, CredentialsAreCachedAndRefreshedWithFiveMinutesLeft) {
  ScriptedContainer state;
  LoopbackHttpServer server([&](const LoopbackRequest& r) { return state(r); });
  vars_["AWS_CONTAINER_CREDENTIALS_FULL_URI"] = server.url() + "/creds";
  auto chain = Chain();
  Credentials c = MustGet(*chain);
  EXPECT_EQ(c.access_key_id, "ASIA1");
  EXPECT_EQ(c.session_token, "token");
  ASSERT_TRUE(c.expiration.has_value());
  EXPECT_EQ(*c.expiration, kStart + 1h);
  EXPECT_EQ(MustGet(*chain).access_key_id, "ASIA1");
  clock_.Step(55min - 1s);
  EXPECT_EQ(MustGet(*chain).access_key_id, "ASIA1");
  EXPECT_EQ(server.request_count(), 1u);
  state.Set(200, kStart + 2h);
  clock_.Step(1s);  // exactly 5 minutes left
  EXPECT_EQ(MustGet(*chain).access_key_id, "ASIA2");
  EXPECT_EQ(server.request_count(), 2u);
}

TEST_F(CredentialsTest, AFailedRefreshKeepsCredentialsThatAreStillValidThenExpires) {
  ScriptedContainer state;
  LoopbackHttpServer server([&](const LoopbackRequest& r) { return state(r); });
  vars_["AWS_CONTAINER_CREDENTIALS_FULL_URI"] = server.url() + "/creds";
  auto chain = Chain();
  EXPECT_EQ(MustGet(*chain).access_key_id, "ASIA1");
  state.Set(503, kStart + 1h);
  clock_.Step(58min);  // 2 minutes left, the refresh fails: the ones in hand still serve
  core::Result<Credentials> kept = chain->Get();
  ASSERT_TRUE(kept.ok()) << kept.status().message();
  EXPECT_EQ(kept->access_key_id, "ASIA1");
  EXPECT_EQ(server.request_count(), 3u);  // the first fetch, then a 503 retried once

  clock_.Step(2min);  // expired now: never handed out
  core::Result<Credentials> expired = chain->Get();
  ASSERT_FALSE(expired.ok());
  EXPECT_EQ(expired.status().code(), core::StatusCode::kUnavailable);
  EXPECT_THAT(expired.status().message(),
              HasSubstr("container credentials: cannot replace the credentials that expired at "
                        "2025-01-01T01:00:00Z"));
  EXPECT_THAT(expired.status().message(), HasSubstr("HTTP 503"));
  EXPECT_THAT(expired.status().message(), HasSubstr("agent restarting"));

  state.Set(200, kStart + 3h);  // back: fetched anew
  EXPECT_EQ(MustGet(*chain).access_key_id, "ASIA2");
}

TEST_F(CredentialsTest, ASourceGivingExpiredCredentialsIsAnError) {
  ScriptedContainer state;
  state.expiration = kStart - 1s;
  LoopbackHttpServer server([&](const LoopbackRequest& r) { return state(r); });
  vars_["AWS_CONTAINER_CREDENTIALS_FULL_URI"] = server.url() + "/creds";
  core::Result<Credentials> c = Chain()->Get();
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), core::StatusCode::kUnauthenticated);
  EXPECT_THAT(c.status().message(), HasSubstr("expired at 2024-12-31T23:59:59Z"));
}

TEST_F(CredentialsTest, InvalidateForcesAFetch) {
  ScriptedContainer state;
  LoopbackHttpServer server([&](const LoopbackRequest& r) { return state(r); });
  vars_["AWS_CONTAINER_CREDENTIALS_FULL_URI"] = server.url() + "/creds";
  auto chain = Chain();
  EXPECT_EQ(MustGet(*chain).access_key_id, "ASIA1");
  chain->Invalidate();
  EXPECT_EQ(MustGet(*chain).access_key_id, "ASIA2");
}

TEST_F(CredentialsTest, ConcurrentCallersShareOneFetch) {
  ScriptedContainer state;
  LoopbackHttpServer server([&](const LoopbackRequest& r) { return state(r); });
  vars_["AWS_CONTAINER_CREDENTIALS_FULL_URI"] = server.url() + "/creds";
  auto chain = Chain();
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&] {
      core::Result<Credentials> c = chain->Get();
      if (c.ok() && c->access_key_id == "ASIA1") ++ok;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), 8);
  EXPECT_EQ(server.request_count(), 1u);
}

// ---- Container credentials ------------------------------------------------------------------

TEST_F(CredentialsTest, ContainerTokenFileIsSentAndReReadOnEachFetch) {
  ScriptedContainer state;
  LoopbackHttpServer server([&](const LoopbackRequest& r) { return state(r); });
  vars_["AWS_CONTAINER_CREDENTIALS_FULL_URI"] = server.url() + "/v1/credentials";
  vars_["AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"] = dir_.Write("pod-identity-token", "tok-1\n");
  vars_["AWS_CONTAINER_AUTHORIZATION_TOKEN"] = "ignored-when-the-file-is-set";
  auto chain = Chain();
  EXPECT_EQ(MustGet(*chain).access_key_id, "ASIA1");
  dir_.Write("pod-identity-token", "tok-2");
  clock_.Step(56min);
  state.Set(200, kStart + 2h);
  EXPECT_EQ(MustGet(*chain).access_key_id, "ASIA2");
  std::vector<LoopbackRequest> requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].method, "GET");
  EXPECT_EQ(requests[0].target, "/v1/credentials");
  EXPECT_EQ(requests[0].headers["authorization"], "tok-1");
  EXPECT_EQ(requests[1].headers["authorization"], "tok-2");
}

TEST_F(CredentialsTest, ContainerTokenFromTheEnvironment) {
  ScriptedContainer state;
  LoopbackHttpServer server([&](const LoopbackRequest& r) { return state(r); });
  vars_["AWS_CONTAINER_CREDENTIALS_FULL_URI"] = server.url() + "/creds";
  vars_["AWS_CONTAINER_AUTHORIZATION_TOKEN"] = "Basic abc";
  MustGet(*Chain());
  ASSERT_EQ(server.request_count(), 1u);
  EXPECT_EQ(server.requests()[0].headers["authorization"], "Basic abc");
}

TEST_F(CredentialsTest, PlainHttpToARemoteHostIsRefused) {
  vars_["AWS_CONTAINER_CREDENTIALS_FULL_URI"] = "http://credentials.example.com/creds";
  core::Result<Credentials> c = Chain()->Get();
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(),
              HasSubstr("container credentials: AWS_CONTAINER_CREDENTIALS_FULL_URI "
                        "\"http://credentials.example.com/creds\": plain http is allowed only"));
  EXPECT_THAT(c.status().message(), HasSubstr("use https"));
}

TEST_F(CredentialsTest, ContainerErrorAnswerIsQuoted) {
  LoopbackHttpServer server([](const LoopbackRequest&) {
    return LoopbackResponse{403, R"({"code":"AccessDenied","message":"token not valid"})", {}};
  });
  vars_["AWS_CONTAINER_CREDENTIALS_FULL_URI"] = server.url() + "/creds";
  core::Result<Credentials> c = Chain()->Get();
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), core::StatusCode::kPermissionDenied);
  EXPECT_THAT(c.status().message(), HasSubstr(server.url() + "/creds answered HTTP 403"));
  EXPECT_THAT(c.status().message(), HasSubstr("token not valid"));
}

// ---- Instance metadata ----------------------------------------------------------------------

TEST_F(CredentialsTest, ImdsV2TakesASessionTokenFirst) {
  FakeImds state;
  LoopbackHttpServer imds([&](const LoopbackRequest& r) { return state(r); });
  vars_.erase("AWS_EC2_METADATA_DISABLED");
  vars_["AWS_EC2_METADATA_SERVICE_ENDPOINT"] = imds.url() + "/";
  Credentials c = MustGet(*Chain());
  EXPECT_EQ(c.access_key_id, "ASIAIMDS1");
  EXPECT_EQ(c.secret_access_key, "secret");
  EXPECT_EQ(c.session_token, "token");
  EXPECT_EQ(c.source, "instance metadata (role node-role)");
  ASSERT_TRUE(c.expiration.has_value());
  EXPECT_EQ(*c.expiration, kStart + 6h);

  std::vector<LoopbackRequest> requests = imds.requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests[0].method, "PUT");
  EXPECT_EQ(requests[0].target, "/latest/api/token");
  EXPECT_EQ(requests[0].headers["x-aws-ec2-metadata-token-ttl-seconds"], "21600");
  EXPECT_EQ(requests[1].method, "GET");
  EXPECT_EQ(requests[1].target, "/latest/meta-data/iam/security-credentials/");
  EXPECT_EQ(requests[1].headers["x-aws-ec2-metadata-token"], "imds-session-token");
  EXPECT_EQ(requests[2].target, "/latest/meta-data/iam/security-credentials/node-role");
  EXPECT_EQ(requests[2].headers["x-aws-ec2-metadata-token"], "imds-session-token");
}

TEST_F(CredentialsTest, ImdsCredentialsAreRefreshedWithFiveMinutesLeft) {
  FakeImds state;
  LoopbackHttpServer imds([&](const LoopbackRequest& r) { return state(r); });
  vars_.erase("AWS_EC2_METADATA_DISABLED");
  vars_["AWS_EC2_METADATA_SERVICE_ENDPOINT"] = imds.url();
  auto chain = Chain();
  EXPECT_EQ(MustGet(*chain).access_key_id, "ASIAIMDS1");
  clock_.Step(5h + 54min);
  EXPECT_EQ(MustGet(*chain).access_key_id, "ASIAIMDS1");
  clock_.Step(1min);
  state.expiration = kStart + 12h;
  EXPECT_EQ(MustGet(*chain).access_key_id, "ASIAIMDS2");
  std::vector<LoopbackRequest> requests = imds.requests();
  ASSERT_EQ(requests.size(), 6u);
  EXPECT_EQ(requests[3].method, "PUT");  // a fresh session token for the refresh
}

TEST_F(CredentialsTest, ImdsDisabledIsNeverAsked) {
  FakeImds state;
  LoopbackHttpServer imds([&](const LoopbackRequest& r) { return state(r); });
  vars_["AWS_EC2_METADATA_DISABLED"] = "TRUE";
  vars_["AWS_EC2_METADATA_SERVICE_ENDPOINT"] = imds.url();
  core::Result<Credentials> c = Chain()->Get();
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(),
              HasSubstr("5) instance metadata: disabled by AWS_EC2_METADATA_DISABLED=true"));
  EXPECT_EQ(imds.request_count(), 0u);
}

TEST_F(CredentialsTest, ImdsTokenRefusedIsReportedWithoutFurtherCalls) {
  FakeImds state;
  state.token_status = 401;
  LoopbackHttpServer imds([&](const LoopbackRequest& r) { return state(r); });
  vars_.erase("AWS_EC2_METADATA_DISABLED");
  vars_["AWS_EC2_METADATA_SERVICE_ENDPOINT"] = imds.url();
  core::Result<Credentials> c = Chain()->Get();
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), core::StatusCode::kUnauthenticated);
  EXPECT_THAT(c.status().message(),
              HasSubstr("5) instance metadata: the IMDSv2 token request (PUT " + imds.url() +
                        "/latest/api/token) was answered HTTP 401"));
  std::vector<LoopbackRequest> requests = imds.requests();
  ASSERT_EQ(requests.size(), 1u);  // a 4xx is an answer, not retried; no GET without a token
  EXPECT_EQ(requests[0].method, "PUT");
}

TEST_F(CredentialsTest, ImdsIsRetriedOnceAtOnce) {
  std::atomic<int> puts{0};
  FakeImds state;
  LoopbackHttpServer imds([&](const LoopbackRequest& r) {
    if (r.method == "PUT" && ++puts == 1) return LoopbackResponse{500, "", {}};
    return state(r);
  });
  vars_.erase("AWS_EC2_METADATA_DISABLED");
  vars_["AWS_EC2_METADATA_SERVICE_ENDPOINT"] = imds.url();
  EXPECT_EQ(MustGet(*Chain()).access_key_id, "ASIAIMDS1");
  EXPECT_EQ(puts.load(), 2);
}

TEST_F(CredentialsTest, ImdsThatNeverAnswersTimesOutQuickly) {
  // What a pod sees when the instance's hop limit is 1: the token answer never arrives.
  LoopbackHttpServer imds([](const LoopbackRequest&) { return LoopbackResponse{0, "", {}}; });
  vars_.erase("AWS_EC2_METADATA_DISABLED");
  vars_["AWS_EC2_METADATA_SERVICE_ENDPOINT"] = imds.url();
  core::Result<Credentials> c = Chain()->Get();
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("5) instance metadata: no answer to the IMDSv2 token "
                                              "request"));
  EXPECT_THAT(c.status().message(), HasSubstr("did not answer within 1 s"));
  EXPECT_THAT(c.status().message(), HasSubstr("hop limit"));
  EXPECT_EQ(imds.request_count(), 2u);
}

TEST_F(CredentialsTest, ImdsWithoutARole) {
  LoopbackHttpServer imds([](const LoopbackRequest& r) {
    if (r.method == "PUT") return LoopbackResponse{200, "tok", {}};
    return LoopbackResponse{404, "", {}};
  });
  vars_.erase("AWS_EC2_METADATA_DISABLED");
  vars_["AWS_EC2_METADATA_SERVICE_ENDPOINT"] = imds.url();
  core::Result<Credentials> c = Chain()->Get();
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("instance metadata: the instance has no IAM role"));
}

TEST_F(CredentialsTest, ImdsCodeOtherThanSuccessIsAnError) {
  LoopbackHttpServer imds([](const LoopbackRequest& r) {
    if (r.method == "PUT") return LoopbackResponse{200, "tok", {}};
    if (r.target == "/latest/meta-data/iam/security-credentials/") {
      return LoopbackResponse{200, "node-role\n", {}};
    }
    return LoopbackResponse{
        200, R"({"Code": "AssumeRoleUnauthorizedAccess", "Message": "no"})", {}};
  });
  vars_.erase("AWS_EC2_METADATA_DISABLED");
  vars_["AWS_EC2_METADATA_SERVICE_ENDPOINT"] = imds.url();
  core::Result<Credentials> c = Chain()->Get();
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("Code AssumeRoleUnauthorizedAccess: no"));
}

// The answer alone, as DecodeImdsCredentialsAnswer reads it: a Code other than Success with a
// Message that is not a string (a number, an object, null) is the same error, its Message left
// out, not an exception out of the chain.
TEST(DecodeImdsCredentialsAnswer, AMessageThatIsNotAStringIsLeftOutNotThrown) {
  const std::string url = "http://169.254.169.254/latest/meta-data/iam/security-credentials/node";
  for (const char* body : {R"({"Code": "AssumeRoleUnauthorizedAccess", "Message": 7})",
                           R"({"Code": "AssumeRoleUnauthorizedAccess", "Message": {"a": 1}})",
                           R"({"Code": "AssumeRoleUnauthorizedAccess", "Message": null})"}) {
    core::Result<Credentials> c = DecodeImdsCredentialsAnswer(body, url, "node");
    ASSERT_FALSE(c.ok()) << body;
    EXPECT_EQ(c.status().code(), core::StatusCode::kUnavailable) << body;
    EXPECT_EQ(c.status().message(), "GET " + url + ": Code AssumeRoleUnauthorizedAccess") << body;
  }
  core::Result<Credentials> c = DecodeImdsCredentialsAnswer(
      R"({"Code": "AssumeRoleUnauthorizedAccess", "Message": "no"})", url, "node");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(), "GET " + url + ": Code AssumeRoleUnauthorizedAccess: no");
}

// ---- Nothing configured ---------------------------------------------------------------------

TEST_F(CredentialsTest, NothingConfiguredListsEverySourceAndWhatToSet) {
  core::Result<Credentials> c = Chain()->Get();
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), core::StatusCode::kUnauthenticated);
  const std::string& m = c.status().message();
  EXPECT_THAT(m, StartsWith("no AWS credentials found; tried 1) environment: AWS_ACCESS_KEY_ID "
                            "and AWS_SECRET_ACCESS_KEY are not set; 2) web identity: AWS_ROLE_ARN "
                            "and AWS_WEB_IDENTITY_TOKEN_FILE are not set; 3) shared files: no "
                            "profile \"default\" in " +
                            dir_.path() + "/.aws/credentials (no such file) or " + dir_.path() +
                            "/.aws/config (no such file); 4) container credentials: "
                            "AWS_CONTAINER_CREDENTIALS_FULL_URI and "
                            "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI are not set; 5) instance "
                            "metadata: disabled by AWS_EC2_METADATA_DISABLED=true."));
  EXPECT_THAT(m, HasSubstr("set AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, annotate the service "
                           "account for IRSA (AWS_ROLE_ARN + AWS_WEB_IDENTITY_TOKEN_FILE), or run "
                           "on an instance with a role"));
}

TEST_F(CredentialsTest, NothingConfiguredOffEc2SaysTheMetadataServiceDidNotAnswer) {
  std::string closed;
  {
    LoopbackHttpServer gone([](const LoopbackRequest&) { return LoopbackResponse{}; });
    closed = gone.url();
  }
  vars_.erase("AWS_EC2_METADATA_DISABLED");
  vars_["AWS_EC2_METADATA_SERVICE_ENDPOINT"] = closed;
  vars_["AWS_ROLE_ARN"] = "arn:aws:iam::123456789012:role/nodesmith";
  dir_.Write(".aws/config", "[default]\nregion = us-east-1\n");
  core::Result<Credentials> c = Chain()->Get();
  ASSERT_FALSE(c.ok());
  const std::string& m = c.status().message();
  EXPECT_THAT(m, HasSubstr("2) web identity: AWS_ROLE_ARN is set but AWS_WEB_IDENTITY_TOKEN_FILE "
                           "is not"));
  EXPECT_THAT(m, HasSubstr("3) shared files: profile \"default\" (" + dir_.path() +
                           "/.aws/config:1) sets no credentials"));
  EXPECT_THAT(m, HasSubstr("5) instance metadata: no answer to the IMDSv2 token request (PUT " +
                           closed + "/latest/api/token"));
}

TEST_F(CredentialsTest, TheChainLooksAgainUntilASourceAnswers) {
  auto chain = Chain();
  EXPECT_FALSE(chain->Get().ok());
  dir_.Write(".aws/credentials",
             "[default]\naws_access_key_id = LATE\naws_secret_access_key = s\n");
  EXPECT_EQ(MustGet(*chain).access_key_id, "LATE");
}

// ---- Web identity ---------------------------------------------------------------------------

TEST_F(CredentialsTest, WebIdentityCallsStsUnsignedAndParsesTheAnswer) {
  LoopbackHttpServer sts([](const LoopbackRequest&) {
    return LoopbackResponse{200, StsAnswer("ASIAWEB", kStart + 1h), {{"Content-Type", "text/xml"}}};
  });
  UseWebIdentity("eyJhbGciOiJSUzI1NiJ9.e30.sig\n");
  vars_["AWS_ROLE_SESSION_NAME"] = "nodesmith@cluster-1";
  Credentials c = MustGet(*Chain(sts.url()));
  EXPECT_EQ(c.access_key_id, "ASIAWEB");
  EXPECT_EQ(c.secret_access_key, "web-secret");
  EXPECT_EQ(c.session_token, "web-session-token");
  EXPECT_EQ(c.source, "web identity");
  ASSERT_TRUE(c.expiration.has_value());
  EXPECT_EQ(*c.expiration, kStart + 1h);

  std::vector<LoopbackRequest> requests = sts.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "POST");
  EXPECT_EQ(requests[0].target, "/");
  EXPECT_EQ(requests[0].headers["content-type"],
            "application/x-www-form-urlencoded; charset=utf-8");
  EXPECT_EQ(requests[0].headers.count("authorization"), 0u);
  EXPECT_EQ(requests[0].body,
            "Action=AssumeRoleWithWebIdentity&Version=2011-06-15"
            "&RoleArn=arn%3Aaws%3Aiam%3A%3A123456789012%3Arole%2Fnodesmith"
            "&RoleSessionName=nodesmith%40cluster-1"
            "&WebIdentityToken=eyJhbGciOiJSUzI1NiJ9.e30.sig");
}

TEST_F(CredentialsTest, WebIdentityRereadsTheTokenOnRefreshAndNamesTheSessionByTheClock) {
  std::atomic<int> calls{0};
  LoopbackHttpServer sts([&](const LoopbackRequest&) {
    int n = ++calls;
    return LoopbackResponse{200, StsAnswer("ASIAWEB" + std::to_string(n), kStart + n * 1h), {}};
  });
  UseWebIdentity("jwt-1");
  auto chain = Chain(sts.url() + "/");
  EXPECT_EQ(MustGet(*chain).access_key_id, "ASIAWEB1");
  dir_.Write("token", "jwt-2");  // the kubelet rotated it
  clock_.Step(56min);
  EXPECT_EQ(MustGet(*chain).access_key_id, "ASIAWEB2");
  std::vector<LoopbackRequest> requests = sts.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_THAT(requests[0].body, HasSubstr("&RoleSessionName=nodesmith-1735689600&"));
  EXPECT_THAT(requests[0].body, HasSubstr("&WebIdentityToken=jwt-1"));
  EXPECT_THAT(requests[1].body, HasSubstr("&RoleSessionName=nodesmith-1735692960&"));
  EXPECT_THAT(requests[1].body, HasSubstr("&WebIdentityToken=jwt-2"));
}

TEST_F(CredentialsTest, StsErrorKeepsCodeMessageAndRequestId) {
  LoopbackHttpServer sts([](const LoopbackRequest&) {
    return LoopbackResponse{400,
                            R"(<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <Error>
    <Type>Sender</Type>
    <Code>InvalidIdentityToken</Code>
    <Message>No OpenIDConnect provider found in your account for https://oidc.example</Message>
  </Error>
  <RequestId>4fa1e2b7-0000-4c1d-9a77-6bd1e2f0c0de</RequestId>
</ErrorResponse>)",
                            {}};
  });
  UseWebIdentity();
  core::Result<Credentials> c = Chain(sts.url())->Get();
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), core::StatusCode::kUnauthenticated);
  const std::string& m = c.status().message();
  EXPECT_THAT(m, StartsWith("web identity: sts:AssumeRoleWithWebIdentity for "
                            "arn:aws:iam::123456789012:role/nodesmith at " +
                            sts.url() + "/: HTTP 400 InvalidIdentityToken: No OpenIDConnect"));
  EXPECT_THAT(m, HasSubstr("(request id 4fa1e2b7-0000-4c1d-9a77-6bd1e2f0c0de)"));
  EXPECT_EQ(sts.request_count(), 1u);  // a 4xx is not retried
}

TEST_F(CredentialsTest, StsAccessDeniedPointsAtTheTrustPolicy) {
  LoopbackHttpServer sts([](const LoopbackRequest&) {
    return LoopbackResponse{403,
                            "<ErrorResponse><Error><Code>AccessDenied</Code><Message>Not "
                            "authorized to perform sts:AssumeRoleWithWebIdentity</Message></"
                            "Error><RequestId>r-1</RequestId></ErrorResponse>",
                            {}};
  });
  UseWebIdentity();
  core::Result<Credentials> c = Chain(sts.url())->Get();
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), core::StatusCode::kPermissionDenied);
  EXPECT_THAT(c.status().message(), HasSubstr("HTTP 403 AccessDenied: Not authorized"));
  EXPECT_THAT(c.status().message(), HasSubstr("(request id r-1)"));
  EXPECT_THAT(c.status().message(), HasSubstr("trust policy"));
}

TEST_F(CredentialsTest, WebIdentityTokenFileMissing) {
  LoopbackHttpServer sts([](const LoopbackRequest&) { return LoopbackResponse{500, "", {}}; });
  vars_["AWS_ROLE_ARN"] = "arn:aws:iam::123456789012:role/nodesmith";
  vars_["AWS_WEB_IDENTITY_TOKEN_FILE"] = dir_.path() + "/no-token";
  core::Result<Credentials> c = Chain(sts.url())->Get();
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(),
              HasSubstr("web identity: the web identity token: cannot read " + dir_.path() +
                        "/no-token: No such file"));
  EXPECT_EQ(sts.request_count(), 0u);
}

TEST_F(CredentialsTest, WebIdentityFromAProfile) {
  LoopbackHttpServer sts([](const LoopbackRequest&) {
    return LoopbackResponse{200, StsAnswer("ASIAPROFILE", kStart + 1h), {}};
  });
  std::string token = dir_.Write("token", "jwt-profile");
  dir_.Write(".aws/config", "[profile irsa]\nrole_arn = arn:aws:iam::123456789012:role/p\n"
                            "web_identity_token_file = " + token + "\nrole_session_name = ps\n");
  vars_["AWS_PROFILE"] = "irsa";
  Credentials c = MustGet(*Chain(sts.url()));
  EXPECT_EQ(c.access_key_id, "ASIAPROFILE");
  EXPECT_EQ(c.source, "web identity (profile irsa)");
  ASSERT_EQ(sts.request_count(), 1u);
  EXPECT_THAT(sts.requests()[0].body,
              HasSubstr("RoleArn=arn%3Aaws%3Aiam%3A%3A123456789012%3Arole%2Fp&RoleSessionName=ps&"
                        "WebIdentityToken=jwt-profile"));
}

// ---- Region ---------------------------------------------------------------------------------

TEST_F(CredentialsTest, ResolveRegionOrder) {
  FakeImds state;
  LoopbackHttpServer imds([&](const LoopbackRequest& r) { return state(r); });
  dir_.Write(".aws/config",
             "[default]\nregion = eu-west-1\n[profile dev]\nregion = eu-central-1\n");
  dir_.Write(".aws/credentials", "[other]\nregion = from-the-credentials-file\n");
  vars_.erase("AWS_EC2_METADATA_DISABLED");
  vars_["AWS_EC2_METADATA_SERVICE_ENDPOINT"] = imds.url();
  vars_["AWS_REGION"] = "us-east-2";
  vars_["AWS_DEFAULT_REGION"] = "us-west-1";
  EXPECT_EQ(ResolveRegion(Environment(), &http_), "us-east-2");
  vars_.erase("AWS_REGION");
  EXPECT_EQ(ResolveRegion(Environment(), &http_), "us-west-1");
  vars_.erase("AWS_DEFAULT_REGION");
  EXPECT_EQ(ResolveRegion(Environment(), &http_), "eu-west-1");
  vars_["AWS_PROFILE"] = "dev";
  EXPECT_EQ(ResolveRegion(Environment(), &http_), "eu-central-1");
  // Only the config file holds regions.
  vars_["AWS_PROFILE"] = "other";
  EXPECT_EQ(imds.request_count(), 0u);
  EXPECT_EQ(ResolveRegion(Environment(), &http_), "ap-southeast-2");
  std::vector<LoopbackRequest> requests = imds.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].method, "PUT");
  EXPECT_EQ(requests[1].target, "/latest/meta-data/placement/region");
  EXPECT_EQ(requests[1].headers["x-aws-ec2-metadata-token"], "imds-session-token");
  vars_["AWS_EC2_METADATA_DISABLED"] = "true";
  EXPECT_EQ(ResolveRegion(Environment(), &http_), "");
  EXPECT_EQ(imds.request_count(), 2u);
}

TEST_F(CredentialsTest, ResolveRegionIsEmptyWhenImdsFails) {
  FakeImds state;
  state.token_status = 403;
  LoopbackHttpServer imds([&](const LoopbackRequest& r) { return state(r); });
  vars_.erase("AWS_EC2_METADATA_DISABLED");
  vars_["AWS_EC2_METADATA_SERVICE_ENDPOINT"] = imds.url();
  EXPECT_EQ(ResolveRegion(Environment(), &http_), "");
}

TEST(StaticCredentials, AnswersWhatItWasGiven) {
  Credentials given;
  given.access_key_id = "AKID";
  given.secret_access_key = "S";
  given.source = "test";
  auto p = StaticCredentials(given);
  core::Result<Credentials> c = p->Get();
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->access_key_id, "AKID");
  EXPECT_EQ(c->source, "test");
}

}  // namespace
}  // namespace nodesmith::aws
