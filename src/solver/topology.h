// Topology: pod topology spread, inter-pod affinity and anti-affinity for one provisioning solve,
// as Karpenter's pkg/controllers/provisioning/scheduling/topology.go.
//
// A Topology is built once per solve. It groups every constraint of the pending pods into
// TopologyGroups (one per distinct key/type/selector/namespaces/skew/node filter, owned by all
// pods that declare it) and counts, per topology domain, the pods each group selects: pods bound
// to existing nodes and, as the solve goes on, the pods the scheduler places.
//
// How the scheduler calls it (in this order):
//   1. Build the inputs: TopologyCluster (existing nodes and in-flight NodeClaims, the pods bound
//      to them, namespace labels) and the domain universe with BuildDomainGroups(...) from the
//      NodePools and their instance types (Topology adds the domains of existing nodes itself,
//      per constraint, as upstream's countDomains). Pending pods must already carry their
//      volume zone requirements (VolumeTopology::Inject) and, under --preference-policy Ignore,
//      have had their preferences stripped (StripPreferences).
//   2. Topology::Create(cluster, domains, pending_pods). Pending pods are identified by
//      PodIdentity(pod) (uid, or namespace/name when uid is empty); a bound pod with the same
//      identity is not counted (it is being moved).
//   3. For each attempt to place pod P on a candidate:
//        - existing node / in-flight NodeClaim: node_requirements = FromLabels(its labels),
//          with kubernetes.io/hostname In [node name] added when the label is absent; taints =
//          the node's taints.
//        - new or growing NodeClaim: its requirements already narrowed by P's requirements
//          (template ∩ Requirements::FromPod(P)), including kubernetes.io/hostname In
//          [<placeholder hostname>]; taints = its NodePool's taints.
//      Call AddRequirements(P, taints, pod_requirements, node_requirements) where
//      pod_requirements is Requirements::FromPodStrict(P) (preferred node affinity must not
//      narrow P's domains). On error the candidate is rejected with status().message() as the
//      reason. On success, check node_requirements.Compatible(result) and narrow the candidate
//      with result.
//   4. When P is committed to a candidate, call Record(P, taints, the candidate's requirements
//      after narrowing) once.
//      When a new NodeClaim is created, call Register(kubernetes.io/hostname, placeholder) so
//      hostname groups know the new (empty) domain.
//   5. After Preferences::Relax changed P, call Update(P) so dropped preferred terms stop
//      constraining it.
// TopologyNode::in_flight must be set for in-flight NodeClaims. MayConstrain/Counts tell which
// pods can skip topology work. Not thread-safe; one solve, one thread. Holds copies of
// everything it needs.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "api/meta.h"
#include "api/pod.h"
#include "api/selector.h"
#include "core/status.h"
#include "scheduling/requirements.h"
#include "solver/topology_domain_group.h"
#include "solver/topology_group.h"

namespace nodesmith::solver {

// A node pods are bound to, as topology counting sees it: an existing Node, or an in-flight
// NodeClaim (labels from its single-valued requirements and template labels).
struct TopologyNode {
  std::string name;
  api::Labels labels;
  std::vector<api::Taint> taints;
  // A NodeClaim without a Node yet: its pods count, but its labels do not add domains to
  // constraints (the NodePool's domains already include them), as upstream.
  bool in_flight = false;
};

// The cluster as topology counting needs it. Pointers are borrowed for the duration of
// Topology::Create only.
struct TopologyCluster {
  std::vector<TopologyNode> nodes;
  // Pods bound to the nodes above (spec.node_name). Terminal and terminating pods are skipped
  // here (IgnoredForTopology); pods bound to unknown nodes are skipped too.
  std::vector<const api::Pod*> bound_pods;
  // Namespace name -> labels. A namespace missing here is treated as having only
  // kubernetes.io/metadata.name=<ns>. Every namespace of a pod is implicitly known.
  std::map<std::string, api::Labels> namespace_labels;
};

// uid, or namespace/name when the uid is empty.
std::string PodIdentity(const api::Pod& pod);

// True for pods that never count towards topology: terminal (Succeeded/Failed) or terminating.
bool IgnoredForTopology(const api::Pod& pod);

class Topology {
 public:
  // Builds the groups for every pending pod and counts existing pods into them; also tracks the
  // required anti-affinity of bound pods (inverse anti-affinity). Fails only on malformed
  // selectors (message names the pod).
  static core::Result<std::unique_ptr<Topology>> Create(
      const TopologyCluster& cluster, DomainGroups domains,
      const std::vector<const api::Pod*>& pending);

