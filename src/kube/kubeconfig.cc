#include "kube/kubeconfig.h"
#include "core/read_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

namespace nodesmith::kube {
namespace {

using core::Result;
using core::Status;
using core::StatusCode;

std::string Quote(const std::string& s) { return "\"" + s + "\""; }

std::string Join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += sep;
    out += items[i];
  }
  return out;
}

std::string Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

// Reads a whole file. The error message is strerror's ("No such file or directory").
Result<std::string> ReadFile(const std::string& path) {
  auto content = core::ReadWholeFile(path);
  if (!content.ok()) return Status::Invalid(content.status().message());
  return content;
}

bool FileExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

int Base64Value(unsigned char c, bool url) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == (url ? '-' : '+')) return 62;
  if (c == (url ? '_' : '/')) return 63;
  return -1;
}

// Decodes standard (or, with `url`, URL-safe) base64. Whitespace is skipped and padding is
// optional, as Go's decoder of kubeconfig []byte fields tolerates line breaks.
Result<std::string> DecodeBase64(std::string_view in, bool url = false) {
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  bool padding = false;
  for (size_t i = 0; i < in.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(in[i]);
    if (std::isspace(c)) continue;
    if (c == '=') {
      padding = true;
      continue;
    }
    int v = Base64Value(c, url);
    if (v < 0 || padding) {
      std::string shown = std::isprint(c) ? std::string(1, static_cast<char>(c))
                                          : "\\x" + std::to_string(static_cast<int>(c));
      return Status::Invalid("not valid base64 (unexpected '" + shown + "' at offset " +
                             std::to_string(i) + ")");
    }
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  if (bits >= 6) return Status::Invalid("not valid base64 (truncated)");
  return out;
}

// Makes `path` absolute against `base_dir` unless it is empty or already absolute, as client-go's
// ResolvePaths does for the file references of a kubeconfig entry.
std::string ResolvePath(const std::string& path, const std::string& base_dir) {
  if (path.empty() || path[0] == '/') return path;
  return (std::filesystem::path(base_dir) / path).lexically_normal().string();
}

std::string DirOf(const std::string& file) {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::absolute(file, ec);
  if (ec) p = file;
  return p.parent_path().string();
}

// One named entry of a kubeconfig list (the map under `cluster:`, `user:` or `context:`), with
// the file it came from: relative paths resolve against that file and errors name it.
struct Entry {
  YAML::Node node;
  std::string origin;
};

struct MergedConfig {
  std::map<std::string, Entry> clusters;
  std::map<std::string, Entry> users;
  std::map<std::string, Entry> contexts;
  std::string current_context;
  std::vector<std::string> files;  // the files that were read, in order
};

std::string LineOf(const YAML::Node& node) {
  const YAML::Mark mark = node.Mark();
  if (mark.line < 0) return "";
  return " (line " + std::to_string(mark.line + 1) + ")";
}

// Prefix for errors about one entry: `kubeconfig /x/config: user "admin"`.
std::string Where(const Entry& e, const char* kind, const std::string& name) {
  return "kubeconfig " + e.origin + ": " + kind + " " + Quote(name);
}

// Field accessors on an entry's map. Absent and null fields are "" / false.
Result<std::string> GetString(const YAML::Node& map, const char* key, const std::string& where) {
  YAML::Node n = map[key];
  if (!n || n.IsNull()) return std::string();
  if (!n.IsScalar()) {
    return Status::Invalid(where + ": " + key + ": expected a string" + LineOf(n));
  }
  return n.Scalar();
}

Result<bool> GetBool(const YAML::Node& map, const char* key, const std::string& where) {
  YAML::Node n = map[key];
  if (!n || n.IsNull()) return false;
  bool value = false;
  if (!n.IsScalar() || !YAML::convert<bool>::decode(n, value)) {
    std::string got = n.IsScalar() ? ", got " + Quote(n.Scalar()) : "";
    return Status::Invalid(where + ": " + key + ": expected true or false" + got + LineOf(n));
  }
  return value;
}

Result<std::vector<std::string>> GetStringList(const YAML::Node& map, const char* key,
                                               const std::string& where) {
  std::vector<std::string> out;
  YAML::Node n = map[key];
  if (!n || n.IsNull()) return out;
  if (!n.IsSequence()) {
    return Status::Invalid(where + ": " + key + ": expected a list of strings" + LineOf(n));
  }
  for (const auto& item : n) {
    if (!item.IsScalar()) {
      return Status::Invalid(where + ": " + key + ": expected a list of strings" + LineOf(item));
    }
    out.push_back(item.Scalar());
  }
  return out;
}

bool Present(const YAML::Node& map, const char* key) {
  YAML::Node n = map[key];
  return n && !n.IsNull();
}

// Merges one list section (`clusters`, `users`, `contexts`) of a file into `out`: the first
// file to define a name wins; within one file a later entry replaces an earlier one of the
// same name (client-go decodes each file's list into a map).
Status MergeSection(const YAML::Node& root, const char* section, const char* inner,
                    const std::string& path, std::map<std::string, Entry>* out) {
  YAML::Node list = root[section];
  if (!list || list.IsNull()) return Status::Ok();
  if (!list.IsSequence()) {
    return Status::Invalid("kubeconfig " + path + ": " + section + ": expected a list" +
                           LineOf(list));
  }
  std::map<std::string, Entry> mine;
  for (const auto& item : list) {
    if (!item.IsMap()) {
      return Status::Invalid("kubeconfig " + path + ": " + section +
                             ": each entry must be a map with `name` and `" + inner + "`" +
                             LineOf(item));
    }
    YAML::Node name = item["name"];
    if (!name || !name.IsScalar() || name.Scalar().empty()) {
      return Status::Invalid("kubeconfig " + path + ": " + section + ": an entry has no name" +
                             LineOf(item));
    }
    YAML::Node body = item[inner];
    if (body && !body.IsNull() && !body.IsMap()) {
      return Status::Invalid("kubeconfig " + path + ": " + section + " " + Quote(name.Scalar()) +
                             ": `" + inner + "` must be a map" + LineOf(body));
    }
    YAML::Node value = (body && body.IsMap()) ? body : YAML::Node(YAML::NodeType::Map);
    mine[name.Scalar()] = Entry{value, path};
  }
  for (auto& [name, entry] : mine) out->emplace(name, std::move(entry));
  return Status::Ok();
}

Status MergeFile(const std::string& path, const std::string& text, MergedConfig* merged) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    return Status::Invalid("kubeconfig " + path + ": malformed YAML at line " +
                           std::to_string(e.mark.line + 1) + ", column " +
                           std::to_string(e.mark.column + 1) + ": " + e.msg);
  }
  merged->files.push_back(path);
  if (!root || root.IsNull()) return Status::Ok();  // an empty file is an empty config
  if (!root.IsMap()) {
    return Status::Invalid("kubeconfig " + path +
                           ": not a kubeconfig (expected a map with clusters, users and "
                           "contexts)" +
                           LineOf(root));
  }
  NS_RETURN_IF_ERROR(MergeSection(root, "clusters", "cluster", path, &merged->clusters));
  NS_RETURN_IF_ERROR(MergeSection(root, "users", "user", path, &merged->users));
  NS_RETURN_IF_ERROR(MergeSection(root, "contexts", "context", path, &merged->contexts));
  if (merged->current_context.empty()) {
    auto current = GetString(root, "current-context", "kubeconfig " + path);
    if (!current.ok()) return current.status();
    merged->current_context = *current;
  }
  return Status::Ok();
}

