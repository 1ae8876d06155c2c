#include "api/convert.h"

#include <nlohmann/json.hpp>

#include "api/codec.h"
#include "api/manifest.h"
#include "api/yaml_json.h"

namespace nodesmith::api {
namespace {

using Json = nlohmann::ordered_json;

// The one object AddDocument put into `set`, encoded; null when it kept none (unused kinds).
Json EncodeSingle(const ObjectSet& set) {
  if (!set.pods.empty()) return EncodePod(set.pods[0].object);
  if (!set.nodes.empty()) return EncodeNode(set.nodes[0].object);
  if (!set.persistent_volume_claims.empty()) return EncodePersistentVolumeClaim(set.persistent_volume_claims[0].object);
  if (!set.persistent_volumes.empty()) return EncodePersistentVolume(set.persistent_volumes[0].object);
  if (!set.storage_classes.empty()) return EncodeStorageClass(set.storage_classes[0].object);
  if (!set.replicated_workloads.empty()) return EncodeReplicatedWorkload(set.replicated_workloads[0].object);
  if (!set.daemon_sets.empty()) return EncodeDaemonSet(set.daemon_sets[0].object);
  if (!set.jobs.empty()) return EncodeJob(set.jobs[0].object);
  if (!set.pod_disruption_budgets.empty()) return EncodePodDisruptionBudget(set.pod_disruption_budgets[0].object);
  if (!set.node_pools.empty()) return EncodeNodePool(set.node_pools[0].object);
  if (!set.node_claims.empty()) return EncodeNodeClaim(set.node_claims[0].object);
  if (!set.ec2_node_classes.empty()) return EncodeEC2NodeClass(set.ec2_node_classes[0].object);
  if (!set.instance_type_catalogs.empty()) return EncodeInstanceTypeCatalog(set.instance_type_catalogs[0].object);
  return Json();
}

}  // namespace

core::Result<std::string> ConvertToYaml(const std::vector<Sourced<Json>>& docs) {
  std::string out;
  for (const auto& doc : docs) {
    ObjectSet one;
    NS_RETURN_IF_ERROR(AddDocument(doc, &one));
    Json encoded = EncodeSingle(one);
    if (!out.empty()) out += "---\n";
    out += EmitYaml(encoded.is_null() ? doc.object : encoded);
  }
  return out;
}

}  // namespace nodesmith::api
