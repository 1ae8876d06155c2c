// The user data per AMI family, byte for byte for a fixed node, with custom user data merged the
// way Karpenter merges it; and the TOML reader and writer Bottlerocket's settings go through.
#include "cloud/aws/user_data.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>

namespace nodesmith::aws {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

constexpr char kEndpoint[] = "https://ABC123.gr7.us-west-2.eks.amazonaws.com";

// A spot node of the default NodePool with a GPU taint, as the launch path would describe it.
BootstrapOptions Fixed() {
  BootstrapOptions o;
  o.cluster_name = "demo";
  o.cluster_endpoint = kEndpoint;
  o.ca_bundle_base64 = "Y2EtYnVuZGxlCg==";
  o.cluster_dns_ip = "10.100.0.10";
  o.cluster_cidr = "10.100.0.0/16";
  o.labels = {{"team", "a"}, {"karpenter.sh/nodepool", "default"}, {"karpenter.sh/capacity-type", "spot"}};
  o.taints = {{"karpenter.sh/unregistered", "", "NoExecute"}, {"dedicated", "gpu", "NoSchedule"}};
  o.max_pods = 58;
  api::KubeletConfiguration k;
  k.system_reserved = {{"cpu", "100m"}, {"memory", "100Mi"}};
  k.kube_reserved = {{"cpu", "70m"}, {"memory", "893Mi"}};
  k.eviction_hard = {{"memory.available", "5%"}};
  k.eviction_soft = {{"nodefs.available", "10%"}};
  o.kubelet = k;
  return o;
}

constexpr char kKubeletArgs[] =
    R"(--node-labels="karpenter.sh/capacity-type=spot,karpenter.sh/nodepool=default,team=a" )"
    R"(--register-with-taints="dedicated=gpu:NoSchedule,karpenter.sh/unregistered:NoExecute" )"
    R"(--max-pods=58 --system-reserved="cpu=100m,memory=100Mi" --kube-reserved="cpu=70m,memory=893Mi" )"
    R"(--eviction-hard="memory.available<5%" --eviction-soft="nodefs.available<10%")";

std::string Build(AmiFamily family, const BootstrapOptions& o) {
  auto r = BuildUserData(family, o);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : "";
}

core::Status BuildError(AmiFamily family, const BootstrapOptions& o) {
  auto r = BuildUserData(family, o);
  EXPECT_FALSE(r.ok()) << "unexpectedly built:\n" << (r.ok() ? *r : "");
  return r.status();
}

BootstrapOptions WithCustom(std::string custom) {
  BootstrapOptions o = Fixed();
  o.custom_user_data = std::move(custom);
  return o;
}

// The body of the last MIME part (what follows its blank line up to the closing boundary).
std::string LastPartBody(const std::string& mime) {
  size_t last = mime.rfind("\n--//\n");
  size_t start = last == std::string::npos ? mime.find("--//\n") : last + 1;
  size_t body = mime.find("\n\n", start) + 2;
  size_t end = mime.rfind("\n--//--\n");
  return mime.substr(body, end - body);
}

// --- AL2 --------------------------------------------------------------------------------------

const std::string kAl2Bootstrap =
    "#!/bin/bash -xe\n"
    "exec > >(tee /var/log/user-data.log|logger -t user-data -s 2>/dev/console) 2>&1\n"
    "/etc/eks/bootstrap.sh 'demo' --apiserver-endpoint '" + std::string(kEndpoint) +
    "' --b64-cluster-ca 'Y2EtYnVuZGxlCg==' \\\n"
    "--dns-cluster-ip '10.100.0.10' \\\n"
    "--use-max-pods false \\\n"
    "--kubelet-extra-args '" + std::string(kKubeletArgs) + "'";

TEST(UserDataAl2Test, FullOutputForAFixedNode) {
  EXPECT_EQ(Build(AmiFamily::kAL2, Fixed()),
            "MIME-Version: 1.0\n"
            "Content-Type: multipart/mixed; boundary=\"//\"\n"
            "\n"
            "--//\n"
            "Content-Type: text/x-shellscript; charset=\"us-ascii\"\n"
            "\n" + kAl2Bootstrap + "\n"
            "--//--\n");
}

TEST(UserDataAl2Test, AShellScriptBecomesItsOwnPartBeforeTheBootstrap) {
  std::string out = Build(AmiFamily::kAL2, WithCustom("#!/bin/bash\necho custom\n"));
  EXPECT_EQ(out,
            "MIME-Version: 1.0\n"
            "Content-Type: multipart/mixed; boundary=\"//\"\n"
            "\n"
            "--//\n"
            "Content-Type: text/x-shellscript; charset=\"us-ascii\"\n"
            "\n"
            "#!/bin/bash\necho custom\n"
            "\n"
            "--//\n"
            "Content-Type: text/x-shellscript; charset=\"us-ascii\"\n"
            "\n" + kAl2Bootstrap + "\n"
            "--//--\n");
}

TEST(UserDataAl2Test, TheUsersMimePartsAreMergedInOrderWithTheirHeaders) {
  // Its own boundary, CRLF line ends, Content-Type first, a lower-case header name: all of it
  // is re-laid under "//" with LF and canonical, sorted header names.
  std::string custom =
      "Content-Type: multipart/mixed; boundary=\"BOUNDARY\"\r\n"
      "MIME-Version: 1.0\r\n"
      "\r\n"
      "a preamble is ignored\r\n"
      "--BOUNDARY\r\n"
      "content-type: text/cloud-config; charset=\"us-ascii\"\r\n"
      "\r\n"
      "#cloud-config\r\n"
      "packages: [jq]\r\n"
      "--BOUNDARY\r\n"
      "Mime-Version: 1.0\r\n"
      "Content-Type: text/x-shellscript\r\n"
      "\r\n"
      "#!/bin/bash\r\n"
      "echo second\r\n"
      "\r\n"
      "--BOUNDARY--\r\n"
      "an epilogue is ignored\r\n";
  std::string out = Build(AmiFamily::kAL2, WithCustom(custom));
  EXPECT_EQ(out,
            "MIME-Version: 1.0\n"
            "Content-Type: multipart/mixed; boundary=\"//\"\n"
            "\n"
            "--//\n"
            "Content-Type: text/cloud-config; charset=\"us-ascii\"\n"
            "\n"
            "#cloud-config\n"
            "packages: [jq]\n"
            "--//\n"
            "Content-Type: text/x-shellscript\n"
            "Mime-Version: 1.0\n"
            "\n"
            "#!/bin/bash\n"
            "echo second\n"
            "\n"
            "--//\n"
            "Content-Type: text/x-shellscript; charset=\"us-ascii\"\n"
            "\n" + kAl2Bootstrap + "\n"
            "--//--\n");
}

TEST(UserDataAl2Test, Raid0IPv6AndTheKubeletSettingsBecomeBootstrapFlags) {
  BootstrapOptions o = Fixed();
  o.instance_store_policy = "RAID0";
  o.kubelet->cluster_dns = {"fd00::a"};
  o.kubelet->pods_per_core = 4;
  o.kubelet->image_gc_high_threshold_percent = 85;
  o.kubelet->image_gc_low_threshold_percent = 80;
  o.kubelet->cpu_cfs_quota = false;
  std::string out = Build(AmiFamily::kAL2, o);
  EXPECT_THAT(out, HasSubstr(" \\\n--ip-family ipv6 \\\n--dns-cluster-ip 'fd00::a' \\\n"));
  EXPECT_THAT(out, HasSubstr("--max-pods=58 --pods-per-core=4 "));
  EXPECT_THAT(out, HasSubstr(
      " --image-gc-high-threshold=85 --image-gc-low-threshold=80 --cpu-cfs-quota=false' \\\n"
      "--local-disks raid0\n--//--\n"));
}

TEST(UserDataAl2Test, WithoutMaxPodsBootstrapKeepsItsOwn) {
  BootstrapOptions o = Fixed();
  o.max_pods.reset();
  o.kubelet.reset();
  o.labels.clear();
  std::string out = Build(AmiFamily::kAL2, o);
  EXPECT_THAT(out, Not(HasSubstr("--use-max-pods")));
  EXPECT_THAT(out, Not(HasSubstr("--max-pods")));
  EXPECT_THAT(out, Not(HasSubstr("--node-labels")));
  // The taints are registered even with nothing else to pass.
  EXPECT_THAT(out, HasSubstr(
      "--kubelet-extra-args '--register-with-taints=\"dedicated=gpu:NoSchedule,karpenter.sh/unregistered:NoExecute\"'"));
}

TEST(UserDataAl2Test, TheNodeClassKubeletMaxPodsAppliesWhenNoneIsResolved) {
  BootstrapOptions o = Fixed();
  o.max_pods.reset();
  o.kubelet->max_pods = 20;
  EXPECT_THAT(Build(AmiFamily::kAL2, o), HasSubstr("--use-max-pods false"));
  EXPECT_THAT(Build(AmiFamily::kAL2, o), HasSubstr("--max-pods=20"));
}

TEST(UserDataAl2Test, MimeThatDoesNotParseIsAnInvalidArgumentNamingSpecUserData) {
  struct Case {
    std::string custom;
    std::string says;
  };
  const Case cases[] = {
      {"MIME-Version: 1.0\nContent-Type: text/x-shellscript\n\necho hi\n", "must be multipart"},
      {"MIME-Version: 1.0\nContent-Type: multipart/mixed\n\n--x\n", "names no boundary"},
      {"MIME-Version: 1.0\n\n--x\n", "has no Content-Type header"},
      {"Content-Type: multipart/mixed; boundary=x\n\nno boundary line here\n", "never opens"},
      {"Content-Type: multipart/mixed; boundary=x\n\n--x\nContent-Type: text/x-shellscript\n\necho\n",
       "MIME part 1 is not closed"},
      {"Content-Type: multipart/mixed; boundary=x\n\n--x\n\necho\n--x--\n", "MIME part 1 has no Content-Type"},
      {"Content-Type: multipart/mixed; boundary=x\nnot a header\n\n--x--\n", "not \"Name: value\""},
      {"Content-Type: multipart/mixed; boundary=x\n\n--x--\n", "holds no parts"},
      {"Content-Type: multipart/mixed; boundary=x\n\n--x\nContent-Type: text/x-shellscript\n\n--//\n--x--\n",
       "the boundary nodesmith joins the parts with"},
  };
  for (const auto& c : cases) {
    core::Status st = BuildError(AmiFamily::kAL2, WithCustom(c.custom));
    EXPECT_EQ(st.code(), core::StatusCode::kInvalidArgument) << c.custom;
    EXPECT_THAT(st.message(), StartsWith("spec.userData: ")) << c.custom;
    EXPECT_THAT(st.message(), HasSubstr(c.says)) << c.custom;
  }
}

// --- AL2023 -----------------------------------------------------------------------------------

constexpr char kAl2023NodeConfig[] = R"(# NodeConfig from nodesmith
apiVersion: node.eks.aws/v1alpha1
kind: NodeConfig
spec:
  cluster:
    apiServerEndpoint: https://ABC123.gr7.us-west-2.eks.amazonaws.com
    certificateAuthority: Y2EtYnVuZGxlCg==
    cidr: 10.100.0.0/16
    name: demo
  kubelet:
    config:
      clusterDNS:
      - '10.100.0.10'
      evictionHard:
        memory.available: 5%
      evictionSoft:
        nodefs.available: 10%
      kubeReserved:
        cpu: 70m
        memory: 893Mi
      maxPods: 58
      registerWithTaints:
      - effect: NoSchedule
        key: dedicated
        value: gpu
      - effect: NoExecute
        key: karpenter.sh/unregistered
      systemReserved:
        cpu: 100m
        memory: 100Mi
    flags:
    - --node-labels="karpenter.sh/capacity-type=spot,karpenter.sh/nodepool=default,team=a"
)";