  // Re-derives P's groups from its current spec (after relaxation). REQUIRES: P was pending.
  core::Status Update(const api::Pod& pod);

  // The node requirements tightened so that every constraint owned by P, and every required
  // anti-affinity of other pods that selects P, stays satisfied if P lands on a node described by
  // `node_requirements` with `taints`. Error: "unsatisfiable topology constraint for <type>,
  // key=<key> (...)".
  core::Result<scheduling::Requirements> AddRequirements(
      const api::Pod& pod, const std::vector<api::Taint>& taints,
      const scheduling::Requirements& pod_requirements,
      const scheduling::Requirements& node_requirements) const;
  // AddRequirements without the error message: nullopt where it fails. The scheduler tries
  // many candidates per pod and discards the reasons, so formatting them is wasted work.
  std::optional<scheduling::Requirements> TryAddRequirements(
      const api::Pod& pod, const std::vector<api::Taint>& taints,
      const scheduling::Requirements& pod_requirements,
      const scheduling::Requirements& node_requirements) const;

  // True when P can never be placed on the node whose hostname is `host` (the node's
  // requirements allow no other hostname), whatever else is placed later: P owns a hostname
  // anti-affinity whose group already counts a pod there, or a hostname spread whose count there
  // (plus P itself) already exceeds maxSkew. Counts only grow during a solve, so a true answer is
  // final. False means "maybe": AddRequirements decides.
  bool HostExcluded(const api::Pod& pod, const std::string& host) const;
  // The groups HostExcluded consults for P, as an opaque key: pods with equal keys get equal
  // HostExcluded answers for every host. Empty when nothing can exclude P by hostname.
  std::vector<int64_t> HostExclusionKey(const api::Pod& pod) const;
  // The topology keys whose node requirement AddRequirements(P, ...) consults: those of the
  // groups P owns and of the anti-affinity groups of other pods that select P (sorted, unique).
  // Until the next Record/Register/Update, AddRequirements(P, taints, pod_requirements, node)
  // succeeds or fails alike for every node that requires the same of each of these keys.
  std::vector<std::string> ConstraintKeys(const api::Pod& pod) const;
  // Every topology key P takes part in: ConstraintKeys plus the keys of the groups that count P
  // and of P's own required anti-affinity (sorted, unique). Moving P between two nodes that
  // require one and the same value of each of these keys changes no count and no answer.
  std::vector<std::string> InvolvedKeys(const api::Pod& pod) const;

  // Counts P into every group that selects it, given it landed on a node with `requirements`.
  // Spread and affinity groups count only a single known domain; anti-affinity groups block
  // every domain P may still land in.
  void Record(const api::Pod& pod, const std::vector<api::Taint>& taints,
              const scheduling::Requirements& requirements);
  // The same, given SelectingGroups(P) (as computed since the last Update): a caller that
  // records one pod again and again asks which groups select it once.
  void Record(const api::Pod& pod, const std::vector<api::Taint>& taints,
              const scheduling::Requirements& requirements, const std::vector<size_t>& selecting);
  // The groups that select P (namespace and labels), as Record needs them; they change only
  // with Update.
  std::vector<size_t> SelectingGroups(const api::Pod& pod) const;

  // Makes `domain` of `topology_key` known (count 0) to every group on that key.
  void Register(const std::string& topology_key, const std::string& domain);

  // True when AddRequirements may narrow or reject a placement of P: P owns a constraint, or
  // some pod's required anti-affinity selects P. Cheap enough to call per pod per pass; only
  // Update(P) can turn it from true to false.
  bool MayConstrain(const api::Pod& pod) const;
  // True when Record(P, ...) may change a count: some constraint selects P, or P has required
  // anti-affinity of its own. Where P lands matters to other pods only when this holds.
  bool Counts(const api::Pod& pod) const;

