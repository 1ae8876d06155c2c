// Small shared pieces of Karpenter's object model the controllers agree on: well-known names
// (finalizer, annotations, condition types), condition bookkeeping, and questions about pods
// and nodes several controllers ask (is this pod a DaemonSet's? which Node is this NodeClaim's?).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/conditions.h"
#include "api/hash_stamp.h"
#include "api/meta.h"
#include "api/node.h"
#include "api/node_status.h"
#include "api/nodeclaim.h"
#include "api/nodepool.h"
#include "api/pod.h"
#include "api/pod_status.h"
#include "cluster/cluster_api.h"
#include "core/time.h"
#include "runtime/event_recorder.h"

namespace nodesmith::controllers {

inline constexpr const char* kTerminationFinalizer = "karpenter.sh/termination";
inline constexpr const char* kDoNotDisruptAnnotation = "karpenter.sh/do-not-disrupt";
inline constexpr const char* kNodePoolHashAnnotation = "karpenter.sh/nodepool-hash";
inline constexpr const char* kNodePoolHashVersionAnnotation = "karpenter.sh/nodepool-hash-version";
// nodesmith's own hash scheme, named apart from Karpenter's ("v1" ... "v3"): the hashes differ,
// so a NodePool or NodeClaim Karpenter stamped reads as another version and is re-stamped, not
// taken for drift (and Karpenter, should a user go back, does the same with nodesmith's).
inline constexpr const char* kNodePoolHashVersion = "nodesmith-v1";
inline constexpr api::HashStamp kNodePoolHashStamp{kNodePoolHashAnnotation,
                                                   kNodePoolHashVersionAnnotation,
                                                   kNodePoolHashVersion};

inline constexpr const char* kConditionLaunched = "Launched";
inline constexpr const char* kConditionRegistered = "Registered";
inline constexpr const char* kConditionInitialized = "Initialized";
inline constexpr const char* kConditionConsolidatable = "Consolidatable";
inline constexpr const char* kConditionDisruptionReason = "DisruptionReason";
// Set once the cloud instance is being terminated; such NodeClaims no longer count as nodes.
inline constexpr const char* kConditionInstanceTerminating = "InstanceTerminating";

// Condition bookkeeping and pod/node classification live in api/ so every layer shares them;
// they are named here too because the controllers speak of them as Karpenter's utilities.
using api::FindNodeCondition;
using api::IsOwnedByDaemonSet;
using api::IsTerminal;
using api::IsTerminating;
using api::SetCondition;

// A critical pod, as Karpenter's pod utilities: system-cluster-critical / system-node-critical priority class, or priority >= 2e9.
bool IsCritical(const api::Pod& pod);
// The karpenter.sh/do-not-disrupt annotation is "true".
bool HasDoNotDisrupt(const api::ObjectMeta& meta);

// The Node backing the NodeClaim: status.nodeName when set, else the Node whose
// spec.providerID equals status.providerID. nullopt when there is none.
std::optional<api::Node> NodeForNodeClaim(const cluster::ClusterApi& cluster,
                                          const api::NodeClaim& claim);
// The NodeClaim whose status.providerID equals the Node's spec.providerID.
std::optional<api::NodeClaim> NodeClaimForNode(const cluster::ClusterApi& cluster,
                                               const api::Node& node);
// Pods bound to the named node, in list order.
std::vector<api::Pod> PodsOnNode(const cluster::ClusterApi& cluster, const std::string& node);

// The last segment of a provider id ("aws:///us-west-2a/i-0abc" -> "i-0abc").
std::string InstanceIdOf(std::string_view provider_id);

// A stable hash of the NodePool's template (what NodeClaims launched from it must match for
// drift), as a decimal string: the karpenter.sh/nodepool-hash annotation.
std::string NodePoolHash(const api::NodePool& pool);

// Removes `value` from `list`; true when it was there.
bool RemoveString(std::vector<std::string>& list, const std::string& value);
bool ContainsString(const std::vector<std::string>& list, const std::string& value);

// One log line (and timeline entry when `type` is set) from a controller's logger.
void Emit(runtime::EventRecorder& recorder, runtime::LogLevel level, std::string logger,
          std::string message, std::string type = "",
          std::vector<std::pair<std::string, std::string>> fields = {});

}  // namespace nodesmith::controllers
