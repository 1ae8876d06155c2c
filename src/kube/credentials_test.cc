// CredentialProvider: static tokens, token files the kubelet rotates, and exec credential plugins
// (tested with small shell scripts standing in for `aws eks get-token`). Time is a fake clock the
// tests move; plugins run for real in a temporary directory.
#include "kube/credentials.h"

#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include "temp_dir.h"

namespace nodesmith::kube {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

namespace fs = std::filesystem;

using nodesmith::testing::TempDir;

// Steady and wall time that move together, only when the test says.
class FakeTime {
 public:
  void Advance(std::chrono::nanoseconds d) { offset_ += d.count(); }
  CredentialProviderOptions Options() {
    CredentialProviderOptions o;
    o.now = [this] { return steady_base_ + std::chrono::nanoseconds(offset_.load()); };
    o.wall_now = [this] { return wall_base_ + std::chrono::nanoseconds(offset_.load()); };
    return o;
  }
  // An RFC 3339 instant `d` from the fake now.
  std::string In(std::chrono::nanoseconds d) const {
    return core::FormatRfc3339(wall_base_ + std::chrono::nanoseconds(offset_.load()) + d);
  }

 private:
  std::chrono::steady_clock::time_point steady_base_ = std::chrono::steady_clock::now();
  core::Time wall_base_ = core::ParseRfc3339("2025-06-01T12:00:00Z").value();
  std::atomic<int64_t> offset_{0};
};

constexpr char kV1[] = "client.authentication.k8s.io/v1";
constexpr char kV1beta1[] = "client.authentication.k8s.io/v1beta1";

RestConfig ExecConfigFor(const std::string& command, const std::string& api_version = kV1beta1) {
  RestConfig config;
  config.server = "https://ABC.gr7.us-west-2.eks.amazonaws.com";
  config.identity = "user \"eks\" (context \"demo\")";
  ExecConfig exec;
  exec.command = command;
  exec.api_version = api_version;
  exec.interactive_mode = "IfAvailable";
  config.exec = exec;
  return config;
}

// A plugin that prints an ExecCredential and counts its runs in `runs`.
std::string CountingPlugin(const TempDir& dir, const std::string& api_version,
                           const std::string& status_json) {
  return dir.Script("plugin.sh", "echo run >> \"" + dir.path() +
                                     "/runs\"\n"
                                     "n=$(wc -l < \"" +
                                     dir.path() +
                                     "/runs\" | tr -d ' ')\n"
                                     "cat <<EOF\n"
                                     "{\"kind\":\"ExecCredential\",\"apiVersion\":\"" +
                                     api_version +
                                     "\",\n"
                                     " \"spec\":{}, \"status\": " +
                                     status_json +
                                     "}\n"
                                     "EOF\n");
}

int Runs(const TempDir& dir) {
  std::string s = dir.Read("runs");
  return static_cast<int>(std::count(s.begin(), s.end(), '\n'));
}

// --- Static credentials and token files ------------------------------------------------------

TEST(Credentials, StaticTokenAndClientCertificatePassThrough) {
  RestConfig config;
  config.bearer_token = "static";
  config.client_cert_pem = "CERT";
  config.client_key_pem = "KEY";
  CredentialProvider provider(config);
  auto c = provider.Current();
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->bearer_token, "static");
  EXPECT_EQ(c->client_cert_pem, "CERT");
  EXPECT_EQ(c->client_key_pem, "KEY");
  provider.Invalidate();
  EXPECT_EQ(provider.Current()->bearer_token, "static");
}

TEST(Credentials, NothingConfiguredIsAnonymous) {
  CredentialProvider provider(RestConfig{});
  auto c = provider.Current();
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->bearer_token.empty());
  EXPECT_TRUE(c->client_cert_pem.empty());
}

TEST(Credentials, TokenFileIsReReadAfterAMinute) {
  TempDir dir;
  FakeTime time;
  RestConfig config;
  config.token_file = dir.Write("token", "first\n");
  CredentialProvider provider(config, time.Options());
  EXPECT_EQ(provider.Current()->bearer_token, "first");  // trailing newline trimmed

  dir.Write("token", "second");  // the kubelet rotates the projected token
  time.Advance(30s);
  EXPECT_EQ(provider.Current()->bearer_token, "first");
  time.Advance(31s);
  EXPECT_EQ(provider.Current()->bearer_token, "second");
}