std::vector<std::string> Names(const std::map<std::string, Entry>& m) {
  std::vector<std::string> out;
  for (const auto& [name, _] : m) out.push_back(name);
  return out;
}

std::string Available(const std::map<std::string, Entry>& m, const char* what) {
  if (m.empty()) return "it defines no " + std::string(what);
  return "available " + std::string(what) + ": " + Join(Names(m), ", ");
}

// Reads `file_key` (a path) or `data_key` (base64) of an entry into *out; *source (if given)
// says which, for messages: `certificate-authority /x/ca.crt (cluster "kind", kubeconfig /x/c)`.
Status ReadPem(const Entry& e, const std::string& where, const std::string& label,
               const char* file_key, const char* data_key, std::string* out, std::string* source) {
  auto file = GetString(e.node, file_key, where);
  if (!file.ok()) return file.status();
  auto data = GetString(e.node, data_key, where);
  if (!data.ok()) return data.status();
  if (!file->empty() && !data->empty()) {
    return Status::Invalid(where + ": both " + file_key + " and " + data_key +
                           " are set; keep one (kubectl refuses this too)");
  }
  if (!data->empty()) {
    if (data->find("-----BEGIN") != std::string::npos) {
      return Status::Invalid(where + ": " + data_key +
                             ": holds PEM text, but this field takes it base64-encoded; encode "
                             "it (base64 -w0) or name the file in " +
                             file_key);
    }
    auto decoded = DecodeBase64(*data);
    if (!decoded.ok()) return decoded.status().WithPrefix(where + ": " + data_key);
    *out = std::move(*decoded);
    if (source) *source = std::string(data_key) + " (" + label + ", kubeconfig " + e.origin + ")";
    return Status::Ok();
  }
  if (!file->empty()) {
    std::string path = ResolvePath(*file, DirOf(e.origin));
    auto content = ReadFile(path);
    if (!content.ok()) {
      return content.status().WithPrefix(where + ": " + file_key + " " + path);
    }
    *out = std::move(*content);
    if (source) {
      *source =
          std::string(file_key) + " " + path + " (" + label + ", kubeconfig " + e.origin + ")";
    }
  }
  return Status::Ok();
}

