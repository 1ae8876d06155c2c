#include "api/resource_list.h"

namespace nodesmith::api {

Quantity ResourceList::Get(const std::string& name) const {
  auto it = items_.find(name);
  return it == items_.end() ? Quantity() : it->second;
}

ResourceList& ResourceList::Add(const ResourceList& o) {
  for (const auto& [name, q] : o.items_) items_[name] += q;
  return *this;
}

ResourceList& ResourceList::AddTimes(const ResourceList& o, int64_t n) {
  // Repeated addition keeps the sum's format once it is non-zero, and takes the addend's while
  // it is zero (Quantity::operator+=); saturation clamps at the same bound. With nothing
  // negative the running sum can only leave zero once, so a product gives the same result.
  bool exact = true;
  for (const auto& [name, q] : o.items_) {
    if (q.Sign() < 0 || Get(name).Sign() < 0) exact = false;
  }
  if (!exact) {
    for (int64_t i = 0; i < n; ++i) Add(o);
    return *this;
  }
  if (n <= 0) return *this;
  for (const auto& [name, q] : o.items_) items_[name] += q * n;
  return *this;
}

ResourceList& ResourceList::Subtract(const ResourceList& o) {
  for (const auto& [name, q] : o.items_) items_[name] -= q;
  return *this;
}

// Like Karpenter's resources.MaxResources: a name present in only one list keeps that list's
// quantity, even a negative one.
ResourceList ResourceList::Max(const ResourceList& a, const ResourceList& b) {
  ResourceList out = a;
  for (const auto& [name, q] : b.items_) {
    auto it = out.items_.find(name);
    if (it == out.items_.end()) {
      out.items_.emplace(name, q);
    } else if (q.Cmp(it->second) > 0) {
      it->second = q;
    }
  }
  return out;
}

ResourceList ResourceList::Sum(const ResourceList& a, const ResourceList& b) {
  ResourceList out = a;
  out.Add(b);
  return out;
}

bool ResourceList::Fits(const ResourceList& capacity) const {
  for (const auto& [name, q] : items_) {
    if (q.Cmp(capacity.Get(name)) > 0) return false;
  }
  return true;
}

std::vector<std::string> ResourceList::Exceeding(const ResourceList& capacity) const {
  std::vector<std::string> out;
  for (const auto& [name, q] : items_) {
    if (q.Cmp(capacity.Get(name)) > 0) out.push_back(name);
  }
  return out;
}

std::string ResourceList::String() const {
  std::string out;
  for (const auto& [name, q] : items_) {
    if (!out.empty()) out += ", ";
    out += name;
    out += ": ";
    out += q.String();
  }
  return out;
}

// Absent names count as zero, so {cpu: 0} equals {}.
bool ResourceList::operator==(const ResourceList& o) const {
  for (const auto& [name, q] : items_) {
    if (q.Cmp(o.Get(name)) != 0) return false;
  }
  for (const auto& [name, q] : o.items_) {
    if (!Has(name) && !q.IsZero()) return false;
  }
  return true;
}

}  // namespace nodesmith::api
