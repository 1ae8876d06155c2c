// Decoders and encoders for Karpenter's kinds (karpenter.sh/v1 NodePool and NodeClaim,
// karpenter.k8s.aws/v1 EC2NodeClass) and nodesmith's InstanceTypeCatalog.
#include <regex>

#include "api/ami_family.h"
#include "api/codec.h"
#include "api/codec_common.h"

namespace nodesmith::api {
namespace {

// The CRDs constrain duration text more tightly than Go's parser: whole units only.
constexpr const char* kDurationPattern = "^(([0-9]+(s|m|h))+|Never)$";
constexpr const char* kGracePattern = "^([0-9]+(s|m|h))+$";
constexpr const char* kBudgetDurationPattern = "^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$";

bool MatchesPattern(const Reader& r, const char* key, const char* pattern) {
  const JsonView v = r.ok() ? r.Get(key) : JsonView();
  if (!v.is_string()) return true;  // the typed read reports wrong types
  const std::string s(v.GetString());
  if (s.size() <= 64 && std::regex_search(s, std::regex(pattern))) return true;
  r.Fail(r.PathOf(key), "\"" + (s.size() > 64 ? s.substr(0, 64) + "..." : s) +
                            "\" is not a valid duration (must match " + pattern + ")");
  return false;
}

void NillableDurationField(const Reader& r, const char* key, core::NillableDuration* out) {
  if (MatchesPattern(r, key, kDurationPattern)) r.NillableDuration(key, out);
}

void DurationField(const Reader& r, const char* key, const char* pattern,
                   std::optional<core::Duration>* out) {
  if (MatchesPattern(r, key, pattern)) r.Duration(key, out);
}

void DecodeNodeClassRef(const Reader& r, NodeClassReference* ref) {
  r.Object("nodeClassRef", [&](const Reader& n) {
    n.Str("group", &ref->group);
    n.Str("kind", &ref->kind);
    n.Str("name", &ref->name);
  });
}

Json EncodeNodeClassRef(const NodeClassReference& ref) {
  return Json{{"group", ref.group}, {"kind", ref.kind}, {"name", ref.name}};
}

void DecodeBudget(const Reader& r, Budget* b) {
  // The CRD types nodes as a string; a bare number ("nodes: 5") is taken as its text.
  if (const JsonView v = r.Get("nodes"); v.is_integer()) {
    b->nodes = v.Dump();
  } else {
    r.Str("nodes", &b->nodes);
  }
  r.Str("schedule", &b->schedule);
  DurationField(r, "duration", kBudgetDurationPattern, &b->duration);
  r.StrList("reasons", &b->reasons);
}

Json EncodeBudget(const Budget& b) {
  Json j = Json::object();
  j["nodes"] = b.nodes;
  if (b.schedule) j["schedule"] = *b.schedule;
  if (b.duration) j["duration"] = core::FormatDuration(*b.duration);
  PutList(j, "reasons", b.reasons);
  return j;
}

void DecodeSelectorTerm(const Reader& r, SelectorTerm* t) {
  r.StrMap("tags", &t->tags);
  r.Str("id", &t->id);
  r.Str("name", &t->name);
  r.Str("owner", &t->owner);
  r.Str("alias", &t->alias);
  r.Str("ssmParameter", &t->ssm_parameter);
}

Json EncodeSelectorTerm(const SelectorTerm& t) {
  Json j = Json::object();
  PutStr(j, "alias", t.alias);
  PutMap(j, "tags", t.tags);
  PutStr(j, "id", t.id);
  PutStr(j, "name", t.name);
  PutStr(j, "owner", t.owner);
  PutStr(j, "ssmParameter", t.ssm_parameter);
  return j;
}

void DecodeKubelet(const Reader& r, KubeletConfiguration* k) {
  r.Int("maxPods", &k->max_pods);
  r.Int("podsPerCore", &k->pods_per_core);
  r.StrMap("systemReserved", &k->system_reserved);
  r.StrMap("kubeReserved", &k->kube_reserved);
  r.StrMap("evictionHard", &k->eviction_hard);
  r.StrMap("evictionSoft", &k->eviction_soft);
  r.StrList("clusterDNS", &k->cluster_dns);
  r.Bool("cpuCFSQuota", &k->cpu_cfs_quota);
  r.Int("imageGCHighThresholdPercent", &k->image_gc_high_threshold_percent);
  r.Int("imageGCLowThresholdPercent", &k->image_gc_low_threshold_percent);
}

Json EncodeKubelet(const KubeletConfiguration& k) {
  Json j = Json::object();
  if (k.max_pods) j["maxPods"] = *k.max_pods;
  if (k.pods_per_core) j["podsPerCore"] = *k.pods_per_core;
  PutMap(j, "systemReserved", k.system_reserved);
  PutMap(j, "kubeReserved", k.kube_reserved);
  PutMap(j, "evictionHard", k.eviction_hard);
  PutMap(j, "evictionSoft", k.eviction_soft);
  PutList(j, "clusterDNS", k.cluster_dns);
  if (k.cpu_cfs_quota) j["cpuCFSQuota"] = *k.cpu_cfs_quota;
  if (k.image_gc_high_threshold_percent) j["imageGCHighThresholdPercent"] = *k.image_gc_high_threshold_percent;
  if (k.image_gc_low_threshold_percent) j["imageGCLowThresholdPercent"] = *k.image_gc_low_threshold_percent;
  return j;
}

void DecodeBlockDeviceMapping(const Reader& r, BlockDeviceMapping* m) {
  r.Str("deviceName", &m->device_name);
  r.Bool("rootVolume", &m->root_volume);
  r.Object("ebs", [&](const Reader& e) {
    // Sizes are quantities; a bare number of bytes is accepted as its text.
    if (const JsonView v = e.Get("volumeSize"); v.is_integer()) {
      m->ebs.volume_size = v.Dump();
    } else {
      e.Str("volumeSize", &m->ebs.volume_size);
    }
    e.Str("volumeType", &m->ebs.volume_type);
    e.Int("iops", &m->ebs.iops);
    e.Int("throughput", &m->ebs.throughput);
    e.Bool("encrypted", &m->ebs.encrypted);
    e.Bool("deleteOnTermination", &m->ebs.delete_on_termination);
    e.Str("kmsKeyID", &m->ebs.kms_key_id);
    e.Str("snapshotID", &m->ebs.snapshot_id);
  });
}

Json EncodeBlockDeviceMapping(const BlockDeviceMapping& m) {
  Json j = Json::object();
  PutStr(j, "deviceName", m.device_name);
  Json e = Json::object();
  if (m.ebs.volume_size) e["volumeSize"] = *m.ebs.volume_size;
  PutStr(e, "volumeType", m.ebs.volume_type);
  if (m.ebs.iops) e["iops"] = *m.ebs.iops;
  if (m.ebs.throughput) e["throughput"] = *m.ebs.throughput;
  if (m.ebs.encrypted) e["encrypted"] = *m.ebs.encrypted;
  if (m.ebs.delete_on_termination) e["deleteOnTermination"] = *m.ebs.delete_on_termination;
  PutStr(e, "kmsKeyID", m.ebs.kms_key_id);
  PutStr(e, "snapshotID", m.ebs.snapshot_id);
  j["ebs"] = std::move(e);
  if (m.root_volume) j["rootVolume"] = true;
  return j;
}

std::string AliasFamily(const EC2NodeClass& v) {
  for (const auto& t : v.ami_selector_terms) {
    if (!t.alias.empty()) return AmiFamilyOfAlias(t.alias);
  }
  return "";
}

void DecodeOverhead(const Reader& r, CatalogOverhead* o) {
  r.Resources("kubeReserved", &o->kube_reserved);
  r.Resources("systemReserved", &o->system_reserved);
  r.Resources("evictionThreshold", &o->eviction_threshold);
}

Json EncodeOverhead(const CatalogOverhead& o) {
  return Json{{"kubeReserved", ResourcesToJson(o.kube_reserved)},
              {"systemReserved", ResourcesToJson(o.system_reserved)},
              {"evictionThreshold", ResourcesToJson(o.eviction_threshold)}};
}

void DecodeOffering(const Reader& r, CatalogOffering* o) {
  r.Str("zone", &o->zone);
  r.Str("capacityType", &o->capacity_type);
  r.Double("price", &o->price);
  r.Bool("available", &o->available);
}

Json EncodeOffering(const CatalogOffering& o) {
  Json j = Json::object();
  j["zone"] = o.zone;
  j["capacityType"] = o.capacity_type;
  if (o.price) j["price"] = *o.price;
  j["available"] = o.available;
  return j;
}

}  // namespace

core::Status DecodeNodePool(const JsonView& doc, NodePool* out) {
  return DecodeDocument(doc, [&](const Reader& r) {
    DecodeMeta(r, &out->metadata);
    r.Object("spec", [&](const Reader& s) {
      s.Object("template", [&](const Reader& t) {
        t.Object("metadata", [&](const Reader& m) {
          m.StrMap("labels", &out->template_.labels);
          m.StrMap("annotations", &out->template_.annotations);
        });
        t.Object("spec", [&](const Reader& ts) {
          NodeClaimTemplateSpec& spec = out->template_.spec;
          ts.List("taints", &spec.taints, DecodeTaint);
          ts.List("startupTaints", &spec.startup_taints, DecodeTaint);
          ts.List("requirements", &spec.requirements, DecodeNodeSelectorRequirement);
          DecodeNodeClassRef(ts, &spec.node_class_ref);
          NillableDurationField(ts, "expireAfter", &spec.expire_after);
          DurationField(ts, "terminationGracePeriod", kGracePattern, &spec.termination_grace_period);
        });
      });
      s.Object("disruption", [&](const Reader& d) {
        d.Str("consolidationPolicy", &out->disruption.consolidation_policy);
        NillableDurationField(d, "consolidateAfter", &out->disruption.consolidate_after);
        d.List("budgets", &out->disruption.budgets, DecodeBudget);
      });
      s.Resources("limits", &out->limits);
      s.Int("weight", &out->weight);
    });
    r.Object("status", [&](const Reader& st) {
      st.Resources("resources", &out->resources);
      st.Int64("nodes", &out->nodes);
      DecodeConditions(st, "conditions", &out->conditions);
    });
  });
}

Json EncodeNodePool(const NodePool& v) {
  Json j = Head("karpenter.sh/v1", "NodePool");
  j["metadata"] = EncodeMeta(v.metadata);
  const NodeClaimTemplateSpec& ts = v.template_.spec;
  Json tspec = Json::object();
  tspec["nodeClassRef"] = EncodeNodeClassRef(ts.node_class_ref);
  tspec["requirements"] = ListOf(ts.requirements, EncodeNodeSelectorRequirement);
  if (!ts.taints.empty()) tspec["taints"] = ListOf(ts.taints, EncodeTaint);
  if (!ts.startup_taints.empty()) tspec["startupTaints"] = ListOf(ts.startup_taints, EncodeTaint);
  tspec["expireAfter"] = core::FormatNillableDuration(ts.expire_after);
  if (ts.termination_grace_period) {
    tspec["terminationGracePeriod"] = core::FormatDuration(*ts.termination_grace_period);
  }
  Json tmpl = Json::object();
  Json tmeta = Json::object();
  PutMap(tmeta, "labels", v.template_.labels);
  PutMap(tmeta, "annotations", v.template_.annotations);
  if (!tmeta.empty()) tmpl["metadata"] = std::move(tmeta);
  tmpl["spec"] = std::move(tspec);
  Json spec = Json::object();
  spec["template"] = std::move(tmpl);
  spec["disruption"] = Json{{"consolidationPolicy", v.disruption.consolidation_policy},
                            {"consolidateAfter", core::FormatNillableDuration(v.disruption.consolidate_after)},
                            {"budgets", ListOf(v.disruption.budgets, EncodeBudget)}};
  PutResources(spec, "limits", v.limits);
  if (v.weight) spec["weight"] = *v.weight;
  j["spec"] = std::move(spec);
  Json status = Json::object();
  PutResources(status, "resources", v.resources);
  if (v.nodes) status["nodes"] = *v.nodes;
  if (!v.conditions.empty()) status["conditions"] = EncodeConditions(v.conditions);
  if (!status.empty()) j["status"] = std::move(status);
  return j;
}

core::Status DecodeNodeClaim(const JsonView& doc, NodeClaim* out) {
  return DecodeDocument(doc, [&](const Reader& r) {
    DecodeMeta(r, &out->metadata);
    r.Object("spec", [&](const Reader& s) {
      NodeClaimSpec& spec = out->spec;
      s.List("taints", &spec.taints, DecodeTaint);
      s.List("startupTaints", &spec.startup_taints, DecodeTaint);
      s.List("requirements", &spec.requirements, DecodeNodeSelectorRequirement);
      s.Object("resources", [&](const Reader& res) { res.Resources("requests", &spec.resource_requests); });
      DecodeNodeClassRef(s, &spec.node_class_ref);
      NillableDurationField(s, "expireAfter", &spec.expire_after);
      DurationField(s, "terminationGracePeriod", kGracePattern, &spec.termination_grace_period);
    });
    r.Object("status", [&](const Reader& s) {
      NodeClaimStatus& st = out->status;
      s.Str("nodeName", &st.node_name);
      s.Str("providerID", &st.provider_id);
      s.Str("imageID", &st.image_id);
      s.Resources("capacity", &st.capacity);
      s.Resources("allocatable", &st.allocatable);
      DecodeConditions(s, "conditions", &st.conditions);
      s.Time("lastPodEventTime", &st.last_pod_event_time);
    });
  });
}

Json EncodeNodeClaim(const NodeClaim& v) {
  Json j = Head("karpenter.sh/v1", "NodeClaim");
  j["metadata"] = EncodeMeta(v.metadata);
  const NodeClaimSpec& s = v.spec;
  Json spec = Json::object();
  spec["nodeClassRef"] = EncodeNodeClassRef(s.node_class_ref);
  spec["requirements"] = ListOf(s.requirements, EncodeNodeSelectorRequirement);
  if (!s.resource_requests.empty()) spec["resources"] = Json{{"requests", ResourcesToJson(s.resource_requests)}};
  if (!s.taints.empty()) spec["taints"] = ListOf(s.taints, EncodeTaint);
  if (!s.startup_taints.empty()) spec["startupTaints"] = ListOf(s.startup_taints, EncodeTaint);
  spec["expireAfter"] = core::FormatNillableDuration(s.expire_after);
  if (s.termination_grace_period) spec["terminationGracePeriod"] = core::FormatDuration(*s.termination_grace_period);
  j["spec"] = std::move(spec);
  const NodeClaimStatus& st = v.status;
  Json status = Json::object();
  PutStr(status, "nodeName", st.node_name);
  PutStr(status, "providerID", st.provider_id);
  PutStr(status, "imageID", st.image_id);
  PutResources(status, "capacity", st.capacity);
  PutResources(status, "allocatable", st.allocatable);
  if (!st.conditions.empty()) status["conditions"] = EncodeConditions(st.conditions);
  PutTime(status, "lastPodEventTime", st.last_pod_event_time);
  if (!status.empty()) j["status"] = std::move(status);
  return j;
}

core::Status DecodeEC2NodeClass(const JsonView& doc, EC2NodeClass* out) {
  return DecodeDocument(doc, [&](const Reader& r) {
    DecodeMeta(r, &out->metadata);
    r.Object("spec", [&](const Reader& s) {
      s.Str("amiFamily", &out->ami_family);
      s.List("amiSelectorTerms", &out->ami_selector_terms, DecodeSelectorTerm);
      s.List("subnetSelectorTerms", &out->subnet_selector_terms, DecodeSelectorTerm);
      s.List("securityGroupSelectorTerms", &out->security_group_selector_terms, DecodeSelectorTerm);
      s.List("capacityReservationSelectorTerms", &out->capacity_reservation_selector_terms, DecodeSelectorTerm);
      s.Str("role", &out->role);
      s.Str("instanceProfile", &out->instance_profile);
      s.Str("userData", &out->user_data);
      s.StrMap("tags", &out->tags);
      s.Object("kubelet", [&](const Reader& k) { DecodeKubelet(k, &out->kubelet.emplace()); });
      s.List("blockDeviceMappings", &out->block_device_mappings, DecodeBlockDeviceMapping);
      s.Str("instanceStorePolicy", &out->instance_store_policy);
      s.Bool("detailedMonitoring", &out->detailed_monitoring);
      s.Bool("associatePublicIPAddress", &out->associate_public_ip_address);
      s.Object("metadataOptions", [&](const Reader& m) {
        MetadataOptions& mo = out->metadata_options;
        m.Str("httpEndpoint", &mo.http_endpoint);
        m.Str("httpProtocolIPv6", &mo.http_protocol_ipv6);
        m.Int("httpPutResponseHopLimit", &mo.http_put_response_hop_limit);
        m.Str("httpTokens", &mo.http_tokens);
      });
      s.Str("context", &out->context);
    });
    r.Object("status", [&](const Reader& st) {
      DecodeConditions(st, "conditions", &out->conditions);
      st.List("subnets", &out->status_subnets, [](const Reader& e, SubnetStatus* v) {
        e.Str("id", &v->id);
        e.Str("zone", &v->zone);
        e.Str("zoneID", &v->zone_id);
      });
      st.List("securityGroups", &out->status_security_groups,
              [](const Reader& e, SecurityGroupStatus* v) {
                e.Str("id", &v->id);
                e.Str("name", &v->name);
              });
      st.List("amis", &out->status_amis, [](const Reader& e, AMIStatus* v) {
        e.Str("id", &v->id);
        e.Str("name", &v->name);
        e.List("requirements", &v->requirements, DecodeNodeSelectorRequirement);
        e.Bool("deprecated", &v->deprecated);
      });
      st.Str("instanceProfile", &out->status_instance_profile);
    });
    if (out->ami_family.empty()) out->ami_family = AliasFamily(*out);
  });
}

Json EncodeEC2NodeClass(const EC2NodeClass& v) {
  Json j = Head("karpenter.k8s.aws/v1", "EC2NodeClass");
  j["metadata"] = EncodeMeta(v.metadata);
  Json spec = Json::object();
  // amiFamily is implied by an alias; it is written only when it says something more.
  if (!v.ami_family.empty() && v.ami_family != AliasFamily(v)) spec["amiFamily"] = v.ami_family;
  spec["amiSelectorTerms"] = ListOf(v.ami_selector_terms, EncodeSelectorTerm);
  spec["subnetSelectorTerms"] = ListOf(v.subnet_selector_terms, EncodeSelectorTerm);
  spec["securityGroupSelectorTerms"] = ListOf(v.security_group_selector_terms, EncodeSelectorTerm);
  if (!v.capacity_reservation_selector_terms.empty()) {
    spec["capacityReservationSelectorTerms"] = ListOf(v.capacity_reservation_selector_terms, EncodeSelectorTerm);
  }
  PutStr(spec, "role", v.role);
  PutStr(spec, "instanceProfile", v.instance_profile);
  if (v.user_data) spec["userData"] = *v.user_data;
  PutMap(spec, "tags", v.tags);
  if (v.kubelet) spec["kubelet"] = EncodeKubelet(*v.kubelet);
  if (!v.block_device_mappings.empty()) {
    spec["blockDeviceMappings"] = ListOf(v.block_device_mappings, EncodeBlockDeviceMapping);
  }
  PutStr(spec, "instanceStorePolicy", v.instance_store_policy);
  if (v.detailed_monitoring) spec["detailedMonitoring"] = *v.detailed_monitoring;
  if (v.associate_public_ip_address) spec["associatePublicIPAddress"] = *v.associate_public_ip_address;
  const MetadataOptions& mo = v.metadata_options;
  spec["metadataOptions"] = Json{{"httpEndpoint", mo.http_endpoint},
                                 {"httpProtocolIPv6", mo.http_protocol_ipv6},
                                 {"httpPutResponseHopLimit", mo.http_put_response_hop_limit},
                                 {"httpTokens", mo.http_tokens}};
  PutStr(spec, "context", v.context);
  j["spec"] = std::move(spec);
  Json status = Json::object();
  if (!v.status_subnets.empty()) {
    status["subnets"] = ListOf(v.status_subnets, [](const SubnetStatus& e) {
      Json o{{"id", e.id}, {"zone", e.zone}};
      PutStr(o, "zoneID", e.zone_id);
      return o;
    });
  }
  if (!v.status_security_groups.empty()) {
    status["securityGroups"] = ListOf(v.status_security_groups, [](const SecurityGroupStatus& e) {
      Json o{{"id", e.id}};
      PutStr(o, "name", e.name);
      return o;
    });
  }
  if (!v.status_amis.empty()) {
    status["amis"] = ListOf(v.status_amis, [](const AMIStatus& e) {
      Json o{{"id", e.id}};
      PutStr(o, "name", e.name);
      o["requirements"] = ListOf(e.requirements, EncodeNodeSelectorRequirement);
      if (e.deprecated) o["deprecated"] = true;
      return o;
    });
  }
  PutStr(status, "instanceProfile", v.status_instance_profile);
  if (!v.conditions.empty()) status["conditions"] = EncodeConditions(v.conditions);
  if (!status.empty()) j["status"] = std::move(status);
  return j;
}

core::Status DecodeInstanceTypeCatalog(const JsonView& doc, InstanceTypeCatalog* out) {
  return DecodeDocument(doc, [&](const Reader& r) {
    DecodeMeta(r, &out->metadata);
    r.Object("spec", [&](const Reader& s) {
      s.StrList("wellKnownLabels", &out->well_known_labels);
      s.Object("defaults", [&](const Reader& d) {
        d.Object("overhead", [&](const Reader& o) { DecodeOverhead(o, &out->default_overhead.emplace()); });
        d.List("offerings", &out->default_offerings, DecodeOffering);
      });
      s.List("instanceTypes", &out->instance_types, [](const Reader& t, CatalogInstanceType* it) {
        t.Str("name", &it->name);
        t.Resources("capacity", &it->capacity);
        t.Double("price", &it->price);
        t.StrMap("labels", &it->labels);
        t.List("requirements", &it->requirements, DecodeNodeSelectorRequirement);
        t.Object("overhead", [&](const Reader& o) { DecodeOverhead(o, &it->overhead.emplace()); });
        if (t.Has("offerings")) t.List("offerings", &it->offerings.emplace(), DecodeOffering);
      });
    });
  });
}

Json EncodeInstanceTypeCatalog(const InstanceTypeCatalog& v) {
  Json j = Head("nodesmith.dev/v1alpha1", "InstanceTypeCatalog");
  j["metadata"] = EncodeMeta(v.metadata);
  Json spec = Json::object();
  PutList(spec, "wellKnownLabels", v.well_known_labels);
  Json defaults = Json::object();
  if (v.default_overhead) defaults["overhead"] = EncodeOverhead(*v.default_overhead);
  if (!v.default_offerings.empty()) defaults["offerings"] = ListOf(v.default_offerings, EncodeOffering);
  if (!defaults.empty()) spec["defaults"] = std::move(defaults);
  spec["instanceTypes"] = ListOf(v.instance_types, [](const CatalogInstanceType& t) {
    Json it = Json::object();
    it["name"] = t.name;
    it["capacity"] = ResourcesToJson(t.capacity);
    if (t.price) it["price"] = *t.price;
    PutMap(it, "labels", t.labels);
    if (!t.requirements.empty()) it["requirements"] = ListOf(t.requirements, EncodeNodeSelectorRequirement);
    if (t.overhead) it["overhead"] = EncodeOverhead(*t.overhead);
    if (t.offerings) it["offerings"] = ListOf(*t.offerings, EncodeOffering);
    return it;
  });
  j["spec"] = std::move(spec);
  return j;
}

}  // namespace nodesmith::api
