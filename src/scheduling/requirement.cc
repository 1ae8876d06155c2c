#include "scheduling/requirement.h"

#include <algorithm>
#include <charconv>
#include <string>

#include "scheduling/label_syntax.h"
#include "scheduling/well_known_labels.h"

namespace nodesmith::scheduling {

namespace {

constexpr std::string_view kOperatorNames[] = {"In", "NotIn", "Exists", "DoesNotExist",
                                               "Gt", "Lt",    "Gte",    "Lte"};

void SortUnique(std::vector<std::string>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

bool Contains(const std::vector<std::string>& sorted, std::string_view value) {
  auto it = std::lower_bound(sorted.begin(), sorted.end(), value,
                             [](const std::string& a, std::string_view b) { return a < b; });
  return it != sorted.end() && *it == value;
}

// withinBounds upstream: with no bounds everything passes; with bounds only integers inside.
bool WithinBounds(std::string_view value, const std::optional<int64_t>& gte,
                  const std::optional<int64_t>& lte) {
  if (!gte && !lte) return true;
  std::optional<int64_t> v = ParseLabelInt(value);
  if (!v) return false;
  if (gte && *v < *gte) return false;
  if (lte && *v > *lte) return false;
  return true;
}

std::optional<int64_t> MaxOpt(const std::optional<int64_t>& a, const std::optional<int64_t>& b) {
  if (!a) return b;
  if (!b) return a;
  return std::max(*a, *b);
}

std::optional<int64_t> MinOpt(const std::optional<int64_t>& a, const std::optional<int64_t>& b) {
  if (!a) return b;
  if (!b) return a;
  return std::min(*a, *b);
}

std::optional<int> MaxOpt(const std::optional<int>& a, const std::optional<int>& b) {
  if (!a) return b;
  if (!b) return a;
  return std::max(*a, *b);
}

}  // namespace

std::string_view OperatorName(Operator op) { return kOperatorNames[static_cast<int>(op)]; }

std::optional<Operator> ParseOperator(std::string_view name) {
  for (int i = 0; i < 8; ++i) {
    if (kOperatorNames[i] == name) return static_cast<Operator>(i);
  }
  return std::nullopt;
}

std::optional<int64_t> ParseLabelInt(std::string_view s) {
  // strconv.Atoi: an optional sign, then one or more decimal digits, within int64.
  if (s.empty()) return std::nullopt;
  bool negative = false;
  if (s[0] == '+' || s[0] == '-') {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return std::nullopt;
  uint64_t magnitude = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), magnitude);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  constexpr uint64_t kMaxPositive = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (negative) {
    if (magnitude > kMaxPositive + 1) return std::nullopt;
    return magnitude == kMaxPositive + 1 ? std::numeric_limits<int64_t>::min()
                                         : -static_cast<int64_t>(magnitude);
  }
  if (magnitude > kMaxPositive) return std::nullopt;
  return static_cast<int64_t>(magnitude);
}

Requirement::Requirement(std::string_view key, Operator op, std::vector<std::string> values,
                         std::optional<int> min_values)
    : key_(NormalizeLabelKey(key)), min_values_(min_values) {
  well_known_ = IsWellKnownLabel(key_);
  auto make_empty = [this] {
    // A set nothing satisfies (upstream returns DoesNotExist for "Gt MaxInt").
    complement_ = false;
    values_.clear();
    gte_.reset();
    lte_.reset();
  };
  auto bound = [&]() -> std::optional<int64_t> {
    if (values.empty()) return std::nullopt;
    return ParseLabelInt(values[0]);
  };
  switch (op) {
    case Operator::kIn:
      complement_ = false;
      values_ = std::move(values);
      SortUnique(values_);
      break;
    case Operator::kNotIn:
      complement_ = true;
      values_ = std::move(values);
      SortUnique(values_);
      break;
    case Operator::kExists:
      complement_ = true;
      break;
    case Operator::kDoesNotExist:
      complement_ = false;
      break;
    case Operator::kGt: {
      std::optional<int64_t> v = bound();
      if (!v || *v == std::numeric_limits<int64_t>::max()) {
        make_empty();
        if (v) min_values_.reset();  // upstream drops minValues on this path
      } else {
        gte_ = *v + 1;  // canonical form: Gt n is ">= n+1"
      }
      break;
    }
    case Operator::kLt: {
      std::optional<int64_t> v = bound();
      if (!v || *v == std::numeric_limits<int64_t>::min()) {
        make_empty();
      } else {
        lte_ = *v - 1;  // canonical form: Lt n is "<= n-1"
      }
      break;
    }
    case Operator::kGte: {
      std::optional<int64_t> v = bound();
      if (!v) make_empty(); else gte_ = *v;
      break;
    }
    case Operator::kLte: {
      std::optional<int64_t> v = bound();
      if (!v) make_empty(); else lte_ = *v;
      break;
    }
  }
}

core::Result<Requirement> Requirement::FromNodeSelectorRequirement(
    const api::NodeSelectorRequirement& r) {
  NS_RETURN_IF_ERROR(ValidateNodeSelectorRequirement(r));
  return Requirement(r.key, *ParseOperator(r.op), r.values, r.min_values);
}

Operator Requirement::op() const {
  if (complement_) return values_.empty() ? Operator::kExists : Operator::kNotIn;
  return values_.empty() ? Operator::kDoesNotExist : Operator::kIn;
}

bool Requirement::Has(std::string_view value) const {
  bool listed = Contains(values_, value);
  if (complement_) return !listed && WithinBounds(value, gte_, lte_);
  return listed && WithinBounds(value, gte_, lte_);
}

int64_t Requirement::Len() const {
  if (complement_) return kUnboundedLen - static_cast<int64_t>(values_.size());
  return static_cast<int64_t>(values_.size());
}

std::string Requirement::Any() const {
  if (!complement_) return values_.empty() ? std::string() : values_.front();
  // The smallest admissible integer from the natural starting point; the loop ends after at
  // most |excluded| + 1 steps because each excluded value blocks one candidate.
  int64_t start = 0;
  int step = 1;
  if (gte_) {
    start = *gte_;
  } else if (lte_ && *lte_ < 0) {
    start = *lte_;
    step = -1;
  }
  for (size_t i = 0; i <= values_.size(); ++i) {
    if (lte_ && start > *lte_) break;
    std::string candidate = std::to_string(start);
    if (!Contains(values_, candidate)) return candidate;
    if ((step > 0 && start == std::numeric_limits<int64_t>::max()) ||
        (step < 0 && start == std::numeric_limits<int64_t>::min())) {
      break;
    }
    start += step;
  }
  return std::string();
}

Requirement Requirement::Intersection(const Requirement& o) const {
  Requirement out;
  out.key_ = key_;
  out.well_known_ = well_known_;
  out.min_values_ = MaxOpt(min_values_, o.min_values_);
  out.complement_ = complement_ && o.complement_;
  std::optional<int64_t> gte = MaxOpt(gte_, o.gte_);
  std::optional<int64_t> lte = MinOpt(lte_, o.lte_);
  if (gte && lte && *gte > *lte) {
    out.complement_ = false;  // DoesNotExist
    return out;
  }
  const std::vector<std::string>& a = values_;
  const std::vector<std::string>& b = o.values_;
  std::vector<std::string>& v = out.values_;
  if (complement_ && o.complement_) {
    v.reserve(a.size() + b.size());
    std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(v));
  } else if (complement_) {
    std::set_difference(b.begin(), b.end(), a.begin(), a.end(), std::back_inserter(v));
  } else if (o.complement_) {
    std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(v));
  } else {
    std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(v));
  }
  if (gte || lte) {
    v.erase(std::remove_if(v.begin(), v.end(),
                           [&](const std::string& s) { return !WithinBounds(s, gte, lte); }),
            v.end());
  }
  if (out.complement_) {  // finite sets drop their bounds
    out.gte_ = gte;
    out.lte_ = lte;
  }
  return out;
}