TEST(Credentials, InvalidateRereadsTheTokenFileAtOnce) {
  TempDir dir;
  FakeTime time;
  RestConfig config;
  config.token_file = dir.Write("token", "old");
  CredentialProvider provider(config, time.Options());
  EXPECT_EQ(provider.Current()->bearer_token, "old");
  dir.Write("token", "new");
  EXPECT_EQ(provider.Current()->bearer_token, "old");
  provider.Invalidate();  // the server said 401
  EXPECT_EQ(provider.Current()->bearer_token, "new");
}

TEST(Credentials, UnreadableTokenFileKeepsTheLastGoodTokenUntilRefused) {
  TempDir dir;
  FakeTime time;
  RestConfig config;
  config.identity = "ServiceAccount kube-system/karpenter";
  config.token_file = dir.Write("token", "good");
  CredentialProvider provider(config, time.Options());
  EXPECT_EQ(provider.Current()->bearer_token, "good");
  fs::remove(config.token_file);
  time.Advance(2min);
  EXPECT_EQ(provider.Current()->bearer_token, "good");  // as client-go: a failed refresh is logged,
                                                        // the last token still used
  provider.Invalidate();
  auto c = provider.Current();
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(),
            "token file " + config.token_file +
                " (ServiceAccount kube-system/karpenter): No such file or directory");
}

TEST(Credentials, TokenFileFallsBackToTheStaticToken) {
  TempDir dir;
  RestConfig config;
  config.bearer_token = "static";
  config.token_file = dir.path() + "/never-written";
  CredentialProvider provider(config);
  EXPECT_EQ(provider.Current()->bearer_token, "static");
  dir.Write("never-written", "from-file");
  provider.Invalidate();
  EXPECT_EQ(provider.Current()->bearer_token, "from-file");
}

// --- Exec plugins ----------------------------------------------------------------------------

TEST(ExecCredential, V1beta1TokenAsAwsEksGetTokenPrintsIt) {
  TempDir dir;
  FakeTime time;
  // What `aws eks get-token` prints (v1beta1, a 14-minute token).
  std::string plugin = dir.Script("aws",
                                  "cat <<'EOF'\n"
                                  "{\"kind\": \"ExecCredential\", \"apiVersion\": "
                                  "\"client.authentication.k8s.io/v1beta1\", \"spec\": {}, "
                                  "\"status\": {\"expirationTimestamp\": \"" +
                                      time.In(14min) +
                                      "\", \"token\": \"k8s-aws-v1.aHR0cHM6Ly9zdHM\"}}\n"
                                      "EOF\n");
  CredentialProvider provider(ExecConfigFor(plugin), time.Options());
  auto c = provider.Current();
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->bearer_token, "k8s-aws-v1.aHR0cHM6Ly9zdHM");
  EXPECT_TRUE(c->client_cert_pem.empty());
}

TEST(ExecCredential, V1ClientCertificateAndKey) {
  TempDir dir;
  std::string plugin = CountingPlugin(
      dir, kV1,
      R"({"clientCertificateData": "-----BEGIN CERTIFICATE-----\nC\n-----END CERTIFICATE-----\n",)"
      R"( "clientKeyData": "-----BEGIN PRIVATE KEY-----\nK\n-----END PRIVATE KEY-----\n"})");
  CredentialProvider provider(ExecConfigFor(plugin, kV1));
  auto c = provider.Current();
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_TRUE(c->bearer_token.empty());
  EXPECT_EQ(c->client_cert_pem, "-----BEGIN CERTIFICATE-----\nC\n-----END CERTIFICATE-----\n");
  EXPECT_EQ(c->client_key_pem, "-----BEGIN PRIVATE KEY-----\nK\n-----END PRIVATE KEY-----\n");
}