// The fix for each in-tree auth provider client-go removed.
std::string AuthProviderHint(const std::string& name) {
  if (name == "gcp") return "use the gke-gcloud-auth-plugin exec plugin";
  if (name == "azure") return "use the kubelogin exec plugin (kubelogin convert-kubeconfig)";
  if (name == "oidc") return "use an OIDC exec plugin such as kubelogin (kubectl oidc-login)";
  return "use an exec credential plugin";
}

Status LoadCluster(const std::string& name, const Entry& e, RestConfig* config) {
  const std::string where = Where(e, "cluster", name);
  auto server = GetString(e.node, "server", where);
  if (!server.ok()) return server.status();
  std::string s = Trim(*server);
  if (s.empty()) {
    return Status::Invalid(where +
                           ": no server (set clusters[].cluster.server to the API "
                           "server's URL, e.g. https://127.0.0.1:6443)");
  }
  if (s.find("://") == std::string::npos) s = "https://" + s;
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  config->server = s;

  auto sni = GetString(e.node, "tls-server-name", where);
  if (!sni.ok()) return sni.status();
  config->tls_server_name = *sni;

  auto insecure = GetBool(e.node, "insecure-skip-tls-verify", where);
  if (!insecure.ok()) return insecure.status();
  config->insecure_skip_tls_verify = *insecure;

  NS_RETURN_IF_ERROR(ReadPem(e, where, "cluster " + Quote(name), "certificate-authority",
                             "certificate-authority-data", &config->ca_pem, &config->ca_source));
  if (config->insecure_skip_tls_verify) {
    if (!config->ca_pem.empty()) {
      return Status::Invalid(where +
                             ": insecure-skip-tls-verify is true and a certificate authority is "
                             "given; remove one (kubectl refuses this too)");
    }
    config->warnings.push_back("TLS verification is off for server " + config->server +
                               " (insecure-skip-tls-verify in cluster " + Quote(name) +
                               " of kubeconfig " + e.origin +
                               "): anyone on the network path can impersonate it");
  }

  auto proxy = GetString(e.node, "proxy-url", where);
  if (!proxy.ok()) return proxy.status();
  if (!proxy->empty()) {
    config->warnings.push_back("proxy-url " + *proxy + " of cluster " + Quote(name) +
                               " is not supported; nodesmith connects to " + config->server +
                               " directly");
  }
  return Status::Ok();
}

