#include "cloud/aws/user_data.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <tuple>

namespace nodesmith::aws {

using core::Result;
using core::Status;
using core::StatusCode;

namespace {

constexpr char kBoundary[] = "//";
constexpr char kShellScriptType[] = "text/x-shellscript; charset=\"us-ascii\"";
constexpr char kNodeConfigType[] = "application/node.eks.aws";

Status BadUserData(const std::string& what) { return Status::Invalid("spec.userData: " + what); }

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view TrimSpace(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::string_view TrimRightBlanks(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::string StripCarriageReturns(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c != '\r') out += c;
  }
  return out;
}

std::vector<std::string_view> SplitLines(std::string_view s) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start <= s.size()) {
    size_t nl = s.find('\n', start);
    if (nl == std::string_view::npos) {
      lines.push_back(s.substr(start));
      break;
    }
    lines.push_back(s.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

// --- Quoting --------------------------------------------------------------------------------

// Inside '...' for a POSIX shell. Karpenter does not escape; label and taint syntax rules out
// quotes, so this changes nothing for valid input and keeps odd input from ending the quote.
std::string ShellQuote(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

// Inside '...' for PowerShell, where a quote is doubled.
std::string PowerShellQuote(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    out += c;
    if (c == '\'') out += '\'';
  }
  return out + "'";
}

// A double-quoted string as Go's %q writes printable text, which is how Karpenter writes the
// values of --node-labels and the other map flags.
std::string DoubleQuote(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          out += "\\x";
          out += kHex[c >> 4];
          out += kHex[c & 15];
        } else {
          out += ch;
        }
    }
  }
  return out + "\"";
}

// --- The kubelet's inputs, resolved once for every family -----------------------------------

struct KubeletInputs {
  std::map<std::string, std::string> labels;
  std::vector<api::Taint> taints;  // sorted
  std::optional<int> max_pods;
  std::vector<std::string> cluster_dns;
  api::KubeletConfiguration kubelet;  // empty when the node class sets none
};

KubeletInputs Resolve(const BootstrapOptions& options) {
  KubeletInputs in;
  in.labels = options.labels;
  in.taints = options.taints;
  std::sort(in.taints.begin(), in.taints.end(), [](const api::Taint& a, const api::Taint& b) {
    return std::tie(a.key, a.value, a.effect) < std::tie(b.key, b.value, b.effect);
  });
  if (options.kubelet) in.kubelet = *options.kubelet;
  in.max_pods = options.max_pods ? options.max_pods : in.kubelet.max_pods;
  in.cluster_dns = in.kubelet.cluster_dns;
  if (in.cluster_dns.empty() && !options.cluster_dns_ip.empty()) {
    in.cluster_dns.push_back(options.cluster_dns_ip);
  }
  return in;
}

// key=value:Effect, as the kubelet's --register-with-taints reads a taint.
std::string TaintText(const api::Taint& t) {
  std::string s = t.key;
  if (!t.value.empty()) s += "=" + t.value;
  if (!t.effect.empty()) s += ":" + t.effect;
  return s;
}

std::string JoinMap(const std::map<std::string, std::string>& m, std::string_view sep) {
  std::string out;
  for (const auto& [k, v] : m) {
    if (!out.empty()) out += ',';
    out += k;
    out += sep;
    out += v;
  }
  return out;
}

