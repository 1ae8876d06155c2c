// RestConfig: everything needed to talk to one API server as one identity — where it is, how
// to trust it, and how to authenticate — resolved from a kubeconfig context or from the pod's
// service account (kube/kubeconfig.h). A plain value: PEM material is held inline (files named
// in a kubeconfig are read when the config is loaded), except the service-account token file,
// which is re-read as the kubelet rotates it (kube/credentials.h).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace nodesmith::kube {

// A kubeconfig `user.exec` credential plugin (client.authentication.k8s.io ExecCredential).
struct ExecConfig {
  std::string command;
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;
  std::string api_version;          // client.authentication.k8s.io/v1 or v1beta1
  std::string install_hint;         // shown when the command cannot be run
  bool provide_cluster_info = false;
  std::string interactive_mode;     // Never | IfAvailable | Always; nodesmith never has a tty
};

struct RestConfig {
  std::string server;               // "https://127.0.0.1:6443", no trailing slash
  std::string tls_server_name;      // overrides SNI / the name checked, when set
  std::string ca_pem;               // CA bundle; empty: the system trust store
  std::string ca_source;            // where the CA came from, for error messages
  bool insecure_skip_tls_verify = false;

  std::string client_cert_pem;      // client certificate authentication
  std::string client_key_pem;
  std::string bearer_token;         // static token (kubeconfig `token`)
  std::string token_file;           // re-read periodically (service account, `tokenFile`)
  std::optional<ExecConfig> exec;

  // Who this is, for messages: "user \"admin\" (context \"kind\")" or
  // "ServiceAccount kube-system/karpenter".
  std::string identity;
  // The namespace of the context, or of the pod's service account ("" when neither says).
  std::string namespace_;

  double qps = 200;                 // KUBE_CLIENT_QPS
  int burst = 300;                  // KUBE_CLIENT_BURST
  std::string user_agent;           // "nodesmith/<version>" when empty
  double timeout_seconds = 30;      // per request (not for watches)

  // What the person running nodesmith should hear about this configuration before it is used,
  // one sentence each: TLS verification off, settings nodesmith ignores.
  std::vector<std::string> warnings;
};

}  // namespace nodesmith::kube
