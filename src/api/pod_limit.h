// The most pods an input may stand for. A workload's `replicas` is an int32, so one typo
// (replicas: 2000000000) would otherwise make the CLI build two billion pods and run out of
// memory. The limit is far above any real cluster (Kubernetes documents 150,000 pods as the most
// a cluster supports), so only hostile or mistaken input meets it.
//
// PodLimit counts pods as they are asked for and refuses, before anything is allocated, the
// request that takes the total past the limit, naming where it came from.
#pragma once

#include <cstdint>
#include <string>

#include "core/status.h"

namespace nodesmith::api {

inline constexpr int64_t kMaxPods = 1000000;

class PodLimit {
 public:
  // `limited` says what the limit is of, for messages ("pods an input may stand for").
  explicit PodLimit(int64_t limit = kMaxPods, const char* limited = "pods an input may stand for")
      : limit_(limit), limited_(limited) {}

  // Counts `count` more pods, asked for by `what` (the full "file: document N (Kind name): field"
  // prefix of an error). InvalidArgument naming `what` when the total would pass the limit; the
  // count is then not taken.
  core::Status Add(int64_t count, const std::string& what);
  // Gives back `count` pods added before (a workload scaled down or deleted).
  void Release(int64_t count) { total_ -= count; }
  int64_t total() const { return total_; }

 private:
  int64_t limit_;
  const char* limited_;
  int64_t total_ = 0;
};

}  // namespace nodesmith::api
