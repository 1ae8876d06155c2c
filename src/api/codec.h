// Decoders and encoders between the typed API values and their JSON form (current API
// versions only; legacy documents are converted first, see api/legacy.h).
//
// A decoder reads a whole object document ({apiVersion, kind, metadata, spec, status}: an
// ordered_json, or a view into a JsonParser's document), leaves unknown fields aside as the API
// server does, applies the API defaults (absent fields keep the
// value types' defaults; a container's limits stand in for missing requests), and fails with
// "field.path: rule" on a wrong type or an unparsable value. Semantic checks live in
// api/validation.h. An encoder writes what kubectl would print, omitting empty fields, and
// the output decodes back to an equal value.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "api/ec2nodeclass.h"
#include "api/instance_type_catalog.h"
#include "api/json_view.h"
#include "api/node.h"
#include "api/nodeclaim.h"
#include "api/nodepool.h"
#include "api/pod.h"
#include "api/policy.h"
#include "api/storage.h"
#include "api/workloads.h"
#include "core/status.h"

namespace nodesmith::api {

core::Status DecodePod(const JsonView& doc, Pod* out);
core::Status DecodeNode(const JsonView& doc, Node* out);
core::Status DecodePersistentVolumeClaim(const JsonView& doc, PersistentVolumeClaim* out);
core::Status DecodePersistentVolume(const JsonView& doc, PersistentVolume* out);
core::Status DecodeStorageClass(const JsonView& doc, StorageClass* out);
// Deployment, ReplicaSet or StatefulSet, by the document's kind.
core::Status DecodeReplicatedWorkload(const JsonView& doc, ReplicatedWorkload* out);
core::Status DecodeDaemonSet(const JsonView& doc, DaemonSet* out);
core::Status DecodeJob(const JsonView& doc, Job* out);
core::Status DecodePodDisruptionBudget(const JsonView& doc, PodDisruptionBudget* out);
core::Status DecodeNodePool(const JsonView& doc, NodePool* out);
core::Status DecodeNodeClaim(const JsonView& doc, NodeClaim* out);
core::Status DecodeEC2NodeClass(const JsonView& doc, EC2NodeClass* out);
core::Status DecodeInstanceTypeCatalog(const JsonView& doc, InstanceTypeCatalog* out);

nlohmann::ordered_json EncodePod(const Pod& v);
nlohmann::ordered_json EncodeNode(const Node& v);
nlohmann::ordered_json EncodePersistentVolumeClaim(const PersistentVolumeClaim& v);
nlohmann::ordered_json EncodePersistentVolume(const PersistentVolume& v);
nlohmann::ordered_json EncodeStorageClass(const StorageClass& v);
nlohmann::ordered_json EncodeReplicatedWorkload(const ReplicatedWorkload& v);
nlohmann::ordered_json EncodeDaemonSet(const DaemonSet& v);
nlohmann::ordered_json EncodeJob(const Job& v);
nlohmann::ordered_json EncodePodDisruptionBudget(const PodDisruptionBudget& v);
nlohmann::ordered_json EncodeNodePool(const NodePool& v);
nlohmann::ordered_json EncodeNodeClaim(const NodeClaim& v);
nlohmann::ordered_json EncodeEC2NodeClass(const EC2NodeClass& v);
nlohmann::ordered_json EncodeInstanceTypeCatalog(const InstanceTypeCatalog& v);

}  // namespace nodesmith::api
