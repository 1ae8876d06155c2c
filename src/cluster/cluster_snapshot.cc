#include "cluster/cluster_snapshot.h"

#include <string>
#include <type_traits>
#include <vector>

#include "api/manifest.h"

namespace nodesmith::cluster {
namespace {

template <typename T>
void Collect(const ClusterApi& cluster, std::vector<api::Sourced<T>>* out) {
  // Counted first: each of the ~17 reallocations of a vector growing to 150,000 pods moves
  // every pod in it.
  size_t count = 0;
  cluster.ForEachObject(KindOf<T>(), [&count](const Object&) { ++count; });
  out->reserve(count);
  cluster.ForEachObject(KindOf<T>(), [out](const Object& o) {
    const T& object = std::get<T>(o);
    api::SourceRef source;
    source.file = "cluster";
    source.document = 0;
    if constexpr (std::is_same_v<T, api::ReplicatedWorkload>) {
      source.kind = object.kind;
    } else {
      source.kind = KindName(KindOf<T>());
    }
    source.name = object.metadata.Key();
    out->push_back(api::Sourced<T>{object, std::move(source)});
  });
}

}  // namespace

api::ObjectSet Snapshot(const ClusterApi& cluster) {
  api::ObjectSet set;
  Collect(cluster, &set.pods);
  Collect(cluster, &set.nodes);
  Collect(cluster, &set.persistent_volume_claims);
  Collect(cluster, &set.persistent_volumes);
  Collect(cluster, &set.storage_classes);
  Collect(cluster, &set.replicated_workloads);
  Collect(cluster, &set.daemon_sets);
  Collect(cluster, &set.jobs);
  Collect(cluster, &set.pod_disruption_budgets);
  Collect(cluster, &set.node_pools);
  Collect(cluster, &set.node_claims);
  Collect(cluster, &set.ec2_node_classes);
  return set;
}

core::Status Load(const api::ObjectSet& objects, ClusterApi& cluster) {
  auto add = [&cluster](const auto& items) -> core::Status {
    for (const auto& item : items) {
      auto created = cluster.Create(item.object);
      if (!created.ok()) {
        return core::Status::Invalid(api::DescribeSource(item.source) + ": " +
                                     created.status().message());
      }
    }
    return core::Status::Ok();
  };
  NS_RETURN_IF_ERROR(add(objects.storage_classes));
  NS_RETURN_IF_ERROR(add(objects.persistent_volumes));
  NS_RETURN_IF_ERROR(add(objects.persistent_volume_claims));
  NS_RETURN_IF_ERROR(add(objects.ec2_node_classes));
  NS_RETURN_IF_ERROR(add(objects.node_pools));
  NS_RETURN_IF_ERROR(add(objects.nodes));
  NS_RETURN_IF_ERROR(add(objects.node_claims));
  NS_RETURN_IF_ERROR(add(objects.pod_disruption_budgets));
  NS_RETURN_IF_ERROR(add(objects.daemon_sets));
  NS_RETURN_IF_ERROR(add(objects.replicated_workloads));
  NS_RETURN_IF_ERROR(add(objects.jobs));
  NS_RETURN_IF_ERROR(add(objects.pods));
  return core::Status::Ok();
}

}  // namespace nodesmith::cluster
