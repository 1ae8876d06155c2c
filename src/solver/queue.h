// Queue: the order in which the scheduler tries pending pods, as Karpenter's queue.go.
//
// Pods are sorted once: CPU request descending, then memory descending (big pods first packs
// better), then creation time, then uid, so the order never depends on input order. A pod
// that fails is pushed to the back and retried after the others; the queue reports empty when
// it would pop a pod that was pushed back while the queue had the same length, i.e. a full
// cycle passed without any pod being placed. Entries are indices into the caller's pod table.
#pragma once

#include <cstdint>
#include <deque>
#include <string_view>
#include <vector>

namespace nodesmith::solver {

// What the queue orders pods by.
struct QueueKey {
  int64_t cpu_milli = 0;
  int64_t memory_milli = 0;
  int64_t creation_unix_nanos = 0;
  std::string_view uid;  // the pod's; read only while the Queue is constructed
};

class Queue {
 public:
  // `keys[i]` describes pod i; the queue holds 0..keys.size()-1 in scheduling order.
  explicit Queue(const std::vector<QueueKey>& keys);

  // The next pod to try, or -1 when empty or when no progress was made over a full cycle.
  int Pop();
  // Requeues a pod that failed; it is tried again after the pods now waiting. `relaxed` (the
  // pod lost a preference) restarts progress detection for every pod, as Karpenter does: the
  // relaxed pod may now succeed, and so may pods that waited for it.
  void Push(int pod, bool relaxed = false);
  // Pods still queued (the ones that could not be placed once Pop returned -1).
  std::vector<int> List() const { return {pods_.begin(), pods_.end()}; }
  size_t size() const { return pods_.size(); }

 private:
  std::deque<int> pods_;
  std::vector<int64_t> last_len_;  // queue length right after the pod's last Push
  std::vector<int64_t> last_gen_;  // generation of that Push; stale when != generation_
  int64_t generation_ = 0;
};

}  // namespace nodesmith::solver