TEST(UserDataAl2023Test, FullOutputForAFixedNode) {
  EXPECT_EQ(Build(AmiFamily::kAL2023, Fixed()),
            "MIME-Version: 1.0\n"
            "Content-Type: multipart/mixed; boundary=\"//\"\n"
            "\n"
            "--//\n"
            "Content-Type: application/node.eks.aws\n"
            "\n" + std::string(kAl2023NodeConfig) + "\n"
            "--//--\n");
}

TEST(UserDataAl2023Test, TheNodeConfigDecodesToTheNodesSettings) {
  YAML::Node nc = YAML::Load(LastPartBody(Build(AmiFamily::kAL2023, Fixed())));
  EXPECT_EQ(nc["apiVersion"].as<std::string>(), "node.eks.aws/v1alpha1");
  EXPECT_EQ(nc["kind"].as<std::string>(), "NodeConfig");
  YAML::Node cluster = nc["spec"]["cluster"];
  EXPECT_EQ(cluster["name"].as<std::string>(), "demo");
  EXPECT_EQ(cluster["apiServerEndpoint"].as<std::string>(), kEndpoint);
  EXPECT_EQ(cluster["certificateAuthority"].as<std::string>(), "Y2EtYnVuZGxlCg==");
  EXPECT_EQ(cluster["cidr"].as<std::string>(), "10.100.0.0/16");
  EXPECT_FALSE(nc["spec"]["instance"]);  // no RAID0 asked for
  YAML::Node config = nc["spec"]["kubelet"]["config"];
  EXPECT_EQ(config["maxPods"].as<int>(), 58);
  ASSERT_EQ(config["clusterDNS"].size(), 1u);
  EXPECT_EQ(config["clusterDNS"][0].as<std::string>(), "10.100.0.10");
  EXPECT_EQ(config["clusterDNS"][0].Tag(), "!");  // quoted: never read as a number
  EXPECT_EQ(config["systemReserved"]["cpu"].as<std::string>(), "100m");
  EXPECT_EQ(config["systemReserved"]["memory"].as<std::string>(), "100Mi");
  EXPECT_EQ(config["kubeReserved"]["memory"].as<std::string>(), "893Mi");
  EXPECT_EQ(config["evictionHard"]["memory.available"].as<std::string>(), "5%");
  EXPECT_EQ(config["evictionSoft"]["nodefs.available"].as<std::string>(), "10%");
  YAML::Node taints = config["registerWithTaints"];
  ASSERT_EQ(taints.size(), 2u);
  EXPECT_EQ(taints[0]["key"].as<std::string>(), "dedicated");
  EXPECT_EQ(taints[0]["value"].as<std::string>(), "gpu");
  EXPECT_EQ(taints[0]["effect"].as<std::string>(), "NoSchedule");
  EXPECT_EQ(taints[1]["key"].as<std::string>(), "karpenter.sh/unregistered");
  EXPECT_FALSE(taints[1]["value"]);
  EXPECT_EQ(taints[1]["effect"].as<std::string>(), "NoExecute");
  YAML::Node flags = nc["spec"]["kubelet"]["flags"];
  ASSERT_EQ(flags.size(), 1u);
  EXPECT_EQ(flags[0].as<std::string>(),
            "--node-labels=\"karpenter.sh/capacity-type=spot,karpenter.sh/nodepool=default,team=a\"");
}

