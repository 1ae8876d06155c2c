// Kubeconfig and in-cluster configuration, as kubectl and controller-runtime read them. Every
// test works in its own temporary directory with an injected environment: none reads the real
// ~/.kube or the process environment.
#include "kube/kubeconfig.h"

#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include "temp_dir.h"

namespace nodesmith::kube {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace fs = std::filesystem;

using nodesmith::testing::TempDir;

// An environment holding exactly the given variables.
EnvLookup FakeEnv(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

constexpr char kCaPem[] = "-----BEGIN CERTIFICATE-----\nTESTCA\n-----END CERTIFICATE-----\n";
constexpr char kCertPem[] = "-----BEGIN CERTIFICATE-----\nADMIN\n-----END CERTIFICATE-----\n";
constexpr char kKeyPem[] = "-----BEGIN EC PRIVATE KEY-----\nKEY\n-----END EC PRIVATE KEY-----\n";

std::string Base64(const std::string& in) {
  static const char* kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    unsigned v = (static_cast<unsigned char>(in[i]) << 16) |
                 (static_cast<unsigned char>(in[i + 1]) << 8) |
                 static_cast<unsigned char>(in[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out += kAlphabet[(v >> s) & 63];
  }
  if (i < in.size()) {
    unsigned v = static_cast<unsigned char>(in[i]) << 16;
    if (i + 1 < in.size()) v |= static_cast<unsigned char>(in[i + 1]) << 8;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += i + 1 < in.size() ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::string Base64Url(const std::string& in) {
  std::string s = Base64(in);
  for (char& c : s) {
    if (c == '+') c = '-';
    if (c == '/') c = '_';
  }
  while (!s.empty() && s.back() == '=') s.pop_back();
  return s;
}

// A kubeconfig with one cluster, one user and one context, each body given as YAML lines
// indented for their place.
std::string OneContext(const std::string& cluster_body, const std::string& user_body,
                       const std::string& context_extra = "") {
  return "apiVersion: v1\n"
         "kind: Config\n"
         "clusters:\n"
         "- name: test\n"
         "  cluster:\n" +
         cluster_body +
         "users:\n"
         "- name: admin\n"
         "  user:\n" +
         user_body +
         "contexts:\n"
         "- name: nodesmith-test\n"
         "  context:\n"
         "    cluster: test\n"
         "    user: admin\n" +
         context_extra + "current-context: nodesmith-test\n";
}

core::Result<RestConfig> LoadFile(const std::string& path, const std::string& context = "") {
  KubeconfigOptions options;
  options.kubeconfig = path;
  options.context = context;
  options.env = FakeEnv({});
  return LoadKubeconfig(options);
}

// --- What a context resolves to ------------------------------------------------------------

TEST(Kubeconfig, FilesNamedByAContextAreReadRelativeToTheKubeconfig) {
  TempDir dir;
  dir.Write("kube/pki/ca.crt", kCaPem);
  dir.Write("kube/admin.crt", kCertPem);
  dir.Write("kube/admin.key", kKeyPem);
  std::string path = dir.Write("kube/config", OneContext("    server: https://10.0.0.1:6443/\n"
                                                         "    certificate-authority: pki/ca.crt\n"
                                                         "    tls-server-name: kubernetes\n",
                                                         "    client-certificate: admin.crt\n"
                                                         "    client-key: ./admin.key\n",
                                                         "    namespace: karpenter\n"));
  auto config = LoadFile(path);
  ASSERT_TRUE(config.ok()) << config.status().message();
  EXPECT_EQ(config->server, "https://10.0.0.1:6443");  // no trailing slash
  EXPECT_EQ(config->tls_server_name, "kubernetes");
  EXPECT_EQ(config->ca_pem, kCaPem);
  EXPECT_THAT(config->ca_source, HasSubstr(dir.path() + "/kube/pki/ca.crt"));
  EXPECT_EQ(config->client_cert_pem, kCertPem);
  EXPECT_EQ(config->client_key_pem, kKeyPem);
  EXPECT_FALSE(config->insecure_skip_tls_verify);
  EXPECT_EQ(config->identity, "user \"admin\" (context \"nodesmith-test\")");
  EXPECT_EQ(config->namespace_, "karpenter");
  EXPECT_TRUE(config->warnings.empty());
}

TEST(Kubeconfig, DataFieldsAreBase64AndMayBeWrapped) {
  TempDir dir;
  std::string ca = Base64(kCaPem);
  std::string wrapped_ca = ca.substr(0, 20) + "\n      " + ca.substr(20);
  std::string path =
      dir.Write("config", OneContext("    server: https://k.example:443\n"
                                     "    certificate-authority-data: |\n      " +
                                         wrapped_ca + "\n",
                                     "    client-certificate-data: " + Base64(kCertPem) + "\n" +
                                         "    client-key-data: " + Base64(kKeyPem) + "\n"));
  auto config = LoadFile(path);
  ASSERT_TRUE(config.ok()) << config.status().message();
  EXPECT_EQ(config->ca_pem, kCaPem);
  EXPECT_THAT(config->ca_source, HasSubstr("certificate-authority-data"));
  EXPECT_EQ(config->client_cert_pem, kCertPem);
  EXPECT_EQ(config->client_key_pem, kKeyPem);
  EXPECT_TRUE(config->namespace_.empty());
}

TEST(Kubeconfig, StaticTokenAndTokenFile) {
  TempDir dir;
  dir.Write("tokens/admin", "file-token\n");
  auto with_token =
      LoadFile(dir.Write("a", OneContext("    server: https://h\n", "    token: abc.def\n")));
  ASSERT_TRUE(with_token.ok()) << with_token.status().message();
  EXPECT_EQ(with_token->bearer_token, "abc.def");
  EXPECT_TRUE(with_token->token_file.empty());

  // A tokenFile is checked now and re-read later, so the config names it rather than copies it.
  auto with_file = LoadFile(
      dir.Write("b", OneContext("    server: https://h\n", "    tokenFile: tokens/admin\n")));
  ASSERT_TRUE(with_file.ok()) << with_file.status().message();
  EXPECT_TRUE(with_file->bearer_token.empty());
  EXPECT_EQ(with_file->token_file, dir.path() + "/tokens/admin");
}

TEST(Kubeconfig, ServerWithoutSchemeIsHttps) {
  TempDir dir;
  auto config =
      LoadFile(dir.Write("config", OneContext("    server: 127.0.0.1:6443\n", "    token: t\n")));
  ASSERT_TRUE(config.ok()) << config.status().message();
  EXPECT_EQ(config->server, "https://127.0.0.1:6443");
}

TEST(Kubeconfig, JsonIsAKubeconfigToo) {
  TempDir dir;
  std::string path = dir.Write("config.json", R"({
    "apiVersion": "v1", "kind": "Config", "current-context": "c",
    "clusters": [{"name": "k", "cluster": {"server": "https://json:6443"}}],
    "users": [{"name": "u", "user": {"token": "json-token"}}],
    "contexts": [{"name": "c", "context": {"cluster": "k", "user": "u", "namespace": "ns"}}]
  })");
  auto config = LoadFile(path);
  ASSERT_TRUE(config.ok()) << config.status().message();
  EXPECT_EQ(config->server, "https://json:6443");
  EXPECT_EQ(config->bearer_token, "json-token");
  EXPECT_EQ(config->namespace_, "ns");
}

TEST(Kubeconfig, ContextOverrideChoosesAnotherContext) {
  TempDir dir;
  std::string path =
      dir.Write("config",
                "clusters:\n"
                "- {name: prod, cluster: {server: 'https://prod:6443'}}\n"
                "- {name: dev, cluster: {server: 'https://dev:6443'}}\n"
                "users:\n"
                "- {name: alice, user: {token: a}}\n"
                "- {name: bob, user: {token: b}}\n"
                "contexts:\n"
                "- {name: prod, context: {cluster: prod, user: alice}}\n"
                "- {name: dev, context: {cluster: dev, user: bob, namespace: sandbox}}\n"
                "current-context: prod\n");
  auto current = LoadFile(path);
  ASSERT_TRUE(current.ok()) << current.status().message();
  EXPECT_EQ(current->server, "https://prod:6443");
  auto dev = LoadFile(path, "dev");
  ASSERT_TRUE(dev.ok()) << dev.status().message();
  EXPECT_EQ(dev->server, "https://dev:6443");
  EXPECT_EQ(dev->bearer_token, "b");
  EXPECT_EQ(dev->namespace_, "sandbox");
  EXPECT_EQ(dev->identity, "user \"bob\" (context \"dev\")");
}

TEST(Kubeconfig, InsecureSkipTlsVerifyWarnsNamingTheServer) {
  TempDir dir;
  auto config = LoadFile(dir.Write("config", OneContext("    server: https://lab:6443\n"
                                                        "    insecure-skip-tls-verify: true\n",
                                                        "    token: t\n")));
  ASSERT_TRUE(config.ok()) << config.status().message();
  EXPECT_TRUE(config->insecure_skip_tls_verify);
  ASSERT_EQ(config->warnings.size(), 1u);
  EXPECT_THAT(config->warnings[0],
              HasSubstr("TLS verification is off for server https://lab:6443"));
}

// --- Exec credential plugins ---------------------------------------------------------------

TEST(Kubeconfig, ExecPluginAsAwsEksUpdateKubeconfigWritesIt) {
  TempDir dir;
  std::string path = dir.Write(
      "config",
      OneContext("    server: https://ABC.gr7.us-west-2.eks.amazonaws.com\n",
                 "    exec:\n"
                 "      apiVersion: client.authentication.k8s.io/v1beta1\n"
                 "      command: aws\n"
                 "      args: [--region, us-west-2, eks, get-token, --cluster-name, demo]\n"
                 "      env:\n"
                 "      - name: AWS_PROFILE\n"
                 "        value: dev\n"
                 "      installHint: Install the AWS CLI\n"
                 "      provideClusterInfo: false\n"));
  auto config = LoadFile(path);
  ASSERT_TRUE(config.ok()) << config.status().message();
  ASSERT_TRUE(config->exec.has_value());
  const ExecConfig& exec = *config->exec;
  EXPECT_EQ(exec.command, "aws");  // a bare name is looked up on PATH when it runs
  EXPECT_THAT(exec.args,
              ElementsAre("--region", "us-west-2", "eks", "get-token", "--cluster-name", "demo"));
  ASSERT_EQ(exec.env.size(), 1u);
  EXPECT_EQ(exec.env[0], std::make_pair(std::string("AWS_PROFILE"), std::string("dev")));
  EXPECT_EQ(exec.api_version, "client.authentication.k8s.io/v1beta1");
  EXPECT_EQ(exec.install_hint, "Install the AWS CLI");
  EXPECT_FALSE(exec.provide_cluster_info);
  EXPECT_EQ(exec.interactive_mode, "IfAvailable");  // v1beta1's default
}

TEST(Kubeconfig, ExecCommandWithAPathResolvesAgainstTheKubeconfig) {
  TempDir dir;
  std::string path =
      dir.Write("kube/config", OneContext("    server: https://h\n",
                                          "    exec:\n"
                                          "      apiVersion: client.authentication.k8s.io/v1\n"
                                          "      command: bin/get-token\n"
                                          "      interactiveMode: Never\n"
                                          "      provideClusterInfo: true\n"));
  auto config = LoadFile(path);
  ASSERT_TRUE(config.ok()) << config.status().message();
  EXPECT_EQ(config->exec->command, dir.path() + "/kube/bin/get-token");
  EXPECT_EQ(config->exec->interactive_mode, "Never");
  EXPECT_TRUE(config->exec->provide_cluster_info);
}

TEST(Kubeconfig, ExecV1NeedsInteractiveModeAndAKnownApiVersion) {
  TempDir dir;
  auto no_mode =
      LoadFile(dir.Write("a", OneContext("    server: https://h\n",
                                         "    exec:\n"
                                         "      apiVersion: client.authentication.k8s.io/v1\n"
                                         "      command: get-token\n")));
  ASSERT_FALSE(no_mode.ok());
  EXPECT_THAT(no_mode.status().message(), HasSubstr("user \"admin\": exec: no interactiveMode"));

  auto alpha =
      LoadFile(dir.Write("b", OneContext("    server: https://h\n",
                                         "    exec:\n"
                                         "      apiVersion: client.authentication.k8s.io/v1alpha1\n"
                                         "      command: get-token\n")));
  ASSERT_FALSE(alpha.ok());
  EXPECT_THAT(alpha.status().message(),
              HasSubstr("apiVersion client.authentication.k8s.io/v1alpha1 is not supported"));

  auto no_version = LoadFile(dir.Write("c", OneContext("    server: https://h\n",
                                                       "    exec:\n"
                                                       "      command: get-token\n")));
  ASSERT_FALSE(no_version.ok());
  EXPECT_THAT(no_version.status().message(), HasSubstr("exec: no apiVersion"));
}

// --- KUBECONFIG, $HOME and --kubeconfig ------------------------------------------------------

TEST(Kubeconfig, KubeconfigListMergesFirstWriterWins) {
  TempDir dir;
  dir.Write("one/ca.crt", "CA-ONE");
  dir.Write("two/ca.crt", "CA-TWO");
  dir.Write("two/dev.token", "dev-token");
  std::string one =
      dir.Write("one/config",
                "clusters:\n"
                "- name: shared\n"
                "  cluster: {server: 'https://one:6443', certificate-authority: ca.crt}\n"
                "users:\n"
                "- {name: alice, user: {token: from-one}}\n"
                "contexts:\n"
                "- {name: prod, context: {cluster: shared, user: alice}}\n"
                "current-context: prod\n");
  std::string two =
      dir.Write("two/config",
                "clusters:\n"
                "- name: shared\n"
                "  cluster: {server: 'https://two:6443', certificate-authority: ca.crt}\n"
                "- name: dev\n"
                "  cluster: {server: 'https://dev:6443', certificate-authority: ca.crt}\n"
                "users:\n"
                "- {name: alice, user: {token: from-two}}\n"
                "- {name: bob, user: {tokenFile: dev.token}}\n"
                "contexts:\n"
                "- {name: dev, context: {cluster: dev, user: bob}}\n"
                "current-context: dev\n");
  KubeconfigOptions options;
  options.env = FakeEnv(
      {{"KUBECONFIG", one + ":" + dir.path() + "/missing:" + two}, {"HOME", dir.path() + "/home"}});
  auto config = LoadKubeconfig(options);
  ASSERT_TRUE(config.ok()) << config.status().message();
  EXPECT_EQ(config->identity, "user \"alice\" (context \"prod\")");  // first current-context
  EXPECT_EQ(config->server, "https://one:6443");                     // first "shared" wins
  EXPECT_EQ(config->ca_pem, "CA-ONE");
  EXPECT_EQ(config->bearer_token, "from-one");

  // An entry only the second file has resolves its paths against the second file.
  options.context = "dev";
  auto dev = LoadKubeconfig(options);
  ASSERT_TRUE(dev.ok()) << dev.status().message();
  EXPECT_EQ(dev->server, "https://dev:6443");
  EXPECT_EQ(dev->ca_pem, "CA-TWO");
  EXPECT_EQ(dev->token_file, dir.path() + "/two/dev.token");
}

TEST(Kubeconfig, ExplicitPathBeatsKubeconfigWhichBeatsHome) {
  TempDir dir;
  auto make = [&](const std::string& rel, const std::string& server) {
    return dir.Write(rel, OneContext("    server: " + server + "\n", "    token: t\n"));
  };
  std::string flag = make("flag/config", "https://flag");
  std::string env = make("env/config", "https://env");
  make("home/.kube/config", "https://home");

  KubeconfigOptions options;
  options.env = FakeEnv({{"KUBECONFIG", env}, {"HOME", dir.path() + "/home"}});
  options.kubeconfig = flag;
  EXPECT_EQ(LoadKubeconfig(options)->server, "https://flag");
  options.kubeconfig.clear();
  EXPECT_EQ(LoadKubeconfig(options)->server, "https://env");
  options.env = FakeEnv({{"KUBECONFIG", ""}, {"HOME", dir.path() + "/home"}});
  EXPECT_EQ(LoadKubeconfig(options)->server, "https://home");
}

// --- Errors a person can act on --------------------------------------------------------------

TEST(KubeconfigErrors, NoKubeconfigNamesThePathsTried) {
  TempDir dir;
  KubeconfigOptions options;
  options.env = FakeEnv({{"HOME", dir.path()}});
  auto home = LoadKubeconfig(options);
  ASSERT_FALSE(home.ok());
  EXPECT_THAT(home.status().message(), HasSubstr("no kubeconfig found"));
  EXPECT_THAT(home.status().message(), HasSubstr(dir.path() + "/.kube/config"));
  EXPECT_THAT(home.status().message(), HasSubstr("--kubeconfig"));

  options.env = FakeEnv({{"KUBECONFIG", dir.path() + "/a:" + dir.path() + "/b"}});
  auto list = LoadKubeconfig(options);
  ASSERT_FALSE(list.ok());
  EXPECT_THAT(list.status().message(), HasSubstr("none of the files KUBECONFIG names exists"));
  EXPECT_THAT(list.status().message(), HasSubstr(dir.path() + "/a, " + dir.path() + "/b"));

  options.env = FakeEnv({});
  EXPECT_THAT(LoadKubeconfig(options).status().message(), HasSubstr("HOME are not set"));
}

TEST(KubeconfigErrors, ExplicitPathMustExist) {
  TempDir dir;
  auto config = LoadFile(dir.path() + "/nope");
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().code(), core::StatusCode::kInvalidArgument);
  EXPECT_EQ(config.status().message(),
            "kubeconfig " + dir.path() + "/nope: No such file or directory");
}

TEST(KubeconfigErrors, ContextNotFoundListsTheContexts) {
  TempDir dir;
  std::string path = dir.Write("config", OneContext("    server: https://h\n", "    token: t\n"));
  auto config = LoadFile(path, "prod");
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().message(), "context \"prod\" not found in kubeconfig " + path +
                                           " (available contexts: nodesmith-test)");
}

TEST(KubeconfigErrors, NoCurrentContext) {
  TempDir dir;
  std::string path =
      dir.Write("config",
                "clusters: [{name: k, cluster: {server: 'https://h'}}]\n"
                "contexts: [{name: a, context: {cluster: k}}, {name: b, context: {cluster: k}}]\n");
  auto config = LoadFile(path);
  ASSERT_FALSE(config.ok());
  EXPECT_THAT(config.status().message(), HasSubstr("no context chosen"));
  EXPECT_THAT(config.status().message(), HasSubstr("pass --context (available contexts: a, b)"));
}

TEST(KubeconfigErrors, ClusterOrUserMissing) {
  TempDir dir;
  std::string path = dir.Write("config",
                               "clusters: [{name: k, cluster: {server: 'https://h'}}]\n"
                               "users: [{name: u, user: {token: t}}]\n"
                               "contexts:\n"
                               "- {name: no-cluster, context: {cluster: gone, user: u}}\n"
                               "- {name: no-user, context: {cluster: k, user: ghost}}\n");
  auto cluster = LoadFile(path, "no-cluster");
  ASSERT_FALSE(cluster.ok());
  EXPECT_THAT(cluster.status().message(),
              HasSubstr("context \"no-cluster\": cluster \"gone\" not found in kubeconfig " + path +
                        " (available clusters: k)"));
  auto user = LoadFile(path, "no-user");
  ASSERT_FALSE(user.ok());
  EXPECT_THAT(user.status().message(),
              HasSubstr("context \"no-user\": user \"ghost\" not found in kubeconfig " + path +
                        " (available users: u)"));
}

TEST(KubeconfigErrors, ClusterWithoutServer) {
  TempDir dir;
  std::string path = dir.Write(
      "config",
      OneContext("    certificate-authority-data: " + Base64(kCaPem) + "\n", "    token: t\n"));
  auto config = LoadFile(path);
  ASSERT_FALSE(config.ok());
  EXPECT_THAT(config.status().message(),
              HasSubstr("kubeconfig " + path + ": cluster \"test\": no server"));
}

TEST(KubeconfigErrors, MalformedYamlNamesTheFileAndLine) {
  TempDir dir;
  std::string path = dir.Write("config", "clusters:\n- name: k\n  cluster: {server: [unclosed\n");
  auto config = LoadFile(path);
  ASSERT_FALSE(config.ok());
  EXPECT_THAT(config.status().message(),
              HasSubstr("kubeconfig " + path + ": malformed YAML at line"));

  std::string wrong_shape = dir.Write("shape", "clusters: not-a-list\n");
  EXPECT_THAT(LoadFile(wrong_shape).status().message(),
              HasSubstr("kubeconfig " + wrong_shape + ": clusters: expected a list"));

  std::string bad_bool = dir.Write("bool", OneContext("    server: https://h\n"
                                                      "    insecure-skip-tls-verify: maybe\n",
                                                      "    token: t\n"));
  EXPECT_THAT(
      LoadFile(bad_bool).status().message(),
      HasSubstr(
          "cluster \"test\": insecure-skip-tls-verify: expected true or false, got \"maybe\""));
}

TEST(KubeconfigErrors, Base64ThatDoesNotDecode) {
  TempDir dir;
  std::string path = dir.Write("config", OneContext("    server: https://h\n",
                                                    "    client-certificate-data: 'not%base64'\n"
                                                    "    client-key-data: " +
                                                        Base64(kKeyPem) + "\n"));
  auto config = LoadFile(path);
  ASSERT_FALSE(config.ok());
  EXPECT_THAT(config.status().message(),
              HasSubstr("kubeconfig " + path +
                        ": user \"admin\": client-certificate-data: not valid base64"));

  // PEM pasted where base64 belongs gets its own hint.
  std::string pem =
      dir.Write("pem", OneContext("    server: https://h\n"
                                  "    certificate-authority-data: '-----BEGIN CERTIFICATE-----'\n",
                                  "    token: t\n"));
  EXPECT_THAT(LoadFile(pem).status().message(), HasSubstr("holds PEM text"));
}

TEST(KubeconfigErrors, MissingFileNamesKubeconfigUserAndField) {
  TempDir dir;
  dir.Write("admin.key", kKeyPem);
  std::string path = dir.Write("config", OneContext("    server: https://h\n",
                                                    "    client-certificate: admin.crt\n"
                                                    "    client-key: admin.key\n"));
  auto config = LoadFile(path);
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().message(), "kubeconfig " + path +
                                           ": user \"admin\": client-certificate " + dir.path() +
                                           "/admin.crt: No such file or directory");

  std::string ca =
      dir.Write("ca-missing", OneContext("    server: https://h\n"
                                         "    certificate-authority: /nonexistent/ca.crt\n",
                                         "    token: t\n"));
  EXPECT_EQ(LoadFile(ca).status().message(),
            "kubeconfig " + ca +
                ": cluster \"test\": certificate-authority /nonexistent/ca.crt: "
                "No such file or directory");

  std::string token = dir.Write(
      "token-missing", OneContext("    server: https://h\n", "    tokenFile: tokens/none\n"));
  EXPECT_THAT(LoadFile(token).status().message(),
              HasSubstr("user \"admin\": tokenFile " + dir.path() + "/tokens/none: No such file"));
}

TEST(KubeconfigErrors, CertificateWithoutKeyAndConflictingFields) {
  TempDir dir;
  auto no_key = LoadFile(
      dir.Write("a", OneContext("    server: https://h\n",
                                "    client-certificate-data: " + Base64(kCertPem) + "\n")));
  EXPECT_THAT(no_key.status().message(),
              HasSubstr("client-certificate is set but client-key is not"));

  dir.Write("ca.crt", kCaPem);
  auto both = LoadFile(dir.Write("b", OneContext("    server: https://h\n"
                                                 "    certificate-authority: ca.crt\n"
                                                 "    certificate-authority-data: " +
                                                     Base64(kCaPem) + "\n",
                                                 "    token: t\n")));
  EXPECT_THAT(both.status().message(),
              HasSubstr("both certificate-authority and certificate-authority-data are set"));

  auto insecure_with_ca = LoadFile(dir.Write("c", OneContext("    server: https://h\n"
                                                             "    insecure-skip-tls-verify: true\n"
                                                             "    certificate-authority: ca.crt\n",
                                                             "    token: t\n")));
  EXPECT_THAT(insecure_with_ca.status().message(),
              HasSubstr("insecure-skip-tls-verify is true and a certificate authority is given"));
}

TEST(KubeconfigErrors, UnsupportedAuthenticationSaysSo) {
  TempDir dir;
  auto basic = LoadFile(dir.Write("a", OneContext("    server: https://h\n",
                                                  "    username: admin\n"
                                                  "    password: secret\n")));
  ASSERT_FALSE(basic.ok());
  EXPECT_THAT(
      basic.status().message(),
      HasSubstr("user \"admin\": basic authentication (username/password) is not supported"));

  auto provider =
      LoadFile(dir.Write("b", OneContext("    server: https://h\n",
                                         "    auth-provider:\n"
                                         "      name: oidc\n"
                                         "      config: {idp-issuer-url: 'https://idp'}\n")));
  ASSERT_FALSE(provider.ok());
  EXPECT_THAT(provider.status().message(), HasSubstr("auth-provider \"oidc\" is not supported"));
  EXPECT_THAT(provider.status().message(), HasSubstr("kubelogin"));

  auto impersonate = LoadFile(dir.Write("c", OneContext("    server: https://h\n",
                                                        "    token: t\n"
                                                        "    as: system:admin\n")));
  EXPECT_THAT(impersonate.status().message(), HasSubstr("impersonation (as) is not supported"));
}

TEST(KubeconfigErrors, NeverThrowsOnOddInput) {
  TempDir dir;
  for (const std::string& text :
       {std::string("[1, 2, 3]\n"), std::string("clusters: [[]]\n"),
        std::string("current-context: {a: b}\n"), std::string("\t\tcontexts: :\n"),
        std::string("users:\n- name: u\n  user: 7\n"), std::string("\xff\xfe")}) {
    std::string path = dir.Write("odd", text);
    auto config = LoadFile(path);
    EXPECT_FALSE(config.ok()) << text;
  }
}

// --- In-cluster ------------------------------------------------------------------------------

// A service account token as the kubelet projects it: header.payload.signature.
std::string BoundToken(const std::string& ns, const std::string& name) {
  std::string payload =
      R"({"aud":["https://kubernetes.default.svc"],"sub":"system:serviceaccount:)" + ns + ":" +
      name + R"(","kubernetes.io":{"namespace":")" + ns + R"(","serviceaccount":{"name":")" + name +
      R"(","uid":"1"}}})";
  return Base64Url(R"({"alg":"RS256"})") + "." + Base64Url(payload) + ".c2lnbmF0dXJl";
}

