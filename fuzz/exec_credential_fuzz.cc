// ParseExecCredential on arbitrary text: what a kubeconfig's exec credential plugin (`aws eks
// get-token`, any command the kubeconfig names) prints on stdout, read as the
// client.authentication.k8s.io ExecCredential the kubeconfig's exec.apiVersion asks for. The
// plugin chooses every byte. Parsing must end in credentials or a clean error; parsed
// credentials hold a token or a certificate with its key. Written back as an ExecCredential
// (with the expiry as FormatRfc3339 prints it) they must parse to the same.
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "core/time.h"
#include "fuzz_check.h"
#include "kube/credentials.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace kube = nodesmith::kube;
  using nlohmann::json;
  using nodesmith::fuzz::Fail;
  const std::string out(reinterpret_cast<const char*>(data), size);
  for (const char* want : {"client.authentication.k8s.io/v1", "client.authentication.k8s.io/v1beta1"}) {
    auto parsed = kube::ParseExecCredential(out, want);
    if (!parsed.ok()) continue;
    const kube::Credentials& c = parsed->credentials;
    if (c.bearer_token.empty() && (c.client_cert_pem.empty() || c.client_key_pem.empty()))
      Fail("an ExecCredential without a token or a certificate and key", "");
    json status = {{"token", c.bearer_token}, {"clientCertificateData", c.client_cert_pem}, {"clientKeyData", c.client_key_pem}};
    if (parsed->expiry) status["expirationTimestamp"] = nodesmith::core::FormatRfc3339(*parsed->expiry);
    const std::string written = json{{"apiVersion", want}, {"kind", "ExecCredential"}, {"status", status}}.dump();
    auto again = kube::ParseExecCredential(written, want);
    if (!again.ok()) Fail("a written ExecCredential does not parse", again.status().message() + "\n" + written);
    if (again->credentials.bearer_token != c.bearer_token || again->credentials.client_cert_pem != c.client_cert_pem ||
        again->credentials.client_key_pem != c.client_key_pem || again->expiry != parsed->expiry)
      Fail("a written ExecCredential parses differently", written);
  }
  return 0;
}