Status LoadExec(const std::string& where, const YAML::Node& node, const std::string& base_dir,
                RestConfig* config) {
  const std::string w = where + ": exec";
  if (!node.IsMap()) return Status::Invalid(w + ": expected a map" + LineOf(node));
  ExecConfig exec;
  auto command = GetString(node, "command", w);
  if (!command.ok()) return command.status();
  if (command->empty()) return Status::Invalid(w + ": no command");
  // As client-go: only a command with a path separator is a file reference; a bare name is
  // looked up on PATH when it runs.
  exec.command =
      command->find('/') != std::string::npos ? ResolvePath(*command, base_dir) : *command;
  auto args = GetStringList(node, "args", w);
  if (!args.ok()) return args.status();
  exec.args = std::move(*args);

  YAML::Node env = node["env"];
  if (env && !env.IsNull()) {
    if (!env.IsSequence()) {
      return Status::Invalid(w + ": env: expected a list of {name, value}" + LineOf(env));
    }
    for (const auto& item : env) {
      if (!item.IsMap()) {
        return Status::Invalid(w + ": env: expected a list of {name, value}" + LineOf(item));
      }
      auto name = GetString(item, "name", w + ": env");
      if (!name.ok()) return name.status();
      auto value = GetString(item, "value", w + ": env");
      if (!value.ok()) return value.status();
      if (name->empty()) return Status::Invalid(w + ": env: an entry has no name" + LineOf(item));
      exec.env.emplace_back(*name, *value);
    }
  }

  auto api_version = GetString(node, "apiVersion", w);
  if (!api_version.ok()) return api_version.status();
  exec.api_version = *api_version;
  if (exec.api_version.empty()) {
    return Status::Invalid(w +
                           ": no apiVersion (use client.authentication.k8s.io/v1 or v1beta1, "
                           "whichever the plugin " +
                           Quote(exec.command) + " prints)");
  }
  const bool v1 = exec.api_version == "client.authentication.k8s.io/v1";
  const bool v1beta1 = exec.api_version == "client.authentication.k8s.io/v1beta1";
  if (!v1 && !v1beta1) {
    return Status::Invalid(w + ": apiVersion " + exec.api_version +
                           " is not supported; use client.authentication.k8s.io/v1 or v1beta1");
  }

  auto hint = GetString(node, "installHint", w);
  if (!hint.ok()) return hint.status();
  exec.install_hint = *hint;
  auto cluster_info = GetBool(node, "provideClusterInfo", w);
  if (!cluster_info.ok()) return cluster_info.status();
  exec.provide_cluster_info = *cluster_info;

  auto mode = GetString(node, "interactiveMode", w);
  if (!mode.ok()) return mode.status();
  exec.interactive_mode = *mode;
  if (exec.interactive_mode.empty()) {
    if (v1) {
      return Status::Invalid(w +
                             ": no interactiveMode (client.authentication.k8s.io/v1 requires "
                             "it; nodesmith runs plugins without a terminal, so use Never or "
                             "IfAvailable)");
    }
    exec.interactive_mode = "IfAvailable";  // client-go's default for v1beta1
  } else if (exec.interactive_mode != "Never" && exec.interactive_mode != "IfAvailable" &&
             exec.interactive_mode != "Always") {
    return Status::Invalid(w + ": interactiveMode " + Quote(exec.interactive_mode) +
                           " is not one of Never, IfAvailable, Always");
  }
  config->exec = std::move(exec);
  return Status::Ok();
}

Status LoadUser(const std::string& name, const Entry& e, RestConfig* config) {
  const std::string where = Where(e, "user", name);
  const YAML::Node& u = e.node;

  if (Present(u, "username") || Present(u, "password")) {
    return Status::Invalid(where +
                           ": basic authentication (username/password) is not "
                           "supported; use a client certificate, a token or an exec plugin");
  }
  if (Present(u, "auth-provider")) {
    YAML::Node ap = u["auth-provider"];
    std::string provider = ap.IsMap() && ap["name"] && ap["name"].IsScalar()
                               ? ap["name"].Scalar()
                               : std::string("(unnamed)");
    return Status::Invalid(where + ": auth-provider " + Quote(provider) +
                           " is not supported (Kubernetes clients dropped built-in auth "
                           "providers); " +
                           AuthProviderHint(provider));
  }
  for (const char* key : {"as", "as-uid", "as-groups", "as-user-extra"}) {
    if (Present(u, key)) {
      return Status::Invalid(where + ": impersonation (" + key +
                             ") is not supported; give nodesmith the identity's own credentials");
    }
  }

  NS_RETURN_IF_ERROR(ReadPem(e, where, "", "client-certificate", "client-certificate-data",
                             &config->client_cert_pem, nullptr));
  NS_RETURN_IF_ERROR(
      ReadPem(e, where, "", "client-key", "client-key-data", &config->client_key_pem, nullptr));
  if (config->client_cert_pem.empty() != config->client_key_pem.empty()) {
    return Status::Invalid(where + (config->client_cert_pem.empty()
                                        ? ": client-key is set but client-certificate is not"
                                        : ": client-certificate is set but client-key is not; "
                                          "set client-key or client-key-data"));
  }

  auto token = GetString(u, "token", where);
  if (!token.ok()) return token.status();
  config->bearer_token = Trim(*token);
  auto token_file = GetString(u, "tokenFile", where);
  if (!token_file.ok()) return token_file.status();
  if (!token_file->empty()) {
    std::string path = ResolvePath(*token_file, DirOf(e.origin));
    // Read now so a wrong path fails at start; the credential provider re-reads it.
    auto content = ReadFile(path);
    if (!content.ok()) return content.status().WithPrefix(where + ": tokenFile " + path);
    if (config->bearer_token.empty() && Trim(*content).empty()) {
      return Status::Invalid(where + ": tokenFile " + path + " is empty");
    }
    config->token_file = path;
  }

  if (Present(u, "exec")) {
    NS_RETURN_IF_ERROR(LoadExec(where, u["exec"], DirOf(e.origin), config));
  }
  return Status::Ok();
}

