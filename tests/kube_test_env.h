// The real control plane for *_server_test.cc: started once per ctest run by the `testenv`
// fixture (scripts/testenv/up), found through NODESMITH_TESTENV_DIR. Helpers to reach it as each
// of its users, run the kubectl built with it, and keep each test in a namespace of its own.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <string>

#include "kube/kubeconfig.h"
#include "kube/rest_client.h"
#include "kube/rest_config.h"

namespace nodesmith::testing {

// NODESMITH_TESTENV_DIR, else the directory the build's ctest fixture uses.
inline std::string TestenvDir() {
  const char* d = std::getenv("NODESMITH_TESTENV_DIR");
  if (d != nullptr && d[0] != '\0') return d;
#ifdef NODESMITH_TESTENV_DIR_DEFAULT
  return NODESMITH_TESTENV_DIR_DEFAULT;
#else
  return "";
#endif
}

// The value of `export NAME=...` in DIR/env.
inline std::string TestenvVar(const std::string& name) {
  std::ifstream in(TestenvDir() + "/env");
  std::string line, prefix = "export " + name + "=";
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) == 0) {
      std::string v = line.substr(prefix.size());
      if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'')) v = v.substr(1, v.size() - 2);
      return v;
    }
  }
  return "";
}

// The RestConfig of DIR/<file> (kubeconfig, kubeconfig-token, kubeconfig-restricted).
inline kube::RestConfig TestenvConfig(const std::string& file = "kubeconfig") {
  kube::KubeconfigOptions options;
  options.kubeconfig = TestenvDir() + "/" + file;
  auto config = kube::LoadKubeconfig(options);
  EXPECT_TRUE(config.ok()) << config.status().message();
  return config.ok() ? config.value() : kube::RestConfig{};
}

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

// Runs a shell command with the test control plane's KUBECONFIG and PATH.
inline CommandResult RunWithTestenv(const std::string& command) {
  std::string full = "export KUBECONFIG='" + TestenvDir() + "/kubeconfig'; export PATH='" +
                     TestenvVar("PATH").substr(0, TestenvVar("PATH").find(":$PATH")) +
                     "':\"$PATH\"; " + command + " 2>&1";
  CommandResult r;
  FILE* pipe = popen(full.c_str(), "r");
  if (pipe == nullptr) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) r.output.append(buf.data(), n);
  int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// kubectl ARGS; fails the test when kubectl does.
inline std::string Kubectl(const std::string& args) {
  CommandResult r = RunWithTestenv("kubectl " + args);
  EXPECT_EQ(r.exit_code, 0) << "kubectl " << args << ":\n" << r.output;
  return r.output;
}

// kubectl ARGS with DOC on stdin.
inline std::string KubectlWithInput(const std::string& args, const std::string& doc) {
  char path[] = "/tmp/nodesmith-kubectl-XXXXXX";
  int fd = mkstemp(path);
  if (fd >= 0) close(fd);
  { std::ofstream(path) << doc; }
  std::string out = Kubectl(args + " -f " + path);
  std::remove(path);
  return out;
}

// A name unique to this run: "<prefix>-<random>".
inline std::string UniqueName(const std::string& prefix) {
  static std::mt19937_64 rng(std::random_device{}());
  const char* alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::string s = prefix + "-";
  for (int i = 0; i < 8; ++i) s.push_back(alphabet[rng() % 36]);
  return s;
}

// Installs the reference Karpenter CRDs (../shared/data/karpenter-crds) unless they are served.
inline void EnsureReferenceCrds() {
  CommandResult have = RunWithTestenv("kubectl get crd nodeclaims.karpenter.sh nodepools.karpenter.sh ec2nodeclasses.karpenter.k8s.aws");
  if (have.exit_code == 0) return;
  std::string data = std::getenv("NODESMITH_SHARED_DATA") != nullptr
                         ? std::getenv("NODESMITH_SHARED_DATA")
                         : NODESMITH_SHARED_DATA;
  Kubectl("apply --server-side -f " + data + "/karpenter-crds/");
  // Polled rather than `kubectl wait`, which fails at once ("accessor error: <nil>") when it reads
  // a CRD before the server has written any condition.
  for (const char* crd : {"nodeclaims.karpenter.sh", "nodepools.karpenter.sh", "ec2nodeclasses.karpenter.k8s.aws"}) {
    CommandResult r;
    for (int i = 0; i < 600; ++i) {
      r = RunWithTestenv(std::string("kubectl get crd/") + crd +
                         " -o jsonpath='{.status.conditions[?(@.type==\"Established\")].status}'");
      if (r.exit_code == 0 && r.output == "True") break;
      usleep(100 * 1000);
    }
    if (r.exit_code != 0 || r.output != "True") ADD_FAILURE() << "crd/" << crd << " not Established: " << r.output;
  }
}

// A namespace for one test, deleted (without waiting) when the test ends.
class TestNamespace {
 public:
  explicit TestNamespace(const std::string& prefix = "t") : name_(UniqueName(prefix)) {
    Kubectl("create namespace " + name_);
    // Pods are refused until the namespace's default ServiceAccount exists.
    for (int i = 0; i < 100; ++i) {
      if (RunWithTestenv("kubectl get serviceaccount default -n " + name_).exit_code == 0) break;
      usleep(100 * 1000);
    }
  }
  ~TestNamespace() { RunWithTestenv("kubectl delete namespace " + name_ + " --wait=false"); }
  const std::string& name() const { return name_; }

 private:
  std::string name_;
};

}  // namespace nodesmith::testing