TEST(UserDataAl2023Test, Raid0AndTheOtherKubeletSettingsDecode) {
  BootstrapOptions o = Fixed();
  o.instance_store_policy = "RAID0";
  o.kubelet->cluster_dns = {"10.0.0.10", "10.0.0.11"};
  o.kubelet->pods_per_core = 2;
  o.kubelet->cpu_cfs_quota = true;
  o.kubelet->image_gc_high_threshold_percent = 85;
  o.kubelet->image_gc_low_threshold_percent = 80;
  // Values a YAML reader would turn into something else unless quoted.
  o.kubelet->system_reserved = {{"on", "yes"}, {"memory", "1e3"}, {"pid", "0x10"}, {"x", "a: b"}};
  YAML::Node nc = YAML::Load(LastPartBody(Build(AmiFamily::kAL2023, o)));
  EXPECT_EQ(nc["spec"]["instance"]["localStorage"]["strategy"].as<std::string>(), "RAID0");
  YAML::Node config = nc["spec"]["kubelet"]["config"];
  EXPECT_EQ(config["clusterDNS"][1].as<std::string>(), "10.0.0.11");
  EXPECT_EQ(config["podsPerCore"].as<int>(), 2);
  EXPECT_TRUE(config["cpuCFSQuota"].as<bool>());
  EXPECT_EQ(config["imageGCHighThresholdPercent"].as<int>(), 85);
  EXPECT_EQ(config["imageGCLowThresholdPercent"].as<int>(), 80);
  for (const auto& [k, v] : o.kubelet->system_reserved) {
    YAML::Node value;
    for (const auto& kv : config["systemReserved"]) {
      if (kv.first.as<std::string>() == k) {
        EXPECT_EQ(kv.first.Tag() == "!", k == "on") << k;
        value = kv.second;
      }
    }
    ASSERT_TRUE(value) << k;
    EXPECT_EQ(value.as<std::string>(), v);
    EXPECT_EQ(value.Tag(), "!") << k;  // each of these values is quoted
  }
}

