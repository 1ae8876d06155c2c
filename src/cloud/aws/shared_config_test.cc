// The shared files as the SDKs read them: section naming in each file, comments, case, nested
// settings, merging, errors that name file and line; what a profile authenticates with; and
// credential_process, run for real with small shell scripts in a temporary directory.
#include "cloud/aws/shared_config.h"

#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include "temp_dir.h"

namespace nodesmith::aws {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using namespace std::chrono_literals;

namespace fs = std::filesystem;

using nodesmith::testing::TempDir;

CredentialsEnvironment EnvOf(std::map<std::string, std::string> vars, std::string home) {
  CredentialsEnvironment env;
  env.getenv = [vars = std::move(vars)](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
  env.home = std::move(home);
  return env;
}

SharedFile MustParse(const std::string& text, SharedFileKind kind,
                     const std::string& path = "/h/.aws/file") {
  core::Result<SharedFile> f = ParseSharedFile(text, path, kind);
  EXPECT_TRUE(f.ok()) << f.status().message();
  return f.ok() ? *f : SharedFile{};
}

Profile ProfileOf(std::map<std::string, std::string> values, const std::string& name = "p") {
  Profile p;
  p.name = name;
  for (const auto& [k, v] : values) p.values[k] = ProfileValue{v, "/h/.aws/config", 7};
  return p;
}

TEST(SharedFile, CredentialsFileSectionsAreProfileNames) {
  SharedFile f = MustParse(
      "# a comment\n"
      "; another\n"
      "[default]\n"
      "aws_access_key_id = AKIDDEFAULT\n"
      "  \n"
      "[dev]\n"
      "   AWS_Secret_Access_Key=s3cr#t;x   \n"
      "aws_access_key_id=AKIDDEV\r\n"
      "[profile odd]\n"
      "region = eu-west-1\n",
      SharedFileKind::kCredentials);
  ASSERT_EQ(f.profiles.size(), 3u);
  EXPECT_EQ(f.profiles["default"].Get("aws_access_key_id"), "AKIDDEFAULT");
  // Keys are case-insensitive; values are trimmed and keep '#' and ';' (secrets may hold them).
  EXPECT_EQ(f.profiles["dev"].Get("aws_secret_access_key"), "s3cr#t;x");
  EXPECT_EQ(f.profiles["dev"].Get("aws_access_key_id"), "AKIDDEV");
  // In the credentials file the section is the name, whatever it looks like.
  EXPECT_EQ(f.profiles["profile odd"].Get("region"), "eu-west-1");
  EXPECT_EQ(f.profiles["dev"].values["aws_access_key_id"].line, 8);
  EXPECT_EQ(f.profiles["dev"].values["aws_access_key_id"].file, "/h/.aws/file");
}

TEST(SharedFile, ConfigFileNamesProfilesWithThePrefix) {
  SharedFile f = MustParse(
      "[default]\n"
      "region = us-east-1\n"
      "[profile dev]\n"
      "region = us-west-2\n"
      "[profile   spaced  ]\n"
      "region = ap-south-1\n"
      "[bare]\n"
      "region = nowhere-1\n"
      "[profilex]\n"
      "region = nowhere-2\n"
      "[sso-session corp]\n"
      "sso_region = us-east-1\n"
      "[Profile Caps]\n"
      "region = nowhere-3\n",
      SharedFileKind::kConfig);
  EXPECT_EQ(f.profiles.size(), 3u);
  EXPECT_EQ(f.profiles["default"].Get("region"), "us-east-1");
  EXPECT_EQ(f.profiles["dev"].Get("region"), "us-west-2");
  EXPECT_EQ(f.profiles["spaced"].Get("region"), "ap-south-1");
  EXPECT_EQ(f.profiles.count("bare"), 0u);
  EXPECT_EQ(f.profiles.count("profilex"), 0u);
  EXPECT_EQ(f.profiles.count("Caps"), 0u);  // section names are case-sensitive
}

TEST(SharedFile, ProfileDefaultIsTheDefaultProfile) {
  SharedFile f = MustParse("[profile default]\nregion = eu-north-1\n", SharedFileKind::kConfig);
  EXPECT_EQ(f.profiles["default"].Get("region"), "eu-north-1");
}

TEST(SharedFile, IndentedLinesContinueTheSettingAbove) {
  SharedFile f = MustParse(
      "[default]\n"
      "s3 =\n"
      "  max_concurrent_requests = 10\n"
      "  addressing_style = path\n"
      "region = us-east-1\n"
      "[profile indented]\n"
      "  region = eu-west-1\n"
      "  output = json\n",
      SharedFileKind::kConfig);
  EXPECT_EQ(f.profiles["default"].Get("s3"),
            "\nmax_concurrent_requests = 10\naddressing_style = path");
  EXPECT_EQ(f.profiles["default"].Get("region"), "us-east-1");
  EXPECT_EQ(f.profiles["default"].values.count("max_concurrent_requests"), 0u);
  // Keys indented alike are keys, not continuations.
  EXPECT_EQ(f.profiles["indented"].Get("region"), "eu-west-1");
  EXPECT_EQ(f.profiles["indented"].Get("output"), "json");
}

TEST(SharedFile, ErrorsNameFileAndLine) {
  struct Case {
    std::string text;
    std::string want;
  };
  for (const Case& c : std::vector<Case>{
           {"[default]\nregion = x\n[profile dev\n", "/h/.aws/config:3: section header without"},
           {"[default]\n\n# fine\njust words\n", "/h/.aws/config:4: expected \"key = value\""},
           {"region = x\n[default]\n", "/h/.aws/config:1: setting \"region\" before any [section]"},
           {"[default]\n = value\n", "/h/.aws/config:2: a setting without a key"},
           {"[]\n", "/h/.aws/config:1: empty section name"},
       }) {
    core::Result<SharedFile> f = ParseSharedFile(c.text, "/h/.aws/config", SharedFileKind::kConfig);
    ASSERT_FALSE(f.ok()) << c.text;
    EXPECT_EQ(f.status().code(), core::StatusCode::kInvalidArgument);
    EXPECT_THAT(f.status().message(), HasSubstr(c.want));
  }
}

TEST(SharedFile, ReadingAMissingFileIsNoError) {
  TempDir dir;
  core::Result<SharedFile> f = ReadSharedFile(dir.path() + "/nope", SharedFileKind::kConfig);
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_FALSE(f->exists);
  EXPECT_TRUE(f->profiles.empty());
  // A directory where the file should be is an error, though.
  core::Result<SharedFile> d = ReadSharedFile(dir.path(), SharedFileKind::kConfig);
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(d.status().message(), HasSubstr("cannot read " + dir.path()));
}

TEST(SharedConfig, PathsComeFromTheEnvironmentOrHome) {
  EXPECT_EQ(SharedCredentialsPath(EnvOf({}, "/home/u")), "/home/u/.aws/credentials");
  EXPECT_EQ(SharedConfigPath(EnvOf({}, "/home/u")), "/home/u/.aws/config");
  auto env = EnvOf({{"AWS_SHARED_CREDENTIALS_FILE", "~/creds"}, {"AWS_CONFIG_FILE", "/etc/aws"}},
                   "/home/u");
  EXPECT_EQ(SharedCredentialsPath(env), "/home/u/creds");
  EXPECT_EQ(SharedConfigPath(env), "/etc/aws");
  // Set but empty is unset, as in the SDKs.
  EXPECT_EQ(SharedConfigPath(EnvOf({{"AWS_CONFIG_FILE", ""}}, "/home/u")), "/home/u/.aws/config");
  EXPECT_EQ(SelectedProfile(EnvOf({}, "/h")), "default");
  EXPECT_EQ(SelectedProfile(EnvOf({{"AWS_PROFILE", "dev"}}, "/h")), "dev");
}

TEST(SharedConfig, TheCredentialsFileWinsOverTheConfigFile) {
  TempDir dir;
  dir.Write(".aws/credentials", "[dev]\naws_access_key_id = FROMCREDS\n");
  dir.Write(".aws/config",
            "[profile dev]\naws_access_key_id = FROMCONFIG\naws_secret_access_key = s\n"
            "region = us-east-2\n");
  core::Result<SharedConfig> config = LoadSharedConfig(EnvOf({}, dir.path()));
  ASSERT_TRUE(config.ok()) << config.status().message();
  EXPECT_TRUE(config->credentials.exists);
  EXPECT_TRUE(config->config.exists);
  std::optional<Profile> dev = config->Find("dev");
  ASSERT_TRUE(dev.has_value());
  EXPECT_EQ(dev->Get("aws_access_key_id"), "FROMCREDS");
  EXPECT_EQ(dev->Get("aws_secret_access_key"), "s");
  EXPECT_EQ(dev->Get("region"), "us-east-2");
  EXPECT_EQ(dev->values["aws_access_key_id"].file, dir.path() + "/.aws/credentials");
  EXPECT_EQ(dev->sections.size(), 2u);
  EXPECT_FALSE(config->Find("default").has_value());
}

TEST(SharedConfig, AMalformedFileFailsTheLoad) {
  TempDir dir;
  dir.Write(".aws/credentials", "[default]\naws_access_key_id = A\noops\n");
  core::Result<SharedConfig> config = LoadSharedConfig(EnvOf({}, dir.path()));
  ASSERT_FALSE(config.ok());
  EXPECT_THAT(config.status().message(), HasSubstr(dir.path() + "/.aws/credentials:3:"));
}

TEST(ProfileCredentials, StaticKeys) {
  core::Result<ProfileCredentials> c = CredentialsOfProfile(ProfileOf(
      {{"aws_access_key_id", "AKID"}, {"aws_secret_access_key", "S"}, {"aws_session_token", "T"}},
      "dev"));
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->kind, ProfileCredentials::Kind::kStatic);
  EXPECT_EQ(c->static_credentials.access_key_id, "AKID");
  EXPECT_EQ(c->static_credentials.secret_access_key, "S");
  EXPECT_EQ(c->static_credentials.session_token, "T");
  EXPECT_EQ(c->static_credentials.source, "shared file (profile dev)");
  EXPECT_FALSE(c->static_credentials.expiration.has_value());
}

TEST(ProfileCredentials, HalfAKeyPairIsAnError) {
  core::Result<ProfileCredentials> c =
      CredentialsOfProfile(ProfileOf({{"aws_access_key_id", "AKID"}}, "dev"));
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("profile \"dev\" (/h/.aws/config:7)"));
  EXPECT_THAT(c.status().message(), HasSubstr("not aws_secret_access_key"));
}