  // For tests and diagnostics: the groups P owns, in a stable order.
  std::vector<const TopologyGroup*> GroupsOwnedBy(const api::Pod& pod) const;

 private:
  Topology(DomainGroups domains, std::map<std::string, api::Labels> namespace_labels);

  // Tracks the required anti-affinity terms of `pod`; `node` (may be null) is where it runs.
  core::Status AddInverseAntiAffinity(const api::Pod& pod, const TopologyNode* node);
  // Groups owned by one pending pod, in creation order (indices into groups_ and
  // inverse_groups_), so per-attempt work does not look the pod up in every group.
  struct Owned {
    std::vector<size_t> groups;
    std::vector<size_t> inverse;
  };
  // The groups `pod` owns, or null when it owns none.
  const Owned* OwnedBy(const api::Pod& pod) const;
  // Sets `out` to node_requirements with every constraint on P applied; on failure returns
  // false, sets *failed to the first group that left no domain and leaves `out` alone.
  bool Narrow(const api::Pod& pod, const std::vector<api::Taint>& taints,
              const scheduling::Requirements& pod_requirements,
              const scheduling::Requirements& node_requirements,
              scheduling::Requirements& out, const TopologyGroup** failed) const;
  const TopologyDomainGroup* DomainsFor(const std::string& key) const;
  core::Result<std::set<std::string>> NamespacesFor(const api::Pod& pod,
                                                    const api::PodAffinityTerm& term) const;
  void CountExisting(TopologyGroup& group) const;
  // The group of `groups` with `group`'s constraint key, or `group` itself once added (after
  // counting the cluster into it when `count_existing`).
  TopologyGroup* Intern(std::vector<std::unique_ptr<TopologyGroup>>& groups,
                        std::map<std::string, TopologyGroup*>& index,
                        std::unique_ptr<TopologyGroup> group, bool count_existing);

  DomainGroups domains_;
  std::map<std::string, api::Labels> namespace_labels_;
  std::vector<TopologyNode> nodes_;           // copies of TopologyCluster::nodes
  std::map<std::string, size_t> node_index_;  // node name -> nodes_ index
  // The counted pods (bound, live, not pending, on a known node), as CountExisting needs them.
  // Which pods a group selects depends only on their namespace and labels, so pods alike in
  // both (a ReplicaSet's) share one entry, matched once per group: with 150,000 bound pods a
  // copy of each pod, and a selector match per pod and group, cost more than the solve.
  struct CountedPods {
    std::string namespace_;
    api::Labels labels;
    std::vector<size_t> nodes;  // nodes_ index of each such pod (repeated for pods on one node)
  };
  std::vector<CountedPods> counted_;
  // Requirements::FromLabels of nodes_[i], built when a group's node filter first needs it.
  const scheduling::Requirements& NodeRequirements(size_t i) const;
  mutable std::vector<std::optional<scheduling::Requirements>> node_requirements_;
  // Groups in creation order (deterministic iteration), deduplicated by constraint key.
  std::vector<std::unique_ptr<TopologyGroup>> groups_;
  std::vector<std::unique_ptr<TopologyGroup>> inverse_groups_;
  std::map<std::string, TopologyGroup*> group_index_;  // constraint key -> group
  std::map<std::string, TopologyGroup*> inverse_index_;
  // Pod identity -> the groups it owns (the one record of ownership). Hashed (looked up
  // by string_view without a copy): uids share long prefixes, which a tree compares again and
  // again. Never iterated, so its order does not matter.
  struct IdentityHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  std::unordered_map<std::string, Owned, IdentityHash, std::equal_to<>> owned_;
  std::unordered_map<const TopologyGroup*, size_t> position_;  // index in groups_/inverse_groups_
  // One-entry cache of OwnedBy (pod address and uid checked on every hit).
  mutable const api::Pod* last_owned_pod_ = nullptr;
  mutable std::string last_owned_uid_;
  mutable const Owned* last_owned_ = nullptr;
  // Narrow's scratch list of the domains each group leaves (kept to reuse its storage).
  mutable std::vector<scheduling::Requirement> narrowing_;
};

}  // namespace nodesmith::solver