// Where the kubeconfig comes from: the files to read and whether a missing one is an error.
struct Sources {
  std::vector<std::string> files;
  bool explicit_path = false;  // --kubeconfig: the file must exist
  std::string from;            // "KUBECONFIG" or "$HOME/.kube/config", for messages
};

Result<Sources> FindSources(const KubeconfigOptions& options) {
  Sources s;
  if (!options.kubeconfig.empty()) {
    s.files = {options.kubeconfig};
    s.explicit_path = true;
    s.from = "--kubeconfig";
    return s;
  }
  const EnvLookup env = options.env ? options.env : EnvLookup(ProcessEnv);
  std::optional<std::string> list = env("KUBECONFIG");
  if (list && !list->empty()) {
    std::set<std::string> seen;
    size_t start = 0;
    while (start <= list->size()) {
      size_t end = list->find(':', start);
      if (end == std::string::npos) end = list->size();
      std::string f = list->substr(start, end - start);
      if (!f.empty() && seen.insert(f).second) s.files.push_back(f);
      start = end + 1;
    }
    s.from = "KUBECONFIG";
    return s;
  }
  std::optional<std::string> home = env("HOME");
  if (!home || home->empty()) {
    return Status::Invalid(
        "no kubeconfig found: KUBECONFIG and HOME are not set; pass --kubeconfig or set "
        "KUBECONFIG");
  }
  s.files = {(std::filesystem::path(*home) / ".kube" / "config").string()};
  s.from = "$HOME/.kube/config";
  return s;
}

Result<MergedConfig> ReadSources(const Sources& sources) {
  MergedConfig merged;
  for (const std::string& f : sources.files) {
    if (!sources.explicit_path && !FileExists(f)) continue;  // as client-go: skip missing ones
    auto text = ReadFile(f);
    if (!text.ok()) return text.status().WithPrefix("kubeconfig " + f);
    NS_RETURN_IF_ERROR(MergeFile(f, *text, &merged));
  }
  if (merged.files.empty()) {
    if (sources.from == "KUBECONFIG") {
      return Status::Invalid("no kubeconfig found: none of the files KUBECONFIG names exists (" +
                             Join(sources.files, ", ") + ")");
    }
    return Status::Invalid("no kubeconfig found: " + sources.files.front() +
                           " does not exist (tried " + sources.from +
                           "; KUBECONFIG is not set); pass --kubeconfig or set KUBECONFIG");
  }
  return merged;
}

std::string Describe(const MergedConfig& m) {
  if (m.files.size() == 1) return "kubeconfig " + m.files.front();
  return "kubeconfig files " + Join(m.files, ", ");
}

// Claims of a service account token that say who it is; "" when the token does not say.
struct TokenIdentity {
  std::string ns;
  std::string name;
};

