// Snapshot: every object a ClusterApi holds, as the api::ObjectSet the solver and the
// commands read.
//
// Each object's SourceRef names the file "cluster" (no document number) with its kind and
// namespace/name, so an error raised further down reads "cluster (Pod default/web-1)". Vectors
// follow ListObjects order. Instance type catalogs and scenarios are not cluster objects and stay
// empty. Kept apart from memory_cluster.h because api/object_set.h pulls in nlohmann/json.
#pragma once

#include "api/object_set.h"
#include "cluster/cluster_api.h"
#include "core/status.h"

namespace nodesmith::cluster {

api::ObjectSet Snapshot(const ClusterApi& cluster);

// The reverse: creates every object of `objects` in `cluster`, definitions first (storage,
// NodeClasses, NodePools), then capacity (Nodes, NodeClaims), then what runs on it (PDBs,
// workloads, pods), as a cluster is usually set up. An object the cluster refuses (a duplicate
// name) is InvalidArgument naming its file, document and object. Catalogs and scenarios are not
// cluster objects and are skipped.
core::Status Load(const api::ObjectSet& objects, ClusterApi& cluster);

}  // namespace nodesmith::cluster