struct ServiceAccountDir {
  TempDir dir;
  std::string path() const { return dir.path() + "/sa"; }
  ServiceAccountDir(const std::string& token, const std::string& ns) {
    dir.Write("sa/token", token);
    dir.Write("sa/ca.crt", kCaPem);
    if (!ns.empty()) dir.Write("sa/namespace", ns);
  }
};

EnvLookup InPod(const std::string& host = "10.96.0.1", const std::string& port = "443") {
  return FakeEnv({{"KUBERNETES_SERVICE_HOST", host}, {"KUBERNETES_SERVICE_PORT", port}});
}

TEST(InCluster, ReadsTheMountedServiceAccount) {
  ServiceAccountDir sa(BoundToken("kube-system", "karpenter"), "kube-system");
  auto config = InClusterConfig(InPod(), sa.path());
  ASSERT_TRUE(config.ok()) << config.status().message();
  EXPECT_EQ(config->server, "https://10.96.0.1:443");
  EXPECT_EQ(config->ca_pem, kCaPem);
  EXPECT_EQ(config->ca_source, sa.path() + "/ca.crt");
  EXPECT_EQ(config->token_file, sa.path() + "/token");  // named, so rotations are seen
  EXPECT_TRUE(config->bearer_token.empty());
  EXPECT_EQ(config->namespace_, "kube-system");
  EXPECT_EQ(config->identity, "ServiceAccount kube-system/karpenter");
}