TEST(UserDataAl2023Test, AShellScriptComesFirstAsItsOwnPart) {
  std::string out = Build(AmiFamily::kAL2023, WithCustom("#!/bin/bash\necho \"Hello, AL2023!\""));
  EXPECT_EQ(out,
            "MIME-Version: 1.0\n"
            "Content-Type: multipart/mixed; boundary=\"//\"\n"
            "\n"
            "--//\n"
            "Content-Type: text/x-shellscript; charset=\"us-ascii\"\n"
            "\n"
            "#!/bin/bash\n"
            "echo \"Hello, AL2023!\"\n"
            "--//\n"
            "Content-Type: application/node.eks.aws\n"
            "\n" + std::string(kAl2023NodeConfig) + "\n"
            "--//--\n");
}

TEST(UserDataAl2023Test, ANodeConfigComesFirstSoThatOursWins) {
  const std::string user =
      "apiVersion: node.eks.aws/v1alpha1\n"
      "kind: NodeConfig\n"
      "spec:\n"
      "  kubelet:\n"
      "    config:\n"
      "      maxPods: 42\n"
      "      shutdownGracePeriod: 30s\n";
  std::string out = Build(AmiFamily::kAL2023, WithCustom(user));
  EXPECT_THAT(out, StartsWith("MIME-Version: 1.0\n"
                              "Content-Type: multipart/mixed; boundary=\"//\"\n"
                              "\n"
                              "--//\n"
                              "Content-Type: application/node.eks.aws\n"
                              "\n" + user + "\n--//\n"
                              "Content-Type: application/node.eks.aws\n"
                              "\n# NodeConfig from nodesmith\n"));
  EXPECT_EQ(YAML::Load(LastPartBody(out))["spec"]["kubelet"]["config"]["maxPods"].as<int>(), 58);
}

