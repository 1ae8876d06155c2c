#include "api/workload_pods.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "api/manifest.h"
#include "api/pod_limit.h"

namespace nodesmith::api {
namespace {

bool MatchesSelector(const LabelSelector& selector, const Labels& labels) {
  for (const auto& [k, v] : selector.match_labels) {
    auto it = labels.find(k);
    if (it == labels.end() || it->second != v) return false;
  }
  for (const auto& e : selector.match_expressions) {
    auto it = labels.find(e.key);
    bool has = it != labels.end();
    bool in = has && std::find(e.values.begin(), e.values.end(), it->second) != e.values.end();
    if (e.op == "In" && !in) return false;
    if (e.op == "NotIn" && in) return false;
    if (e.op == "Exists" && !has) return false;
    if (e.op == "DoesNotExist" && has) return false;
  }
  return true;
}

bool EmptySelector(const LabelSelector& s) { return s.match_labels.empty() && s.match_expressions.empty(); }

bool RefersTo(const OwnerReference& ref, const std::string& kind, const ObjectMeta& meta) {
  if (!ref.uid.empty() && !meta.uid.empty()) return ref.uid == meta.uid;
  return ref.kind == kind && ref.name == meta.name;
}

// A ReplicaSet name made by a Deployment: "<deployment>-<pod-template-hash>".
bool IsDeploymentReplicaSetName(const std::string& rs, const std::string& deployment) {
  if (rs.size() <= deployment.size() + 1 || rs.compare(0, deployment.size() + 1, deployment + "-") != 0) {
    return false;
  }
  std::string hash = rs.substr(deployment.size() + 1);
  return hash.find('-') == std::string::npos;
}

struct WorkloadView {
  std::string kind;
  const ObjectMeta* meta;
  const std::optional<LabelSelector>* selector;
  const PodTemplateSpec* tmpl;
  int count;
  const char* count_field;  // the field `count` comes from, for messages
  const SourceRef* source;
};

bool OwnsPod(const WorkloadView& w, const Pod& pod, const ObjectSet& set) {
  for (const auto& ref : pod.metadata.owner_references) {
    if (RefersTo(ref, w.kind, *w.meta)) return true;
    if (w.kind == "Deployment" && ref.kind == "ReplicaSet") {
      bool via_input_rs = false;
      for (const auto& rs : set.replicated_workloads) {
        if (rs.object.kind != "ReplicaSet" || rs.object.metadata.namespace_ != w.meta->namespace_) continue;
        if (!RefersTo(ref, "ReplicaSet", rs.object.metadata)) continue;
        via_input_rs = true;
        for (const auto& owner : rs.object.metadata.owner_references) {
          if (RefersTo(owner, "Deployment", *w.meta)) return true;
        }
      }
      if (!via_input_rs && IsDeploymentReplicaSetName(ref.name, w.meta->name)) return true;
    }
  }
  return false;
}

bool PodsPresent(const WorkloadView& w, const ObjectSet& set) {
  for (const auto& p : set.pods) {
    if (p.object.metadata.namespace_ == w.meta->namespace_ && OwnsPod(w, p.object, set)) return true;
  }
  if (w.selector->has_value() && !EmptySelector(**w.selector)) {
    for (const auto& p : set.pods) {
      if (p.object.metadata.namespace_ == w.meta->namespace_ && MatchesSelector(**w.selector, p.object.metadata.labels)) {
        return true;
      }
    }
  }
  return false;
}

uint64_t Fnv1a(const std::string& s, uint64_t seed) {
  uint64_t h = 1469598103934665603ULL ^ seed;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

// A UUID-shaped (version 4 layout) identifier derived from `key`.
std::string StableUid(const std::string& key) {
  uint64_t a = Fnv1a(key, 0), b = Fnv1a(key, 0x9e3779b97f4a7c15ULL);
  char buf[37];
  std::snprintf(buf, sizeof(buf), "%08x-%04x-4%03x-%04x-%012llx", static_cast<unsigned>(a >> 32),
                static_cast<unsigned>((a >> 16) & 0xffff), static_cast<unsigned>(a & 0xfff),
                static_cast<unsigned>(0x8000 | ((b >> 48) & 0x3fff)),
                static_cast<unsigned long long>(b & 0xffffffffffffULL));
  return buf;
}

bool ControlledByInputDeployment(const ReplicatedWorkload& rs, const ObjectSet& set) {
  for (const auto& ref : rs.metadata.owner_references) {
    if (ref.kind != "Deployment") continue;
    for (const auto& d : set.replicated_workloads) {
      if (d.object.kind == "Deployment" && d.object.metadata.namespace_ == rs.metadata.namespace_ &&
          RefersTo(ref, "Deployment", d.object.metadata)) {
        return true;
      }
    }
  }
  return false;
}

}  // namespace

JobPods JobPodsOf(const Job& job) {
  if (job.completions && *job.completions < job.parallelism) return {*job.completions, "spec.completions"};
  return {job.parallelism, "spec.parallelism"};
}

core::Result<std::vector<Sourced<Pod>>> WorkloadPods(const ObjectSet& set) {
  std::vector<WorkloadView> views;
  for (const auto& w : set.replicated_workloads) {
    if (w.object.kind == "ReplicaSet" && ControlledByInputDeployment(w.object, set)) continue;
    views.push_back({w.object.kind, &w.object.metadata, &w.object.selector, &w.object.template_, w.object.replicas,
                     "spec.replicas", &w.source});
  }
  static const std::optional<LabelSelector> kNoSelector;
  for (const auto& j : set.jobs) {
    const JobPods pods = JobPodsOf(j.object);
    views.push_back({"Job", &j.object.metadata, &kNoSelector, &j.object.template_, pods.count, pods.field,
                     &j.source});
  }
  // Counted before anything is made: a replicas typo must not exhaust memory first.
  PodLimit limit;
  NS_RETURN_IF_ERROR(limit.Add(static_cast<int64_t>(set.pods.size()), "the input's own pods"));
  std::vector<const WorkloadView*> expanded;
  for (const WorkloadView& w : views) {
    if (w.count <= 0 || PodsPresent(w, set)) continue;
    NS_RETURN_IF_ERROR(limit.Add(w.count, DescribeSource(*w.source) + ": " + w.count_field));
    expanded.push_back(&w);
  }
  std::set<std::string> existing;
  for (const auto& p : set.pods) existing.insert(p.object.metadata.Key());

  std::vector<Sourced<Pod>> out;
  out.reserve(static_cast<size_t>(limit.total()) - set.pods.size());
  for (const WorkloadView* view : expanded) {
    const WorkloadView& w = *view;
    for (int n = 1; n <= w.count; ++n) {
      Pod pod;
      pod.metadata.name = w.meta->name + "-" + std::to_string(n);
      pod.metadata.namespace_ = w.meta->namespace_;
      if (existing.count(pod.metadata.Key())) continue;  // a pod of that name was given explicitly
      pod.metadata.labels = w.tmpl->metadata.labels;
      pod.metadata.annotations = w.tmpl->metadata.annotations;
      pod.metadata.creation_timestamp = w.meta->creation_timestamp;
      pod.metadata.uid = StableUid(w.meta->namespace_ + "/" + w.kind + "/" + w.meta->name + "/" + std::to_string(n));
      pod.metadata.owner_references.push_back(
          OwnerReference{w.kind == "Job" ? "batch/v1" : "apps/v1", w.kind, w.meta->name, w.meta->uid, true});
      pod.spec = w.tmpl->spec;
      pod.status.phase = "Pending";
      SourceRef source = *w.source;
      out.push_back({std::move(pod), source});
    }
  }
  return out;
}

core::Status ExpandWorkloads(ObjectSet& set) {
  core::Result<std::vector<Sourced<Pod>>> pods = WorkloadPods(set);
  if (!pods.ok()) return pods.status();
  for (auto& p : *pods) set.pods.push_back(std::move(p));
  return core::Status::Ok();
}

}  // namespace nodesmith::api