TEST(InCluster, Ipv6HostIsBracketed) {
  ServiceAccountDir sa(BoundToken("ns", "sa"), "ns");
  auto config = InClusterConfig(InPod("fd00:10:96::1", "6443"), sa.path());
  ASSERT_TRUE(config.ok()) << config.status().message();
  EXPECT_EQ(config->server, "https://[fd00:10:96::1]:6443");
}

TEST(InCluster, IdentityFromLegacyClaimsOrSubOrNeither) {
  std::string legacy_payload =
      R"({"iss":"kubernetes/serviceaccount","kubernetes.io/serviceaccount/namespace":"tools",)"
      R"("kubernetes.io/serviceaccount/service-account.name":"builder"})";
  ServiceAccountDir legacy(Base64Url("{}") + "." + Base64Url(legacy_payload) + ".x", "");
  auto a = InClusterConfig(InPod(), legacy.path());
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->identity, "ServiceAccount tools/builder");
  EXPECT_EQ(a->namespace_, "tools");  // no namespace file: the token says

  ServiceAccountDir sub(
      Base64Url("{}") + "." + Base64Url(R"({"sub":"system:serviceaccount:ops:bot"})") + ".x",
      "ops");
  EXPECT_EQ(InClusterConfig(InPod(), sub.path())->identity, "ServiceAccount ops/bot");

  ServiceAccountDir opaque("not-a-jwt", "default");
  EXPECT_EQ(InClusterConfig(InPod(), opaque.path())->identity, "the pod's ServiceAccount");
}