TEST(UserDataAl2023Test, TwoMimePartsKeepTheirOrderAndOnlyTheirContentType) {
  // Karpenter's own test input: the last boundary lacks its closing "--".
  const std::string custom =
      "MIME-Version: 1.0\n"
      "Content-Type: multipart/mixed; boundary=\"//\"\n"
      "\n"
      "--//\n"
      "Content-Type: application/node.eks.aws\n"
      "X-Note: dropped\n"
      "\n"
      "apiVersion: node.eks.aws/v1alpha1\n"
      "kind: NodeConfig\n"
      "spec:\n"
      "  kubelet:\n"
      "    config:\n"
      "      maxPods: 42\n"
      "--//\n"
      "Content-Type: text/x-shellscript; charset=\"us-ascii\"\n"
      "\n"
      "#!/bin/bash\n"
      "echo \"Hello, AL2023!\"\n"
      "--//\n";
  std::string out = Build(AmiFamily::kAL2023, WithCustom(custom));
  EXPECT_EQ(out,
            "MIME-Version: 1.0\n"
            "Content-Type: multipart/mixed; boundary=\"//\"\n"
            "\n"
            "--//\n"
            "Content-Type: application/node.eks.aws\n"
            "\n"
            "apiVersion: node.eks.aws/v1alpha1\n"
            "kind: NodeConfig\n"
            "spec:\n"
            "  kubelet:\n"
            "    config:\n"
            "      maxPods: 42\n"
            "--//\n"
            "Content-Type: text/x-shellscript; charset=\"us-ascii\"\n"
            "\n"
            "#!/bin/bash\n"
            "echo \"Hello, AL2023!\"\n"
            "--//\n"
            "Content-Type: application/node.eks.aws\n"
            "\n" + std::string(kAl2023NodeConfig) + "\n"
            "--//--\n");
}

