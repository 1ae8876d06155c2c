// Dense resource vectors for the solver's inner loops.
//
// The solver compares and adds resources millions of times per solve, so it converts every
// api::ResourceList once into a ResourceVector: int64 milli-units indexed by a ResourceIndex that
// is fixed for the whole solve. Index 0 is cpu, 1 memory, 2 pods; extended resources follow in
// name order. Absent entries are zero. All vectors of one solve have ResourceIndex::size()
// entries (REQUIRES for the binary operations below).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "api/resource_list.h"

namespace nodesmith::solver {

using ResourceVector = std::vector<int64_t>;

class ResourceIndex {
 public:
  static constexpr int kCpu = 0;
  static constexpr int kMemory = 1;
  static constexpr int kPods = 2;

  ResourceIndex();

  // Registers every name of `list` (no-op for known names). Call before Freeze().
  void Register(const api::ResourceList& list);
  void Register(const std::string& name);
  // Sorts the extended names so indices do not depend on registration order.
  // REQUIRES: called once, before any ToVector.
  void Freeze();

  int size() const { return static_cast<int>(names_.size()); }
  const std::string& Name(int i) const { return names_[i]; }
  // -1 when the name was never registered.
  int Find(const std::string& name) const;

  // Milli-value of each entry; names not registered are dropped (nothing in the solve has them).
  ResourceVector ToVector(const api::ResourceList& list) const;
  ResourceVector Zero() const { return ResourceVector(names_.size(), 0); }

 private:
  std::vector<std::string> names_;
  bool frozen_ = false;
};

// True when every entry of `request` is <= the same entry of `capacity`.
inline bool Fits(const ResourceVector& request, const ResourceVector& capacity) {
  const size_t n = request.size();
  for (size_t i = 0; i < n; ++i) {
    if (request[i] > capacity[i]) return false;
  }
  return true;
}

// True when request + used <= capacity entry-wise (no temporary vector).
inline bool FitsWith(const ResourceVector& request, const ResourceVector& used,
                     const ResourceVector& capacity) {
  const size_t n = request.size();
  for (size_t i = 0; i < n; ++i) {
    if (request[i] + used[i] > capacity[i]) return false;
  }
  return true;
}

inline void AddTo(ResourceVector& acc, const ResourceVector& v) {
  for (size_t i = 0; i < acc.size(); ++i) acc[i] += v[i];
}
inline void SubtractFrom(ResourceVector& acc, const ResourceVector& v) {
  for (size_t i = 0; i < acc.size(); ++i) acc[i] -= v[i];
}
inline void MaxInto(ResourceVector& acc, const ResourceVector& v) {
  for (size_t i = 0; i < acc.size(); ++i) acc[i] = acc[i] < v[i] ? v[i] : acc[i];
}

// Human text of one entry for messages: "cpu 512", "memory 4Gi", "nvidia.com/gpu 2".
std::string DescribeEntry(const ResourceIndex& index, int i, int64_t milli);

}  // namespace nodesmith::solver
