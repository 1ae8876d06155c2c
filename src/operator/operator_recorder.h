// OperatorRecorder: the runtime::EventRecorder of `nodesmith controller`. Every report of a
// controller becomes a JSON log line in Karpenter's words (karpenter_log.h) and, where Karpenter
// would publish one, a core/v1 Event about the object concerned; observers (metrics) see the
// report as given.
//
// Record() is called on the runtime thread (it reads the cluster cache to find an object's uid);
// the Events are written by the kube::EventRecorder's own thread. REQUIRES: clock, logger,
// cluster and events (when given) outlive the recorder.
#pragma once

#include <functional>
#include <vector>

#include "cluster/cluster_api.h"
#include "core/clock.h"
#include "kube/event_recorder.h"
#include "operator/json_logger.h"
#include "runtime/event_recorder.h"

namespace nodesmith::op {

class OperatorRecorder : public runtime::EventRecorder {
 public:
  // `events` null: no Events are written (shadow mode logs what it would publish instead).
  OperatorRecorder(const core::Clock& clock, JsonLogger& logger,
                   const cluster::ClusterApi& cluster, kube::EventRecorder* events);

  void Record(runtime::RecordedEvent event) override;
  void AddObserver(std::function<void(const runtime::RecordedEvent&)> observer) {
    observers_.push_back(std::move(observer));
  }

 private:
  kube::ObjectReference ReferenceTo(const std::string& kind, const std::string& ns,
                                    const std::string& name) const;

  const core::Clock& clock_;
  JsonLogger& logger_;
  const cluster::ClusterApi& cluster_;
  kube::EventRecorder* events_;
  std::vector<std::function<void(const runtime::RecordedEvent&)>> observers_;
};

}  // namespace nodesmith::op