TEST(UserDataAl2023Test, WithoutTheServiceCidrTheNodeCannotBeConfiguredYet) {
  BootstrapOptions o = Fixed();
  o.cluster_cidr.clear();
  core::Status st = BuildError(AmiFamily::kAL2023, o);
  EXPECT_EQ(st.code(), core::StatusCode::kFailedPrecondition);
  EXPECT_THAT(st.message(), HasSubstr("service CIDR"));
}

TEST(UserDataAl2023Test, YamlThatIsNotANodeConfigAndBadMimeAreRejected) {
  struct Case {
    std::string custom;
    std::string says;
  };
  const Case cases[] = {
      {"#cloud-config\npackages: [jq]\n", "is YAML but not a node.eks.aws NodeConfig"},
      {"Content-Type: multipart/mixed; boundary=x\n\n--x\nContent-Type: application/node.eks.aws\n\n"
       "kind: Pod\n--x--\n",
       "MIME part 1 is YAML but not a node.eks.aws NodeConfig"},
      {"Content-Type: multipart/mixed; boundary=x\n\n--x\nContent-Type: application/node.eks.aws\n\n"
       "#!/bin/bash\necho hi\n--x--\n",
       "is not a YAML NodeConfig"},
      {"Content-Type: multipart/mixed\n\n--x\n", "names no boundary"},
  };
  for (const auto& c : cases) {
    core::Status st = BuildError(AmiFamily::kAL2023, WithCustom(c.custom));
    EXPECT_EQ(st.code(), core::StatusCode::kInvalidArgument) << c.custom;
    EXPECT_THAT(st.message(), StartsWith("spec.userData: ")) << c.custom;
    EXPECT_THAT(st.message(), HasSubstr(c.says)) << c.custom;
  }
}

// --- Bottlerocket -----------------------------------------------------------------------------

const std::string kBottlerocket = R"([settings.kubernetes]
api-server = "https://ABC123.gr7.us-west-2.eks.amazonaws.com"
cluster-certificate = "Y2EtYnVuZGxlCg=="
cluster-dns-ip = "10.100.0.10"
cluster-name = "demo"
max-pods = 58

[settings.kubernetes.eviction-hard]
"memory.available" = "5%"

[settings.kubernetes.eviction-soft]
"nodefs.available" = "10%"

[settings.kubernetes.kube-reserved]
cpu = "70m"
memory = "893Mi"

[settings.kubernetes.node-labels]
"karpenter.sh/capacity-type" = "spot"
"karpenter.sh/nodepool" = "default"
team = "a"

[settings.kubernetes.node-taints]
dedicated = ["gpu:NoSchedule"]
"karpenter.sh/unregistered" = [":NoExecute"]

[settings.kubernetes.system-reserved]
cpu = "100m"
memory = "100Mi"
)";

TEST(UserDataBottlerocketTest, FullOutputForAFixedNode) {
  EXPECT_EQ(Build(AmiFamily::kBottlerocket, Fixed()), kBottlerocket);
}

TEST(UserDataBottlerocketTest, TheUsersSettingsAreMergedAndNodesmithsWin) {
  // Karpenter's test input, less its template markers.
  const std::string custom = R"([settings.kubernetes]
"unknown-setting" = "unknown"
api-server = 'replaceme'
cloud-provider = 'external'
cluster-certificate = "replaceme"
cluster-name = 'replaceme'
max-pods = 9999999999 # replaceme

[settings.kubernetes.eviction-hard]
"memory.available" = "12%"
"nodefs.available" = "1%"

[settings.kubernetes.node-labels]
"custom-node-label" = "custom"
"team" = "should-be-overridden"

[settings.kubernetes.node-taints]
"replace" = ["me:NoSchedule"]

[settings.network]
hostname = "test.local"
https-proxy = "1.2.3.4:8080"
no-proxy = ["localhost", "127.0.0.1"]
hosts = [["10.0.0.0", ["test.example.com", "test1.example.com"]]]

[settings.ntp]
time-servers = ["169.254.169.123"]
)";
  std::string out = Build(AmiFamily::kBottlerocket, WithCustom(custom));
  EXPECT_EQ(out, R"([settings.kubernetes]
api-server = "https://ABC123.gr7.us-west-2.eks.amazonaws.com"
cloud-provider = "external"
cluster-certificate = "Y2EtYnVuZGxlCg=="
cluster-dns-ip = "10.100.0.10"
cluster-name = "demo"
max-pods = 58
unknown-setting = "unknown"

[settings.kubernetes.eviction-hard]
"memory.available" = "5%"

[settings.kubernetes.eviction-soft]
"nodefs.available" = "10%"

[settings.kubernetes.kube-reserved]
cpu = "70m"
memory = "893Mi"

[settings.kubernetes.node-labels]
custom-node-label = "custom"
"karpenter.sh/capacity-type" = "spot"
"karpenter.sh/nodepool" = "default"
team = "a"

[settings.kubernetes.node-taints]
dedicated = ["gpu:NoSchedule"]
"karpenter.sh/unregistered" = [":NoExecute"]

[settings.kubernetes.system-reserved]
cpu = "100m"
memory = "100Mi"

[settings.network]
hostname = "test.local"
hosts = [["10.0.0.0", ["test.example.com", "test1.example.com"]]]
https-proxy = "1.2.3.4:8080"
no-proxy = ["localhost", "127.0.0.1"]

[settings.ntp]
time-servers = ["169.254.169.123"]
)");
}

