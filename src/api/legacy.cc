#include "api/legacy.h"

#include <nlohmann/json.hpp>

#include "api/ami_family.h"
#include "api/decode_util.h"
#include "api/manifest.h"

namespace nodesmith::api {
namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kDoNotDisrupt = "karpenter.sh/do-not-disrupt";
constexpr const char* kNodeClassGroup = "karpenter.k8s.aws";
constexpr const char* kNodeClassKind = "EC2NodeClass";

// A conversion failure: the path inside the legacy document and why.
struct ConvertError {
  std::string path;
  std::string message;
};

// The label keys that were renamed between versions.
std::string RenameLabelKey(const std::string& key) {
  if (key == "karpenter.sh/provisioner-name") return "karpenter.sh/nodepool";
  if (key == "node.k8s.aws/capacity-type") return "karpenter.sh/capacity-type";
  return key;
}

bool IsObject(const Json& j, const char* key) { return j.contains(key) && j[key].is_object(); }
bool IsArray(const Json& j, const char* key) { return j.contains(key) && j[key].is_array(); }

void RenameMapKeys(Json* map) {
  if (map == nullptr || !map->is_object()) return;
  Json out = Json::object();
  for (auto it = map->begin(); it != map->end(); ++it) out[RenameLabelKey(it.key())] = it.value();
  *map = std::move(out);
}

void RenameRequirementKeys(Json* reqs) {
  if (reqs == nullptr || !reqs->is_array()) return;
  for (Json& r : *reqs) {
    if (r.is_object() && r.contains("key") && r["key"].is_string()) {
      r["key"] = RenameLabelKey(r["key"].get<std::string>());
    }
  }
}

// do-not-evict (pods) and do-not-consolidate (nodes) became one annotation, do-not-disrupt.
void ConvertAnnotations(Json* annotations) {
  if (annotations == nullptr || !annotations->is_object()) return;
  bool protect = false;
  for (const char* key : {"karpenter.sh/do-not-evict", "karpenter.sh/do-not-consolidate"}) {
    if (annotations->contains(key)) {
      const Json& v = (*annotations)[key];
      if (v.is_string() && v.get<std::string>() == "true") protect = true;
      annotations->erase(key);
    }
  }
  if (protect && !annotations->contains(kDoNotDisrupt)) (*annotations)[kDoNotDisrupt] = "true";
}

Json* Child(Json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || j[key].is_null()) return nullptr;
  return &j[key];
}

void ConvertMetadata(Json& obj) {
  Json* meta = Child(obj, "metadata");
  if (meta == nullptr || !meta->is_object()) return;
  RenameMapKeys(Child(*meta, "labels"));
  ConvertAnnotations(Child(*meta, "annotations"));
}

// Label keys in a pod spec's node selector and node affinity.
void ConvertPodSpec(Json* spec) {
  if (spec == nullptr || !spec->is_object()) return;
  RenameMapKeys(Child(*spec, "nodeSelector"));
  Json* affinity = Child(*spec, "affinity");
  Json* node_affinity = affinity && affinity->is_object() ? Child(*affinity, "nodeAffinity") : nullptr;
  if (node_affinity == nullptr || !node_affinity->is_object()) return;
  if (Json* req = Child(*node_affinity, "requiredDuringSchedulingIgnoredDuringExecution");
      req && req->is_object()) {
    if (Json* terms = Child(*req, "nodeSelectorTerms"); terms && terms->is_array()) {
      for (Json& t : *terms) {
        if (t.is_object()) RenameRequirementKeys(Child(t, "matchExpressions"));
      }
    }
  }
  if (Json* pref = Child(*node_affinity, "preferredDuringSchedulingIgnoredDuringExecution");
      pref && pref->is_array()) {
    for (Json& p : *pref) {
      if (Json* term = p.is_object() ? Child(p, "preference") : nullptr; term && term->is_object()) {
        RenameRequirementKeys(Child(*term, "matchExpressions"));
      }
    }
  }
}

