// Web identity against a real STS: moto's, in server mode. moto accepts any token for
// sts:AssumeRoleWithWebIdentity, so what is checked is nodesmith's side: the unsigned form
// request STS takes, the XML answer it gives, and that the credentials it hands out are an
// identity STS knows (GetCallerIdentity, signed with them, names the assumed role).
#include "cloud/aws/credentials.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cloud/aws/aws_session.h"
#include "cloud/aws/query_protocol.h"
#include "core/system_clock.h"
#include "moto_test_env.h"

namespace nodesmith::aws {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using nodesmith::testing::MotoDir;
using nodesmith::testing::MotoEnvironment;
using namespace std::chrono_literals;

namespace fs = std::filesystem;

constexpr const char* kRoleArn = "arn:aws:iam::123456789012:role/nodesmith-controller";
// A service account token's shape; moto does not verify it.
constexpr const char* kToken =
    "eyJhbGciOiJSUzI1NiIsImtpZCI6Im5vZGVzbWl0aCJ9."
    "eyJpc3MiOiJodHRwczovL29pZGMuZWtzLnVzLXdlc3QtMi5hbWF6b25hd3MuY29tL2lkL1RFU1QiLCJzdWIiOiJzeXN0"
    "ZW06c2VydmljZWFjY291bnQ6a3ViZS1zeXN0ZW06bm9kZXNtaXRoIiwiYXVkIjpbInN0cy5hbWF6b25hd3MuY29tIl19."
    "c2lnbmF0dXJl";

class CredentialsMotoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::map<std::string, std::string> moto = MotoEnvironment();
    endpoint_ = moto["AWS_ENDPOINT_URL"];
    region_ = moto["AWS_REGION"];
    ASSERT_FALSE(endpoint_.empty())
        << "moto is not running for " << MotoDir() << " (no AWS_ENDPOINT_URL in " << MotoDir()
        << "/env): run `scripts/testenv/moto start " << MotoDir()
        << "` (ctest's moto_up does), after `make testenv`";
    std::string tmpl = (fs::temp_directory_path() / "nodesmith-credentials-moto-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    token_file_ = dir_ + "/token";
    std::ofstream(token_file_) << kToken;
  }
  void TearDown() override {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }

  // The environment of a pod with IRSA: no keys, the role and the token file; no metadata
  // service to fall back on.
  CredentialsEnvironment Environment(std::map<std::string, std::string> vars) const {
    vars["AWS_EC2_METADATA_DISABLED"] = "true";
    CredentialsEnvironment env;
    env.getenv = [vars](const std::string& name) -> std::optional<std::string> {
      auto it = vars.find(name);
      if (it == vars.end()) return std::nullopt;
      return it->second;
    };
    env.home = dir_;
    return env;
  }
  std::map<std::string, std::string> Irsa() const {
    return {{"AWS_ROLE_ARN", kRoleArn},
            {"AWS_WEB_IDENTITY_TOKEN_FILE", token_file_},
            {"AWS_ROLE_SESSION_NAME", "nodesmith-moto"}};
  }
  void ExpectTemporaryCredentials(const Credentials& c) {
    EXPECT_THAT(c.access_key_id, StartsWith("ASIA"));
    EXPECT_FALSE(c.secret_access_key.empty());
    EXPECT_FALSE(c.session_token.empty());
    ASSERT_TRUE(c.expiration.has_value());
    // The default session lasts an hour; moto's clock is the machine's, as ours is here.
    EXPECT_GT(*c.expiration, clock_.Now() + 30min);
    EXPECT_LT(*c.expiration, clock_.Now() + 13h);
  }

  std::string endpoint_;
  std::string region_;
  std::string dir_;
  std::string token_file_;
  core::SystemClock clock_;
  CurlHttpClient http_;
};

TEST_F(CredentialsMotoTest, WebIdentityFromTheEnvironment) {
  auto chain = DefaultCredentialsChain(Environment(Irsa()), &http_, &clock_, endpoint_);
  core::Result<Credentials> c = chain->Get();
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->source, "web identity");
  ExpectTemporaryCredentials(*c);
  // Cached: a second Get is the same credentials.
  core::Result<Credentials> again = chain->Get();
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->access_key_id, c->access_key_id);
}

TEST_F(CredentialsMotoTest, WebIdentityFromAProfile) {
  std::ofstream(dir_ + "/config") << "[profile irsa]\nrole_arn = " << kRoleArn
                                  << "\nweb_identity_token_file = " << token_file_ << "\n";
  auto chain = DefaultCredentialsChain(
      Environment({{"AWS_CONFIG_FILE", dir_ + "/config"}, {"AWS_PROFILE", "irsa"}}), &http_,
      &clock_, endpoint_);
  core::Result<Credentials> c = chain->Get();
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->source, "web identity (profile irsa)");
  ExpectTemporaryCredentials(*c);
}

TEST_F(CredentialsMotoTest, TheAssumedRoleIsTheIdentityStsSees) {
  std::map<std::string, std::string> vars = Irsa();
  vars["AWS_ENDPOINT_URL"] = endpoint_;
  vars["AWS_REGION"] = region_;
  AwsSessionOptions o;
  o.clock = &clock_;
  o.environment = Environment(vars);
  o.sleep = [](core::Duration) {};
  core::Result<std::unique_ptr<AwsSession>> session = AwsSession::Create(std::move(o));
  ASSERT_TRUE(session.ok()) << session.status().message();
  core::Result<XmlAnswer> who = (*session)->sts().Call("GetCallerIdentity", QueryParams());
  ASSERT_TRUE(who.ok()) << who.status().message();
  std::string arn = ChildText(who->root, "Arn");
  EXPECT_EQ(arn, "arn:aws:sts::123456789012:assumed-role/nodesmith-controller/nodesmith-moto")
      << "GetCallerIdentity answered " << arn;
  core::Result<Credentials> c = (*session)->credentials().Get();
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->source, "web identity");
}

TEST_F(CredentialsMotoTest, AnUnreadableTokenNeverReachesSts) {
  auto chain = DefaultCredentialsChain(
      Environment({{"AWS_ROLE_ARN", kRoleArn}, {"AWS_WEB_IDENTITY_TOKEN_FILE", dir_ + "/gone"}}),
      &http_, &clock_, endpoint_);
  core::Result<Credentials> c = chain->Get();
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("cannot read " + dir_ + "/gone"));
}

}  // namespace
}  // namespace nodesmith::aws