TEST(ProfileCredentials, WebIdentity) {
  core::Result<ProfileCredentials> c = CredentialsOfProfile(
      ProfileOf({{"role_arn", "arn:aws:iam::123456789012:role/r"},
                 {"web_identity_token_file", "/var/run/token"},
                 {"role_session_name", "s"}}));
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->kind, ProfileCredentials::Kind::kWebIdentity);
  EXPECT_EQ(c->role_arn, "arn:aws:iam::123456789012:role/r");
  EXPECT_EQ(c->web_identity_token_file, "/var/run/token");
  EXPECT_EQ(c->role_session_name, "s");

  core::Result<ProfileCredentials> no_role =
      CredentialsOfProfile(ProfileOf({{"web_identity_token_file", "/var/run/token"}}));
  ASSERT_FALSE(no_role.ok());
  EXPECT_THAT(no_role.status().message(), HasSubstr("needs role_arn"));
}

TEST(ProfileCredentials, AssumeRoleProfilesAreRefusedByName) {
  for (const auto& values : std::vector<std::map<std::string, std::string>>{
           {{"role_arn", "arn:aws:iam::1:role/r"}, {"source_profile", "base"}},
           {{"role_arn", "arn:aws:iam::1:role/r"}, {"credential_source", "Ec2InstanceMetadata"}},
           {{"role_arn", "arn:aws:iam::1:role/r"},
            {"aws_access_key_id", "A"},
            {"aws_secret_access_key", "S"}},
       }) {
    core::Result<ProfileCredentials> c = CredentialsOfProfile(ProfileOf(values, "assumer"));
    ASSERT_FALSE(c.ok());
    EXPECT_EQ(c.status().code(), core::StatusCode::kFailedPrecondition);
    EXPECT_THAT(c.status().message(), HasSubstr("profile \"assumer\" (/h/.aws/config:7)"));
    EXPECT_THAT(c.status().message(), HasSubstr("sts:AssumeRole"));
    EXPECT_THAT(c.status().message(), HasSubstr("does not support"));
    EXPECT_THAT(c.status().message(),
                HasSubstr("aws configure export-credentials --profile assumer --format process"));
  }
}

