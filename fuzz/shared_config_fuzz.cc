// The AWS shared files, ~/.aws/credentials and ~/.aws/config (or AWS_SHARED_CREDENTIALS_FILE and
// AWS_CONFIG_FILE), on arbitrary text: whoever writes the pod's or the workstation's files (a
// user, `aws configure`, a mounted secret) controls every byte. The text is parsed as either
// file (ParseSharedFile), the two are merged as LoadSharedConfig's SharedConfig::Find merges a
// profile, and each profile is asked what it authenticates with (CredentialsOfProfile). Each
// step must end in a value or a clean error. A parsed file written back as INI (one header per
// profile, `key = value`, continuation lines indented) must parse to the same profiles and
// values; a profile's credentials must carry what their kind needs.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "cloud/aws/shared_config.h"
#include "fuzz_check.h"

namespace {

namespace aws = nodesmith::aws;
using nodesmith::fuzz::Fail;

// The file as INI. A value read from continuation lines holds '\n' between its parts; each part
// is written on a line of its own, indented, so it continues the key above again.
std::string Write(const aws::SharedFile& file, aws::SharedFileKind kind) {
  std::string out;
  for (const auto& [name, profile] : file.profiles) {
    const bool prefixed = kind == aws::SharedFileKind::kConfig && name != "default";
    out += (prefixed ? "[profile " : "[") + name + "]\n";
    for (const auto& [key, value] : profile.values) {
      std::string_view rest = value.value;
      size_t nl = rest.find('\n');
      out += key + " = " + std::string(rest.substr(0, nl)) + "\n";
      while (nl != std::string_view::npos) {
        rest.remove_prefix(nl + 1);
        nl = rest.find('\n');
        out += "  " + std::string(rest.substr(0, nl)) + "\n";
      }
    }
  }
  return out;
}

bool SameProfiles(const aws::SharedFile& a, const aws::SharedFile& b) {
  if (a.profiles.size() != b.profiles.size()) return false;
  for (auto i = a.profiles.begin(), j = b.profiles.begin(); i != a.profiles.end(); ++i, ++j) {
    if (i->first != j->first || i->second.name != j->second.name) return false;
    if (i->second.values.size() != j->second.values.size()) return false;
    for (auto k = i->second.values.begin(), l = j->second.values.begin(); k != i->second.values.end(); ++k, ++l) {
      if (k->first != l->first || k->second.value != l->second.value) return false;
    }
  }
  return true;
}

void CheckRoundTrip(const aws::SharedFile& file, aws::SharedFileKind kind, std::string_view text) {
  const std::string written = Write(file, kind);
  auto again = aws::ParseSharedFile(written, file.path, kind);
  if (!again.ok()) Fail("a written file does not parse", again.status().message() + "\n" + written);
  if (!SameProfiles(file, *again)) Fail("a written file parses differently", std::string(text) + "\n--- written:\n" + written);
}

void CheckCredentials(const aws::Profile& profile) {
  (void)profile.Describe();
  (void)profile.Describe("region");
  auto credentials = aws::CredentialsOfProfile(profile);
  if (!credentials.ok()) return;
  using Kind = aws::ProfileCredentials::Kind;
  switch (credentials->kind) {
    case Kind::kStatic:
      if (credentials->static_credentials.access_key_id.empty() || credentials->static_credentials.secret_access_key.empty())
        Fail("static credentials without a key", profile.name);
      break;
    case Kind::kWebIdentity:
      if (credentials->role_arn.empty() || credentials->web_identity_token_file.empty())
        Fail("web identity without a role or a token file", profile.name);
      break;
    case Kind::kProcess:
      if (credentials->credential_process.empty()) Fail("an empty credential_process", profile.name);
      break;
    case Kind::kNone:
      break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto credentials = aws::ParseSharedFile(text, "/home/u/.aws/credentials", aws::SharedFileKind::kCredentials);
  auto config = aws::ParseSharedFile(text, "/home/u/.aws/config", aws::SharedFileKind::kConfig);
  if (credentials.ok()) CheckRoundTrip(*credentials, aws::SharedFileKind::kCredentials, text);
  if (config.ok()) CheckRoundTrip(*config, aws::SharedFileKind::kConfig, text);
  // One text as both files: every profile name either names, merged as the chain merges them.
  aws::SharedConfig both;
  if (credentials.ok()) both.credentials = *credentials;
  if (config.ok()) both.config = *config;
  for (const auto* file : {&both.credentials, &both.config}) {
    for (const auto& [name, unused] : file->profiles) {
      auto merged = both.Find(name);
      if (!merged) Fail("a profile of a file is not found", name);
      CheckCredentials(*merged);
    }
  }
  return 0;
}