TEST(UserDataBottlerocketTest, TheUsersThresholdsStayWhenNodesmithSetsNone) {
  BootstrapOptions o = WithCustom("[settings.kubernetes.eviction-hard]\n\"memory.available\" = \"12%\"\n");
  o.kubelet.reset();
  auto root = ParseToml(Build(AmiFamily::kBottlerocket, o));
  ASSERT_TRUE(root.ok()) << root.status().message();
  const TomlTable& k8s = root->at("settings").table().at("kubernetes").table();
  EXPECT_EQ(k8s.at("eviction-hard").table().at("memory.available"), TomlValue("12%"));
  EXPECT_FALSE(k8s.count("system-reserved"));
}

TEST(UserDataBottlerocketTest, Raid0MountsTheInstanceStoreAndKubeletExtrasAreWritten) {
  BootstrapOptions o = WithCustom("settings.host-containers.admin.enabled = true\n");
  o.instance_store_policy = "RAID0";
  o.kubelet->image_gc_high_threshold_percent = 85;
  o.kubelet->cpu_cfs_quota = false;
  auto root = ParseToml(Build(AmiFamily::kBottlerocket, o));
  ASSERT_TRUE(root.ok()) << root.status().message();
  const TomlTable& settings = root->at("settings").table();
  EXPECT_EQ(settings.at("host-containers").table().at("admin").table().at("enabled"), TomlValue(true));
  const TomlTable& mount = settings.at("bootstrap-commands").table().at("000-mount-instance-storage").table();
  EXPECT_EQ(mount.at("essential"), TomlValue(true));
  EXPECT_EQ(mount.at("mode"), TomlValue("always"));
  EXPECT_EQ(mount.at("commands"),
            TomlValue(TomlArray{TomlArray{"apiclient", "ephemeral-storage", "init"},
                                TomlArray{"apiclient", "ephemeral-storage", "bind", "--dirs",
                                          "/var/lib/containerd", "/var/lib/kubelet", "/var/log/pods"}}));
  const TomlTable& k8s = settings.at("kubernetes").table();
  EXPECT_EQ(k8s.at("image-gc-high-threshold-percent"), TomlValue("85"));  // a string in Bottlerocket's model
  EXPECT_EQ(k8s.at("cpu-cfs-quota-enforced"), TomlValue(false));
}

TEST(UserDataBottlerocketTest, TomlThatDoesNotParseOrIsNotSettingsIsRejected) {
  struct Case {
    std::string custom;
    std::string says;
  };
  const Case cases[] = {
      {"[settings.kubernetes\nmax-pods = 1\n", "not valid Bottlerocket TOML: line 1: expected ']'"},
      {"[settings.kubernetes]\nmax-pods = 1.5\n", "line 2: floats are not supported"},
      {"[settings]\nkubernetes = \"eks\"\n", "settings.kubernetes must be a table"},
      {"[settings.kubernetes]\nnode-labels = [\"a\"]\n", "settings.kubernetes.node-labels must be a table"},
      {"[host]\nname = \"x\"\n", "holds only [settings], not \"host\""},
  };
  for (const auto& c : cases) {
    core::Status st = BuildError(AmiFamily::kBottlerocket, WithCustom(c.custom));
    EXPECT_EQ(st.code(), core::StatusCode::kInvalidArgument) << c.custom;
    EXPECT_THAT(st.message(), StartsWith("spec.userData: ")) << c.custom;
    EXPECT_THAT(st.message(), HasSubstr(c.says)) << c.custom;
  }
}