TEST(ExecCredential, CachedUntilShortlyBeforeExpiry) {
  TempDir dir;
  FakeTime time;
  std::string plugin = CountingPlugin(
      dir, kV1beta1,
      "{\"token\": \"tok-$n\", \"expirationTimestamp\": \"" + time.In(15min) + "\"}");
  CredentialProvider provider(ExecConfigFor(plugin), time.Options());
  EXPECT_EQ(provider.Current()->bearer_token, "tok-1");
  time.Advance(14min);
  EXPECT_EQ(provider.Current()->bearer_token, "tok-1");
  EXPECT_EQ(Runs(dir), 1);
  time.Advance(55s);  // within the 10 s margin of expiry
  EXPECT_EQ(provider.Current()->bearer_token, "tok-2");
  EXPECT_EQ(Runs(dir), 2);
}

TEST(ExecCredential, WithoutExpiryCachedUntilInvalidate) {
  TempDir dir;
  FakeTime time;
  std::string plugin = CountingPlugin(dir, kV1, R"({"token": "tok-$n"})");
  CredentialProvider provider(ExecConfigFor(plugin, kV1), time.Options());
  EXPECT_EQ(provider.Current()->bearer_token, "tok-1");
  time.Advance(24h);
  EXPECT_EQ(provider.Current()->bearer_token, "tok-1");
  provider.Invalidate();
  EXPECT_EQ(provider.Current()->bearer_token, "tok-2");
  EXPECT_EQ(Runs(dir), 2);
}

TEST(ExecCredential, AlreadyExpiredIsUsedOnceAndFetchedAgain) {
  TempDir dir;
  FakeTime time;
  std::string plugin = CountingPlugin(
      dir, kV1, "{\"token\": \"tok-$n\", \"expirationTimestamp\": \"" + time.In(-1min) + "\"}");
  CredentialProvider provider(ExecConfigFor(plugin, kV1), time.Options());
  EXPECT_EQ(provider.Current()->bearer_token, "tok-1");
  EXPECT_EQ(provider.Current()->bearer_token, "tok-2");
}

TEST(ExecCredential, PluginGetsArgsEnvAndExecInfo) {
  TempDir dir;
  std::string plugin = dir.Script(
      "plugin.sh",
      "printf '%s' \"$KUBERNETES_EXEC_INFO\" > \"" + dir.path() +
          "/info.json\"\n"
          "printf '%s|' \"$@\" > \"" +
          dir.path() +
          "/args\"\n"
          "cat <<EOF\n"
          "{\"kind\":\"ExecCredential\",\"apiVersion\":\"client.authentication.k8s.io/v1\","
          "\"status\":{\"token\":\"$AWS_PROFILE-$CLUSTER\"}}\n"
          "EOF\n");
  RestConfig config = ExecConfigFor(plugin, kV1);
  config.tls_server_name = "kubernetes";
  config.ca_pem = "CA";
  config.exec->args = {"eks", "get-token", "--cluster-name", "has space"};
  config.exec->env = {{"AWS_PROFILE", "dev"}, {"CLUSTER", "demo"}};
  config.exec->provide_cluster_info = true;
  CredentialProvider provider(config);
  auto c = provider.Current();
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->bearer_token, "dev-demo");
  EXPECT_EQ(dir.Read("args"), "eks|get-token|--cluster-name|has space|");  // no shell splitting

  nlohmann::json info = nlohmann::json::parse(dir.Read("info.json"));
  EXPECT_EQ(info["apiVersion"], "client.authentication.k8s.io/v1");
  EXPECT_EQ(info["kind"], "ExecCredential");
  EXPECT_EQ(info["spec"]["interactive"], false);
  EXPECT_EQ(info["spec"]["cluster"]["server"], "https://ABC.gr7.us-west-2.eks.amazonaws.com");
  EXPECT_EQ(info["spec"]["cluster"]["tls-server-name"], "kubernetes");
  EXPECT_EQ(info["spec"]["cluster"]["certificate-authority-data"], "Q0E=");  // base64("CA")
}

