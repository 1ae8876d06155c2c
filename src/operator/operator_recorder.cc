#include "operator/operator_recorder.h"

#include "operator/karpenter_log.h"

namespace nodesmith::op {

OperatorRecorder::OperatorRecorder(const core::Clock& clock, JsonLogger& logger,
                                   const cluster::ClusterApi& cluster,
                                   kube::EventRecorder* events)
    : clock_(clock), logger_(logger), cluster_(cluster), events_(events) {}

kube::ObjectReference OperatorRecorder::ReferenceTo(const std::string& kind,
                                                    const std::string& ns,
                                                    const std::string& name) const {
  kube::ObjectReference ref;
  ref.kind = kind;
  ref.name = name;
  ref.namespace_ = ns;
  cluster::Kind k = cluster::Kind::kPod;
  if (kind == "Pod") {
    ref.api_version = "v1";
  } else if (kind == "Node") {
    ref.api_version = "v1";
    k = cluster::Kind::kNode;
  } else if (kind == "EC2NodeClass") {
    ref.api_version = "karpenter.k8s.aws/v1";
    k = cluster::Kind::kEC2NodeClass;
  } else if (kind == "NodeClaim") {
    ref.api_version = "karpenter.sh/v1";
    k = cluster::Kind::kNodeClaim;
  } else {
    ref.api_version = "karpenter.sh/v1";
    k = cluster::Kind::kNodePool;
  }
  auto object = cluster_.GetObject(k, ns, name);
  if (object.ok()) {
    const api::ObjectMeta& meta = cluster::MetaOf(*object);
    ref.uid = meta.uid;
  }
  return ref;
}

void OperatorRecorder::Record(runtime::RecordedEvent event) {
  const OperatorLine line = TranslateRecordedEvent(event);
  logger_.Log(line.severity, clock_.Now(), line.controller, line.message, line.fields);
  for (const KubeEventSpec& e : line.events) {
    if (events_ == nullptr) continue;
    events_->Publish(ReferenceTo(e.kind, e.namespace_, e.name),
                     e.warning ? kube::EventType::kWarning : kube::EventType::kNormal, e.reason,
                     e.message);
  }
  for (const auto& observer : observers_) observer(event);
}

}  // namespace nodesmith::op