// --- Windows ----------------------------------------------------------------------------------

const std::string kWindowsBootstrap =
    "[string]$EKSBootstrapScriptFile = \"$env:ProgramFiles\\Amazon\\EKS\\Start-EKSBootstrap.ps1\"\n"
    "& $EKSBootstrapScriptFile -EKSClusterName 'demo' -APIServerEndpoint '" + std::string(kEndpoint) +
    "' -Base64ClusterCA 'Y2EtYnVuZGxlCg==' -KubeletExtraArgs '" + std::string(kKubeletArgs) +
    "' -DNSClusterIP '10.100.0.10'\n";

TEST(UserDataWindowsTest, FullOutputForAFixedNode) {
  EXPECT_EQ(Build(AmiFamily::kWindows2022, Fixed()), "<powershell>\n" + kWindowsBootstrap + "</powershell>");
  EXPECT_EQ(Build(AmiFamily::kWindows2019, Fixed()), Build(AmiFamily::kWindows2022, Fixed()));
}

TEST(UserDataWindowsTest, TheUsersScriptRunsFirstInsideTheBlock) {
  std::string custom = "Write-Host \"Running custom user data script\"\nWrite-Host \"done\"";
  EXPECT_EQ(Build(AmiFamily::kWindows2022, WithCustom(custom)),
            "<powershell>\n" + custom + "\n" + kWindowsBootstrap + "</powershell>");
}

TEST(UserDataWindowsTest, TheUsersOwnPowershellTagsAreRejected) {
  core::Status st = BuildError(AmiFamily::kWindows2022, WithCustom("<PowerShell>\nWrite-Host hi\n</PowerShell>"));
  EXPECT_EQ(st.code(), core::StatusCode::kInvalidArgument);
  EXPECT_THAT(st.message(), StartsWith("spec.userData: "));
  EXPECT_THAT(st.message(), HasSubstr("remove its <powershell> tags"));
}

TEST(UserDataWindowsTest, QuotesInValuesCannotEndTheQuotedArgument) {
  BootstrapOptions o = Fixed();
  o.cluster_name = "it's";
  EXPECT_THAT(Build(AmiFamily::kWindows2022, o), HasSubstr("-EKSClusterName 'it''s'"));
  EXPECT_THAT(Build(AmiFamily::kAL2, o), HasSubstr("/etc/eks/bootstrap.sh 'it'\\''s'"));
}

// --- Every family -----------------------------------------------------------------------------

TEST(UserDataTest, TheSameNodeGivesTheSameBytesWhateverTheInputOrder) {
  BootstrapOptions shuffled = Fixed();
  shuffled.labels.clear();
  shuffled.labels.emplace("karpenter.sh/capacity-type", "spot");
  shuffled.labels.emplace("team", "a");
  shuffled.labels.emplace("karpenter.sh/nodepool", "default");
  std::reverse(shuffled.taints.begin(), shuffled.taints.end());
  for (AmiFamily family : {AmiFamily::kAL2, AmiFamily::kAL2023, AmiFamily::kBottlerocket,
                           AmiFamily::kWindows2022}) {
    SCOPED_TRACE(cloud::AmiFamilyName(family));
    std::string first = Build(family, Fixed());
    EXPECT_EQ(Build(family, Fixed()), first);
    EXPECT_EQ(Build(family, shuffled), first);
    BootstrapOptions other = Fixed();
    other.labels["team"] = "b";
    EXPECT_NE(Build(family, other), first);
  }
}

TEST(UserDataTest, ACustomFamilyGetsTheUsersDataUntouched) {
  EXPECT_EQ(Build(AmiFamily::kCustom, WithCustom("#!/bin/bash\n/opt/bootstrap\n")), "#!/bin/bash\n/opt/bootstrap\n");
  BootstrapOptions none = Fixed();
  EXPECT_EQ(Build(AmiFamily::kCustom, none), "");
}


}  // namespace
}  // namespace nodesmith::aws
