#include "solver/queue.h"

#include <algorithm>
#include <numeric>

namespace nodesmith::solver {

Queue::Queue(const std::vector<QueueKey>& keys)
    : last_len_(keys.size(), -1), last_gen_(keys.size(), -1) {
  std::vector<int> order(keys.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    const QueueKey& l = keys[a];
    const QueueKey& r = keys[b];
    if (l.cpu_milli != r.cpu_milli) return l.cpu_milli > r.cpu_milli;
    if (l.memory_milli != r.memory_milli) return l.memory_milli > r.memory_milli;
    if (l.creation_unix_nanos != r.creation_unix_nanos) {
      return l.creation_unix_nanos < r.creation_unix_nanos;
    }
    return l.uid < r.uid;
  });
  pods_.assign(order.begin(), order.end());
}

int Queue::Pop() {
  if (pods_.empty()) return -1;
  int p = pods_.front();
  if (last_gen_[p] == generation_ && last_len_[p] == static_cast<int64_t>(pods_.size())) return -1;
  pods_.pop_front();
  return p;
}

void Queue::Push(int pod, bool relaxed) {
  pods_.push_back(pod);
  if (relaxed) {
    ++generation_;  // forgets every earlier Push
    return;
  }
  last_len_[pod] = static_cast<int64_t>(pods_.size());
  last_gen_[pod] = generation_;
}

}  // namespace nodesmith::solver
