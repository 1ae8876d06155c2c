// Decoders and encoders for the core Kubernetes kinds (core/v1, apps/v1, batch/v1, policy/v1,
// storage.k8s.io/v1).
#include "api/codec.h"
#include "api/codec_common.h"

namespace nodesmith::api {
namespace {

void DecodeIntOrString(const Reader& r, const char* key, std::optional<IntOrString>* out) {
  if (!r.ok()) return;
  const JsonView v = r.Get(key);
  if (v.is_null()) return;
  IntOrString x;
  if (v.is_string()) {
    x.is_string = true;
    x.str_value = v.GetString();
  } else {
    int64_t n = 0;
    if (!r.AsInt64(v, r.PathOf(key), INT32_MIN, INT32_MAX, &n)) return;
    x.int_value = static_cast<int>(n);
  }
  *out = x;
}

Json EncodeIntOrString(const IntOrString& v) {
  return v.is_string ? Json(v.str_value) : Json(v.int_value);
}

constexpr const char* kDefaultClassAnnotation = "storageclass.kubernetes.io/is-default-class";
constexpr const char* kBetaDefaultClassAnnotation = "storageclass.beta.kubernetes.io/is-default-class";

}  // namespace

core::Status DecodePod(const JsonView& doc, Pod* out) {
  return DecodeDocument(doc, [&](const Reader& r) {
    DecodeMeta(r, &out->metadata);
    r.Object("spec", [&](const Reader& s) { DecodePodSpec(s, &out->spec); });
    r.Object("status", [&](const Reader& s) {
      s.Str("phase", &out->status.phase);
      DecodeConditions(s, "conditions", &out->status.conditions);
      s.Time("startTime", &out->status.start_time);
      s.Str("nominatedNodeName", &out->status.nominated_node_name);
    });
  });
}

Json EncodePod(const Pod& v) {
  Json j = Head("v1", "Pod");
  j["metadata"] = EncodeMeta(v.metadata);
  j["spec"] = EncodePodSpec(v.spec);
  Json status = Json::object();
  PutStr(status, "phase", v.status.phase);
  if (!v.status.conditions.empty()) status["conditions"] = EncodeConditions(v.status.conditions);
  PutTime(status, "startTime", v.status.start_time);
  PutStr(status, "nominatedNodeName", v.status.nominated_node_name);
  if (!status.empty()) j["status"] = std::move(status);
  return j;
}

core::Status DecodeNode(const JsonView& doc, Node* out) {
  return DecodeDocument(doc, [&](const Reader& r) {
    DecodeMeta(r, &out->metadata);
    r.Object("spec", [&](const Reader& s) {
      s.Str("providerID", &out->spec.provider_id);
      s.List("taints", &out->spec.taints, DecodeTaint);
      s.Bool("unschedulable", &out->spec.unschedulable);
    });
    r.Object("status", [&](const Reader& s) {
      s.Resources("capacity", &out->status.capacity);
      s.Resources("allocatable", &out->status.allocatable);
      DecodeConditions(s, "conditions", &out->status.conditions);
    });
  });
}

Json EncodeNode(const Node& v) {
  Json j = Head("v1", "Node");
  j["metadata"] = EncodeMeta(v.metadata);
  Json spec = Json::object();
  PutStr(spec, "providerID", v.spec.provider_id);
  if (!v.spec.taints.empty()) {
    spec["taints"] = Json::array();
    for (const auto& t : v.spec.taints) spec["taints"].push_back(EncodeTaint(t));
  }
  if (v.spec.unschedulable) spec["unschedulable"] = true;
  j["spec"] = std::move(spec);
  Json status = Json::object();
  PutResources(status, "capacity", v.status.capacity);
  PutResources(status, "allocatable", v.status.allocatable);
  if (!v.status.conditions.empty()) status["conditions"] = EncodeConditions(v.status.conditions);
  if (!status.empty()) j["status"] = std::move(status);
  return j;
}

core::Status DecodePersistentVolumeClaim(const JsonView& doc, PersistentVolumeClaim* out) {
  return DecodeDocument(doc, [&](const Reader& r) {
    DecodeMeta(r, &out->metadata);
    r.Object("spec", [&](const Reader& s) {
      s.Str("storageClassName", &out->storage_class_name);
      s.Str("volumeName", &out->volume_name);
      s.Object("resources", [&](const Reader& res) { res.Resources("requests", &out->requests); });
    });
  });
}

Json EncodePersistentVolumeClaim(const PersistentVolumeClaim& v) {
  Json j = Head("v1", "PersistentVolumeClaim");
  j["metadata"] = EncodeMeta(v.metadata);
  Json spec = Json::object();
  if (v.storage_class_name) spec["storageClassName"] = *v.storage_class_name;
  PutStr(spec, "volumeName", v.volume_name);
  if (!v.requests.empty()) spec["resources"] = Json{{"requests", ResourcesToJson(v.requests)}};
  j["spec"] = std::move(spec);
  return j;
}

core::Status DecodePersistentVolume(const JsonView& doc, PersistentVolume* out) {
  return DecodeDocument(doc, [&](const Reader& r) {
    DecodeMeta(r, &out->metadata);
    r.Object("spec", [&](const Reader& s) {
      s.Str("storageClassName", &out->storage_class_name);
      s.Object("nodeAffinity", [&](const Reader& na) {
        na.Object("required", [&](const Reader& req) { DecodeNodeSelector(req, &out->node_affinity.emplace()); });
      });
      s.Resources("capacity", &out->capacity);
      s.Object("claimRef", [&](const Reader& c) {
        c.Str("namespace", &out->claim_ref_namespace);
        c.Str("name", &out->claim_ref_name);
      });
    });
  });
}

Json EncodePersistentVolume(const PersistentVolume& v) {
  Json j = Head("v1", "PersistentVolume");
  j["metadata"] = EncodeMeta(v.metadata);
  Json spec = Json::object();
  PutStr(spec, "storageClassName", v.storage_class_name);
  if (v.node_affinity) spec["nodeAffinity"] = Json{{"required", EncodeNodeSelector(*v.node_affinity)}};
  PutResources(spec, "capacity", v.capacity);
  if (!v.claim_ref_name.empty()) {
    Json ref = Json::object();
    PutStr(ref, "namespace", v.claim_ref_namespace);
    ref["name"] = v.claim_ref_name;
    spec["claimRef"] = std::move(ref);
  }
  j["spec"] = std::move(spec);
  return j;
}

core::Status DecodeStorageClass(const JsonView& doc, StorageClass* out) {
  return DecodeDocument(doc, [&](const Reader& r) {
    DecodeMeta(r, &out->metadata);
    r.Str("provisioner", &out->provisioner);
    r.Str("volumeBindingMode", &out->volume_binding_mode);
    r.List("allowedTopologies", &out->allowed_topologies, [](const Reader& t, TopologySelectorTerm* term) {
      t.List("matchLabelExpressions", &term->match_label_expressions,
             [](const Reader& e, LabelSelectorRequirement* req) {
               e.Str("key", &req->key);
               req->op = "In";
               e.StrList("values", &req->values);
             });
    });
    for (const char* key : {kDefaultClassAnnotation, kBetaDefaultClassAnnotation}) {
      auto it = out->metadata.annotations.find(key);
      if (it != out->metadata.annotations.end() && it->second == "true") out->is_default = true;
    }
  });
}

Json EncodeStorageClass(const StorageClass& v) {
  Json j = Head("storage.k8s.io/v1", "StorageClass");
  ObjectMeta meta = v.metadata;
  if (v.is_default) meta.annotations[kDefaultClassAnnotation] = "true";
  j["metadata"] = EncodeMeta(meta);
  j["provisioner"] = v.provisioner;
  j["volumeBindingMode"] = v.volume_binding_mode;
  if (!v.allowed_topologies.empty()) {
    Json l = Json::array();
    for (const auto& term : v.allowed_topologies) {
      Json exprs = Json::array();
      for (const auto& e : term.match_label_expressions) {
        exprs.push_back(Json{{"key", e.key}, {"values", e.values}});
      }
      l.push_back(Json{{"matchLabelExpressions", std::move(exprs)}});
    }
    j["allowedTopologies"] = std::move(l);
  }
  return j;
}

core::Status DecodeReplicatedWorkload(const JsonView& doc, ReplicatedWorkload* out) {
  return DecodeDocument(doc, [&](const Reader& r) {
    r.Str("kind", &out->kind);
    DecodeMeta(r, &out->metadata);
    r.Object("spec", [&](const Reader& s) {
      s.Int("replicas", &out->replicas);
      s.Object("selector", [&](const Reader& sel) { DecodeLabelSelector(sel, &out->selector.emplace()); });
      s.Object("template", [&](const Reader& t) { DecodePodTemplate(t, &out->template_); });
    });
  });
}

Json EncodeReplicatedWorkload(const ReplicatedWorkload& v) {
  Json j = Head("apps/v1", v.kind);
  j["metadata"] = EncodeMeta(v.metadata);
  Json spec = Json::object();
  spec["replicas"] = v.replicas;
  if (v.selector) spec["selector"] = EncodeLabelSelector(*v.selector);
  spec["template"] = EncodePodTemplate(v.template_);
  j["spec"] = std::move(spec);
  return j;
}

core::Status DecodeDaemonSet(const JsonView& doc, DaemonSet* out) {
  return DecodeDocument(doc, [&](const Reader& r) {
    DecodeMeta(r, &out->metadata);
    r.Object("spec", [&](const Reader& s) {
      s.Object("selector", [&](const Reader& sel) { DecodeLabelSelector(sel, &out->selector.emplace()); });
      s.Object("template", [&](const Reader& t) { DecodePodTemplate(t, &out->template_); });
    });
  });
}

Json EncodeDaemonSet(const DaemonSet& v) {
  Json j = Head("apps/v1", "DaemonSet");
  j["metadata"] = EncodeMeta(v.metadata);
  Json spec = Json::object();
  if (v.selector) spec["selector"] = EncodeLabelSelector(*v.selector);
  spec["template"] = EncodePodTemplate(v.template_);
  j["spec"] = std::move(spec);
  return j;
}

core::Status DecodeJob(const JsonView& doc, Job* out) {
  return DecodeDocument(doc, [&](const Reader& r) {
    DecodeMeta(r, &out->metadata);
    r.Object("spec", [&](const Reader& s) {
      s.Int("parallelism", &out->parallelism);
      s.Int("completions", &out->completions);
      s.Object("template", [&](const Reader& t) { DecodePodTemplate(t, &out->template_); });
    });
  });
}

Json EncodeJob(const Job& v) {
  Json j = Head("batch/v1", "Job");
  j["metadata"] = EncodeMeta(v.metadata);
  Json spec = Json::object();
  spec["parallelism"] = v.parallelism;
  if (v.completions) spec["completions"] = *v.completions;
  spec["template"] = EncodePodTemplate(v.template_);
  j["spec"] = std::move(spec);
  return j;
}

core::Status DecodePodDisruptionBudget(const JsonView& doc, PodDisruptionBudget* out) {
  return DecodeDocument(doc, [&](const Reader& r) {
    DecodeMeta(r, &out->metadata);
    r.Object("spec", [&](const Reader& s) {
      DecodeIntOrString(s, "minAvailable", &out->min_available);
      DecodeIntOrString(s, "maxUnavailable", &out->max_unavailable);
      s.Object("selector", [&](const Reader& sel) { DecodeLabelSelector(sel, &out->selector.emplace()); });
      s.Str("unhealthyPodEvictionPolicy", &out->unhealthy_pod_eviction_policy);
    });
  });
}

Json EncodePodDisruptionBudget(const PodDisruptionBudget& v) {
  Json j = Head("policy/v1", "PodDisruptionBudget");
  j["metadata"] = EncodeMeta(v.metadata);
  Json spec = Json::object();
  if (v.min_available) spec["minAvailable"] = EncodeIntOrString(*v.min_available);
  if (v.max_unavailable) spec["maxUnavailable"] = EncodeIntOrString(*v.max_unavailable);
  if (v.selector) spec["selector"] = EncodeLabelSelector(*v.selector);
  PutStr(spec, "unhealthyPodEvictionPolicy", v.unhealthy_pod_eviction_policy);
  j["spec"] = std::move(spec);
  return j;
}

}  // namespace nodesmith::api
