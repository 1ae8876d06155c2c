// Controller: one reconcile loop (provisioning, NodeClaim lifecycle, disruption, termination,
// ...), written once and driven by whichever runtime the world provides.
//
// A controller gets its dependencies (Clock&, ClusterApi&, CloudProvider&, EventRecorder&) in
// its constructor and keeps no hidden ones. Reconcile does the work for one request and returns
// when it wants to be called again; it never sleeps, never reads the wall clock, never starts a
// thread. The runtime calls Reconcile when an object of a watched kind changes (with that
// object's key) or when a requested requeue time arrives.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "cluster/cluster_api.h"
#include "core/duration.h"
#include "core/status.h"
#include "core/time.h"

namespace nodesmith::runtime {

// What to reconcile. Singleton controllers (provisioner, disruption) get an empty name.
struct Request {
  std::string namespace_;
  std::string name;
  // Per kind, when the latest change of that kind that asked for this reconcile was observed
  // (WatchEvent::observed_at); empty for a timer, a retry or changes of unknown time. A reconcile
  // that waited behind others on the runtime's thread can count from the change, not from its
  // own start. Per kind, because what came in meanwhile is often other objects' news (the
  // writes of the reconcile it waited for). Not part of what the request is: requests compare
  // by namespace and name.
  std::map<cluster::Kind, core::Time> changed_at;

  bool operator==(const Request& o) const { return namespace_ == o.namespace_ && name == o.name; }
  auto operator<=>(const Request& o) const {
    return std::tie(namespace_, name) <=> std::tie(o.namespace_, o.name);
  }
};

struct ReconcileResult {
  std::optional<core::Duration> requeue_after;  // nullopt: until something changes

  static ReconcileResult Done() { return {}; }
  static ReconcileResult RequeueAfter(core::Duration d) { return {d}; }
};

class Controller {
 public:
  virtual ~Controller() = default;
  // A stable name for logs and metrics ("provisioner", "nodeclaim.lifecycle", ...).
  virtual std::string Name() const = 0;
  // The kinds whose changes trigger this controller. For a singleton controller every change
  // maps to the empty Request; otherwise to the changed object's key.
  virtual std::vector<cluster::Kind> Watches() const = 0;
  virtual bool Singleton() const = 0;
  // An error is logged and the request retried with backoff by the runtime.
  virtual core::Result<ReconcileResult> Reconcile(const Request& request) = 0;
};

}  // namespace nodesmith::runtime
