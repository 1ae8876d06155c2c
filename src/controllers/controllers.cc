#include "controllers/controllers.h"

#include "controllers/disruption/disruption_controller.h"
#include "controllers/nodeclaim/garbage_collection.h"
#include "controllers/nodeclaim/lifecycle.h"
#include "controllers/nodeclaim/pod_events.h"
#include "controllers/provisioning/provisioner.h"
#include "controllers/termination/terminator.h"

namespace nodesmith::controllers {

std::unique_ptr<ControllerSet> NewControllers(const core::Clock& clock,
                                              cluster::ClusterApi& cluster,
                                              cloud::CloudProvider& cloud,
                                              runtime::EventRecorder& recorder,
                                              const Settings& settings) {
  ProvisionerOptions provisioning;
  provisioning.batch_idle_duration = settings.batch_idle_duration;
  provisioning.batch_max_duration = settings.batch_max_duration;
  provisioning.well_known_labels = settings.well_known_labels;
  provisioning.scheduler.ignore_preferences = settings.ignore_preferences;
  provisioning.scheduler.min_values_best_effort = settings.min_values_best_effort;
  auto nominations = std::make_shared<Nominations>();
  provisioning.nominations = nominations;
  DisruptionOptions disruption;
  disruption.nominations = nominations;

  std::vector<std::unique_ptr<runtime::Controller>> all;
  all.push_back(std::make_unique<Provisioner>(clock, cluster, cloud, recorder, provisioning));
  all.push_back(std::make_unique<NodeClaimLifecycle>(clock, cluster, cloud, recorder));
  all.push_back(std::make_unique<PodEvents>(clock, cluster));
  all.push_back(std::make_unique<DisruptionController>(clock, cluster, cloud, recorder,
                                                       DefaultMethods(clock), disruption));
  all.push_back(std::make_unique<Terminator>(clock, cluster, cloud, recorder));
  all.push_back(std::make_unique<GarbageCollector>(clock, cluster, cloud, recorder));
  return std::make_unique<ControllerSet>(std::move(all));
}

}  // namespace nodesmith::controllers
