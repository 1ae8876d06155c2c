// KwokCloudProvider: the cloud of a laptop cluster, as Karpenter's KWOK provider. There are no
// instances: launching a NodeClaim creates its Node object, which the real kwok controller
// (run with --manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake) then heartbeats and
// whose pods it runs once kube-scheduler binds them. Deleting the instance deletes the Node.
//
//   Create   the cheapest available compatible offering of the catalog (cloud/launch_offering.h);
//            the Node is named after the NodeClaim, has providerID "kwok://<name>", the
//            NodeClaim's labels and single-valued requirements, the type's and offering's
//            labels, kubernetes.io/hostname, eks-node-viewer/instance-price, the kwok label
//            and annotation, the karpenter.sh/unregistered:NoExecute taint, the type's
//            capacity and allocatable. It is created at once, or after the KWOKNodeClass's
//            spec.nodeRegistrationDelay through the injected scheduler. A node class that is
//            missing is insufficient capacity (kUnavailable), one not Ready an error, as
//            upstream.
//   Delete   deletes the Node (and forgets a registration still waiting); the instance is
//            gone at once, so the next Get is NotFound.
//   Get/List launched instances this process still waits to register, and Nodes whose
//            providerID starts with kwok:// and that are not being deleted.
// Unlike upstream the Node's capacity is the instance type's rather than the NodeClaim's
// requests, so a kwok node looks like the machine the solver planned.
//
// Not thread-safe: called on the runtime's thread, as the controllers are, and writes through
// the same ClusterApi. REQUIRES: the cluster outlives the provider.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "cloud/catalog.h"
#include "cloud/cloud_provider.h"
#include "cluster/cluster_api.h"
#include "core/duration.h"

namespace nodesmith::cloud::kwok {

inline constexpr const char* kProviderIdPrefix = "kwok://";
// The label and annotation that hand a Node to the kwok controller.
inline constexpr const char* kKwokNodeKey = "kwok.x-k8s.io/node";
inline constexpr const char* kKwokNodeValue = "fake";
inline constexpr const char* kNodeViewerPriceLabel = "eks-node-viewer/instance-price";
// karpenter.kwok.sh/v1alpha1 KWOKNodeClass, the node class NodePools reference.
inline constexpr const char* kNodeClassGroup = "karpenter.kwok.sh";
inline constexpr const char* kNodeClassKind = "KWOKNodeClass";

// What the provider reads of a KWOKNodeClass.
struct KwokNodeClass {
  core::Duration registration_delay{0};  // spec.nodeRegistrationDelay
  bool ready = true;                     // status condition Ready is not False
  std::string not_ready_message;
};

struct KwokCloudProviderOptions {
  // Looks a KWOKNodeClass up by name (kNotFound when there is none). Empty: every name resolves
  // to a ready class without delay.
  std::function<core::Result<KwokNodeClass>(const std::string& name)> node_classes;
  // Runs `fn` after `delay` on the thread that calls the provider. Needed only for node classes
  // with a registration delay; without one such Nodes are created at once.
  std::function<void(core::Duration delay, std::function<void()> fn)> schedule;
  // Where failed Node writes are reported.
  std::function<void(const std::string&)> log;
};

class KwokCloudProvider : public CloudProvider {
 public:
  KwokCloudProvider(cluster::ClusterApi& cluster, Catalog catalog,
                    KwokCloudProviderOptions options = {});

  core::Result<api::NodeClaim> Create(const api::NodeClaim& node_claim) override;
  core::Status Delete(const api::NodeClaim& node_claim) override;
  core::Result<api::NodeClaim> Get(const std::string& provider_id) const override;
  std::vector<api::NodeClaim> List() const override;
  core::Result<InstanceTypes> GetInstanceTypes(const api::NodePool& node_pool) const override;
  DriftReason IsDrifted(const api::NodeClaim&) const override { return {}; }
  std::string Name() const override { return "kwok"; }

  const Catalog& catalog() const { return catalog_; }
  // Registrations waiting for their delay, by providerID.
  size_t PendingRegistrations() const { return pending_.size(); }

 private:
  void Register(const std::string& provider_id);
  // The launched NodeClaim a Node stands for.
  static api::NodeClaim FromNode(const api::Node& node);
  void Log(const std::string& message) const;

  cluster::ClusterApi& cluster_;
  Catalog catalog_;
  KwokCloudProviderOptions options_;
  // Launched, Node not yet created: providerID -> (launched NodeClaim, Node to create).
  std::map<std::string, std::pair<api::NodeClaim, api::Node>> pending_;
};

// "kwok://<node name>" -> "<node name>"; "" when the id is not a kwok one.
std::string NodeNameOf(const std::string& provider_id);

}  // namespace nodesmith::cloud::kwok