// The kubelet flags AL2 and Windows pass through their bootstrap scripts, in Karpenter's order.
// The taint flag is always present so a node never registers without its startup taints.
std::string KubeletExtraArgs(const KubeletInputs& in) {
  std::vector<std::string> args;
  if (!in.labels.empty()) args.push_back("--node-labels=" + DoubleQuote(JoinMap(in.labels, "=")));
  std::string taints;
  for (const auto& t : in.taints) {
    if (!taints.empty()) taints += ',';
    taints += TaintText(t);
  }
  args.push_back("--register-with-taints=" + DoubleQuote(taints));
  const api::KubeletConfiguration& k = in.kubelet;
  if (in.max_pods) args.push_back("--max-pods=" + std::to_string(*in.max_pods));
  if (k.pods_per_core) args.push_back("--pods-per-core=" + std::to_string(*k.pods_per_core));
  auto add_map = [&](const char* flag, const std::map<std::string, std::string>& m,
                     std::string_view sep) {
    if (!m.empty()) args.push_back(std::string(flag) + "=" + DoubleQuote(JoinMap(m, sep)));
  };
  add_map("--system-reserved", k.system_reserved, "=");
  add_map("--kube-reserved", k.kube_reserved, "=");
  add_map("--eviction-hard", k.eviction_hard, "<");
  add_map("--eviction-soft", k.eviction_soft, "<");
  if (k.image_gc_high_threshold_percent) {
    args.push_back("--image-gc-high-threshold=" + std::to_string(*k.image_gc_high_threshold_percent));
  }
  if (k.image_gc_low_threshold_percent) {
    args.push_back("--image-gc-low-threshold=" + std::to_string(*k.image_gc_low_threshold_percent));
  }
  if (k.cpu_cfs_quota) args.push_back(std::string("--cpu-cfs-quota=") + (*k.cpu_cfs_quota ? "true" : "false"));
  std::string out;
  for (const auto& a : args) {
    if (!out.empty()) out += ' ';
    out += a;
  }
  return out;
}

bool IsRaid0(const BootstrapOptions& options) { return options.instance_store_policy == "RAID0"; }

// --- MIME multipart -------------------------------------------------------------------------

struct MimePart {
  std::vector<std::pair<std::string, std::string>> headers;  // canonical names, in order
  std::string body;

  std::string Header(std::string_view name) const {
    for (const auto& [k, v] : headers) {
      if (Lower(k) == Lower(name)) return v;
    }
    return "";
  }
};

// "content-TYPE" -> "Content-Type", the form Go's textproto writes and Karpenter's parts carry.
std::string CanonicalHeaderName(std::string_view name) {
  std::string out(name);
  bool upper = true;
  for (char& c : out) {
    c = static_cast<char>(upper ? std::toupper(static_cast<unsigned char>(c))
                                : std::tolower(static_cast<unsigned char>(c)));
    upper = c == '-';
  }
  return out;
}

// Reads RFC 822 header lines from lines[*i] up to the blank line, which it consumes. Returns
// false at the end of the text before a blank line.
Result<bool> ReadHeaders(const std::vector<std::string_view>& lines, size_t* i,
                         std::vector<std::pair<std::string, std::string>>* headers,
                         const std::string& where) {
  for (; *i < lines.size(); ++*i) {
    std::string_view line = lines[*i];
    if (TrimRightBlanks(line).empty()) {
      ++*i;
      return true;
    }
    if (line[0] == ' ' || line[0] == '\t') {  // a folded continuation of the previous header
      if (headers->empty()) return BadUserData(where + " starts with a continuation line");
      headers->back().second += " " + std::string(TrimSpace(line));
      continue;
    }
    size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0 ||
        TrimSpace(line.substr(0, colon)).size() != colon) {
      return BadUserData(where + " has a line that is not \"Name: value\": \"" +
                         std::string(line) + "\"");
    }
    headers->emplace_back(CanonicalHeaderName(line.substr(0, colon)),
                          std::string(TrimSpace(line.substr(colon + 1))));
  }
  return false;
}

