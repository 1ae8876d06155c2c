#include "controllers/controllers.h"

#include "controllers/disruption/disruption_controller.h"
#include "controllers/disruption/orchestration_queue.h"
#include "controllers/interruption/interruption_controller.h"
#include "controllers/nodeclaim/drift_detection.h"
#include "controllers/nodeclaim/garbage_collection.h"
#include "controllers/nodeclaim/lifecycle.h"
#include "controllers/nodeclaim/pod_events.h"
#include "controllers/nodepool/counter.h"
#include "controllers/nodepool/hash.h"
#include "controllers/nodepool/readiness.h"
#include "controllers/nodepool/validation.h"
#include "controllers/provisioning/provisioner.h"
#include "controllers/termination/terminator.h"

namespace nodesmith::controllers {

std::unique_ptr<ControllerSet> NewControllers(const core::Clock& clock,
                                              cluster::ClusterApi& cluster,
                                              cloud::CloudProvider& cloud,
                                              runtime::EventRecorder& recorder,
                                              const Settings& settings,
                                              cloud::InterruptionQueue* interruption_queue,
                                              cloud::UnavailableOfferingsSink* unavailable_offerings) {
  ProvisionerOptions provisioning;
  provisioning.batch_idle_duration = settings.batch_idle_duration;
  provisioning.batch_max_duration = settings.batch_max_duration;
  provisioning.well_known_labels = settings.well_known_labels;
  provisioning.scheduler.ignore_preferences = settings.ignore_preferences;
  provisioning.scheduler.min_values_best_effort = settings.min_values_best_effort;
  auto nominations = std::make_shared<Nominations>();
  provisioning.nominations = nominations;
  provisioning.require_unschedulable_condition = settings.require_unschedulable_condition;
  DisruptionOptions disruption;
  disruption.nominations = nominations;
  disruption.index_pods = settings.index_pods_by_node;
  SimulatorOptions simulation;
  simulation.well_known_labels = settings.well_known_labels;
  simulation.scheduler.ignore_preferences = settings.ignore_preferences;
  simulation.scheduler.min_values_best_effort = settings.min_values_best_effort;
  disruption.simulator = std::make_shared<SchedulingSimulator>(cluster, cloud, simulation);
  MethodOptions methods;
  methods.spot_to_spot_consolidation = settings.spot_to_spot_consolidation;

  std::vector<std::unique_ptr<runtime::Controller>> all;
  all.push_back(std::make_unique<Provisioner>(clock, cluster, cloud, recorder, provisioning));
  all.push_back(std::make_unique<NodeClaimLifecycle>(clock, cluster, cloud, recorder));
  all.push_back(std::make_unique<PodEvents>(clock, cluster));
  // Before disruption, so a pass sees the Drifted conditions of the same instant.
  all.push_back(std::make_unique<DriftDetection>(clock, cluster, cloud, recorder));
  // The set owns the queue; the disruption controller hands it every command.
  auto queue = std::make_unique<OrchestrationQueue>(clock, cluster, recorder);
  disruption.queue = queue.get();
  all.push_back(std::make_unique<DisruptionController>(clock, cluster, cloud, recorder,
                                                       DefaultMethods(clock, *disruption.simulator, methods),
                                                       disruption));
  all.push_back(std::move(queue));
  all.push_back(std::make_unique<Terminator>(clock, cluster, cloud, recorder));
  all.push_back(std::make_unique<GarbageCollector>(clock, cluster, cloud, recorder));
  // NodePool status last: it only observes, and its writes come after what they count.
  all.push_back(std::make_unique<NodePoolHashController>(cluster));
  all.push_back(std::make_unique<NodePoolValidation>(clock, cluster));
  all.push_back(std::make_unique<NodePoolReadiness>(clock, cluster));
  all.push_back(std::make_unique<NodePoolCounter>(cluster));
  if (interruption_queue != nullptr && unavailable_offerings != nullptr) {
    all.push_back(std::make_unique<InterruptionController>(clock, cluster, *interruption_queue,
                                                           *unavailable_offerings, recorder));
  }
  return std::make_unique<ControllerSet>(std::move(all));
}

}  // namespace nodesmith::controllers
