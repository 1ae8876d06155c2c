// Kubeconfig and in-cluster configuration: how nodesmith finds the API server and who it is there.
//
// LoadKubeconfig reads kubeconfig files the way kubectl does (client-go's clientcmd loading
// rules): an explicit path (--kubeconfig) alone; else every file in KUBECONFIG (colon-separated)
// merged so that the first file to define a cluster, user or context name wins and
// `current-context` comes from the first file that sets one; else $HOME/.kube/config. Relative
// paths in a file resolve against that file's directory, and every file a kubeconfig names is read
// at load, so a RestConfig holds PEM material inline (a `tokenFile` is checked, then re-read by
// kube/credentials.h).
//
// InClusterConfig reads the pod's service account. ResolveRestConfig picks between the two in
// controller-runtime's order, which Karpenter uses: --kubeconfig; else KUBECONFIG; else the
// in-cluster service account (KUBERNETES_SERVICE_HOST set and a token mounted); else
// $HOME/.kube/config.
//
// All errors are Status values whose message names the file, the cluster/user/context and the
// field concerned, and says what to do. Nothing here throws. The functions are thread-compatible:
// they touch no shared state beyond the files they read and the env lookup they are given.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "core/status.h"
#include "kube/rest_config.h"

namespace nodesmith::kube {

// Looks up an environment variable; nullopt when it is not set.
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;

// The process environment (getenv).
std::optional<std::string> ProcessEnv(const std::string& name);

// Where the kubelet mounts the pod's service account token, CA bundle and namespace.
inline constexpr char kServiceAccountDir[] = "/var/run/secrets/kubernetes.io/serviceaccount";

struct KubeconfigOptions {
  std::string kubeconfig;      // --kubeconfig; empty: KUBECONFIG, then $HOME/.kube/config
  std::string context;         // --context; empty: the kubeconfig's current-context
  EnvLookup env = ProcessEnv;  // KUBECONFIG, HOME, KUBERNETES_SERVICE_HOST/PORT
  std::string service_account_dir = kServiceAccountDir;  // used by ResolveRestConfig only
};

// Loads the selected context of the kubeconfig chosen by `options` (see above). Fills server,
// TLS settings, credentials, identity ("user \"admin\" (context \"kind\")") and namespace_.
// `insecure-skip-tls-verify: true` adds a warning to RestConfig::warnings. Errors: no kubeconfig
// found (naming the paths tried), malformed YAML, context/cluster/user not found (listing what
// there is), no server, unreadable files, bad base64, unsupported authentication (basic auth,
// auth-provider, impersonation).
[[nodiscard]] core::Result<RestConfig> LoadKubeconfig(const KubeconfigOptions& options);

// The configuration of a pod's service account: https://KUBERNETES_SERVICE_HOST:PORT (an IPv6
// host bracketed), `ca.crt` inline, `token` as token_file (re-read as the kubelet rotates it),
// `namespace`. identity is "ServiceAccount <ns>/<name>" when the token's claims say who it is,
// else "the pod's ServiceAccount". Fails with kFailedPrecondition when not running in a pod.
[[nodiscard]] core::Result<RestConfig> InClusterConfig(
    const EnvLookup& env, const std::string& sa_dir = kServiceAccountDir);

// The configuration nodesmith uses: an explicit --kubeconfig (or --context) means a kubeconfig;
// else a set KUBECONFIG; else the in-cluster service account when KUBERNETES_SERVICE_HOST is set
// and `<service_account_dir>/token` exists; else $HOME/.kube/config.
[[nodiscard]] core::Result<RestConfig> ResolveRestConfig(const KubeconfigOptions& options);

}  // namespace nodesmith::kube