// `multipart/mixed; boundary="//"` -> the media type (lower case) and its boundary.
Status ParseMultipartType(std::string_view content_type, std::string* boundary) {
  size_t semi = content_type.find(';');
  std::string media = Lower(TrimSpace(content_type.substr(0, semi)));
  if (media.rfind("multipart/", 0) != 0) {
    return BadUserData("a MIME document must be multipart, its Content-Type is \"" +
                       std::string(content_type) + "\"");
  }
  // The parameters: ; name=token or ; name="quoted \"string\"".
  size_t i = semi;
  while (i != std::string_view::npos && i < content_type.size()) {
    ++i;  // ';'
    size_t eq = content_type.find('=', i);
    if (eq == std::string_view::npos) break;
    std::string name = Lower(TrimSpace(content_type.substr(i, eq - i)));
    i = eq + 1;
    while (i < content_type.size() && (content_type[i] == ' ' || content_type[i] == '\t')) ++i;
    std::string value;
    if (i < content_type.size() && content_type[i] == '"') {
      for (++i; i < content_type.size() && content_type[i] != '"'; ++i) {
        if (content_type[i] == '\\' && i + 1 < content_type.size()) ++i;
        value += content_type[i];
      }
      if (i >= content_type.size()) {
        return BadUserData("the MIME Content-Type has an unterminated quoted parameter");
      }
      ++i;
    } else {
      size_t end = std::min(content_type.find(';', i), content_type.size());
      value = std::string(TrimSpace(content_type.substr(i, end - i)));
      i = end;
    }
    if (name == "boundary") *boundary = value;
    i = content_type.find(';', i);
  }
  if (boundary->empty()) return BadUserData("the MIME Content-Type names no boundary");
  return Status::Ok();
}

bool LooksLikeMime(std::string_view text) {
  std::string_view t = TrimSpace(text);
  return t.rfind("MIME-Version:", 0) == 0 || t.rfind("Content-Type:", 0) == 0;
}

// The parts of a MIME multipart document. Tolerates what Karpenter's reader tolerates: CRLF or
// LF line ends, a preamble, blanks after a boundary, and a last boundary without its "--".
Result<std::vector<MimePart>> ParseMime(std::string_view text) {
  std::string normalized = StripCarriageReturns(text);
  std::string_view doc = normalized;
  while (!doc.empty() && std::isspace(static_cast<unsigned char>(doc.front()))) doc.remove_prefix(1);
  std::vector<std::string_view> lines = SplitLines(doc);
  size_t i = 0;
  std::vector<std::pair<std::string, std::string>> headers;
  auto ended = ReadHeaders(lines, &i, &headers, "the MIME document's header");
  if (!ended.ok()) return ended.status();
  std::string content_type;
  for (const auto& [k, v] : headers) {
    if (k == "Content-Type") content_type = v;
  }
  if (content_type.empty()) return BadUserData("the MIME document has no Content-Type header");
  std::string boundary;
  NS_RETURN_IF_ERROR(ParseMultipartType(content_type, &boundary));
  const std::string delimiter = "--" + boundary;
  const std::string close = delimiter + "--";

  while (i < lines.size() && TrimRightBlanks(lines[i]) != delimiter) {
    if (TrimRightBlanks(lines[i]) == close) return BadUserData("the MIME document holds no parts");
    ++i;
  }
  if (i == lines.size()) {
    return BadUserData("the MIME document never opens its boundary \"" + delimiter + "\"");
  }
  ++i;
  std::vector<MimePart> parts;
  while (true) {
    bool only_blanks = true;
    for (size_t j = i; j < lines.size() && only_blanks; ++j) only_blanks = TrimSpace(lines[j]).empty();
    if (only_blanks) break;  // a trailing "--boundary" without "--": the document ends here
    const std::string where = "MIME part " + std::to_string(parts.size() + 1);
    MimePart part;
    auto has_body = ReadHeaders(lines, &i, &part.headers, where);
    if (!has_body.ok()) return has_body.status();
    if (!*has_body) return BadUserData(where + " ends inside its headers");
    if (part.Header("Content-Type").empty()) return BadUserData(where + " has no Content-Type header");
    size_t start = i;
    while (i < lines.size() && TrimRightBlanks(lines[i]) != delimiter &&
           TrimRightBlanks(lines[i]) != close) {
      ++i;
    }
    if (i == lines.size()) return BadUserData(where + " is not closed by \"" + delimiter + "\"");
    for (size_t j = start; j < i; ++j) {
      if (j > start) part.body += '\n';
      part.body += lines[j];
    }
    parts.push_back(std::move(part));
    if (TrimRightBlanks(lines[i]) == close) break;
    ++i;
  }
  if (parts.empty()) return BadUserData("the MIME document holds no parts");
  return parts;
}