TEST(InCluster, OutsideAPodSaysSo) {
  ServiceAccountDir sa(BoundToken("ns", "sa"), "ns");
  auto config = InClusterConfig(FakeEnv({}), sa.path());
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().code(), core::StatusCode::kFailedPrecondition);
  EXPECT_THAT(config.status().message(), HasSubstr("not running in a Kubernetes pod"));
  EXPECT_THAT(config.status().message(), HasSubstr("KUBERNETES_SERVICE_HOST"));
}

TEST(InCluster, MissingTokenOrBadPort) {
  TempDir dir;
  auto no_token = InClusterConfig(InPod(), dir.path());
  ASSERT_FALSE(no_token.ok());
  EXPECT_THAT(no_token.status().message(), HasSubstr(dir.path() + "/token"));
  EXPECT_THAT(no_token.status().message(), HasSubstr("No such file or directory"));

  ServiceAccountDir sa(BoundToken("ns", "sa"), "ns");
  EXPECT_THAT(InClusterConfig(InPod("10.0.0.1", "https"), sa.path()).status().message(),
              HasSubstr("KUBERNETES_SERVICE_PORT \"https\" is not a port number"));
}

// --- Which one nodesmith uses ----------------------------------------------------------------

class Resolve : public ::testing::Test {
 protected:
  Resolve() : sa_(BoundToken("kube-system", "karpenter"), "kube-system") {
    home_ = dir_.path() + "/home";
    dir_.Write("home/.kube/config", OneContext("    server: https://home\n", "    token: t\n"));
    env_file_ = dir_.Write("env/config", OneContext("    server: https://env\n", "    token: t\n"));
    flag_file_ =
        dir_.Write("flag/config", OneContext("    server: https://flag\n", "    token: t\n"));
  }
  KubeconfigOptions Options(std::map<std::string, std::string> env) {
    KubeconfigOptions o;
    env["HOME"] = home_;
    o.env = FakeEnv(std::move(env));
    o.service_account_dir = sa_.path();
    return o;
  }
  std::map<std::string, std::string> pod_ = {{"KUBERNETES_SERVICE_HOST", "10.96.0.1"},
                                             {"KUBERNETES_SERVICE_PORT", "443"}};
  TempDir dir_;
  ServiceAccountDir sa_;
  std::string home_, env_file_, flag_file_;
};

