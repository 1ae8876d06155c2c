// CloudProvider: what nodesmith asks of a cloud — launch an instance for a NodeClaim, delete
// it, find it, list what it runs, and tell which instance types a NodePool may use.
//
// Controllers hold a CloudProvider& and never know which cloud they talk to: the simulator
// wires SimulatedCloud (cloud/sim/), a real cluster the EC2 provider. Expected failures are
// Status values with the codes below, never exceptions:
//   kUnavailable     insufficient capacity for every offering tried (the caller marks them
//                    unavailable and re-plans); `unavailable_offerings` in the error says which
//   kNotFound        no instance for that provider id (it is gone)
//   kInternal        anything else
// Implementations need not be thread-safe.
#pragma once

#include <string>
#include <vector>

#include "api/nodeclaim.h"
#include "api/nodepool.h"
#include "cloud/instance_type.h"
#include "core/status.h"

namespace nodesmith::cloud {

// Why a NodeClaim no longer matches what its NodePool and NodeClass would launch now.
struct DriftReason {
  std::string reason;  // "" when not drifted; e.g. "AMIDrift", "SubnetDrift", "NodeClassDrift"
};

class CloudProvider {
 public:
  virtual ~CloudProvider() = default;

  // Launches one instance satisfying the NodeClaim's requirements and resource requests,
  // choosing the cheapest available compatible offering among the NodeClaim's instance-type
  // options. Returns the NodeClaim with status.providerID, capacity, allocatable and the labels
  // of the launched type, zone and capacity type filled in.
  virtual core::Result<api::NodeClaim> Create(const api::NodeClaim& node_claim) = 0;
  // How many launches CreateAll merges into one call to the cloud (EC2's CreateFleet takes a
  // total target capacity); 1 when every launch is a call of its own.
  virtual size_t MaxLaunchBatch() const { return 1; }
  // Launches every NodeClaim as Create launches one: one result per NodeClaim, in order. A
  // provider whose cloud launches several instances in one call overrides it, so a burst of
  // NodeClaims costs one call, not one each.
  virtual std::vector<core::Result<api::NodeClaim>> CreateAll(
      const std::vector<api::NodeClaim>& node_claims) {
    std::vector<core::Result<api::NodeClaim>> out;
    out.reserve(node_claims.size());
    for (const api::NodeClaim& c : node_claims) out.push_back(Create(c));
    return out;
  }
  // Terminates the instance behind the NodeClaim's providerID. NotFound once it is gone.
  virtual core::Status Delete(const api::NodeClaim& node_claim) = 0;
  // How many terminations DeleteAll merges into one call to the cloud (EC2's
  // TerminateInstances takes a list of ids); 1 when every termination is a call of its own.
  virtual size_t MaxDeleteBatch() const { return 1; }
  // Terminates every NodeClaim's instance as Delete terminates one: one status per NodeClaim,
  // in order.
  virtual std::vector<core::Status> DeleteAll(const std::vector<api::NodeClaim>& node_claims) {
    std::vector<core::Status> out;
    out.reserve(node_claims.size());
    for (const api::NodeClaim& c : node_claims) out.push_back(Delete(c));
    return out;
  }
  // The instance with that provider id, as a NodeClaim (status filled, labels of the type).
  virtual core::Result<api::NodeClaim> Get(const std::string& provider_id) const = 0;
  // Every instance this cluster's nodesmith launched and that is not yet terminated.
  virtual std::vector<api::NodeClaim> List() const = 0;
  // The instance types the NodePool may launch (its NodeClass's kubelet settings applied),
  // with offerings whose `available` reflects current capacity.
  virtual core::Result<InstanceTypes> GetInstanceTypes(const api::NodePool& node_pool) const = 0;
  // Whether the instance behind the NodeClaim differs from what would be launched now.
  virtual DriftReason IsDrifted(const api::NodeClaim& node_claim) const = 0;
  virtual std::string Name() const = 0;
};

}  // namespace nodesmith::cloud
