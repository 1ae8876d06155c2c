#include "api/validation.h"

#include <algorithm>
#include <charconv>
#include <regex>
#include <set>

#include "api/eviction_threshold.h"
#include "api/label_domains.h"
#include "core/cron_schedule.h"

namespace nodesmith::api {
namespace {

// Collects the first violation; later checks are skipped once one is found.
class Checker {
 public:
  bool ok() const { return !failed_; }
  void Fail(const std::string& path, const std::string& message) {
    if (failed_) return;
    failed_ = true;
    status_ = core::Status::Invalid(path + ": " + message);
  }
  void Merge(const core::Status& s) {
    if (!failed_ && !s.ok()) {
      failed_ = true;
      status_ = s;
    }
  }
  core::Status status() const { return status_; }

 private:
  bool failed_ = false;
  core::Status status_;
};

// The EC2NodeClass keeps kubelet reservations and volume sizes as the text the user wrote (they
// go into user data and launch templates unchanged); they are parsed here so that a bad one is
// refused at load, naming its file and field, and not later when a catalog or launch template is
// built from it.
void CheckQuantityText(Checker& c, const std::string& path, const std::string& text) {
  core::Result<Quantity> q = Quantity::Parse(text);
  if (!q.ok()) return c.Fail(path, q.status().message());
  if (q->Sign() < 0) c.Fail(path, "quantity \"" + text + "\" must not be negative");
}

// Kubernetes refuses a negative quantity wherever a resource amount is counted: capacity,
// requests, limits, reservations. Fails at `path`[name] for the first one.
void CheckNotNegative(Checker& c, const std::string& path, const ResourceList& list) {
  for (const auto& [name, q] : list.items()) {
    if (c.ok() && q.Sign() < 0) c.Fail(path + "[" + name + "]", "must not be negative");
  }
}

// A negative reservation would make allocatable larger than capacity.
void CheckOverhead(Checker& c, const std::string& path, const CatalogOverhead& overhead) {
  CheckNotNegative(c, path + ".kubeReserved", overhead.kube_reserved);
  CheckNotNegative(c, path + ".systemReserved", overhead.system_reserved);
  CheckNotNegative(c, path + ".evictionThreshold", overhead.eviction_threshold);
}

std::string Quote(const std::string& s) {
  return "\"" + (s.size() > 64 ? s.substr(0, 64) + "..." : s) + "\"";
}

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

bool OneOf(const std::string& v, const std::vector<std::string>& allowed) {
  return std::find(allowed.begin(), allowed.end(), v) != allowed.end();
}

bool Matches(const std::string& s, const std::regex& re, size_t max_len) {
  return s.size() <= max_len && std::regex_match(s, re);
}

const std::regex& LabelValueRe() {
  static const std::regex re("(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?");
  return re;
}

// A qualified name: [DNS-subdomain "/"] name, as label keys and taint keys are.
bool IsQualifiedName(const std::string& key) {
  static const std::regex name_re("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
  static const std::regex prefix_re("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
  if (key.size() > 316) return false;
  size_t slash = key.find('/');
  std::string name = slash == std::string::npos ? key : key.substr(slash + 1);
  if (slash != std::string::npos) {
    std::string prefix = key.substr(0, slash);
    if (prefix.empty() || !Matches(prefix, prefix_re, 253)) return false;
  }
  return !name.empty() && Matches(name, name_re, 63);
}

bool IsDnsSubdomain(const std::string& name) {
  static const std::regex re("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
  return Matches(name, re, 253);
}

void CheckLabelValue(Checker& c, const std::string& path, const std::string& value) {
  if (value.size() > 63) {
    c.Fail(path, "label value of " + std::to_string(value.size()) + " characters is longer than 63");
  } else if (!std::regex_match(value, LabelValueRe())) {
    c.Fail(path, "invalid label value " + Quote(value) +
                     " (alphanumerics, '-', '_' and '.', starting and ending with an alphanumeric)");
  }
}

void CheckLabels(Checker& c, const std::string& path, const Labels& labels) {
  for (const auto& [key, value] : labels) {
    if (!c.ok()) return;
    std::string p = path + "[" + key + "]";
    if (!IsQualifiedName(key)) {
      c.Fail(p, "invalid label key " + Quote(key) + " (an optional DNS prefix and '/', then a name of "
                    "at most 63 alphanumerics, '-', '_' or '.')");
    } else {
      CheckLabelValue(c, p, value);
    }
  }
}

const std::vector<std::string> kNodePoolOperators = {"In", "NotIn", "Exists", "DoesNotExist",
                                                     "Gt", "Lt",    "Gte",    "Lte"};
const std::vector<std::string> kNodeSelectorOperators = {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"};
const std::vector<std::string> kLabelSelectorOperators = {"In", "NotIn", "Exists", "DoesNotExist"};
const std::vector<std::string> kTaintEffects = {"NoSchedule", "PreferNoSchedule", "NoExecute"};

bool IsNonNegativeInteger(const std::string& s) {
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && ptr == s.data() + s.size() && v >= 0;
}

// One requirement of a NodePool template or NodeClaim (Karpenter's operator set and rules).
void CheckRequirement(Checker& c, const std::string& path, const NodeSelectorRequirement& r, LabelUse use) {
  if (r.key.empty()) return c.Fail(path + ".key", "is required");
  if (!IsQualifiedName(r.key)) {
    return c.Fail(path + ".key", "invalid label key " + Quote(r.key));
  }
  if (std::string msg = RestrictedLabelMessage(r.key, use); !msg.empty()) {
    return c.Fail(path + ".key", msg);
  }
  if (r.op.empty()) return c.Fail(path + ".operator", "is required");
  if (!OneOf(r.op, kNodePoolOperators)) {
    return c.Fail(path + ".operator", "unsupported operator " + Quote(r.op) + " (must be one of " +
                                          Join(kNodePoolOperators) + ")");
  }
  if (r.op == "In" && r.values.empty()) {
    return c.Fail(path + ".values", "operator In needs at least one value");
  }
  if ((r.op == "Exists" || r.op == "DoesNotExist") && !r.values.empty()) {
    return c.Fail(path + ".values", "must be empty when operator is " + r.op);
  }
  if (r.op == "Gt" || r.op == "Lt" || r.op == "Gte" || r.op == "Lte") {
    if (r.values.size() != 1 || !IsNonNegativeInteger(r.values[0])) {
      return c.Fail(path + ".values", "operator " + r.op + " needs a single non-negative integer value");
    }
  }
  for (size_t i = 0; i < r.values.size() && c.ok(); ++i) {
    CheckLabelValue(c, path + ".values[" + std::to_string(i) + "]", r.values[i]);
  }
  if (!c.ok()) return;
  if (r.min_values) {
    int mv = *r.min_values;
    if (mv < 1 || mv > 50) {
      return c.Fail(path + ".minValues", "must be between 1 and 50, got " + std::to_string(mv));
    }
    if (r.op == "In" && static_cast<size_t>(mv) > r.values.size()) {
      return c.Fail(path + ".minValues", std::to_string(mv) + " is more than the " +
                                             std::to_string(r.values.size()) + " values given");
    }
  }
}

void CheckRequirements(Checker& c, const std::string& path, const std::vector<NodeSelectorRequirement>& reqs,
                       LabelUse use) {
  if (reqs.size() > 100) return c.Fail(path, "at most 100 requirements are allowed");
  for (size_t i = 0; i < reqs.size() && c.ok(); ++i) {
    CheckRequirement(c, path + "[" + std::to_string(i) + "]", reqs[i], use);
  }
}

void CheckTaints(Checker& c, const std::string& path, const std::vector<Taint>& taints) {
  static const std::regex value_re(
      "([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*(\\/))?([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
  for (size_t i = 0; i < taints.size() && c.ok(); ++i) {
    std::string p = path + "[" + std::to_string(i) + "]";
    const Taint& t = taints[i];
    if (t.key.empty()) return c.Fail(p + ".key", "is required");
    if (!IsQualifiedName(t.key)) return c.Fail(p + ".key", "invalid taint key " + Quote(t.key));
    if (!t.value.empty() && !Matches(t.value, value_re, 316)) {
      return c.Fail(p + ".value", "invalid taint value " + Quote(t.value));
    }
    if (t.effect.empty()) return c.Fail(p + ".effect", "is required");
    if (!OneOf(t.effect, kTaintEffects)) {
      return c.Fail(p + ".effect", "unsupported effect " + Quote(t.effect) + " (must be one of " +
                                       Join(kTaintEffects) + ")");
    }
  }
}

void CheckNodeClassRef(Checker& c, const std::string& path, const NodeClassReference& ref) {
  if (ref.group.empty()) return c.Fail(path + ".group", "group may not be empty");
  if (ref.group.find('/') != std::string::npos) return c.Fail(path + ".group", "may not contain '/'");
  if (ref.kind.empty()) return c.Fail(path + ".kind", "kind may not be empty");
  if (ref.name.empty()) return c.Fail(path + ".name", "name may not be empty");
}

void CheckBudgets(Checker& c, const std::string& path, const std::vector<Budget>& budgets) {
  static const std::regex nodes_re("((100|[0-9]{1,2})%|[0-9]+)");
  static const std::regex schedule_re(
      "(@(annually|yearly|monthly|weekly|daily|midnight|hourly))|((.+)\\s(.+)\\s(.+)\\s(.+)\\s(.+))");
  static const std::vector<std::string> kReasons = {"Underutilized", "Empty", "Drifted"};
  if (budgets.size() > 50) return c.Fail(path, "at most 50 budgets are allowed");
  for (size_t i = 0; i < budgets.size() && c.ok(); ++i) {
    std::string p = path + "[" + std::to_string(i) + "]";
    const Budget& b = budgets[i];
    if (!Matches(b.nodes, nodes_re, 20)) {
      return c.Fail(p + ".nodes", "invalid value " + Quote(b.nodes) +
                                      " (a count like \"5\" or a percentage from 0% to 100%)");
    }
    if (b.schedule.has_value() != b.duration.has_value()) {
      return c.Fail(p, "'schedule' must be set with 'duration'");
    }
    if (b.schedule && !Matches(*b.schedule, schedule_re, 256)) {
      return c.Fail(p + ".schedule", "invalid cron schedule " + Quote(*b.schedule) +
                                         " (five fields, or @yearly, @monthly, @weekly, @daily, @hourly)");
    }
    // The CRD's pattern only counts fields; a field out of its range ("99" minutes) would fail
    // only when the budget is evaluated, so it is refused here.
    if (b.schedule) {
      if (auto parsed = core::CronSchedule::Parse(*b.schedule); !parsed.ok()) {
        return c.Fail(p + ".schedule", parsed.status().message());
      }
    }
    if (b.reasons.size() > 50) return c.Fail(p + ".reasons", "at most 50 reasons are allowed");
    std::set<std::string> seen;
    for (size_t j = 0; j < b.reasons.size(); ++j) {
      std::string rp = p + ".reasons[" + std::to_string(j) + "]";
      if (!OneOf(b.reasons[j], kReasons)) {
        return c.Fail(rp, "unsupported reason " + Quote(b.reasons[j]) + " (must be one of " + Join(kReasons) + ")");
      }
      if (!seen.insert(b.reasons[j]).second) return c.Fail(rp, "duplicate reason " + Quote(b.reasons[j]));
    }
  }
}

void CheckNodeSelectorTerms(Checker& c, const std::string& path, const std::vector<NodeSelectorTerm>& terms) {
  for (size_t i = 0; i < terms.size() && c.ok(); ++i) {
    std::string tp = path + "[" + std::to_string(i) + "]";
    for (size_t j = 0; j < terms[i].match_expressions.size() && c.ok(); ++j) {
      const auto& r = terms[i].match_expressions[j];
      std::string p = tp + ".matchExpressions[" + std::to_string(j) + "]";
      if (!OneOf(r.op, kNodeSelectorOperators)) {
        c.Fail(p + ".operator", "unsupported operator " + Quote(r.op) + " (must be one of " +
                                    Join(kNodeSelectorOperators) + ")");
      } else if ((r.op == "In" || r.op == "NotIn") && r.values.empty()) {
        c.Fail(p + ".values", "operator " + r.op + " needs at least one value");
      } else if ((r.op == "Exists" || r.op == "DoesNotExist") && !r.values.empty()) {
        c.Fail(p + ".values", "must be empty when operator is " + r.op);
      } else if ((r.op == "Gt" || r.op == "Lt") && (r.values.size() != 1 || !IsNonNegativeInteger(r.values[0]))) {
        c.Fail(p + ".values", "operator " + r.op + " needs a single non-negative integer value");
      }
    }
  }
}

void CheckSelectorTerms(Checker& c, const std::string& path, const std::vector<SelectorTerm>& terms,
                        const std::string& list_name, bool allow_name) {
  if (terms.empty()) return c.Fail(path, list_name + " cannot be empty");
  if (terms.size() > 30) return c.Fail(path, "at most 30 terms are allowed");
  for (size_t i = 0; i < terms.size() && c.ok(); ++i) {
    std::string p = path + "[" + std::to_string(i) + "]";
    const SelectorTerm& t = terms[i];
    if (t.tags.empty() && t.id.empty() && (!allow_name || t.name.empty())) {
      return c.Fail(p, allow_name ? "expected at least one, got none, ['tags', 'id', 'name']"
                                  : "expected at least one, got none, ['tags', 'id']");
    }
    if (!t.id.empty() && (!t.tags.empty() || !t.name.empty())) {
      return c.Fail(p, "'id' is mutually exclusive, cannot be set with a combination of other fields");
    }
    if (!t.name.empty() && !t.tags.empty()) {
      return c.Fail(p, "'name' is mutually exclusive, cannot be set with a combination of other fields");
    }
    for (const auto& [k, v] : t.tags) {
      if (k.empty() || v.empty()) return c.Fail(p + ".tags", "empty tag keys or values aren't supported");
    }
  }
}

void CheckAmiTerms(Checker& c, const std::string& path, const EC2NodeClass& nc) {
  static const std::regex alias_re("[a-zA-Z0-9]+@.+");
  static const std::vector<std::string> kFamilies = {"al2", "al2023", "bottlerocket",
                                                     "windows2019", "windows2022", "windows2025"};
  const auto& terms = nc.ami_selector_terms;
  if (terms.empty()) return c.Fail(path, "amiSelectorTerms is required (use an alias such as al2023@latest)");
  if (terms.size() > 30) return c.Fail(path, "at most 30 terms are allowed");
  bool has_alias = false;
  for (size_t i = 0; i < terms.size() && c.ok(); ++i) {
    std::string p = path + "[" + std::to_string(i) + "]";
    const SelectorTerm& t = terms[i];
    if (t.tags.empty() && t.id.empty() && t.name.empty() && t.alias.empty() && t.ssm_parameter.empty()) {
      return c.Fail(p, "expected at least one, got none, ['tags', 'id', 'name', 'alias', 'ssmParameter']");
    }
    if (!t.id.empty() && (!t.alias.empty() || !t.tags.empty() || !t.name.empty() || !t.owner.empty())) {
      return c.Fail(p, "'id' is mutually exclusive, cannot be set with a combination of other fields in amiSelectorTerms");
    }
    if (!t.alias.empty()) {
      has_alias = true;
      if (!t.tags.empty() || !t.name.empty() || !t.owner.empty()) {
        return c.Fail(p, "'alias' is mutually exclusive, cannot be set with a combination of other fields in amiSelectorTerms");
      }
      if (terms.size() != 1) {
        return c.Fail(path, "'alias' is mutually exclusive, cannot be set with a combination of other amiSelectorTerms");
      }
      if (!Matches(t.alias, alias_re, 128)) {
        return c.Fail(p + ".alias", "'alias' is improperly formatted, must match the format 'family@version'");
      }
      std::string family = t.alias.substr(0, t.alias.find('@'));
      std::string version = t.alias.substr(t.alias.find('@') + 1);
      if (!OneOf(family, kFamilies)) {
        return c.Fail(p + ".alias", "family is not supported, must be one of the following: 'al2', 'al2023', "
                                    "'bottlerocket', 'windows2019', 'windows2022', 'windows2025'");
      }
      if (family.rfind("windows", 0) == 0 && version != "latest") {
        return c.Fail(p + ".alias", "windows families may only specify version 'latest'");
      }
    }
    for (const auto& [k, v] : t.tags) {
      if (k.empty() || v.empty()) return c.Fail(p + ".tags", "empty tag keys or values aren't supported");
    }
  }
  if (c.ok() && !has_alias && nc.ami_family.empty()) {
    c.Fail("spec", "must specify amiFamily if amiSelectorTerms does not contain an alias");
  }
}

}  // namespace

core::Status ValidateObjectMeta(const ObjectMeta& meta) {
  Checker c;
  if (meta.name.empty()) {
    c.Fail("metadata.name", "is required");
  } else if (!IsDnsSubdomain(meta.name)) {
    c.Fail("metadata.name", "invalid name " + Quote(meta.name) +
                                " (at most 253 lowercase alphanumerics, '-' or '.', starting and ending "
                                "with an alphanumeric)");
  }
  if (c.ok()) CheckLabels(c, "metadata.labels", meta.labels);
  return c.status();
}

core::Status ValidateNodePool(const NodePool& pool) {
  Checker c;
  c.Merge(ValidateObjectMeta(pool.metadata));
  const std::string tp = "spec.template";
  if (c.ok() && pool.template_.labels.size() > 100) c.Fail(tp + ".metadata.labels", "at most 100 labels are allowed");
  CheckLabels(c, tp + ".metadata.labels", pool.template_.labels);
  for (const auto& [key, value] : pool.template_.labels) {
    if (!c.ok()) break;
    if (std::string msg = RestrictedLabelMessage(key, LabelUse::kTemplateLabel); !msg.empty()) {
      c.Fail(tp + ".metadata.labels[" + key + "]", msg);
    }
  }
  const NodeClaimTemplateSpec& s = pool.template_.spec;
  if (c.ok()) CheckNodeClassRef(c, tp + ".spec.nodeClassRef", s.node_class_ref);
  if (c.ok()) CheckRequirements(c, tp + ".spec.requirements", s.requirements, LabelUse::kNodePoolRequirement);
  if (c.ok()) CheckTaints(c, tp + ".spec.taints", s.taints);
  if (c.ok()) CheckTaints(c, tp + ".spec.startupTaints", s.startup_taints);
  static const std::vector<std::string> kPolicies = {"WhenEmpty", "WhenEmptyOrUnderutilized", "Balanced"};
  if (c.ok() && !OneOf(pool.disruption.consolidation_policy, kPolicies)) {
    c.Fail("spec.disruption.consolidationPolicy", "unsupported policy " + Quote(pool.disruption.consolidation_policy) +
                                                      " (must be one of " + Join(kPolicies) + ")");
  }
  if (c.ok()) CheckBudgets(c, "spec.disruption.budgets", pool.disruption.budgets);
  if (c.ok() && pool.weight && (*pool.weight < 1 || *pool.weight > 100)) {
    c.Fail("spec.weight", "must be between 1 and 100, got " + std::to_string(*pool.weight));
  }
  CheckNotNegative(c, "spec.limits", pool.limits);
  return c.status();
}

core::Status ValidateNodeClaim(const NodeClaim& claim) {
  Checker c;
  c.Merge(ValidateObjectMeta(claim.metadata));
  if (c.ok()) CheckNodeClassRef(c, "spec.nodeClassRef", claim.spec.node_class_ref);
  if (c.ok()) CheckRequirements(c, "spec.requirements", claim.spec.requirements, LabelUse::kNodeClaimRequirement);
  if (c.ok()) CheckTaints(c, "spec.taints", claim.spec.taints);
  if (c.ok()) CheckTaints(c, "spec.startupTaints", claim.spec.startup_taints);
  CheckNotNegative(c, "spec.resources.requests", claim.spec.resource_requests);
  CheckNotNegative(c, "status.capacity", claim.status.capacity);
  CheckNotNegative(c, "status.allocatable", claim.status.allocatable);
  return c.status();
}

core::Status ValidateEC2NodeClass(const EC2NodeClass& nc) {
  Checker c;
  c.Merge(ValidateObjectMeta(nc.metadata));
  static const std::vector<std::string> kFamilies = {"AL2", "AL2023", "Bottlerocket", "Custom",
                                                     "Windows2019", "Windows2022", "Windows2025"};
  if (c.ok() && !nc.ami_family.empty() && !OneOf(nc.ami_family, kFamilies)) {
    c.Fail("spec.amiFamily", "unsupported amiFamily " + Quote(nc.ami_family) + " (must be one of " + Join(kFamilies) + ")");
  }
  if (c.ok()) CheckAmiTerms(c, "spec.amiSelectorTerms", nc);
  if (c.ok()) CheckSelectorTerms(c, "spec.subnetSelectorTerms", nc.subnet_selector_terms, "subnetSelectorTerms", false);
  if (c.ok()) {
    CheckSelectorTerms(c, "spec.securityGroupSelectorTerms", nc.security_group_selector_terms,
                       "securityGroupSelectorTerms", true);
  }
  if (c.ok() && nc.role.empty() == nc.instance_profile.empty()) {
    c.Fail("spec", "must specify exactly one of ['role', 'instanceProfile']");
  }
  for (const auto& [k, v] : nc.tags) {
    if (!c.ok()) break;
    std::string p = "spec.tags[" + k + "]";
    if (k.empty()) c.Fail("spec.tags", "empty tag keys aren't supported");
    else if (k == "eks:eks-cluster-name") c.Fail(p, "tag contains a restricted tag matching eks:eks-cluster-name");
    else if (k.rfind("kubernetes.io/cluster", 0) == 0) c.Fail(p, "tag contains a restricted tag matching kubernetes.io/cluster/");
    else if (k == "karpenter.sh/nodepool") c.Fail(p, "tag contains a restricted tag matching karpenter.sh/nodepool");
    else if (k == "karpenter.sh/nodeclaim") c.Fail(p, "tag contains a restricted tag matching karpenter.sh/nodeclaim");
    else if (k == "karpenter.k8s.aws/ec2nodeclass") c.Fail(p, "tag contains a restricted tag matching karpenter.k8s.aws/ec2nodeclass");
  }
  int roots = 0;
  for (size_t i = 0; i < nc.block_device_mappings.size() && c.ok(); ++i) {
    const auto& m = nc.block_device_mappings[i];
    if (m.root_volume) ++roots;
    if (!m.ebs.volume_size && m.ebs.snapshot_id.empty()) {
      c.Fail("spec.blockDeviceMappings[" + std::to_string(i) + "].ebs", "snapshotID or volumeSize must be defined");
    }
    if (m.ebs.volume_size) {
      CheckQuantityText(c, "spec.blockDeviceMappings[" + std::to_string(i) + "].ebs.volumeSize", *m.ebs.volume_size);
    }
  }
  if (c.ok() && roots > 1) c.Fail("spec.blockDeviceMappings", "must have only one blockDeviceMappings with rootVolume");
  if (c.ok() && !nc.instance_store_policy.empty() && nc.instance_store_policy != "RAID0") {
    c.Fail("spec.instanceStorePolicy", "unsupported value " + Quote(nc.instance_store_policy) + " (must be RAID0)");
  }
  const MetadataOptions& mo = nc.metadata_options;
  const std::vector<std::string> kEnabled = {"enabled", "disabled"};
  if (c.ok() && !OneOf(mo.http_endpoint, kEnabled)) c.Fail("spec.metadataOptions.httpEndpoint", "must be enabled or disabled");
  if (c.ok() && !OneOf(mo.http_protocol_ipv6, kEnabled)) c.Fail("spec.metadataOptions.httpProtocolIPv6", "must be enabled or disabled");
  if (c.ok() && !OneOf(mo.http_tokens, {"required", "optional"})) c.Fail("spec.metadataOptions.httpTokens", "must be required or optional");
  if (c.ok() && (mo.http_put_response_hop_limit < 1 || mo.http_put_response_hop_limit > 64)) {
    c.Fail("spec.metadataOptions.httpPutResponseHopLimit", "must be between 1 and 64");
  }
  if (c.ok() && nc.kubelet) {
    const KubeletConfiguration& k = *nc.kubelet;
    if (k.max_pods && *k.max_pods < 0) c.Fail("spec.kubelet.maxPods", "must not be negative");
    if (c.ok() && k.pods_per_core && *k.pods_per_core < 0) c.Fail("spec.kubelet.podsPerCore", "must not be negative");
    for (const auto& [field, values] : {std::pair{"systemReserved", &k.system_reserved},
                                        std::pair{"kubeReserved", &k.kube_reserved}}) {
      for (const auto& [name, text] : *values) {
        if (c.ok()) CheckQuantityText(c, std::string("spec.kubelet.") + field + "[" + name + "]", text);
      }
    }
    for (const auto& [field, values] : {std::pair{"evictionHard", &k.eviction_hard},
                                        std::pair{"evictionSoft", &k.eviction_soft}}) {
      for (const auto& [signal, text] : *values) {
        core::Result<EvictionThreshold> t = ParseEvictionThreshold(text);
        if (c.ok() && !t.ok()) c.Fail(std::string("spec.kubelet.") + field + "[" + signal + "]", t.status().message());
      }
    }
    if (c.ok() && k.image_gc_high_threshold_percent && k.image_gc_low_threshold_percent &&
        *k.image_gc_high_threshold_percent <= *k.image_gc_low_threshold_percent) {
      c.Fail("spec.kubelet.imageGCHighThresholdPercent", "must be greater than imageGCLowThresholdPercent");
    }
  }
  return c.status();
}

core::Status ValidateInstanceTypeCatalog(const InstanceTypeCatalog& catalog) {
  Checker c;
  c.Merge(ValidateObjectMeta(catalog.metadata));
  static const std::vector<std::string> kCapacityTypes = {"spot", "on-demand", "reserved"};
  // No instance costs more than a few hundred dollars an hour; far larger figures are typos, and
  // they overflow the arithmetic of the cost bound.
  constexpr double kMaxPricePerHour = 1e6;
  auto check_price = [&](const std::string& path, const std::optional<double>& price) {
    if (!price) return;
    if (*price < 0) c.Fail(path, "must not be negative");
    else if (*price > kMaxPricePerHour) c.Fail(path, "must be at most 1000000 (USD per hour)");
  };
  auto check_offerings = [&](const std::string& path, const std::vector<CatalogOffering>& offerings) {
    for (size_t i = 0; i < offerings.size() && c.ok(); ++i) {
      std::string p = path + "[" + std::to_string(i) + "]";
      if (offerings[i].zone.empty()) c.Fail(p + ".zone", "is required");
      else if (!OneOf(offerings[i].capacity_type, kCapacityTypes)) {
        c.Fail(p + ".capacityType", "unsupported capacity type " + Quote(offerings[i].capacity_type) +
                                        " (must be one of " + Join(kCapacityTypes) + ")");
      } else {
        check_price(p + ".price", offerings[i].price);
      }
    }
  };
  check_offerings("spec.defaults.offerings", catalog.default_offerings);
  if (catalog.default_overhead) CheckOverhead(c, "spec.defaults.overhead", *catalog.default_overhead);
  std::set<std::string> names;
  for (size_t i = 0; i < catalog.instance_types.size() && c.ok(); ++i) {
    std::string p = "spec.instanceTypes[" + std::to_string(i) + "]";
    const CatalogInstanceType& t = catalog.instance_types[i];
    if (t.name.empty()) { c.Fail(p + ".name", "is required"); break; }
    if (!names.insert(t.name).second) { c.Fail(p + ".name", "duplicate instance type " + Quote(t.name)); break; }
    check_price(p + ".price", t.price);
    CheckNotNegative(c, p + ".capacity", t.capacity);
    if (t.overhead) CheckOverhead(c, p + ".overhead", *t.overhead);
    CheckLabels(c, p + ".labels", t.labels);
    for (size_t j = 0; j < t.requirements.size() && c.ok(); ++j) {
      const auto& r = t.requirements[j];
      std::string rp = p + ".requirements[" + std::to_string(j) + "]";
      if (r.key.empty()) c.Fail(rp + ".key", "is required");
      else if (!OneOf(r.op, kNodePoolOperators)) {
        c.Fail(rp + ".operator", "unsupported operator " + Quote(r.op) + " (must be one of " + Join(kNodePoolOperators) + ")");
      } else if (r.op == "In" && r.values.empty()) {
        c.Fail(rp + ".values", "operator In needs at least one value");
      }
    }
    if (t.offerings) check_offerings(p + ".offerings", *t.offerings);
  }
  return c.status();
}

core::Status ValidateLabelSelector(const LabelSelector& selector, const std::string& path) {
  Checker c;
  CheckLabels(c, path + ".matchLabels", selector.match_labels);
  for (size_t i = 0; i < selector.match_expressions.size() && c.ok(); ++i) {
    const auto& e = selector.match_expressions[i];
    std::string p = path + ".matchExpressions[" + std::to_string(i) + "]";
    if (!OneOf(e.op, kLabelSelectorOperators)) {
      c.Fail(p + ".operator", "unsupported operator " + Quote(e.op) + " (must be one of " +
                                  Join(kLabelSelectorOperators) + ")");
    } else if ((e.op == "In" || e.op == "NotIn") && e.values.empty()) {
      c.Fail(p + ".values", "operator " + e.op + " needs at least one value");
    } else if ((e.op == "Exists" || e.op == "DoesNotExist") && !e.values.empty()) {
      c.Fail(p + ".values", "must be empty when operator is " + e.op);
    }
  }
  return c.status();
}

core::Status ValidatePodSpec(const PodSpec& spec, const std::string& path) {
  Checker c;
  if (spec.affinity && spec.affinity->node_affinity) {
    const NodeAffinity& na = *spec.affinity->node_affinity;
    std::string ap = path + ".affinity.nodeAffinity";
    if (na.required) {
      CheckNodeSelectorTerms(c, ap + ".requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms",
                             na.required->node_selector_terms);
    }
    for (size_t i = 0; i < na.preferred.size() && c.ok(); ++i) {
      std::string p = ap + ".preferredDuringSchedulingIgnoredDuringExecution[" + std::to_string(i) + "]";
      if (na.preferred[i].weight < 1 || na.preferred[i].weight > 100) {
        c.Fail(p + ".weight", "must be between 1 and 100, got " + std::to_string(na.preferred[i].weight));
      }
      CheckNodeSelectorTerms(c, p + ".preference", {na.preferred[i].preference});
    }
  }
  for (const auto* pa : {spec.affinity ? &spec.affinity->pod_affinity : nullptr,
                         spec.affinity ? &spec.affinity->pod_anti_affinity : nullptr}) {
    if (pa == nullptr || !pa->has_value() || !c.ok()) continue;
    std::string ap = path + ".affinity." + (pa == &spec.affinity->pod_affinity ? "podAffinity" : "podAntiAffinity");
    for (size_t i = 0; i < (*pa)->required.size() && c.ok(); ++i) {
      std::string p = ap + ".requiredDuringSchedulingIgnoredDuringExecution[" + std::to_string(i) + "]";
      const PodAffinityTerm& t = (*pa)->required[i];
      if (t.topology_key.empty()) c.Fail(p + ".topologyKey", "is required");
      if (c.ok() && t.label_selector) c.Merge(ValidateLabelSelector(*t.label_selector, p + ".labelSelector"));
    }
    for (size_t i = 0; i < (*pa)->preferred.size() && c.ok(); ++i) {
      std::string p = ap + ".preferredDuringSchedulingIgnoredDuringExecution[" + std::to_string(i) + "]";
      const WeightedPodAffinityTerm& t = (*pa)->preferred[i];
      if (t.weight < 1 || t.weight > 100) c.Fail(p + ".weight", "must be between 1 and 100, got " + std::to_string(t.weight));
      if (c.ok() && t.term.topology_key.empty()) c.Fail(p + ".podAffinityTerm.topologyKey", "is required");
      if (c.ok() && t.term.label_selector) {
        c.Merge(ValidateLabelSelector(*t.term.label_selector, p + ".podAffinityTerm.labelSelector"));
      }
    }
  }
  for (size_t i = 0; i < spec.tolerations.size() && c.ok(); ++i) {
    const Toleration& t = spec.tolerations[i];
    std::string p = path + ".tolerations[" + std::to_string(i) + "]";
    if (!t.op.empty() && t.op != "Equal" && t.op != "Exists") {
      c.Fail(p + ".operator", "unsupported operator " + Quote(t.op) + " (must be Equal or Exists)");
    } else if (t.op == "Exists" && !t.value.empty()) {
      c.Fail(p + ".value", "must be empty when operator is Exists");
    } else if (!t.effect.empty() && !OneOf(t.effect, kTaintEffects)) {
      c.Fail(p + ".effect", "unsupported effect " + Quote(t.effect) + " (must be one of " + Join(kTaintEffects) + ")");
    } else if (t.key.empty() && t.op != "Exists") {
      c.Fail(p + ".operator", "must be Exists when key is empty");
    }
  }
  for (size_t i = 0; i < spec.topology_spread_constraints.size() && c.ok(); ++i) {
    const auto& t = spec.topology_spread_constraints[i];
    std::string p = path + ".topologySpreadConstraints[" + std::to_string(i) + "]";
    if (t.max_skew < 1) c.Fail(p + ".maxSkew", "must be at least 1");
    else if (t.topology_key.empty()) c.Fail(p + ".topologyKey", "is required");
    else if (t.when_unsatisfiable != "DoNotSchedule" && t.when_unsatisfiable != "ScheduleAnyway") {
      c.Fail(p + ".whenUnsatisfiable", "must be DoNotSchedule or ScheduleAnyway");
    } else if (t.min_domains && *t.min_domains < 1) {
      c.Fail(p + ".minDomains", "must be greater than 0, got " + std::to_string(*t.min_domains));
    } else if (t.min_domains && t.when_unsatisfiable != "DoNotSchedule") {
      c.Fail(p + ".minDomains", "can only be set when whenUnsatisfiable is DoNotSchedule");
    } else if (t.label_selector) {
      c.Merge(ValidateLabelSelector(*t.label_selector, p + ".labelSelector"));
    }
  }
  auto check_containers = [&](const char* field, const std::vector<Container>& containers) {
    for (size_t i = 0; i < containers.size() && c.ok(); ++i) {
      std::string p = path + "." + field + "[" + std::to_string(i) + "].resources";
      CheckNotNegative(c, p + ".requests", containers[i].resources.requests);
      CheckNotNegative(c, p + ".limits", containers[i].resources.limits);
      // The API server's rule: a request may not exceed the limit of the same resource.
      for (const auto& [name, request] : containers[i].resources.requests.items()) {
        if (!c.ok() || !containers[i].resources.limits.Has(name)) continue;
        const Quantity limit = containers[i].resources.limits.Get(name);
        if (limit < request) {
          c.Fail(p + ".requests[" + name + "]",
                 "must be less than or equal to " + name + " limit of " + limit.String() + ", got " +
                     request.String());
        }
      }
    }
  };
  check_containers("initContainers", spec.init_containers);
  check_containers("containers", spec.containers);
  return c.status();
}

core::Status ValidateNode(const Node& node) {
  Checker c;
  c.Merge(ValidateObjectMeta(node.metadata));
  if (c.ok()) CheckTaints(c, "spec.taints", node.spec.taints);
  CheckNotNegative(c, "status.capacity", node.status.capacity);
  CheckNotNegative(c, "status.allocatable", node.status.allocatable);
  return c.status();
}

}  // namespace nodesmith::api