TEST_F(Resolve, InAPodTheServiceAccountBeatsHome) {
  auto config = ResolveRestConfig(Options(pod_));
  ASSERT_TRUE(config.ok()) << config.status().message();
  EXPECT_EQ(config->identity, "ServiceAccount kube-system/karpenter");
}

TEST_F(Resolve, ExplicitKubeconfigOrContextBeatsTheServiceAccount) {
  auto o = Options(pod_);
  o.kubeconfig = flag_file_;
  EXPECT_EQ(ResolveRestConfig(o)->server, "https://flag");
  o.kubeconfig.clear();
  o.context = "nodesmith-test";  // a context is a kubeconfig's notion
  EXPECT_EQ(ResolveRestConfig(o)->server, "https://home");
}

TEST_F(Resolve, KubeconfigVariableBeatsTheServiceAccountAsInControllerRuntime) {
  auto env = pod_;
  env["KUBECONFIG"] = env_file_;
  EXPECT_EQ(ResolveRestConfig(Options(env))->server, "https://env");
}

TEST_F(Resolve, OutsideAPodOrWithoutATokenHomeIsUsed) {
  EXPECT_EQ(ResolveRestConfig(Options({}))->server, "https://home");
  auto o = Options(pod_);
  o.service_account_dir = dir_.path() + "/no-sa";  // automountServiceAccountToken: false
  EXPECT_EQ(ResolveRestConfig(o)->server, "https://home");
}

}  // namespace
}  // namespace nodesmith::kube