void Requirement::IntersectWith(const Requirement& o) {
  auto unbounded_exists = [](const Requirement& r) {
    return r.complement_ && r.values_.empty() && !r.gte_ && !r.lte_;
  };
  if (unbounded_exists(o)) {  // the set is unchanged
    min_values_ = MaxOpt(min_values_, o.min_values_);
    return;
  }
  if (unbounded_exists(*this)) {  // the set becomes o's
    std::optional<int> min_values = MaxOpt(min_values_, o.min_values_);
    values_ = o.values_;
    gte_ = o.gte_;
    lte_ = o.lte_;
    complement_ = o.complement_;
    min_values_ = min_values;
    return;
  }
  Requirement result = Intersection(o);
  values_.swap(result.values_);
  gte_ = result.gte_;
  lte_ = result.lte_;
  complement_ = result.complement_;
  min_values_ = result.min_values_;
}

bool Requirement::IntersectionIsEmpty(const Requirement& o) const {
  // The solver's hottest query: no allocation, and bound parsing only when bounds exist.
  const bool bounded = gte_ || lte_ || o.gte_ || o.lte_;
  std::optional<int64_t> gte, lte;
  if (bounded) {
    gte = MaxOpt(gte_, o.gte_);
    lte = MinOpt(lte_, o.lte_);
    if (gte && lte && *gte > *lte) return true;
  }
  if (complement_ && o.complement_) return false;
  // At least one side is finite: look for one of its values the other side admits.
  const Requirement& finite = complement_ ? o : *this;
  const Requirement& other = complement_ ? *this : o;
  const std::vector<std::string>& mine = finite.values_;
  const std::vector<std::string>& theirs = other.values_;
  auto admissible = [&](const std::string& v) { return !bounded || WithinBounds(v, gte, lte); };
  if (other.complement_ && theirs.empty()) {  // the other side excludes nothing
    for (const std::string& v : mine) {
      if (admissible(v)) return false;
    }
    return true;
  }
  // A value of `mine` is admitted when its presence in `theirs` equals !other.complement_.
  const bool want_listed = !other.complement_;
  if (mine.size() * 8 < theirs.size()) {  // few values against many: binary search
    for (const std::string& v : mine) {
      if (Contains(theirs, v) == want_listed && admissible(v)) return false;
    }
    return true;
  }
  size_t j = 0;  // otherwise one merge walk over both sorted vectors
  for (const std::string& v : mine) {
    int cmp = 1;
    while (j < theirs.size() && (cmp = theirs[j].compare(v)) < 0) ++j;
    bool listed = j < theirs.size() && cmp == 0;
    if (listed == want_listed && admissible(v)) return false;
  }
  return true;
}