// The multipart document, laid out byte for byte as Go's multipart writer lays it out (less
// the carriage returns, which Karpenter strips): headers of a part in name order.
Result<std::string> WriteMime(std::vector<MimePart> parts) {
  const std::string delimiter = std::string("--") + kBoundary;
  std::string out = "MIME-Version: 1.0\n";
  out += std::string("Content-Type: multipart/mixed; boundary=\"") + kBoundary + "\"\n\n";
  for (size_t n = 0; n < parts.size(); ++n) {
    MimePart& part = parts[n];
    for (std::string_view line : SplitLines(part.body)) {
      if (line.rfind(delimiter, 0) == 0) {
        return BadUserData("MIME part " + std::to_string(n + 1) + " has a line starting with \"" +
                           delimiter + "\", the boundary nodesmith joins the parts with");
      }
    }
    std::stable_sort(part.headers.begin(), part.headers.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    out += n == 0 ? delimiter + "\n" : "\n" + delimiter + "\n";
    for (const auto& [k, v] : part.headers) out += k + ": " + v + "\n";
    out += "\n";
    out += part.body;
  }
  out += "\n" + delimiter + "--\n";
  return StripCarriageReturns(out);
}

MimePart Part(std::string content_type, std::string body) {
  MimePart p;
  p.headers.emplace_back("Content-Type", std::move(content_type));
  p.body = std::move(body);
  return p;
}

// --- AL2: /etc/eks/bootstrap.sh -------------------------------------------------------------

std::string Al2BootstrapScript(const BootstrapOptions& options, const KubeletInputs& in) {
  std::string s = "#!/bin/bash -xe\n";
  s += "exec > >(tee /var/log/user-data.log|logger -t user-data -s 2>/dev/console) 2>&1\n";
  // bootstrap.sh parses "--flag value", not "--flag=value".
  s += "/etc/eks/bootstrap.sh " + ShellQuote(options.cluster_name) + " --apiserver-endpoint " +
       ShellQuote(options.cluster_endpoint);
  if (!options.ca_bundle_base64.empty()) s += " --b64-cluster-ca " + ShellQuote(options.ca_bundle_base64);
  if (!in.cluster_dns.empty()) {
    if (in.cluster_dns[0].find(':') != std::string::npos) s += " \\\n--ip-family ipv6";
    s += " \\\n--dns-cluster-ip " + ShellQuote(in.cluster_dns[0]);
  }
  // Without this bootstrap.sh computes its own --max-pods from the ENI table and overrides ours.
  if (in.max_pods) s += " \\\n--use-max-pods false";
  s += " \\\n--kubelet-extra-args " + ShellQuote(KubeletExtraArgs(in));
  if (IsRaid0(options)) s += " \\\n--local-disks raid0";
  return s;
}

Result<std::string> Al2UserData(const BootstrapOptions& options) {
  std::vector<MimePart> parts;
  const std::string custom = options.custom_user_data.value_or("");
  if (LooksLikeMime(custom)) {
    auto user = ParseMime(custom);
    if (!user.ok()) return user.status();
    parts = std::move(*user);
  } else if (!custom.empty()) {
    parts.push_back(Part(kShellScriptType, custom));
  }
  parts.push_back(Part(kShellScriptType, Al2BootstrapScript(options, Resolve(options))));
  return WriteMime(std::move(parts));
}

// --- AL2023: nodeadm's NodeConfig -----------------------------------------------------------

// A YAML scalar for text: plain when no YAML reader could take it for anything but this
// string, else single-quoted (double-quoted when it holds control characters). Numbers, IP
// addresses and YAML 1.1 booleans are quoted: a kubelet reading "on" as true would be a bug.
std::string YamlString(std::string_view s) {
  bool control = false;
  for (char c : s) control |= static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
  if (control) {
    std::string out = "\"";
    for (char c : s) {
      auto u = static_cast<unsigned char>(c);
      if (c == '"' || c == '\\') {
        out += '\\';
        out += c;
      } else if (c == '\n') {
        out += "\\n";
      } else if (c == '\t') {
        out += "\\t";
      } else if (u < 0x20 || u == 0x7f) {
        static constexpr char kHex[] = "0123456789ABCDEF";
        out += "\\x";
        out += kHex[u >> 4];
        out += kHex[u & 15];
      } else {
        out += c;
      }
    }
    return out + "\"";
  }
  auto plain = [&] {
    if (s.empty() || s.front() == ' ' || s.back() == ' ' || s.back() == ':') return false;
    static constexpr std::string_view kIndicators = "-?:,[]{}#&*!|>'\"%@`";
    if (kIndicators.find(s[0]) != std::string_view::npos) {
      // "-", "?" and ":" start a plain scalar when a non-space follows ("--node-labels=...").
      if (!(s[0] == '-' || s[0] == '?' || s[0] == ':') || s.size() < 2 || s[1] == ' ') return false;
    }
    if (s.find(": ") != std::string_view::npos || s.find(" #") != std::string_view::npos) return false;
    static const std::set<std::string> kWords = {"true", "false", "yes", "no",   "on", "off",
                                                 "y",    "n",     "null", "~",   "<<", "="};
    if (kWords.count(Lower(s))) return false;
    std::string_view body = s;
    if (body[0] == '+' || body[0] == '-') body.remove_prefix(1);
    if (!body.empty() && body[0] == '.' && (Lower(body) == ".inf" || Lower(body) == ".nan")) return false;
    bool numeric_start = !body.empty() && (std::isdigit(static_cast<unsigned char>(body[0])) ||
                                           (body[0] == '.' && body.size() > 1 &&
                                            std::isdigit(static_cast<unsigned char>(body[1]))));
    if (numeric_start && body.find_first_not_of("0123456789abcdefABCDEFxXoO._:+-") ==
                             std::string_view::npos) {
      return false;
    }
    return true;
  };
  if (plain()) return std::string(s);
  std::string out = "'";
  for (char c : s) {
    out += c;
    if (c == '\'') out += '\'';
  }
  return out + "'";
}

void YamlMap(std::string& out, const std::string& indent, const std::string& key,
             const std::map<std::string, std::string>& m) {
  if (m.empty()) return;
  out += indent + key + ":\n";
  for (const auto& [k, v] : m) out += indent + "  " + YamlString(k) + ": " + YamlString(v) + "\n";
}

// Keys in alphabetical order, as Karpenter's NodeConfig (JSON marshalled, then YAML) has them.
std::string NodeConfigYaml(const BootstrapOptions& options, const KubeletInputs& in) {
  const api::KubeletConfiguration& k = in.kubelet;
  std::string y = "# NodeConfig from nodesmith\n";
  y += "apiVersion: node.eks.aws/v1alpha1\n";
  y += "kind: NodeConfig\n";
  y += "spec:\n";
  y += "  cluster:\n";
  y += "    apiServerEndpoint: " + YamlString(options.cluster_endpoint) + "\n";
  if (!options.ca_bundle_base64.empty()) {
    y += "    certificateAuthority: " + YamlString(options.ca_bundle_base64) + "\n";
  }
  y += "    cidr: " + YamlString(options.cluster_cidr) + "\n";
  y += "    name: " + YamlString(options.cluster_name) + "\n";
  if (IsRaid0(options)) {
    y += "  instance:\n    localStorage:\n      strategy: RAID0\n";
  }
  y += "  kubelet:\n";
  y += "    config:\n";
  const std::string ci = "      ";
  if (!in.cluster_dns.empty()) {
    y += ci + "clusterDNS:\n";
    for (const auto& ip : in.cluster_dns) y += ci + "- " + YamlString(ip) + "\n";
  }
  if (k.cpu_cfs_quota) y += ci + "cpuCFSQuota: " + (*k.cpu_cfs_quota ? "true" : "false") + "\n";
  YamlMap(y, ci, "evictionHard", k.eviction_hard);
  YamlMap(y, ci, "evictionSoft", k.eviction_soft);
  if (k.image_gc_high_threshold_percent) {
    y += ci + "imageGCHighThresholdPercent: " + std::to_string(*k.image_gc_high_threshold_percent) + "\n";
  }
  if (k.image_gc_low_threshold_percent) {
    y += ci + "imageGCLowThresholdPercent: " + std::to_string(*k.image_gc_low_threshold_percent) + "\n";
  }
  YamlMap(y, ci, "kubeReserved", k.kube_reserved);
  if (in.max_pods) y += ci + "maxPods: " + std::to_string(*in.max_pods) + "\n";
  if (k.pods_per_core) y += ci + "podsPerCore: " + std::to_string(*k.pods_per_core) + "\n";
  // In the kubelet's configuration rather than a flag, as Karpenter writes them; the list is
  // written even when empty so that nothing the user's NodeConfig sets survives the merge.
  if (in.taints.empty()) {
    y += ci + "registerWithTaints: []\n";
  } else {
    y += ci + "registerWithTaints:\n";
    for (const auto& t : in.taints) {
      std::string item = ci + "- ";
      const std::string more = ci + "  ";
      bool first = true;
      auto field = [&](const char* name, const std::string& v) {
        if (v.empty()) return;
        y += (first ? item : more) + name + ": " + YamlString(v) + "\n";
        first = false;
      };
      field("effect", t.effect);
      field("key", t.key);
      field("value", t.value);
    }
  }
  YamlMap(y, ci, "systemReserved", k.system_reserved);
  if (!in.labels.empty()) {
    y += "    flags:\n";
    y += "    - " + YamlString("--node-labels=" + DoubleQuote(JoinMap(in.labels, "="))) + "\n";
  }
  return y;
}

// A user document that is YAML must be a NodeConfig: nodeadm reads nothing else from
// application/node.eks.aws, and would stop the node at boot on anything else.
Result<bool> IsNodeConfigYaml(const std::string& text, const std::string& where) {
  YAML::Node doc;
  try {
    doc = YAML::Load(text);
  } catch (const YAML::Exception&) {
    return false;
  }
  if (!doc.IsMap()) return false;
  const YAML::Node kind = doc["kind"];
  if (!kind || !kind.IsScalar() || kind.Scalar() != "NodeConfig") {
    return BadUserData(where + " is YAML but not a node.eks.aws NodeConfig (kind: NodeConfig); "
                       "wrap other content in a MIME multipart document");
  }
  return true;
}

Result<std::string> Al2023UserData(const BootstrapOptions& options) {
  if (options.cluster_cidr.empty()) {
    return Status(StatusCode::kFailedPrecondition,
                  "AL2023 user data needs the cluster's service CIDR, which is not resolved yet");
  }
  std::vector<MimePart> parts;
  const std::string custom = options.custom_user_data.value_or("");
  if (LooksLikeMime(custom)) {
    auto user = ParseMime(custom);
    if (!user.ok()) return user.status();
    // Only the Content-Type of a part carries over, as in Karpenter's archive.
    for (size_t n = 0; n < user->size(); ++n) {
      MimePart& p = (*user)[n];
      std::string type = p.Header("Content-Type");
      if (Lower(TrimSpace(type.substr(0, type.find(';')))) == kNodeConfigType) {
        auto ok = IsNodeConfigYaml(p.body, "MIME part " + std::to_string(n + 1));
        if (!ok.ok()) return ok.status();
        if (!*ok) return BadUserData("MIME part " + std::to_string(n + 1) + " (" + kNodeConfigType +
                                     ") is not a YAML NodeConfig");
      }
      parts.push_back(Part(std::move(type), std::move(p.body)));
    }
  } else if (!custom.empty()) {
    auto node_config = IsNodeConfigYaml(custom, "the custom user data");
    if (!node_config.ok()) return node_config.status();
    parts.push_back(Part(*node_config ? kNodeConfigType : kShellScriptType, custom));
  }
  // Last: nodeadm merges the NodeConfig documents in order, later fields winning.
  parts.push_back(Part(kNodeConfigType, NodeConfigYaml(options, Resolve(options))));
  return WriteMime(std::move(parts));
}

// --- Bottlerocket: TOML settings ------------------------------------------------------------

// The table `key` of `parent`, created when absent; an error when it is there but not a table.
Result<TomlTable*> SubTable(TomlTable& parent, const std::string& key, const std::string& path) {
  auto [it, inserted] = parent.try_emplace(key, TomlTable{});
  if (!it->second.is_table()) return BadUserData("Bottlerocket setting " + path + " must be a table");
  return &it->second.table();
}

TomlTable StringTable(const std::map<std::string, std::string>& m) {
  TomlTable t;
  for (const auto& [k, v] : m) t.emplace(k, v);
  return t;
}

Result<std::string> BottlerocketUserData(const BootstrapOptions& options) {
  TomlTable root;
  if (options.custom_user_data && !TrimSpace(*options.custom_user_data).empty()) {
    auto parsed = ParseToml(*options.custom_user_data);
    if (!parsed.ok()) return BadUserData("not valid Bottlerocket TOML: " + parsed.status().message());
    root = std::move(*parsed);
  }
  for (const auto& [key, value] : root) {
    if (key != "settings") {
      return BadUserData("Bottlerocket user data holds only [settings], not \"" + key + "\"");
    }
  }
  auto settings = SubTable(root, "settings", "settings");
  if (!settings.ok()) return settings.status();
  auto k8s_or = SubTable(**settings, "kubernetes", "settings.kubernetes");
  if (!k8s_or.ok()) return k8s_or.status();
  TomlTable& k8s = **k8s_or;
  const KubeletInputs in = Resolve(options);
  const api::KubeletConfiguration& k = in.kubelet;

  // nodesmith's values replace the user's: the node must join this cluster with exactly the
  // labels, taints and capacity the scheduler simulated.
  k8s["api-server"] = options.cluster_endpoint;
  k8s["cluster-name"] = options.cluster_name;
  if (!options.ca_bundle_base64.empty()) k8s["cluster-certificate"] = options.ca_bundle_base64;
  if (!in.cluster_dns.empty()) k8s["cluster-dns-ip"] = in.cluster_dns[0];
  if (in.max_pods) k8s["max-pods"] = int64_t{*in.max_pods};
  // Labels merge (the user's extra labels stay); taints do not, as in Karpenter: a taint the
  // NodeClaim does not carry would keep pods off a node the scheduler placed them on.
  auto labels = SubTable(k8s, "node-labels", "settings.kubernetes.node-labels");
  if (!labels.ok()) return labels.status();
  for (const auto& [key, value] : in.labels) (**labels)[key] = value;
  if ((*labels)->empty()) k8s.erase("node-labels");
  k8s.erase("node-taints");
  if (!in.taints.empty()) {
    // Built as strings first: GCC 12 warns (falsely) about a variant moved into a vector here.
    std::map<std::string, std::vector<std::string>> by_key;
    for (const auto& t : in.taints) by_key[t.key].push_back(t.value + ":" + t.effect);
    TomlTable taints;
    for (const auto& [key, values] : by_key) {
      TomlArray array(values.begin(), values.end());
      taints.emplace(key, TomlValue(std::move(array)));
    }
    k8s["node-taints"] = TomlValue(std::move(taints));
  }
  // Reserved resources and thresholds are replaced whole, never merged: the overhead nodesmith
  // computed counted these maps and nothing else.
  auto replace = [&](const char* key, const std::map<std::string, std::string>& m) {
    if (!m.empty()) k8s[key] = StringTable(m);
  };
  replace("system-reserved", k.system_reserved);
  replace("kube-reserved", k.kube_reserved);
  replace("eviction-hard", k.eviction_hard);
  replace("eviction-soft", k.eviction_soft);
  // Bottlerocket models the image GC thresholds as strings.
  if (k.image_gc_high_threshold_percent) {
    k8s["image-gc-high-threshold-percent"] = std::to_string(*k.image_gc_high_threshold_percent);
  }
  if (k.image_gc_low_threshold_percent) {
    k8s["image-gc-low-threshold-percent"] = std::to_string(*k.image_gc_low_threshold_percent);
  }
  if (k.cpu_cfs_quota) k8s["cpu-cfs-quota-enforced"] = *k.cpu_cfs_quota;

  if (IsRaid0(options)) {
    auto commands = SubTable(**settings, "bootstrap-commands", "settings.bootstrap-commands");
    if (!commands.ok()) return commands.status();
    // Binding the three directories explicitly works on every Bottlerocket release; the bare
    // "bind" needs a release nodesmith cannot see from here.
    TomlArray bind = {"apiclient", "ephemeral-storage", "bind", "--dirs",
                      "/var/lib/containerd", "/var/lib/kubelet", "/var/log/pods"};
    TomlTable mount;
    mount["commands"] = TomlArray{TomlArray{"apiclient", "ephemeral-storage", "init"}, bind};
    mount["essential"] = true;
    mount["mode"] = "always";
    (**commands)["000-mount-instance-storage"] = std::move(mount);
  }
  return WriteToml(root);
}

// --- Windows: Start-EKSBootstrap.ps1 --------------------------------------------------------

Result<std::string> WindowsUserData(const BootstrapOptions& options) {
  const std::string custom = options.custom_user_data.value_or("");
  // EC2Launch runs the first <powershell> block only up to its first closing tag, so the
  // user's own tags would cut the bootstrap call off.
  const std::string lower = Lower(custom);
  if (lower.find("<powershell>") != std::string::npos || lower.find("</powershell>") != std::string::npos) {
    return BadUserData("Windows user data is placed inside nodesmith's <powershell> block; "
                       "remove its <powershell> tags");
  }
  const KubeletInputs in = Resolve(options);
  std::string s = "<powershell>\n";
  if (!custom.empty()) s += custom + "\n";
  s += "[string]$EKSBootstrapScriptFile = \"$env:ProgramFiles\\Amazon\\EKS\\Start-EKSBootstrap.ps1\"\n";
  s += "& $EKSBootstrapScriptFile -EKSClusterName " + PowerShellQuote(options.cluster_name) +
       " -APIServerEndpoint " + PowerShellQuote(options.cluster_endpoint);
  if (!options.ca_bundle_base64.empty()) s += " -Base64ClusterCA " + PowerShellQuote(options.ca_bundle_base64);
  s += " -KubeletExtraArgs " + PowerShellQuote(KubeletExtraArgs(in));
  if (!in.cluster_dns.empty()) s += " -DNSClusterIP " + PowerShellQuote(in.cluster_dns[0]);
  s += "\n</powershell>";
  return s;
}

}  // namespace

Result<std::string> BuildUserData(AmiFamily family, const BootstrapOptions& options) {
  switch (family) {
    case AmiFamily::kAL2: return Al2UserData(options);
    case AmiFamily::kAL2023: return Al2023UserData(options);
    case AmiFamily::kBottlerocket: return BottlerocketUserData(options);
    case AmiFamily::kWindows2019:
    case AmiFamily::kWindows2022: return WindowsUserData(options);
    case AmiFamily::kCustom: return options.custom_user_data.value_or("");
  }
  return Status::Internal("unknown AMI family");
}


}  // namespace nodesmith::aws