std::string Str(const Json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

// Seconds (an integer field of the legacy API) as a v1 duration string.
bool SecondsField(const Json& spec, const char* key, const std::string& path, std::string* out,
                  ConvertError* err) {
  const Json& v = spec[key];
  if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > 100LL * 365 * 86400) {
    *err = {path + "." + key, "expected a non-negative number of seconds, got " + v.dump()};
    return false;
  }
  *out = std::to_string(v.get<int64_t>()) + "s";
  return true;
}

// A legacy selector map ({"karpenter.sh/discovery": "x"} or {"aws-ids": "a,b"}) as v1 terms.
bool SelectorMapToTerms(const Json& map, const std::string& path, bool is_ami, Json* terms,
                        ConvertError* err) {
  *terms = Json::array();
  if (!map.is_object()) {
    *err = {path, "expected a mapping of tag keys to values"};
    return false;
  }
  Json tags = Json::object();
  std::vector<std::string> ids;
  std::string name, owners;
  for (auto it = map.begin(); it != map.end(); ++it) {
    if (!it->is_string()) {
      *err = {path + "[" + it.key() + "]", "expected a string, got " + it->dump()};
      return false;
    }
    std::string value = it->get<std::string>();
    if (it.key() == "aws-ids" || it.key() == "aws::ids") {
      size_t start = 0;
      while (start <= value.size()) {
        size_t comma = value.find(',', start);
        std::string id = value.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        id.erase(0, id.find_first_not_of(" \t"));
        id.erase(id.find_last_not_of(" \t") + 1);
        if (!id.empty()) ids.push_back(id);
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
    } else if (is_ami && (it.key() == "aws::name" || it.key() == "aws-name")) {
      name = value;
    } else if (is_ami && (it.key() == "aws::owners" || it.key() == "aws-owners")) {
      owners = value;
    } else {
      tags[it.key()] = value;
    }
  }
  for (const auto& id : ids) terms->push_back(Json{{"id", id}});
  std::vector<std::string> owner_list;
  for (size_t start = 0; !owners.empty() && start <= owners.size();) {
    size_t comma = owners.find(',', start);
    owner_list.push_back(owners.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (!tags.empty() || !name.empty()) {
    // v1alpha5 ANDed everything in one selector; owners fan out into one term each, as v1 ORs terms.
    if (owner_list.empty()) owner_list.push_back("");
    for (const auto& owner : owner_list) {
      Json term = Json::object();
      if (!tags.empty()) term["tags"] = tags;
      if (!name.empty()) term["name"] = name;
      if (!owner.empty()) term["owner"] = owner;
      terms->push_back(std::move(term));
    }
  }
  if (terms->empty()) {
    *err = {path, "selects nothing (no tags and no aws-ids)"};
    return false;
  }
  return true;
}

struct Converter {
  std::vector<std::string>* warnings;
  std::string source;  // description for warnings

  void Warn(const std::string& msg) { warnings->push_back(source + ": " + msg); }

  // The AMI part of a node class from a legacy amiFamily (+ optional legacy amiSelector map or
  // v1beta1 amiSelectorTerms already present in `out`).
  bool Ami(const Json& legacy, const std::string& path, bool selector_is_map, Json& out, ConvertError* err) {
    std::string family = Str(legacy, "amiFamily");
    if (family.empty()) family = "AL2";  // the v1alpha5 / v1beta1 default
    if (family == "Ubuntu") {
      *err = {path + ".amiFamily",
              "amiFamily Ubuntu is not supported by karpenter.k8s.aws/v1; choose AMIs with "
              "amiSelectorTerms and amiFamily AL2 or Custom"};
      return false;
    }
    bool has_selector = selector_is_map ? legacy.contains("amiSelector") && !legacy["amiSelector"].is_null()
                                        : IsArray(legacy, "amiSelectorTerms") && !legacy["amiSelectorTerms"].empty();
    if (has_selector) {
      if (selector_is_map) {
        Json terms;
        if (!SelectorMapToTerms(legacy["amiSelector"], path + ".amiSelector", true, &terms, err)) return false;
        out["amiSelectorTerms"] = std::move(terms);
      } else {
        out["amiSelectorTerms"] = legacy["amiSelectorTerms"];
      }
      out["amiFamily"] = family;
      return true;
    }
    std::string alias = LatestAliasOfAmiFamily(family);
    if (alias.empty()) {
      *err = {path + ".amiFamily", "amiFamily " + family + " needs AMIs selected with " +
                                       (selector_is_map ? "amiSelector" : "amiSelectorTerms")};
      return false;
    }
    out["amiSelectorTerms"] = Json::array({Json{{"alias", alias}}});
    return true;
  }

  // Fields that kept their meaning from AWSNodeTemplate / inline provider / v1beta1 to v1.
  void CopyCommonNodeClassFields(const Json& legacy, Json& out) {
    for (const char* key : {"role", "instanceProfile", "userData", "tags", "metadataOptions", "blockDeviceMappings",
                            "detailedMonitoring", "associatePublicIPAddress", "context", "instanceStorePolicy",
                            "kubelet", "capacityReservationSelectorTerms"}) {
      if (legacy.contains(key) && !legacy[key].is_null()) out[key] = legacy[key];
    }
  }

  void NeedsRole(Json& spec) {
    if (!spec.contains("role") && !spec.contains("instanceProfile")) {
      spec["role"] = "KarpenterNodeRole";
      Warn("spec.role set to \"KarpenterNodeRole\": the legacy object took its instance profile from "
           "Karpenter's global settings; put your node role here");
    }
  }

  // AWSNodeTemplate spec or a Provisioner's inline provider -> EC2NodeClass spec.
  bool NodeClassFromV1alpha(const Json& legacy, const std::string& path, Json* spec, ConvertError* err) {
    *spec = Json::object();
    for (const char* key : {"launchTemplate", "launchTemplateName"}) {
      if (legacy.contains(key)) {
        *err = {path + "." + key, "launch templates are not supported by karpenter.k8s.aws/v1; "
                                  "express the settings in the EC2NodeClass"};
        return false;
      }
    }
    if (!Ami(legacy, path, true, *spec, err)) return false;
    for (const char* key : {"subnetSelector", "securityGroupSelector"}) {
      std::string terms_key = std::string(key) + "Terms";
      if (!legacy.contains(key) || legacy[key].is_null()) {
        // Before selectors existed (v0.4), subnets and security groups were discovered by the
        // cluster's ownership tag.
        std::string cluster = IsObject(legacy, "cluster") ? Str(legacy["cluster"], "name") : "";
        if (cluster.empty()) {
          *err = {path + "." + key, "is required to build " + terms_key};
          return false;
        }
        (*spec)[terms_key] = Json::array({Json{{"tags", {{"kubernetes.io/cluster/" + cluster, "*"}}}}});
        Warn(path + "." + key + " absent: selecting by the tag kubernetes.io/cluster/" + cluster);
        continue;
      }
      Json terms;
      if (!SelectorMapToTerms(legacy[key], path + "." + key, false, &terms, err)) return false;
      (*spec)[terms_key] = std::move(terms);
    }
    CopyCommonNodeClassFields(legacy, *spec);
    for (const char* ignored : {"cluster", "securityGroups", "subnets", "amiSelector"}) {
      if (std::string(ignored) != "amiSelector" && legacy.contains(ignored)) {
        Warn(path + "." + ignored + " has no v1 equivalent; ignored");
      }
    }
    NeedsRole(*spec);
    return true;
  }

  static Json Meta(const Json& doc) {
    Json meta = doc.contains("metadata") && doc["metadata"].is_object() ? doc["metadata"] : Json::object();
    meta.erase("namespace");  // Karpenter's kinds are cluster-scoped
    meta.erase("resourceVersion");
    meta.erase("managedFields");
    return meta;
  }

  // Provisioner -> NodePool (+ EC2NodeClass). `kubelet` receives spec.kubeletConfiguration.
  bool Provisioner(const Json& doc, std::vector<Json>* out, Json* kubelet, ConvertError* err) {
    const Json spec = doc.contains("spec") && doc["spec"].is_object() ? doc["spec"] : Json::object();
    std::string name = Str(doc.value("metadata", Json::object()), "name");
    Json tmeta = Json::object();
    if (spec.contains("labels")) tmeta["labels"] = spec["labels"];
    if (spec.contains("annotations")) tmeta["annotations"] = spec["annotations"];
    RenameMapKeys(Child(tmeta, "labels"));
    ConvertAnnotations(Child(tmeta, "annotations"));

    Json tspec = Json::object();
    // Requirements are rewritten here, before the v1 decoder sees them, so their type is checked
    // here too: dropping a malformed list would widen what the NodePool may launch.
    if (spec.contains("requirements") && !spec["requirements"].is_null() && !spec["requirements"].is_array()) {
      *err = {"spec.requirements", "expected a list, got " + DescribeJson(spec["requirements"])};
      return false;
    }
    Json reqs = IsArray(spec, "requirements") ? spec["requirements"] : Json::array();
    RenameRequirementKeys(&reqs);
    // The v1alpha5 AWS defaulting webhook added these to every stored Provisioner.
    auto has_key = [&](const std::string& key) {
      for (const Json& r : reqs) {
        if (Str(r, "key") == key) return true;
      }
      return false;
    };
    if (!has_key("karpenter.sh/capacity-type")) {
      reqs.push_back(Json{{"key", "karpenter.sh/capacity-type"}, {"operator", "In"}, {"values", {"on-demand"}}});
    }
    if (!has_key("kubernetes.io/arch")) {
      reqs.push_back(Json{{"key", "kubernetes.io/arch"}, {"operator", "In"}, {"values", {"amd64"}}});
    }
    std::string class_name = name;
    if (IsObject(spec, "providerRef")) {
      class_name = Str(spec["providerRef"], "name");
      if (class_name.empty()) {
        *err = {"spec.providerRef.name", "is required"};
        return false;
      }
    } else if (!IsObject(spec, "provider")) {
      class_name = "default";
      Warn("no providerRef or provider; the NodePool refers to EC2NodeClass \"default\"");
    }
    tspec["nodeClassRef"] = Json{{"group", kNodeClassGroup}, {"kind", kNodeClassKind}, {"name", class_name}};
    tspec["requirements"] = std::move(reqs);
    if (spec.contains("taints")) tspec["taints"] = spec["taints"];
    if (spec.contains("startupTaints")) tspec["startupTaints"] = spec["startupTaints"];
    std::string expire = "Never";  // v1alpha5 nodes never expired unless ttlSecondsUntilExpired was set
    if (spec.contains("ttlSecondsUntilExpired") &&
        !SecondsField(spec, "ttlSecondsUntilExpired", "spec", &expire, err)) {
      return false;
    }
    tspec["expireAfter"] = expire;

    Json disruption = Json::object();
    bool consolidation = false;
    if (IsObject(spec, "consolidation") && spec["consolidation"].contains("enabled")) {
      const Json& enabled = spec["consolidation"]["enabled"];
      // null is how kubectl prints a field nobody set: the default, false.
      if (!enabled.is_null() && !enabled.is_boolean()) {
        *err = {"spec.consolidation.enabled", "expected true or false, got " + DescribeJson(enabled)};
        return false;
      }
      consolidation = enabled.is_boolean() && enabled.get<bool>();
    }
    if (consolidation) {
      disruption["consolidationPolicy"] = "WhenEmptyOrUnderutilized";
      disruption["consolidateAfter"] = "0s";
    } else if (spec.contains("ttlSecondsAfterEmpty")) {
      std::string after;
      if (!SecondsField(spec, "ttlSecondsAfterEmpty", "spec", &after, err)) return false;
      disruption["consolidationPolicy"] = "WhenEmpty";
      disruption["consolidateAfter"] = after;
    } else {
      // Neither consolidation nor ttlSecondsAfterEmpty: v1alpha5 removed no nodes for cost.
      disruption["consolidationPolicy"] = "WhenEmpty";
      disruption["consolidateAfter"] = "Never";
    }

    Json pool = Json::object();
    pool["apiVersion"] = "karpenter.sh/v1";
    pool["kind"] = "NodePool";
    pool["metadata"] = Meta(doc);
    Json pspec = Json::object();
    Json tmpl = Json::object();
    if (!tmeta.empty()) tmpl["metadata"] = std::move(tmeta);
    tmpl["spec"] = std::move(tspec);
    pspec["template"] = std::move(tmpl);
    pspec["disruption"] = std::move(disruption);
    if (IsObject(spec, "limits") && spec["limits"].contains("resources")) pspec["limits"] = spec["limits"]["resources"];
    if (spec.contains("weight")) pspec["weight"] = spec["weight"];
    pool["spec"] = std::move(pspec);
    if (spec.contains("kubeletConfiguration")) *kubelet = spec["kubeletConfiguration"];
    out->push_back(std::move(pool));

    if (IsObject(spec, "provider")) {
      if (IsObject(spec, "providerRef")) {
        *err = {"spec.provider", "provider and providerRef are mutually exclusive"};
        return false;
      }
      Json ncspec;
      if (!NodeClassFromV1alpha(spec["provider"], "spec.provider", &ncspec, err)) return false;
      Json nc = Json::object();
      nc["apiVersion"] = "karpenter.k8s.aws/v1";
      nc["kind"] = kNodeClassKind;
      nc["metadata"] = Json{{"name", name}};
      nc["spec"] = std::move(ncspec);
      out->push_back(std::move(nc));
    }
    return true;
  }

  bool AwsNodeTemplate(const Json& doc, Json* out, ConvertError* err) {
    Json spec;
    const Json legacy = doc.contains("spec") && doc["spec"].is_object() ? doc["spec"] : Json::object();
    if (!NodeClassFromV1alpha(legacy, "spec", &spec, err)) return false;
    *out = Json{{"apiVersion", "karpenter.k8s.aws/v1"}, {"kind", kNodeClassKind}, {"metadata", Meta(doc)},
                {"spec", std::move(spec)}};
    return true;
  }

  bool V1beta1NodeClass(const Json& doc, Json* out, ConvertError* err) {
    const Json legacy = doc.contains("spec") && doc["spec"].is_object() ? doc["spec"] : Json::object();
    Json spec = Json::object();
    if (!Ami(legacy, "spec", false, spec, err)) return false;
    for (const char* key : {"subnetSelectorTerms", "securityGroupSelectorTerms"}) {
      if (legacy.contains(key)) spec[key] = legacy[key];
    }
    CopyCommonNodeClassFields(legacy, spec);
    NeedsRole(spec);
    *out = Json{{"apiVersion", "karpenter.k8s.aws/v1"}, {"kind", kNodeClassKind}, {"metadata", Meta(doc)},
                {"spec", std::move(spec)}};
    return true;
  }

  static Json NodeClassRef(const Json& ref) {
    std::string name = Str(ref, "name");
    std::string kind = Str(ref, "kind");
    return Json{{"group", kNodeClassGroup}, {"kind", kind.empty() ? kNodeClassKind : kind}, {"name", name}};
  }

  bool V1beta1NodePool(const Json& doc, Json* out, Json* kubelet, ConvertError*) {
    Json pool = doc;
    pool["apiVersion"] = "karpenter.sh/v1";
    pool["metadata"] = Meta(doc);
    Json& spec = pool["spec"];
    if (!spec.is_object()) spec = Json::object();
    Json& tmpl = spec["template"];
    if (!tmpl.is_object()) tmpl = Json::object();
    if (IsObject(tmpl, "metadata")) {
      RenameMapKeys(Child(tmpl["metadata"], "labels"));
      ConvertAnnotations(Child(tmpl["metadata"], "annotations"));
    }
    Json& tspec = tmpl["spec"];
    if (!tspec.is_object()) tspec = Json::object();
    if (IsObject(tspec, "nodeClassRef")) tspec["nodeClassRef"] = NodeClassRef(tspec["nodeClassRef"]);
    RenameRequirementKeys(Child(tspec, "requirements"));
    if (tspec.contains("kubelet")) {
      *kubelet = tspec["kubelet"];
      tspec.erase("kubelet");
    }
    if (IsObject(spec, "disruption")) {
      Json& d = spec["disruption"];
      if (d.contains("expireAfter")) {
        tspec["expireAfter"] = d["expireAfter"];
        d.erase("expireAfter");
      }
      if (Str(d, "consolidationPolicy") == "WhenUnderutilized") {
        d["consolidationPolicy"] = "WhenEmptyOrUnderutilized";
        if (!d.contains("consolidateAfter")) d["consolidateAfter"] = "0s";
      }
    }
    *out = std::move(pool);
    return true;
  }

  bool NodeClaimFrom(const Json& doc, bool machine, Json* out, ConvertError*) {
    Json claim = doc;
    claim["apiVersion"] = "karpenter.sh/v1";
    claim["kind"] = "NodeClaim";
    claim["metadata"] = Meta(doc);
    ConvertMetadata(claim);
    Json& spec = claim["spec"];
    if (!spec.is_object()) spec = Json::object();
    if (machine && IsObject(spec, "machineTemplateRef")) {
      spec["nodeClassRef"] = NodeClassRef(spec["machineTemplateRef"]);
      spec.erase("machineTemplateRef");
    } else if (IsObject(spec, "nodeClassRef")) {
      spec["nodeClassRef"] = NodeClassRef(spec["nodeClassRef"]);
    }
    RenameRequirementKeys(Child(spec, "requirements"));
    spec.erase("kubelet");
    spec.erase("kubeletConfiguration");
    if (machine && IsObject(claim, "status") && IsArray(claim["status"], "conditions")) {
      for (Json& c : claim["status"]["conditions"]) {
        std::string type = Str(c, "type");
        if (type.rfind("Machine", 0) == 0) c["type"] = type.substr(7);  // MachineLaunched -> Launched
      }
    }
    *out = std::move(claim);
    return true;
  }
};

std::string GroupOf(const std::string& api_version) {
  size_t slash = api_version.find('/');
  return slash == std::string::npos ? "" : api_version.substr(0, slash);
}

struct PendingKubelet {
  size_t pool_index;
  Json kubelet;
};

// Moves kubelet settings from converted NodePools to the EC2NodeClass each refers to.
void PlaceKubelets(std::vector<Sourced<Json>>* docs, const std::vector<PendingKubelet>& pending,
                   std::vector<std::string>* warnings) {
  for (const PendingKubelet& p : pending) {
    Json& pool = (*docs)[p.pool_index].object;
    Json& ref = pool["spec"]["template"]["spec"]["nodeClassRef"];
    std::string class_name = Str(ref, "name");
    std::string pool_name = Str(pool["metadata"], "name");
    Sourced<Json>* node_class = nullptr;
    for (auto& d : *docs) {
      if (Str(d.object, "kind") == kNodeClassKind && Str(d.object["metadata"], "name") == class_name) node_class = &d;
    }
    if (node_class == nullptr) {
      warnings->push_back(DescribeSource((*docs)[p.pool_index].source) + ": kubelet settings were not kept: "
                          "EC2NodeClass \"" + class_name + "\" is not among the inputs");
      continue;
    }
    Json& spec = node_class->object["spec"];
    if (!spec.contains("kubelet")) {
      spec["kubelet"] = p.kubelet;
    } else if (spec["kubelet"] != p.kubelet) {
      Sourced<Json> copy = *node_class;
      std::string copy_name = class_name + "-" + pool_name;
      copy.object["metadata"]["name"] = copy_name;
      copy.object["spec"]["kubelet"] = p.kubelet;
      ref["name"] = copy_name;
      warnings->push_back(DescribeSource((*docs)[p.pool_index].source) + ": kubelet settings differ from another "
                          "pool's on EC2NodeClass \"" + class_name + "\"; created EC2NodeClass \"" + copy_name + "\"");
      docs->push_back(std::move(copy));
    }
  }
}

}  // namespace

bool IsLegacyKind(const std::string& api_version, const std::string& kind) {
  if (api_version == "karpenter.sh/v1alpha5") return kind == "Provisioner" || kind == "Machine";
  if (api_version == "karpenter.k8s.aws/v1alpha1") return kind == "AWSNodeTemplate";
  if (api_version == "karpenter.sh/v1beta1") return kind == "NodePool" || kind == "NodeClaim";
  if (api_version == "karpenter.k8s.aws/v1beta1") return kind == "EC2NodeClass";
  return false;
}

core::Status ConvertLegacyDocuments(std::vector<Sourced<Json>>* docs, std::vector<std::string>* warnings) {
  std::vector<Sourced<Json>> out;
  out.reserve(docs->size());
  std::vector<PendingKubelet> pending;
  for (Sourced<Json>& d : *docs) {
    Json& doc = d.object;
    if (!doc.is_object()) {
      out.push_back(std::move(d));
      continue;
    }
    std::string api_version = Str(doc, "apiVersion");
    std::string kind = Str(doc, "kind");
    Converter conv{warnings, DescribeSource(d.source)};
    ConvertError err;
    bool ok = true;
    if (!IsLegacyKind(api_version, kind)) {
      // Current kinds keep their shape; only renamed labels and annotations change.
      if (GroupOf(api_version).empty() || GroupOf(api_version) == "apps" || GroupOf(api_version) == "batch" ||
          kind == "NodeClaim" || kind == "NodePool") {
        ConvertMetadata(doc);
        if (kind == "Pod") {
          ConvertPodSpec(Child(doc, "spec"));
        } else if (Json* spec = Child(doc, "spec"); spec && spec->is_object()) {
          Json* jt = kind == "CronJob" ? nullptr : Child(*spec, "template");
          if (jt && jt->is_object()) {
            ConvertMetadata(*jt);
            ConvertPodSpec(Child(*jt, "spec"));
          }
        }
      }
      out.push_back(std::move(d));
      continue;
    }
    std::vector<Json> converted;
    Json kubelet;
    if (kind == "Provisioner") {
      ok = conv.Provisioner(doc, &converted, &kubelet, &err);
    } else if (kind == "AWSNodeTemplate") {
      converted.emplace_back();
      ok = conv.AwsNodeTemplate(doc, &converted.back(), &err);
    } else if (kind == "EC2NodeClass") {
      converted.emplace_back();
      ok = conv.V1beta1NodeClass(doc, &converted.back(), &err);
    } else if (kind == "NodePool") {
      converted.emplace_back();
      ok = conv.V1beta1NodePool(doc, &converted.back(), &kubelet, &err);
    } else {  // NodeClaim (v1beta1) or Machine (v1alpha5)
      converted.emplace_back();
      ok = conv.NodeClaimFrom(doc, kind == "Machine", &converted.back(), &err);
    }
    if (!ok) {
      return core::Status::Invalid(DescribeSource(d.source) + ": " + (err.path.empty() ? "" : err.path + ": ") +
                                   err.message);
    }
    for (size_t i = 0; i < converted.size(); ++i) {
      // The source keeps the legacy kind and name: they are what the user finds in the file.
      Sourced<Json> s{std::move(converted[i]), d.source};
      if (i == 0 && !kubelet.is_null()) pending.push_back({out.size(), kubelet});
      out.push_back(std::move(s));
    }
  }
  *docs = std::move(out);
  PlaceKubelets(docs, pending, warnings);
  return core::Status::Ok();
}

}  // namespace nodesmith::api