TEST(ProfileCredentials, SsoIsRefused) {
  core::Result<ProfileCredentials> c =
      CredentialsOfProfile(ProfileOf({{"sso_session", "corp"}, {"sso_account_id", "1"}}, "sso"));
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("SSO"));
  EXPECT_THAT(c.status().message(), HasSubstr("does not support"));
}

TEST(ProfileCredentials, ProcessAndNone) {
  core::Result<ProfileCredentials> p =
      CredentialsOfProfile(ProfileOf({{"credential_process", "/bin/creds --x"}}));
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->kind, ProfileCredentials::Kind::kProcess);
  EXPECT_EQ(p->credential_process, "/bin/creds --x");
  core::Result<ProfileCredentials> none = CredentialsOfProfile(ProfileOf({{"region", "x"}}));
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->kind, ProfileCredentials::Kind::kNone);
}

TEST(CredentialProcess, ParsesVersion1) {
  core::Result<Credentials> c = ParseCredentialProcessOutput(
      R"({"Version": 1, "AccessKeyId": "AKID", "SecretAccessKey": "S", "SessionToken": "T",
          "Expiration": "2025-01-01T01:00:00Z"})",
      "cmd", "credential_process (profile p)");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->access_key_id, "AKID");
  EXPECT_EQ(c->secret_access_key, "S");
  EXPECT_EQ(c->session_token, "T");
  EXPECT_EQ(c->source, "credential_process (profile p)");
  ASSERT_TRUE(c->expiration.has_value());
  EXPECT_EQ(core::FormatRfc3339(*c->expiration), "2025-01-01T01:00:00Z");

  core::Result<Credentials> long_term = ParseCredentialProcessOutput(
      R"({"Version": 1, "AccessKeyId": "AKID", "SecretAccessKey": "S"})", "cmd", "s");
  ASSERT_TRUE(long_term.ok());
  EXPECT_FALSE(long_term->expiration.has_value());
  EXPECT_EQ(long_term->session_token, "");
}