std::vector<api::NodeSelectorRequirement> Requirement::ToNodeSelectorRequirements() const {
  std::vector<api::NodeSelectorRequirement> out;
  auto add = [&](Operator op, std::vector<std::string> values) {
    out.push_back({key_, std::string(OperatorName(op)), std::move(values), min_values_});
  };
  if (gte_) add(Operator::kGte, {std::to_string(*gte_)});
  if (lte_) add(Operator::kLte, {std::to_string(*lte_)});
  if (gte_ || lte_) {
    if (!values_.empty()) add(Operator::kNotIn, values_);
    return out;
  }
  add(op(), values_);
  return out;
}

std::string Requirement::String() const {
  Operator shape = op();
  std::string s = key_;
  s += ' ';
  s += OperatorName(shape);
  if (shape == Operator::kIn || shape == Operator::kNotIn) {
    s += " [";
    size_t shown = std::min<size_t>(values_.size(), 5);
    for (size_t i = 0; i < shown; ++i) {
      if (i) s += ' ';
      s += values_[i];
    }
    if (values_.size() > 5) s += " and " + std::to_string(values_.size() - 5) + " others";
    s += ']';
  }
  if (gte_) s += " >=" + std::to_string(*gte_);
  if (lte_) s += " <=" + std::to_string(*lte_);
  if (min_values_) s += " minValues " + std::to_string(*min_values_);
  return s;
}

core::Status ValidateNodeSelectorRequirement(const api::NodeSelectorRequirement& r) {
  std::string key(NormalizeLabelKey(r.key));
  std::optional<Operator> op = ParseOperator(r.op);
  if (!op) {
    return core::Status::Invalid("key " + key + " has an unsupported operator " + r.op +
                                 " not in [In NotIn Exists DoesNotExist Gt Lt Gte Lte]");
  }
  if (std::string why = QualifiedNameError(key); !why.empty()) {
    return core::Status::Invalid("key " + key + " is not a qualified name, " + why);
  }
  for (const std::string& value : r.values) {
    if (std::string why = LabelValueError(value); !why.empty()) {
      return core::Status::Invalid("invalid value " + value + " for key " + key + ", " + why);
    }
  }
  switch (*op) {
    case Operator::kIn:
      if (r.values.empty()) {
        return core::Status::Invalid("key " + key + " with operator " + r.op +
                                     " must have a value defined");
      }
      break;
    case Operator::kNotIn:
      break;
    case Operator::kExists:
    case Operator::kDoesNotExist:
      if (!r.values.empty()) {
        return core::Status::Invalid("key " + key + " with operator " + r.op +
                                     " must not have values");
      }
      break;
    case Operator::kGt:
    case Operator::kLt:
    case Operator::kGte:
    case Operator::kLte: {
      std::optional<int64_t> v;
      if (r.values.size() == 1) v = ParseLabelInt(r.values[0]);
      if (!v || *v < 0) {
        return core::Status::Invalid("key " + key + " with operator " + r.op +
                                     " must have a single positive integer value");
      }
      break;
    }
  }
  if (r.min_values) {
    if (*r.min_values < 1 || *r.min_values > 50) {
      return core::Status::Invalid("key " + key + " has minValues " +
                                   std::to_string(*r.min_values) + ", must be within 1..50");
    }
    if (*op == Operator::kIn && static_cast<int>(r.values.size()) < *r.min_values) {
      return core::Status::Invalid("key " + key + " with operator " + r.op +
                                   " must have at least minimum number of values defined in "
                                   "'values' field");
    }
  }
  return core::Status::Ok();
}

}  // namespace nodesmith::scheduling
