// CredentialProvider: what to authenticate the next request with, for one RestConfig.
//
// Sources, in the order client-go applies them: a static `token`; a `token_file` (the pod's
// service account token, a kubeconfig `tokenFile`), re-read when the copy in hand is a minute old
// as client-go's cached token source does, so kubelet rotations are seen; an exec credential
// plugin (`user.exec`, e.g. `aws eks get-token`), run without a shell or a terminal and cached
// until its `expirationTimestamp` (less a small margin), or until Invalidate when it gives none.
// A token from the token file wins over a static token and both over the plugin's; a client
// certificate in the RestConfig wins over the plugin's.
//
// After the server answers 401, call Invalidate: the next Current() re-runs the plugin and
// re-reads the token file.
//
// Thread-safe. Current() may block while the plugin runs (at most the exec timeout); callers
// arriving meanwhile wait for that one run rather than starting their own.
#pragma once

#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "core/status.h"
#include "core/time.h"
#include "kube/rest_config.h"

namespace nodesmith::kube {

struct Credentials {
  std::string bearer_token;     // "" when the request carries no Authorization header
  std::string client_cert_pem;  // both or neither
  std::string client_key_pem;
};

struct CredentialProviderOptions {
  // Monotonic time for the token-file and exec caches; steady_clock::now when empty.
  std::function<std::chrono::steady_clock::time_point()> now;
  // Wall time, to read an ExecCredential's expirationTimestamp; the system clock when empty.
  std::function<core::Time()> wall_now;
  // How long a token read from token_file is used before the file is read again.
  std::chrono::nanoseconds token_file_refresh = std::chrono::minutes(1);
  // How long before its expirationTimestamp an exec credential is replaced.
  std::chrono::nanoseconds exec_expiry_margin = std::chrono::seconds(10);
  // The longest an exec plugin may run before it is killed.
  std::chrono::nanoseconds exec_timeout = std::chrono::seconds(60);
};

// What an exec credential plugin printed, parsed: the credentials, and when they expire if the
// plugin said.
struct ParsedCredential {
  Credentials credentials;
  std::optional<core::Time> expiry;
};

// Parses the ExecCredential a plugin printed (stdout), which must have apiVersion `want`, the
// kubeconfig's exec.apiVersion. Messages never quote the output: it holds secrets. Public so that
// the parse can be tested (and fuzzed) without running a plugin.
core::Result<ParsedCredential> ParseExecCredential(const std::string& out, const std::string& want);

class CredentialProvider {
 public:
  explicit CredentialProvider(RestConfig config, CredentialProviderOptions options = {});
  CredentialProvider(const CredentialProvider&) = delete;
  CredentialProvider& operator=(const CredentialProvider&) = delete;

  // The credentials for a request made now. Errors (token file unreadable with nothing to fall
  // back on, plugin not found, failed, timed out or printed something unusable) name the file or
  // the command and say what to do.
  [[nodiscard]] core::Result<Credentials> Current();

  // Forgets cached credentials: the exec credential is dropped and the token file is read again
  // on the next Current(). Call it after a 401 Unauthorized.
  void Invalidate();

 private:
  struct ExecCache {
    Credentials credentials;
    // nullopt: no expirationTimestamp, valid until Invalidate.
    std::optional<std::chrono::steady_clock::time_point> valid_until;
  };

  core::Result<std::string> FileTokenLocked();
  core::Result<Credentials> ExecCredentialsLocked();

  const RestConfig config_;
  const CredentialProviderOptions options_;

  std::mutex mu_;
  std::string file_token_;                                    // guarded by mu_; "" until first read
  std::chrono::steady_clock::time_point file_token_read_at_;  // guarded by mu_
  bool file_token_stale_ = false;                             // guarded by mu_
  std::optional<ExecCache> exec_cache_;                       // guarded by mu_
};

}  // namespace nodesmith::kube
