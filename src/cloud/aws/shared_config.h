// The AWS shared configuration files, ~/.aws/credentials and ~/.aws/config, read as the SDKs
// read them, and what a profile in them authenticates with.
//
// Both files are INI. The credentials file names a profile `[name]`; the config file names it
// `[profile name]`, except the default profile, `[default]` (or `[profile default]`). Other
// sections of the config file (`[sso-session x]`, `[services x]`, a bare `[name]`) are not
// profiles and are skipped, as the SDKs skip them. Section names are case-sensitive; keys are
// not (they are lower-cased, as the SDKs do). Values are trimmed and otherwise kept whole: `#`
// and `;` start a comment only at the start of a line, since a secret or a credential_process
// command may contain either. An indented line continues the setting above it (the config
// file's nested settings, `s3 =` then `  max_concurrent_requests = 10`). A key set twice in a
// section keeps its last value. Where both files set a key of one profile, the credentials
// file wins. Errors name the file and the line.
//
// A profile authenticates with one of: static keys (aws_access_key_id, aws_secret_access_key
// [, aws_session_token]); web identity (web_identity_token_file + role_arn
// [+ role_session_name]); or credential_process, a command printing credentials as JSON. A
// role_arn with source_profile or credential_source means sts:AssumeRole, a call signed with
// other credentials, and SSO means the SSO portal's token cache; nodesmith makes neither, so
// such a profile is an error that names it and says what to use instead.
//
// Thread-compatible: values, and functions that read the files or run a command when called.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cloud/aws/credentials.h"
#include "core/duration.h"
#include "core/status.h"

namespace nodesmith::aws {

// One setting, and where it was read (for messages).
struct ProfileValue {
  std::string value;
  std::string file;
  int line = 0;
};

struct Profile {
  std::string name;
  std::map<std::string, ProfileValue> values;  // keys lower-cased
  std::vector<std::string> sections;           // "PATH:LINE" of each header that opened it

  // The value of `key` (lower-case), or nullopt when it is absent or empty.
  std::optional<std::string> Get(const std::string& key) const;
  // "profile \"dev\" (/home/u/.aws/config:12)": the profile and where `key` was set, or
  // where the profile's sections begin when `key` is not set.
  std::string Describe(const std::string& key = "") const;
};

enum class SharedFileKind { kCredentials, kConfig };

// One file's profiles. `exists` is false, and `profiles` empty, when there is no file at `path`.
struct SharedFile {
  std::string path;
  bool exists = false;
  std::map<std::string, Profile> profiles;
};

// Parses a file's text; `path` is for messages ("PATH:LINE: what").
core::Result<SharedFile> ParseSharedFile(std::string_view text, const std::string& path,
                                         SharedFileKind kind);
// Reads and parses the file at `path`. A missing file is no error (exists = false); one that
// cannot be read is.
core::Result<SharedFile> ReadSharedFile(const std::string& path, SharedFileKind kind);

// Where the environment puts the files: AWS_SHARED_CREDENTIALS_FILE, else ~/.aws/credentials;
// AWS_CONFIG_FILE, else ~/.aws/config. A leading "~/" is the home directory.
// A variable of the environment; set-but-empty counts as unset, as in the SDKs.
std::optional<std::string> EnvValue(const CredentialsEnvironment& env, const std::string& name);
// Text helpers the credential sources share: whitespace trimmed, ASCII lower case, "quoted".
std::string_view TrimSpace(std::string_view s);
std::string LowerAscii(std::string_view s);
std::string Quoted(const std::string& s);

std::string SharedCredentialsPath(const CredentialsEnvironment& env);
std::string SharedConfigPath(const CredentialsEnvironment& env);
// The profile the environment selects: AWS_PROFILE, else "default".
std::string SelectedProfile(const CredentialsEnvironment& env);

struct SharedConfig {
  SharedFile credentials;
  SharedFile config;

  // Profile `name` of both files merged, the credentials file's keys winning; nullopt when
  // neither file has it.
  std::optional<Profile> Find(const std::string& name) const;
};

// Reads both files the environment names.
core::Result<SharedConfig> LoadSharedConfig(const CredentialsEnvironment& env);

// What a profile authenticates with.
struct ProfileCredentials {
  enum class Kind {
    kNone,         // the profile sets no credentials (only a region, say)
    kStatic,       // `static_credentials`
    kWebIdentity,  // `role_arn`, `web_identity_token_file`, `role_session_name` (may be empty)
    kProcess,      // `credential_process`
  };
  Kind kind = Kind::kNone;
  Credentials static_credentials;
  std::string role_arn;
  std::string web_identity_token_file;
  std::string role_session_name;
  std::string credential_process;
};

// Decides what `profile` authenticates with. A role_arn is a web identity role when
// web_identity_token_file is set and an sts:AssumeRole otherwise (with source_profile,
// credential_source, or the profile's own keys as the SDKs use them), so it is checked first;
// then static keys, SSO and credential_process, in the SDKs' order. Errors name the profile and
// where the setting was read.
core::Result<ProfileCredentials> CredentialsOfProfile(const Profile& profile);

// Parses what a credential_process printed: JSON with "Version": 1, "AccessKeyId",
// "SecretAccessKey", and optionally "SessionToken" and "Expiration" (RFC 3339). `command` is for
// messages; `source` goes into the credentials.
core::Result<Credentials> ParseCredentialProcessOutput(std::string_view output,
                                                       const std::string& command,
                                                       const std::string& source);

// Runs `command` through /bin/sh -c, as the SDKs do on Linux, with the process's environment,
// stdin from /dev/null and stdout captured, and parses what it printed. A command that exits
// non-zero, is killed, or outlives `timeout` (killed with its process group) is an error that
// quotes the end of its stderr. Blocks while the command runs.
core::Result<Credentials> RunCredentialProcess(const std::string& command,
                                               const std::string& source,
                                               core::Duration timeout = std::chrono::minutes(1));

}  // namespace nodesmith::aws