TokenIdentity ServiceAccountFromToken(const std::string& token) {
  TokenIdentity id;
  size_t a = token.find('.');
  if (a == std::string::npos) return id;
  size_t b = token.find('.', a + 1);
  if (b == std::string::npos) return id;
  auto payload = DecodeBase64(std::string_view(token).substr(a + 1, b - a - 1), /*url=*/true);
  if (!payload.ok()) return id;
  nlohmann::json claims = nlohmann::json::parse(*payload, nullptr, /*allow_exceptions=*/false);
  if (!claims.is_object()) return id;
  auto str = [](const nlohmann::json& j, const char* key) -> std::string {
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  // Bound (projected) tokens: {"kubernetes.io": {"namespace": .., "serviceaccount": {"name": ..}}}
  if (auto k = claims.find("kubernetes.io"); k != claims.end() && k->is_object()) {
    id.ns = str(*k, "namespace");
    if (auto sa = k->find("serviceaccount"); sa != k->end() && sa->is_object()) {
      id.name = str(*sa, "name");
    }
  }
  // Legacy secret-based tokens.
  if (id.name.empty()) id.name = str(claims, "kubernetes.io/serviceaccount/service-account.name");
  if (id.ns.empty()) id.ns = str(claims, "kubernetes.io/serviceaccount/namespace");
  // Both kinds: sub = system:serviceaccount:<ns>:<name>.
  const std::string sub = str(claims, "sub");
  const std::string prefix = "system:serviceaccount:";
  if ((id.name.empty() || id.ns.empty()) && sub.rfind(prefix, 0) == 0) {
    std::string rest = sub.substr(prefix.size());
    size_t colon = rest.find(':');
    if (colon != std::string::npos) {
      if (id.ns.empty()) id.ns = rest.substr(0, colon);
      if (id.name.empty()) id.name = rest.substr(colon + 1);
    }
  }
  return id;
}

bool InClusterEnv(const EnvLookup& env) {
  auto host = env("KUBERNETES_SERVICE_HOST");
  return host && !host->empty();
}

}  // namespace

std::optional<std::string> ProcessEnv(const std::string& name) {
  const char* v = std::getenv(name.c_str());
  if (v == nullptr) return std::nullopt;
  return std::string(v);
}

Result<RestConfig> LoadKubeconfig(const KubeconfigOptions& options) {
  try {
    auto sources = FindSources(options);
    if (!sources.ok()) return sources.status();
    auto merged_or = ReadSources(*sources);
    if (!merged_or.ok()) return merged_or.status();
    const MergedConfig& merged = *merged_or;

    std::string context_name = options.context.empty() ? merged.current_context : options.context;
    if (context_name.empty()) {
      return Status::Invalid("no context chosen: " + Describe(merged) +
                             " sets no current-context; pass --context (" +
                             Available(merged.contexts, "contexts") + ")");
    }
    auto ctx = merged.contexts.find(context_name);
    if (ctx == merged.contexts.end()) {
      return Status::Invalid("context " + Quote(context_name) +
                             (options.context.empty() ? " (current-context)" : "") +
                             " not found in " + Describe(merged) + " (" +
                             Available(merged.contexts, "contexts") + ")");
    }
    const Entry& context = ctx->second;
    const std::string cwhere = Where(context, "context", context_name);
    auto cluster_name = GetString(context.node, "cluster", cwhere);
    if (!cluster_name.ok()) return cluster_name.status();
    auto user_name = GetString(context.node, "user", cwhere);
    if (!user_name.ok()) return user_name.status();
    auto ns = GetString(context.node, "namespace", cwhere);
    if (!ns.ok()) return ns.status();

    if (cluster_name->empty()) return Status::Invalid(cwhere + ": names no cluster");
    auto cluster = merged.clusters.find(*cluster_name);
    if (cluster == merged.clusters.end()) {
      return Status::Invalid(cwhere + ": cluster " + Quote(*cluster_name) + " not found in " +
                             Describe(merged) + " (" + Available(merged.clusters, "clusters") +
                             ")");
    }
    const Entry* user = nullptr;
    if (!user_name->empty()) {
      auto it = merged.users.find(*user_name);
      if (it == merged.users.end()) {
        return Status::Invalid(cwhere + ": user " + Quote(*user_name) + " not found in " +
                               Describe(merged) + " (" + Available(merged.users, "users") + ")");
      }
      user = &it->second;
    }

    RestConfig config;
    NS_RETURN_IF_ERROR(LoadCluster(*cluster_name, cluster->second, &config));
    if (user != nullptr) NS_RETURN_IF_ERROR(LoadUser(*user_name, *user, &config));
    config.namespace_ = *ns;
    config.identity = user != nullptr
                          ? "user " + Quote(*user_name) + " (context " + Quote(context_name) + ")"
                          : "anonymous (context " + Quote(context_name) + " names no user)";
    return config;
  } catch (const YAML::Exception& e) {
    return Status::Invalid("kubeconfig: " + std::string(e.what()));
  } catch (const std::exception& e) {
    return Status::Internal("kubeconfig: " + std::string(e.what()));
  }
}

