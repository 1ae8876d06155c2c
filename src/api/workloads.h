// Workload controllers' objects (apps/v1 Deployment, ReplicaSet, StatefulSet, DaemonSet;
// batch/v1 Job): what nodesmith needs to stand in for their pods.
#pragma once

#include <optional>
#include <string>

#include "api/meta.h"
#include "api/pod.h"

namespace nodesmith::api {

// Deployment, ReplicaSet and StatefulSet share this shape; `kind` says which.
struct ReplicatedWorkload {
  std::string kind;  // "Deployment", "ReplicaSet", "StatefulSet"
  ObjectMeta metadata;
  int replicas = 1;  // spec.replicas (defaults to 1 as the API server does)
  std::optional<LabelSelector> selector;
  PodTemplateSpec template_;
};

struct DaemonSet {
  ObjectMeta metadata;
  std::optional<LabelSelector> selector;
  PodTemplateSpec template_;
};

struct Job {
  ObjectMeta metadata;
  int parallelism = 1;
  std::optional<int> completions;
  PodTemplateSpec template_;
};

}  // namespace nodesmith::api
