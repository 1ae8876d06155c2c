#include "kube/live_objects.h"

namespace nodesmith::kube {

namespace {

// Kinds of earlier Karpenter releases that a cluster may still serve; converted on load.
const ResourceType kProvisioners{"karpenter.sh", "v1alpha5", "provisioners", "Provisioner", false};
const ResourceType kAWSNodeTemplates{"karpenter.k8s.aws", "v1alpha1", "awsnodetemplates",
                                     "AWSNodeTemplate", false};

struct LiveKind {
  const ResourceType* resource;
  enum { kRequired, kWarnIfMissing, kOptional } missing;
};

}  // namespace

core::Result<std::vector<api::Sourced<Json>>> ReadClusterDocuments(
    RestClient& client, const std::string& source, std::vector<std::string>* warnings) {
  using namespace resources;
  const std::vector<LiveKind> kinds = {
      {&kNodePools, LiveKind::kWarnIfMissing}, {&kNodeClaims, LiveKind::kWarnIfMissing},
      {&kEC2NodeClasses, LiveKind::kOptional}, {&kProvisioners, LiveKind::kOptional},
      {&kAWSNodeTemplates, LiveKind::kOptional}, {&kNodes, LiveKind::kRequired},
      {&kPods, LiveKind::kRequired}, {&kDeployments, LiveKind::kRequired},
      {&kReplicaSets, LiveKind::kRequired}, {&kStatefulSets, LiveKind::kRequired},
      {&kDaemonSets, LiveKind::kRequired}, {&kJobs, LiveKind::kRequired},
      {&kPodDisruptionBudgets, LiveKind::kRequired},
      {&kPersistentVolumeClaims, LiveKind::kRequired},
      {&kPersistentVolumes, LiveKind::kRequired}, {&kStorageClasses, LiveKind::kRequired},
  };
  std::vector<api::Sourced<Json>> docs;
  for (const LiveKind& k : kinds) {
    auto list = client.List(*k.resource, "");
    if (!list.ok()) {
      if (list.status().code() == core::StatusCode::kNotFound && k.missing != LiveKind::kRequired) {
        if (k.missing == LiveKind::kWarnIfMissing && warnings != nullptr)
          warnings->push_back(source + ": " + list.status().message());
        continue;
      }
      return list.status().WithPrefix("reading " + source);
    }
    for (Json& item : list->items) {
      api::SourceRef ref;
      ref.file = source;
      ref.kind = std::string(k.resource->kind);
      const Json& meta = item.contains("metadata") ? item["metadata"] : Json::object();
      std::string ns = meta.value("namespace", "");
      ref.name = (ns.empty() ? "" : ns + "/") + meta.value("name", "");
      docs.push_back({std::move(item), std::move(ref)});
    }
  }
  return docs;
}

}  // namespace nodesmith::kube