TEST(ExecCredential, WithoutProvideClusterInfoTheRequestHasNoCluster) {
  TempDir dir;
  std::string plugin = dir.Script(
      "plugin.sh",
      "printf '%s' \"$KUBERNETES_EXEC_INFO\" > \"" + dir.path() +
          "/info.json\"\n"
          "echo "
          "'{\"kind\":\"ExecCredential\",\"apiVersion\":\"client.authentication.k8s.io/v1beta1\","
          "\"status\":{\"token\":\"t\"}}'\n");
  CredentialProvider provider(ExecConfigFor(plugin));
  ASSERT_TRUE(provider.Current().ok());
  nlohmann::json info = nlohmann::json::parse(dir.Read("info.json"));
  EXPECT_EQ(info["apiVersion"], "client.authentication.k8s.io/v1beta1");
  EXPECT_EQ(info["spec"], nlohmann::json({{"interactive", false}}));
}

TEST(ExecCredential, ConcurrentCallersShareOneRun) {
  TempDir dir;
  std::string plugin = CountingPlugin(dir, kV1beta1, R"({"token": "tok-$n"})");
  CredentialProvider provider(ExecConfigFor(plugin));
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&] {
      auto c = provider.Current();
      if (c.ok() && c->bearer_token == "tok-1") ++ok;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), 8);
  EXPECT_EQ(Runs(dir), 1);
}

TEST(ExecCredential, StaticTokenWinsAndThePluginIsNotRun) {
  TempDir dir;
  std::string plugin = CountingPlugin(dir, kV1beta1, R"({"token": "from-plugin"})");
  RestConfig config = ExecConfigFor(plugin);
  config.bearer_token = "static";
  CredentialProvider provider(config);
  EXPECT_EQ(provider.Current()->bearer_token, "static");
  EXPECT_EQ(Runs(dir), 0);
}

// --- Exec plugin failures, each naming the command ---------------------------------------------

TEST(ExecCredentialErrors, CommandNotFoundShowsTheInstallHint) {
  RestConfig config = ExecConfigFor("nodesmith-test-no-such-plugin");
  config.exec->install_hint = "Install kubelogin: https://azure.github.io/kubelogin";
  CredentialProvider provider(config);
  auto c = provider.Current();
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(),
            "exec credential plugin \"nodesmith-test-no-such-plugin\" for user \"eks\" (context "
            "\"demo\"): executable \"nodesmith-test-no-such-plugin\" not found on PATH. Install "
            "kubelogin: https://azure.github.io/kubelogin");

  RestConfig by_path = ExecConfigFor("/nonexistent/bin/get-token");
  EXPECT_THAT(
      CredentialProvider(by_path).Current().status().message(),
      HasSubstr("\"/nonexistent/bin/get-token\" does not exist or is not executable; install it"));
}

TEST(ExecCredentialErrors, NonZeroExitIncludesTheEndOfStderr) {
  TempDir dir;
  std::string plugin =
      dir.Script("aws",
                 "echo 'reading profile dev' >&2\n"
                 "echo 'Unable to locate credentials. You can configure credentials by "
                 "running \"aws configure\".' >&2\n"
                 "exit 255\n");
  auto c = CredentialProvider(ExecConfigFor(plugin)).Current();
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("exec credential plugin \"" + plugin + "\""));
  EXPECT_THAT(
      c.status().message(),
      HasSubstr("exited with status 255: reading profile dev; Unable to locate credentials."));
}

TEST(ExecCredentialErrors, MalformedOutput) {
  TempDir dir;
  auto run = [&](const std::string& out) {
    std::string plugin = dir.Script("p", "cat <<'EOF'\n" + out + "\nEOF\n");
    return CredentialProvider(ExecConfigFor(plugin, kV1)).Current().status().message();
  };
  EXPECT_THAT(run("Enter MFA code:"), HasSubstr("did not print an ExecCredential as JSON"));
  EXPECT_THAT(run(""), HasSubstr("printed nothing on stdout"));
  EXPECT_THAT(run(R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1"})"),
              HasSubstr("without a status"));
  EXPECT_THAT(run(R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1",)"
                  R"("status":{}})"),
              HasSubstr("neither a token nor a client certificate and key"));
  EXPECT_THAT(run(R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1",)"
                  R"("status":{"clientCertificateData":"C"}})"),
              HasSubstr("only one of clientCertificateData and clientKeyData"));
  EXPECT_THAT(run(R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1",)"
                  R"("status":{"token":"t","expirationTimestamp":"tomorrow"}})"),
              HasSubstr("expirationTimestamp that is not RFC 3339: \"tomorrow\""));
  EXPECT_THAT(run(R"({"kind":"Secret","apiVersion":"v1"})"), HasSubstr("not an ExecCredential"));
  EXPECT_THAT(run(R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1",)"
                  R"("status":{"token":"secret-value"}} trailing)"),
              ::testing::Not(HasSubstr("secret-value")));
}

