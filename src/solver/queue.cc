#include "solver/queue.h"

#include <algorithm>
#include <string_view>

namespace nodesmith::solver {

namespace {

// Eight bytes of `s` from `offset` as a big-endian number (zero past the end): comparing two
// such numbers orders the strings as their bytes there do, and equal numbers decide nothing.
uint64_t Prefix(std::string_view s, size_t offset) {
  uint64_t v = 0;
  for (size_t i = 0; i < 8; ++i) {
    const size_t at = offset + i;
    v = (v << 8) | (at < s.size() ? static_cast<unsigned char>(s[at]) : 0);
  }
  return v;
}

}  // namespace

Queue::Queue(const std::vector<QueueKey>& keys)
    : last_len_(keys.size(), -1), last_gen_(keys.size(), -1) {
  // Sorted by value, not through indices into `keys`, so comparisons read contiguous memory.
  // Uids usually share a long prefix ("uid-..."): it is skipped, and the next eight bytes are
  // compared as a number before the strings are. The index as the last tie-break gives the
  // order a stable sort would.
  size_t common = keys.empty() ? 0 : keys[0].uid.size();
  for (const QueueKey& k : keys) {
    size_t i = 0;
    while (i < common && i < k.uid.size() && k.uid[i] == keys[0].uid[i]) ++i;
    common = i;
  }
  struct Entry {
    int64_t cpu_milli;
    int64_t memory_milli;
    int64_t creation_unix_nanos;
    uint64_t uid_prefix;
    std::string_view uid;
    int index;
  };
  std::vector<Entry> order;
  order.reserve(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    const QueueKey& k = keys[i];
    order.push_back(Entry{k.cpu_milli, k.memory_milli, k.creation_unix_nanos, Prefix(k.uid, common),
                          k.uid, static_cast<int>(i)});
  }
  auto before = [](const Entry& l, const Entry& r) {
    if (l.cpu_milli != r.cpu_milli) return l.cpu_milli > r.cpu_milli;
    if (l.memory_milli != r.memory_milli) return l.memory_milli > r.memory_milli;
    if (l.creation_unix_nanos != r.creation_unix_nanos) {
      return l.creation_unix_nanos < r.creation_unix_nanos;
    }
    if (l.uid_prefix != r.uid_prefix) return l.uid_prefix < r.uid_prefix;
    if (l.uid != r.uid) return l.uid < r.uid;
    return l.index < r.index;
  };
  // The order is total (the index breaks every tie), so any sort gives the same result. Pods
  // often arrive as a few sorted runs (by name, one run per shape): those are merged, in
  // linear time per run, instead of sorted from scratch.
  constexpr size_t kMaxRuns = 8;
  std::vector<size_t> run_starts{0};
  for (size_t i = 1; i < order.size() && run_starts.size() <= kMaxRuns; ++i) {
    if (before(order[i], order[i - 1])) run_starts.push_back(i);
  }
  if (run_starts.size() <= kMaxRuns) {
    for (size_t r = 1; r < run_starts.size(); ++r) {
      const size_t end = r + 1 < run_starts.size() ? run_starts[r + 1] : order.size();
      std::inplace_merge(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(run_starts[r]),
                         order.begin() + static_cast<std::ptrdiff_t>(end), before);
    }
  } else {
    std::sort(order.begin(), order.end(), before);
  }
  for (const Entry& e : order) pods_.push_back(e.index);
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
