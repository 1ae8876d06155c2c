#include "api/codec_common.h"

namespace nodesmith::api {

Json Head(const char* api_version, const std::string& kind) {
  Json j = Json::object();
  j["apiVersion"] = api_version;
  j["kind"] = kind;
  return j;
}

void DecodeMeta(const Reader& r, ObjectMeta* m) {
  r.Object("metadata", [&](const Reader& md) {
    md.Str("name", &m->name);
    md.Str("generateName", &m->generate_name);
    md.Str("namespace", &m->namespace_);
    md.Str("uid", &m->uid);
    md.Str("resourceVersion", &m->resource_version);
    md.Int64("generation", &m->generation);
    md.StrMap("labels", &m->labels);
    md.StrMap("annotations", &m->annotations);
    md.List("ownerReferences", &m->owner_references, [](const Reader& o, OwnerReference* ref) {
      o.Str("apiVersion", &ref->api_version);
      o.Str("kind", &ref->kind);
      o.Str("name", &ref->name);
      o.Str("uid", &ref->uid);
      o.Bool("controller", &ref->controller);
    });
    md.StrList("finalizers", &m->finalizers);
    md.Time("creationTimestamp", &m->creation_timestamp);
    md.Time("deletionTimestamp", &m->deletion_timestamp);
  });
}

Json EncodeMeta(const ObjectMeta& m) {
  Json j = Json::object();
  PutStr(j, "name", m.name);
  PutStr(j, "generateName", m.generate_name);
  PutStr(j, "namespace", m.namespace_);
  PutStr(j, "uid", m.uid);
  PutStr(j, "resourceVersion", m.resource_version);
  if (m.generation != 0) j["generation"] = m.generation;
  PutTime(j, "creationTimestamp", m.creation_timestamp);
  PutTime(j, "deletionTimestamp", m.deletion_timestamp);
  PutMap(j, "labels", m.labels);
  PutMap(j, "annotations", m.annotations);
  if (!m.owner_references.empty()) {
    Json refs = Json::array();
    for (const auto& o : m.owner_references) {
      Json ref = Json::object();
      ref["apiVersion"] = o.api_version;
      ref["kind"] = o.kind;
      ref["name"] = o.name;
      PutStr(ref, "uid", o.uid);
      if (o.controller) ref["controller"] = true;
      refs.push_back(std::move(ref));
    }
    j["ownerReferences"] = std::move(refs);
  }
  PutList(j, "finalizers", m.finalizers);
  return j;
}

void DecodeConditions(const Reader& r, const char* key, std::vector<Condition>* out) {
  r.List(key, out, [](const Reader& c, Condition* cond) {
    c.Str("type", &cond->type);
    c.Str("status", &cond->status);
    c.Str("reason", &cond->reason);
    c.Str("message", &cond->message);
    c.Time("lastTransitionTime", &cond->last_transition_time);
    c.Int64("observedGeneration", &cond->observed_generation);
  });
}

Json EncodeConditions(const std::vector<Condition>& conditions) {
  Json list = Json::array();
  for (const auto& c : conditions) {
    Json j = Json::object();
    j["type"] = c.type;
    j["status"] = c.status;
    PutStr(j, "reason", c.reason);
    // metav1.Condition requires a message, empty or not (the CRDs' schemas say so).
    j["message"] = c.message;
    PutTime(j, "lastTransitionTime", c.last_transition_time);
    if (c.observed_generation != 0) j["observedGeneration"] = c.observed_generation;
    list.push_back(std::move(j));
  }
  return list;
}

void DecodeLabelSelector(const Reader& r, LabelSelector* s) {
  r.StrMap("matchLabels", &s->match_labels);
  r.List("matchExpressions", &s->match_expressions,
         [](const Reader& e, LabelSelectorRequirement* req) {
           e.Str("key", &req->key);
           e.Str("operator", &req->op);
           e.StrList("values", &req->values);
         });
}

Json EncodeLabelSelector(const LabelSelector& s) {
  Json j = Json::object();
  PutMap(j, "matchLabels", s.match_labels);
  if (!s.match_expressions.empty()) {
    Json list = Json::array();
    for (const auto& e : s.match_expressions) {
      Json x = Json::object();
      x["key"] = e.key;
      x["operator"] = e.op;
      PutList(x, "values", e.values);
      list.push_back(std::move(x));
    }
    j["matchExpressions"] = std::move(list);
  }
  return j;
}

void DecodeNodeSelectorRequirement(const Reader& r, NodeSelectorRequirement* req) {
  r.Str("key", &req->key);
  r.Str("operator", &req->op);
  r.StrList("values", &req->values);
  r.Int("minValues", &req->min_values);
}

Json EncodeNodeSelectorRequirement(const NodeSelectorRequirement& req) {
  Json j = Json::object();
  j["key"] = req.key;
  j["operator"] = req.op;
  PutList(j, "values", req.values);
  if (req.min_values) j["minValues"] = *req.min_values;
  return j;
}

namespace {

void DecodeTerm(const Reader& r, NodeSelectorTerm* term) {
  r.List("matchExpressions", &term->match_expressions, DecodeNodeSelectorRequirement);
  r.List("matchFields", &term->match_fields, DecodeNodeSelectorRequirement);
}

Json EncodeTerm(const NodeSelectorTerm& term) {
  Json j = Json::object();
  PutObjects(j, "matchExpressions", term.match_expressions, EncodeNodeSelectorRequirement);
  PutObjects(j, "matchFields", term.match_fields, EncodeNodeSelectorRequirement);
  return j;
}

void DecodeToleration(const Reader& r, Toleration* t) {
  r.Str("key", &t->key);
  r.Str("operator", &t->op);
  r.Str("value", &t->value);
  r.Str("effect", &t->effect);
  r.Int64("tolerationSeconds", &t->toleration_seconds);
}

Json EncodeToleration(const Toleration& t) {
  Json j = Json::object();
  PutStr(j, "key", t.key);
  PutStr(j, "operator", t.op);
  PutStr(j, "value", t.value);
  PutStr(j, "effect", t.effect);
  if (t.toleration_seconds) j["tolerationSeconds"] = *t.toleration_seconds;
  return j;
}

void DecodeAffinityTerm(const Reader& r, PodAffinityTerm* t) {
  r.Object("labelSelector", [&](const Reader& s) { DecodeLabelSelector(s, &t->label_selector.emplace()); });
  r.StrList("namespaces", &t->namespaces);
  r.Object("namespaceSelector",
           [&](const Reader& s) { DecodeLabelSelector(s, &t->namespace_selector.emplace()); });
  r.Str("topologyKey", &t->topology_key);
  r.StrList("matchLabelKeys", &t->match_label_keys);
  r.StrList("mismatchLabelKeys", &t->mismatch_label_keys);
}

Json EncodeAffinityTerm(const PodAffinityTerm& t) {
  Json j = Json::object();
  if (t.label_selector) j["labelSelector"] = EncodeLabelSelector(*t.label_selector);
  PutList(j, "namespaces", t.namespaces);
  if (t.namespace_selector) j["namespaceSelector"] = EncodeLabelSelector(*t.namespace_selector);
  j["topologyKey"] = t.topology_key;
  PutList(j, "matchLabelKeys", t.match_label_keys);
  PutList(j, "mismatchLabelKeys", t.mismatch_label_keys);
  return j;
}

void DecodePodAffinity(const Reader& r, PodAffinity* a) {
  r.List("requiredDuringSchedulingIgnoredDuringExecution", &a->required, DecodeAffinityTerm);
  r.List("preferredDuringSchedulingIgnoredDuringExecution", &a->preferred,
         [](const Reader& w, WeightedPodAffinityTerm* t) {
           w.Int("weight", &t->weight);
           w.Object("podAffinityTerm", [&](const Reader& term) { DecodeAffinityTerm(term, &t->term); });
         });
}

Json EncodePodAffinity(const PodAffinity& a) {
  Json j = Json::object();
  if (!a.required.empty()) {
    Json l = Json::array();
    for (const auto& t : a.required) l.push_back(EncodeAffinityTerm(t));
    j["requiredDuringSchedulingIgnoredDuringExecution"] = std::move(l);
  }
  if (!a.preferred.empty()) {
    Json l = Json::array();
    for (const auto& t : a.preferred) {
      l.push_back(Json{{"weight", t.weight}, {"podAffinityTerm", EncodeAffinityTerm(t.term)}});
    }
    j["preferredDuringSchedulingIgnoredDuringExecution"] = std::move(l);
  }
  return j;
}

void DecodeAffinity(const Reader& r, Affinity* a) {
  r.Object("nodeAffinity", [&](const Reader& n) {
    NodeAffinity& na = a->node_affinity.emplace();
    n.Object("requiredDuringSchedulingIgnoredDuringExecution",
             [&](const Reader& s) { DecodeNodeSelector(s, &na.required.emplace()); });
    n.List("preferredDuringSchedulingIgnoredDuringExecution", &na.preferred,
           [](const Reader& p, PreferredSchedulingTerm* t) {
             p.Int("weight", &t->weight);
             p.Object("preference", [&](const Reader& term) { DecodeTerm(term, &t->preference); });
           });
  });
  r.Object("podAffinity", [&](const Reader& p) { DecodePodAffinity(p, &a->pod_affinity.emplace()); });
  r.Object("podAntiAffinity",
           [&](const Reader& p) { DecodePodAffinity(p, &a->pod_anti_affinity.emplace()); });
}

Json EncodeAffinity(const Affinity& a) {
  Json j = Json::object();
  if (a.node_affinity) {
    Json n = Json::object();
    if (a.node_affinity->required) {
      n["requiredDuringSchedulingIgnoredDuringExecution"] = EncodeNodeSelector(*a.node_affinity->required);
    }
    if (!a.node_affinity->preferred.empty()) {
      Json l = Json::array();
      for (const auto& p : a.node_affinity->preferred) {
        l.push_back(Json{{"weight", p.weight}, {"preference", EncodeTerm(p.preference)}});
      }
      n["preferredDuringSchedulingIgnoredDuringExecution"] = std::move(l);
    }
    j["nodeAffinity"] = std::move(n);
  }
  if (a.pod_affinity) j["podAffinity"] = EncodePodAffinity(*a.pod_affinity);
  if (a.pod_anti_affinity) j["podAntiAffinity"] = EncodePodAffinity(*a.pod_anti_affinity);
  return j;
}

void DecodeResourceRequirements(const Reader& r, ResourceRequirements* rr) {
  r.Resources("requests", &rr->requests);
  r.Resources("limits", &rr->limits);
}

Json EncodeResourceRequirements(const ResourceRequirements& rr) {
  Json j = Json::object();
  PutResources(j, "limits", rr.limits);
  PutResources(j, "requests", rr.requests);
  return j;
}

// The API server defaults a container's missing requests to its limits, resource by resource.
void DefaultRequestsFromLimits(ResourceRequirements* rr) {
  for (const auto& [name, q] : rr->limits.items()) {
    if (!rr->requests.Has(name)) rr->requests.Set(name, q);
  }
}

void DecodeContainer(const Reader& r, Container* c) {
  r.Str("name", &c->name);
  r.Str("image", &c->image);
  r.Object("resources", [&](const Reader& res) { DecodeResourceRequirements(res, &c->resources); });
  DefaultRequestsFromLimits(&c->resources);
  r.List("ports", &c->ports, [](const Reader& p, ContainerPort* port) {
    p.Str("name", &port->name);
    p.Int("containerPort", &port->container_port);
    p.Int("hostPort", &port->host_port);
    p.Str("protocol", &port->protocol);
    p.Str("hostIP", &port->host_ip);
  });
  r.Str("restartPolicy", &c->restart_policy);
}

Json EncodeContainer(const Container& c) {
  Json j = Json::object();
  j["name"] = c.name;
  PutStr(j, "image", c.image);
  Json res = EncodeResourceRequirements(c.resources);
  if (!res.empty()) j["resources"] = std::move(res);
  if (!c.ports.empty()) {
    Json l = Json::array();
    for (const auto& p : c.ports) {
      Json pj = Json::object();
      PutStr(pj, "name", p.name);
      pj["containerPort"] = p.container_port;
      if (p.host_port != 0) pj["hostPort"] = p.host_port;
      pj["protocol"] = p.protocol;
      PutStr(pj, "hostIP", p.host_ip);
      l.push_back(std::move(pj));
    }
    j["ports"] = std::move(l);
  }
  PutStr(j, "restartPolicy", c.restart_policy);
  return j;
}

void DecodeSpread(const Reader& r, TopologySpreadConstraint* c) {
  r.Int("maxSkew", &c->max_skew);
  r.Str("topologyKey", &c->topology_key);
  r.Str("whenUnsatisfiable", &c->when_unsatisfiable);
  r.Object("labelSelector", [&](const Reader& s) { DecodeLabelSelector(s, &c->label_selector.emplace()); });
  r.Int("minDomains", &c->min_domains);
  r.Str("nodeAffinityPolicy", &c->node_affinity_policy);
  r.Str("nodeTaintsPolicy", &c->node_taints_policy);
  r.StrList("matchLabelKeys", &c->match_label_keys);
}

Json EncodeSpread(const TopologySpreadConstraint& c) {
  Json j = Json::object();
  j["maxSkew"] = c.max_skew;
  j["topologyKey"] = c.topology_key;
  j["whenUnsatisfiable"] = c.when_unsatisfiable;
  if (c.label_selector) j["labelSelector"] = EncodeLabelSelector(*c.label_selector);
  if (c.min_domains) j["minDomains"] = *c.min_domains;
  PutStr(j, "nodeAffinityPolicy", c.node_affinity_policy);
  PutStr(j, "nodeTaintsPolicy", c.node_taints_policy);
  PutList(j, "matchLabelKeys", c.match_label_keys);
  return j;
}

}  // namespace

void DecodeNodeSelector(const Reader& r, NodeSelector* s) {
  r.List("nodeSelectorTerms", &s->node_selector_terms, DecodeTerm);
}

Json EncodeNodeSelector(const NodeSelector& s) {
  Json l = Json::array();
  for (const auto& t : s.node_selector_terms) l.push_back(EncodeTerm(t));
  return Json{{"nodeSelectorTerms", std::move(l)}};
}

void DecodeTaint(const Reader& r, Taint* t) {
  r.Str("key", &t->key);
  r.Str("value", &t->value);
  r.Str("effect", &t->effect);
}

Json EncodeTaint(const Taint& t) {
  Json j = Json::object();
  j["key"] = t.key;
  PutStr(j, "value", t.value);
  j["effect"] = t.effect;
  return j;
}

void DecodePodSpec(const Reader& r, PodSpec* spec) {
  r.Str("nodeName", &spec->node_name);
  r.StrMap("nodeSelector", &spec->node_selector);
  r.Object("affinity", [&](const Reader& a) { DecodeAffinity(a, &spec->affinity.emplace()); });
  r.List("tolerations", &spec->tolerations, DecodeToleration);
  r.List("initContainers", &spec->init_containers, DecodeContainer);
  r.List("containers", &spec->containers, DecodeContainer);
  r.Resources("overhead", &spec->overhead);
  r.Object("resources", [&](const Reader& res) {
    DecodeResourceRequirements(res, &spec->resources.emplace());
    DefaultRequestsFromLimits(&*spec->resources);
  });
  r.List("topologySpreadConstraints", &spec->topology_spread_constraints, DecodeSpread);
  r.List("volumes", &spec->volumes, [](const Reader& v, Volume* vol) {
    v.Str("name", &vol->name);
    v.Object("persistentVolumeClaim", [&](const Reader& p) { p.Str("claimName", &vol->pvc_claim_name); });
    vol->ephemeral = v.Has("ephemeral");
  });
  r.Int("priority", &spec->priority);
  r.Str("priorityClassName", &spec->priority_class_name);
  r.Str("runtimeClassName", &spec->runtime_class_name);
  r.Str("schedulerName", &spec->scheduler_name);
  r.Str("serviceAccountName", &spec->service_account_name);
  r.Int64("terminationGracePeriodSeconds", &spec->termination_grace_period_seconds);
}

Json EncodePodSpec(const PodSpec& spec) {
  Json j = Json::object();
  PutStr(j, "nodeName", spec.node_name);
  PutMap(j, "nodeSelector", spec.node_selector);
  if (spec.affinity) j["affinity"] = EncodeAffinity(*spec.affinity);
  PutObjects(j, "tolerations", spec.tolerations, EncodeToleration);
  PutObjects(j, "initContainers", spec.init_containers, EncodeContainer);
  j["containers"] = Json::array();
  for (const auto& c : spec.containers) j["containers"].push_back(EncodeContainer(c));
  PutResources(j, "overhead", spec.overhead);
  if (spec.resources) j["resources"] = EncodeResourceRequirements(*spec.resources);
  PutObjects(j, "topologySpreadConstraints", spec.topology_spread_constraints, EncodeSpread);
  PutObjects(j, "volumes", spec.volumes, [](const Volume& v) {
    Json vj = Json{{"name", v.name}};
    if (!v.pvc_claim_name.empty()) vj["persistentVolumeClaim"] = Json{{"claimName", v.pvc_claim_name}};
    if (v.ephemeral) vj["ephemeral"] = Json::object();
    return vj;
  });
  if (spec.priority) j["priority"] = *spec.priority;
  PutStr(j, "priorityClassName", spec.priority_class_name);
  PutStr(j, "runtimeClassName", spec.runtime_class_name);
  PutStr(j, "schedulerName", spec.scheduler_name);
  PutStr(j, "serviceAccountName", spec.service_account_name);
  if (spec.termination_grace_period_seconds) {
    j["terminationGracePeriodSeconds"] = *spec.termination_grace_period_seconds;
  }
  return j;
}

void DecodePodTemplate(const Reader& r, PodTemplateSpec* t) {
  DecodeMeta(r, &t->metadata);
  r.Object("spec", [&](const Reader& s) { DecodePodSpec(s, &t->spec); });
}

Json EncodePodTemplate(const PodTemplateSpec& t) {
  Json j = Json::object();
  Json meta = EncodeMeta(t.metadata);
  if (!meta.empty()) j["metadata"] = std::move(meta);
  j["spec"] = EncodePodSpec(t.spec);
  return j;
}

}  // namespace nodesmith::api