TEST(CredentialProcess, RejectsWhatIsNotVersion1AndNeverQuotesIt) {
  struct Case {
    std::string out;
    std::string want;
  };
  for (const Case& c : std::vector<Case>{
           {"AKID TOPSECRET", "are not a JSON object"},
           {R"({"Version": 2, "AccessKeyId": "A", "SecretAccessKey": "TOPSECRET"})",
            "\"Version\": 2; only Version 1"},
           {R"({"AccessKeyId": "A", "SecretAccessKey": "TOPSECRET"})", "no \"Version\""},
           {R"({"Version": 1, "SecretAccessKey": "TOPSECRET"})", "no \"AccessKeyId\""},
           {R"({"Version": 1, "AccessKeyId": "A", "SecretAccessKey": "TOPSECRET",
                "Expiration": "tomorrow"})",
            "\"Expiration\": invalid RFC 3339"},
       }) {
    core::Result<Credentials> r = ParseCredentialProcessOutput(c.out, "get-creds", "s");
    ASSERT_FALSE(r.ok()) << c.out;
    EXPECT_THAT(r.status().message(), HasSubstr("credential_process \"get-creds\""));
    EXPECT_THAT(r.status().message(), HasSubstr(c.want));
    EXPECT_THAT(r.status().message(), Not(HasSubstr("TOPSECRET")));
  }
}

TEST(CredentialProcess, RunsTheCommandThroughTheShell) {
  TempDir dir;
  std::string script = dir.Script(
      "creds.sh",
      "echo '{\"Version\": 1, \"AccessKeyId\": \"'\"$1\"'\", \"SecretAccessKey\": \"S\"}'\n");
  // An argument and a pipe: the command is a shell command line, as the SDKs run it.
  core::Result<Credentials> c = RunCredentialProcess(script + " AKIDARG | cat", "src");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->access_key_id, "AKIDARG");
  EXPECT_EQ(c->source, "src");
}

TEST(CredentialProcess, FailureQuotesStderr) {
  TempDir dir;
  std::string script = dir.Script("fail.sh", "echo 'token expired, run login' >&2\nexit 3\n");
  core::Result<Credentials> c = RunCredentialProcess(script, "src");
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("exited with status 3"));
  EXPECT_THAT(c.status().message(), HasSubstr("token expired, run login"));

  core::Result<Credentials> missing = RunCredentialProcess(dir.path() + "/no-such-tool", "src");
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("exited with status 127"));
}

TEST(CredentialProcess, AHungCommandIsKilledAtTheTimeout) {
  core::Result<Credentials> c = RunCredentialProcess("sleep 30", "src", 300ms);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), core::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(c.status().message(), HasSubstr("did not finish within 300ms"));
}

}  // namespace
}  // namespace nodesmith::aws
