#include "cloud/aws/shared_config.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/read_file.h"
#include "core/subprocess.h"
#include "core/time.h"

namespace nodesmith::aws {
namespace {

using core::Result;
using core::Status;
using core::StatusCode;

constexpr size_t kMaxProcessOutput = 1 << 20;  // Version 1 credentials are well under 4 KiB
constexpr size_t kStderrShown = 1000;





std::string ExpandHome(const std::string& path, const std::string& home) {
  if (path == "~") return home;
  if (path.rfind("~/", 0) == 0) return home + path.substr(1);
  return path;
}

Status ParseError(const std::string& path, int line, const std::string& what) {
  return Status::Invalid(path + ":" + std::to_string(line) + ": " + what);
}

// The profile a config-file section header names, or nullopt for sections that are not
// profiles. `[profile x]` needs whitespace after "profile": `[profilex]` is no profile.
std::optional<std::string> ConfigProfileName(std::string_view header) {
  if (header == "default") return std::string(header);
  constexpr std::string_view kPrefix = "profile";
  if (header.size() > kPrefix.size() && header.substr(0, kPrefix.size()) == kPrefix &&
      std::isspace(static_cast<unsigned char>(header[kPrefix.size()]))) {
    std::string_view name = TrimSpace(header.substr(kPrefix.size()));
    if (!name.empty()) return std::string(name);
  }
  return std::nullopt;
}

size_t Indent(std::string_view line) {
  size_t n = 0;
  while (n < line.size() && (line[n] == ' ' || line[n] == '\t')) ++n;
  return n;
}

// The end of a command's stderr, on one line, for a message.

std::string UnsupportedFix(const Profile& profile) {
  return "use web_identity_token_file with role_arn, static keys, or a credential_process that "
         "prints the role's credentials (for instance \"aws configure export-credentials "
         "--profile " +
         profile.name + " --format process\")";
}

}  // namespace

std::optional<std::string> EnvValue(const CredentialsEnvironment& env, const std::string& name) {
  if (!env.getenv) return std::nullopt;
  std::optional<std::string> v = env.getenv(name);
  if (!v || v->empty()) return std::nullopt;
  return v;
}

std::string_view TrimSpace(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string LowerAscii(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string Quoted(const std::string& s) { return "\"" + s + "\""; }


std::optional<std::string> Profile::Get(const std::string& key) const {
  auto it = values.find(key);
  if (it == values.end() || it->second.value.empty()) return std::nullopt;
  return it->second.value;
}

std::string Profile::Describe(const std::string& key) const {
  std::string out = "profile " + Quoted(name);
  if (auto it = values.find(key); !key.empty() && it != values.end()) {
    return out + " (" + it->second.file + ":" + std::to_string(it->second.line) + ")";
  }
  if (sections.empty()) return out;
  out += " (";
  for (size_t i = 0; i < sections.size(); ++i) out += (i > 0 ? ", " : "") + sections[i];
  return out + ")";
}

Result<SharedFile> ParseSharedFile(std::string_view text, const std::string& path,
                                   SharedFileKind kind) {
  SharedFile file;
  file.path = path;
  file.exists = true;
  bool in_section = false;
  Profile* profile = nullptr;       // null in a section that is no profile
  std::string skipped;              // where settings of such sections go
  std::string* last_value = nullptr;  // what an indented line continues
  size_t last_indent = 0;
  int line_no = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::string_view t = TrimSpace(line);
    if (t.empty() || t.front() == '#' || t.front() == ';') continue;
    size_t indent = Indent(line);
    if (last_value != nullptr && indent > last_indent && t.front() != '[') {
      *last_value += "\n" + std::string(t);
      continue;
    }
    if (t.front() == '[') {
      if (t.back() != ']') return ParseError(path, line_no, "section header without a closing ]");
      std::string_view header = TrimSpace(t.substr(1, t.size() - 2));
      if (header.empty()) return ParseError(path, line_no, "empty section name []");
      std::optional<std::string> name = kind == SharedFileKind::kConfig
                                            ? ConfigProfileName(header)
                                            : std::optional<std::string>(header);
      in_section = true;
      last_value = nullptr;
      profile = nullptr;
      if (name) {
        profile = &file.profiles[*name];
        profile->name = *name;
        profile->sections.push_back(path + ":" + std::to_string(line_no));
      }
      continue;
    }
    size_t eq = t.find('=');
    if (eq == std::string_view::npos) {
      return ParseError(path, line_no,
                        "expected \"key = value\", a [section] or a comment, got " +
                            Quoted(std::string(t.substr(0, 40))));
    }
    std::string key = LowerAscii(TrimSpace(t.substr(0, eq)));
    if (key.empty()) return ParseError(path, line_no, "a setting without a key");
    if (!in_section) {
      return ParseError(path, line_no, "setting " + Quoted(key) + " before any [section]");
    }
    std::string value(TrimSpace(t.substr(eq + 1)));
    if (profile != nullptr) {
      ProfileValue& v = profile->values[key];
      v = ProfileValue{std::move(value), path, line_no};
      last_value = &v.value;
    } else {
      skipped = std::move(value);
      last_value = &skipped;
    }
    last_indent = indent;
  }
  return file;
}

Result<SharedFile> ReadSharedFile(const std::string& path, SharedFileKind kind) {
  auto read = core::ReadWholeFile(path);
  if (!read.ok() && read.status().code() == StatusCode::kNotFound) {
    SharedFile missing;
    missing.path = path;
    return missing;
  }
  if (!read.ok())
    return Status(StatusCode::kFailedPrecondition, "cannot read " + path + ": " + read.status().message());
  const std::string& text = *read;
  return ParseSharedFile(text, path, kind);
}

std::string SharedCredentialsPath(const CredentialsEnvironment& env) {
  if (auto p = EnvValue(env, "AWS_SHARED_CREDENTIALS_FILE")) return ExpandHome(*p, env.home);
  return env.home + "/.aws/credentials";
}

std::string SharedConfigPath(const CredentialsEnvironment& env) {
  if (auto p = EnvValue(env, "AWS_CONFIG_FILE")) return ExpandHome(*p, env.home);
  return env.home + "/.aws/config";
}

std::string SelectedProfile(const CredentialsEnvironment& env) {
  return EnvValue(env, "AWS_PROFILE").value_or("default");
}

std::optional<Profile> SharedConfig::Find(const std::string& name) const {
  auto in_config = config.profiles.find(name);
  auto in_credentials = credentials.profiles.find(name);
  if (in_config == config.profiles.end() && in_credentials == credentials.profiles.end())
    return std::nullopt;
  Profile merged;
  merged.name = name;
  for (const auto* found : {in_config == config.profiles.end() ? nullptr : &in_config->second,
                            in_credentials == credentials.profiles.end()
                                ? nullptr
                                : &in_credentials->second}) {
    if (found == nullptr) continue;
    for (const auto& [key, value] : found->values) merged.values[key] = value;
    merged.sections.insert(merged.sections.end(), found->sections.begin(), found->sections.end());
  }
  return merged;
}

Result<SharedConfig> LoadSharedConfig(const CredentialsEnvironment& env) {
  SharedConfig out;
  Result<SharedFile> credentials =
      ReadSharedFile(SharedCredentialsPath(env), SharedFileKind::kCredentials);
  if (!credentials.ok()) return credentials.status();
  Result<SharedFile> config = ReadSharedFile(SharedConfigPath(env), SharedFileKind::kConfig);
  if (!config.ok()) return config.status();
  out.credentials = std::move(credentials).value();
  out.config = std::move(config).value();
  return out;
}

Result<ProfileCredentials> CredentialsOfProfile(const Profile& profile) {
  auto unsupported = [&](const std::string& key, const std::string& what) {
    return Status(StatusCode::kFailedPrecondition,
                  profile.Describe(key) + ": " + what + "; nodesmith does not support it: " +
                      UnsupportedFix(profile));
  };
  ProfileCredentials out;
  if (profile.Get("source_profile")) {
    return unsupported("source_profile",
                       "role_arn with source_profile is sts:AssumeRole, a call signed with the "
                       "source profile's credentials");
  }
  if (profile.Get("credential_source")) {
    return unsupported("credential_source",
                       "role_arn with credential_source is sts:AssumeRole, a call signed with "
                       "the credentials of the environment, container or instance");
  }
  if (profile.Get("web_identity_token_file")) {
    if (!profile.Get("role_arn")) {
      return Status(StatusCode::kFailedPrecondition,
                    profile.Describe("web_identity_token_file") +
                        ": web_identity_token_file needs role_arn, the role to assume");
    }
    out.kind = ProfileCredentials::Kind::kWebIdentity;
    out.role_arn = *profile.Get("role_arn");
    out.web_identity_token_file = *profile.Get("web_identity_token_file");
    out.role_session_name = profile.Get("role_session_name").value_or("");
    return out;
  }
  if (profile.Get("role_arn")) {
    return unsupported("role_arn",
                       "role_arn without web_identity_token_file is sts:AssumeRole, a call "
                       "signed with other credentials");
  }
  std::optional<std::string> key_id = profile.Get("aws_access_key_id");
  std::optional<std::string> secret = profile.Get("aws_secret_access_key");
  if (key_id && secret) {
    out.kind = ProfileCredentials::Kind::kStatic;
    out.static_credentials.access_key_id = *key_id;
    out.static_credentials.secret_access_key = *secret;
    out.static_credentials.session_token = profile.Get("aws_session_token").value_or("");
    out.static_credentials.source = "shared file (profile " + profile.name + ")";
    return out;
  }
  if (key_id || secret) {
    const char* has = key_id ? "aws_access_key_id" : "aws_secret_access_key";
    const char* lacks = key_id ? "aws_secret_access_key" : "aws_access_key_id";
    return Status(StatusCode::kFailedPrecondition, profile.Describe(has) + ": sets " + has +
                                                       " but not " + lacks + "; set both");
  }
  for (const char* key : {"sso_session", "sso_start_url", "sso_account_id"}) {
    if (profile.Get(key)) {
      return unsupported(key, "SSO reads the token `aws sso login` caches and trades it at the "
                              "SSO portal");
    }
  }
  if (auto command = profile.Get("credential_process")) {
    out.kind = ProfileCredentials::Kind::kProcess;
    out.credential_process = *command;
  }
  return out;
}

Result<Credentials> ParseCredentialProcessOutput(std::string_view output,
                                                 const std::string& command,
                                                 const std::string& source) {
  // Messages never quote the output: it holds a secret.
  const std::string who = "credential_process " + Quoted(command);
  nlohmann::json j = nlohmann::json::parse(output, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return Status(StatusCode::kFailedPrecondition,
                  who + " printed " + std::to_string(output.size()) +
                      " bytes that are not a JSON object; it must print {\"Version\": 1, "
                      "\"AccessKeyId\": ..., \"SecretAccessKey\": ...}");
  }
  auto version = j.find("Version");
  if (version == j.end() || !version->is_number_integer() || version->get<int64_t>() != 1) {
    return Status(StatusCode::kFailedPrecondition,
                  who + " printed " +
                      (version == j.end() ? std::string("no \"Version\"")
                                          : "\"Version\": " + version->dump()) +
                      "; only Version 1 is defined");
  }
  auto text = [&](const char* field) -> std::optional<std::string> {
    auto it = j.find(field);
    if (it == j.end() || !it->is_string()) return std::nullopt;
    return it->get<std::string>();
  };
  Credentials out;
  out.source = source;
  for (const char* field : {"AccessKeyId", "SecretAccessKey"}) {
    std::optional<std::string> v = text(field);
    if (!v || v->empty()) {
      return Status(StatusCode::kFailedPrecondition,
                    who + " printed no \"" + field + "\" (a non-empty string)");
    }
    (std::string_view(field) == "AccessKeyId" ? out.access_key_id : out.secret_access_key) = *v;
  }
  out.session_token = text("SessionToken").value_or("");
  if (j.contains("Expiration") && !j["Expiration"].is_null()) {
    std::optional<std::string> expiration = text("Expiration");
    if (!expiration) {
      return Status(StatusCode::kFailedPrecondition,
                    who + " printed an \"Expiration\" that is not an RFC 3339 string");
    }
    Result<core::Time> t = core::ParseRfc3339(*expiration);
    if (!t.ok()) {
      return Status(StatusCode::kFailedPrecondition,
                    who + ": \"Expiration\": " + t.status().message());
    }
    out.expiration = *t;
  }
  return out;
}

Result<Credentials> RunCredentialProcess(const std::string& command, const std::string& source,
                                         core::Duration timeout) {
  const std::string who = "credential_process " + Quoted(command);
  core::SubprocessLimits limits;
  limits.timeout = timeout;
  limits.max_output = kMaxProcessOutput;
  limits.stderr_kept = 2 * kStderrShown;
  Result<core::SubprocessResult> run =
      core::RunSubprocess("/bin/sh", {"sh", "-c", command}, core::CurrentEnvironment(), limits);
  if (!run.ok()) return run.status().WithPrefix(who);
  const core::SubprocessResult& p = *run;
  std::string err = core::StderrTail(p.err, kStderrShown);
  std::string err_note = err.empty() ? "" : " (stderr: " + err + ")";
  if (p.timed_out) {
    return Status(StatusCode::kDeadlineExceeded,
                  who + " did not finish within " + core::FormatDuration(timeout) +
                      " and was killed" + err_note);
  }
  if (p.output_too_large) {
    return Status(StatusCode::kFailedPrecondition,
                  who + " printed more than " + std::to_string(kMaxProcessOutput) + " bytes");
  }
  if (p.signal != 0) {
    return Status(StatusCode::kFailedPrecondition,
                  who + " was killed by signal " + std::to_string(p.signal) + err_note);
  }
  if (p.exit_code != 0) {
    return Status(StatusCode::kFailedPrecondition,
                  who + " exited with status " + std::to_string(p.exit_code) + err_note);
  }
  return ParseCredentialProcessOutput(p.out, command, source);
}

}  // namespace nodesmith::aws