Result<RestConfig> InClusterConfig(const EnvLookup& env_in, const std::string& sa_dir) {
  try {
    const EnvLookup env = env_in ? env_in : EnvLookup(ProcessEnv);
    std::string host = env("KUBERNETES_SERVICE_HOST").value_or("");
    std::string port = env("KUBERNETES_SERVICE_PORT").value_or("");
    if (host.empty() || port.empty()) {
      return Status(StatusCode::kFailedPrecondition,
                    "not running in a Kubernetes pod: KUBERNETES_SERVICE_HOST and "
                    "KUBERNETES_SERVICE_PORT must both be set (outside a cluster, pass "
                    "--kubeconfig or set KUBECONFIG)");
    }
    char* end = nullptr;
    long port_num = std::strtol(port.c_str(), &end, 10);
    if (*end != '\0' || port_num < 1 || port_num > 65535) {
      return Status::Invalid("KUBERNETES_SERVICE_PORT " + Quote(port) + " is not a port number");
    }
    if (host.find(':') != std::string::npos && host.front() != '[') host = "[" + host + "]";

    RestConfig config;
    config.server = "https://" + host + ":" + port;

    const std::string dir = sa_dir.empty() ? std::string(kServiceAccountDir) : sa_dir;
    const std::string token_path = (std::filesystem::path(dir) / "token").string();
    auto token = ReadFile(token_path);
    if (!token.ok()) {
      return token.status().WithPrefix("in-cluster config: service account token " + token_path +
                                       " (is automountServiceAccountToken false for this pod?)");
    }
    if (Trim(*token).empty()) {
      return Status::Invalid("in-cluster config: service account token " + token_path +
                             " is empty");
    }
    config.token_file = token_path;

    const std::string ca_path = (std::filesystem::path(dir) / "ca.crt").string();
    auto ca = ReadFile(ca_path);
    if (!ca.ok()) return ca.status().WithPrefix("in-cluster config: CA bundle " + ca_path);
    config.ca_pem = std::move(*ca);
    config.ca_source = ca_path;

    const std::string ns_path = (std::filesystem::path(dir) / "namespace").string();
    if (FileExists(ns_path)) {
      auto ns = ReadFile(ns_path);
      if (!ns.ok()) return ns.status().WithPrefix("in-cluster config: namespace " + ns_path);
      config.namespace_ = Trim(*ns);
    }

    TokenIdentity id = ServiceAccountFromToken(Trim(*token));
    if (id.ns.empty()) id.ns = config.namespace_;
    if (config.namespace_.empty()) config.namespace_ = id.ns;
    config.identity = !id.name.empty() && !id.ns.empty() ? "ServiceAccount " + id.ns + "/" + id.name
                                                         : "the pod's ServiceAccount";
    return config;
  } catch (const std::exception& e) {
    return Status::Internal("in-cluster config: " + std::string(e.what()));
  }
}

Result<RestConfig> ResolveRestConfig(const KubeconfigOptions& options) {
  const EnvLookup env = options.env ? options.env : EnvLookup(ProcessEnv);
  if (!options.kubeconfig.empty() || !options.context.empty()) return LoadKubeconfig(options);
  auto list = env("KUBECONFIG");
  if (list && !list->empty()) return LoadKubeconfig(options);
  const std::string dir =
      options.service_account_dir.empty() ? kServiceAccountDir : options.service_account_dir;
  if (InClusterEnv(env) && FileExists((std::filesystem::path(dir) / "token").string())) {
    return InClusterConfig(env, dir);
  }
  return LoadKubeconfig(options);
}

}  // namespace nodesmith::kube
