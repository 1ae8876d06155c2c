#include "solver/resource_vector.h"

#include <algorithm>

namespace nodesmith::solver {

ResourceIndex::ResourceIndex() : names_{api::kResourceCpu, api::kResourceMemory, api::kResourcePods} {}

void ResourceIndex::Register(const std::string& name) {
  if (Find(name) >= 0) return;
  names_.push_back(name);
}

void ResourceIndex::Register(const api::ResourceList& list) {
  for (const auto& [name, q] : list.items()) Register(name);
}

void ResourceIndex::Freeze() {
  std::sort(names_.begin() + 3, names_.end());
  frozen_ = true;
}

int ResourceIndex::Find(const std::string& name) const {
  for (size_t i = 0; i < names_.size(); ++i) {
    if (names_[i] == name) return static_cast<int>(i);
  }
  return -1;
}

ResourceVector ResourceIndex::ToVector(const api::ResourceList& list) const {
  ResourceVector v(names_.size(), 0);
  for (const auto& [name, q] : list.items()) {
    int i = Find(name);
    if (i >= 0) v[i] = q.MilliValue();
  }
  return v;
}

std::string DescribeEntry(const ResourceIndex& index, int i, int64_t milli) {
  api::Quantity q;
  if (i == ResourceIndex::kMemory && milli % 1000 == 0) {
    q = api::Quantity::FromInt(milli / 1000, api::QuantityFormat::kBinarySI);
  } else {
    q = api::Quantity::FromMilli(milli);
  }
  return index.Name(i) + " " + q.String();
}

}  // namespace nodesmith::solver
