// ResourceList: named quantities ("cpu", "memory", "pods", "nvidia.com/gpu", ...), as
// core/v1 ResourceList. Absent names are zero. Iteration is in name order (std::map), so any
// output built from it is deterministic.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "api/quantity.h"

namespace nodesmith::api {

inline constexpr const char* kResourceCpu = "cpu";
inline constexpr const char* kResourceMemory = "memory";
inline constexpr const char* kResourcePods = "pods";
inline constexpr const char* kResourceEphemeralStorage = "ephemeral-storage";
inline constexpr const char* kResourceNvidiaGpu = "nvidia.com/gpu";
inline constexpr const char* kResourceAmdGpu = "amd.com/gpu";
inline constexpr const char* kResourceNeuron = "aws.amazon.com/neuron";
inline constexpr const char* kResourceEfa = "vpc.amazonaws.com/efa";
// Not a resource of any node or pod: the name under which a NodePool's limits and status count
// nodes, each node counting as one.
inline constexpr const char* kResourceNodes = "nodes";

class ResourceList {
 public:
  ResourceList() = default;
  ResourceList(std::initializer_list<std::pair<const std::string, Quantity>> items) : items_(items) {}

  // The quantity for `name`, zero when absent.
  Quantity Get(const std::string& name) const;
  void Set(const std::string& name, const Quantity& q) { items_[name] = q; }
  bool Has(const std::string& name) const { return items_.count(name) != 0; }
  void Erase(const std::string& name) { items_.erase(name); }
  bool empty() const { return items_.empty(); }
  const std::map<std::string, Quantity>& items() const { return items_; }

  // Adds every entry of `o` (names absent here are taken as zero).
  ResourceList& Add(const ResourceList& o);
  // The same as Add(o) `n` times (n >= 0), values and formats alike; one multiplication per
  // entry when nothing can pass through zero (every quantity involved non-negative).
  ResourceList& AddTimes(const ResourceList& o, int64_t n);
  // Subtracts every entry of `o`; results may go negative.
  ResourceList& Subtract(const ResourceList& o);
  // Entry-wise maximum over names in either list; a name in only one list keeps that quantity
  // (as Karpenter's resources.MaxResources), even when it is negative.
  static ResourceList Max(const ResourceList& a, const ResourceList& b);
  static ResourceList Sum(const ResourceList& a, const ResourceList& b);
  // True when every entry of *this is <= the same entry of `capacity` (absent = zero).
  bool Fits(const ResourceList& capacity) const;
  // The names of entries of *this that exceed `capacity`, in name order.
  std::vector<std::string> Exceeding(const ResourceList& capacity) const;
  // "cpu: 500m, memory: 1Gi, pods: 1" — for messages and logs; "" when empty.
  std::string String() const;

  // Same value for every name, absent names counting as zero ({cpu: 0} == {}).
  bool operator==(const ResourceList& o) const;

 private:
  std::map<std::string, Quantity> items_;
};

}  // namespace nodesmith::api