// nlohmann/json throws out_of_range, not parse_error, for a number beyond a double: such output
// is an error like any other that is not an ExecCredential, never an exception out of Current().
TEST(ExecCredentialErrors, ANumberBeyondADoubleIsAnErrorNotAnAbort) {
  for (const char* out : {R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1",)"
                          R"("status":{"token":"secret-value"},"spec":{"n":1e400}})",
                          "-1e999"}) {
    core::Result<ParsedCredential> parsed = ParseExecCredential(out, kV1);
    ASSERT_FALSE(parsed.ok()) << out;
    EXPECT_THAT(parsed.status().message(), HasSubstr("did not print an ExecCredential as JSON")) << out;
    EXPECT_THAT(parsed.status().message(), ::testing::Not(HasSubstr("secret-value")));
  }
}

TEST(ExecCredentialErrors, ApiVersionMismatch) {
  TempDir dir;
  std::string plugin = CountingPlugin(dir, kV1beta1, R"({"token": "t"})");
  auto c = CredentialProvider(ExecConfigFor(plugin, kV1)).Current();
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("exec credential plugin \"" + plugin + "\""));
  EXPECT_THAT(c.status().message(),
              HasSubstr("printed apiVersion \"client.authentication.k8s.io/v1beta1\" but the "
                        "kubeconfig's exec.apiVersion is \"client.authentication.k8s.io/v1\""));
}

TEST(ExecCredentialErrors, TimeoutKillsThePlugin) {
  TempDir dir;
  std::string plugin = dir.Script("slow", "echo 'waiting for browser login' >&2\nsleep 30\n");
  CredentialProviderOptions options;
  options.exec_timeout = 300ms;
  auto start = std::chrono::steady_clock::now();
  auto c = CredentialProvider(ExecConfigFor(plugin), options).Current();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);  // the sleep was killed too
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), core::StatusCode::kUnavailable);
  EXPECT_THAT(c.status().message(),
              HasSubstr("did not finish within 300ms and was killed: waiting for browser login"));
}

TEST(ExecCredentialErrors, InteractiveAlwaysCannotRun) {
  TempDir dir;
  RestConfig config = ExecConfigFor(CountingPlugin(dir, kV1, R"({"token": "t"})"), kV1);
  config.exec->interactive_mode = "Always";
  auto c = CredentialProvider(config).Current();
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("interactiveMode is Always"));
  EXPECT_EQ(Runs(dir), 0);
}

TEST(ExecCredentialErrors, FailureIsNotCachedAndStdinIsEmpty) {
  TempDir dir;
  // Fails until a flag file appears; reads stdin to show it gets EOF rather than a terminal.
  std::string plugin = dir.Script(
      "p",
      "read line || true\n"
      "[ -f \"" +
          dir.path() +
          "/ready\" ] || { echo not yet >&2; exit 1; }\n"
          "echo "
          "'{\"kind\":\"ExecCredential\",\"apiVersion\":\"client.authentication.k8s.io/v1beta1\","
          "\"status\":{\"token\":\"t\"}}'\n");
  CredentialProvider provider(ExecConfigFor(plugin));
  EXPECT_THAT(provider.Current().status().message(), HasSubstr("exited with status 1: not yet"));
  dir.Write("ready", "");
  auto c = provider.Current();
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->bearer_token, "t");
}

}  // namespace
}  // namespace nodesmith::kube
