#include "metrics/registry.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <set>

#include "core/utf8.h"

namespace nodesmith::metrics {

using core::Result;
using core::Status;
using core::StatusCode;

const char* MetricTypeName(MetricType type) {
  switch (type) {
    case MetricType::kCounter: return "counter";
    case MetricType::kGauge: return "gauge";
    case MetricType::kHistogram: return "histogram";
    case MetricType::kSummary: return "summary";
  }
  return "untyped";
}

namespace {

bool IsValidMetricName(std::string_view s) {
  if (s.empty()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
    if (!alpha && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

bool IsValidLabelName(std::string_view s) {
  if (s.empty() || s.starts_with("__")) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!alpha && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return "(" + out + ")";
}

// The names a family's samples carry in the text format.
std::vector<std::string> SampleNames(const std::string& name, MetricType type) {
  switch (type) {
    case MetricType::kHistogram: return {name, name + "_bucket", name + "_sum", name + "_count"};
    case MetricType::kSummary: return {name, name + "_sum", name + "_count"};
    default: return {name};
  }
}

}  // namespace

namespace internal {

// Counter, gauge and histogram updates are single atomic operations, never a lock.
static_assert(std::atomic<double>::is_always_lock_free);
static_assert(std::atomic<uint64_t>::is_always_lock_free);

struct ValueCell final : Cell {
  std::atomic<double> value{0};
  void Snapshot(SeriesSnapshot* out) const override {
    out->value = value.load(std::memory_order_relaxed);
  }
};

struct HistogramCell final : Cell {
  explicit HistogramCell(std::shared_ptr<const std::vector<double>> b)
      : bounds(std::move(b)), counts(new std::atomic<uint64_t>[bounds->size() + 1]) {
    for (size_t i = 0; i <= bounds->size(); ++i) counts[i].store(0, std::memory_order_relaxed);
  }
  void Observe(double v) {
    size_t i = bounds->size();  // NaN counts only in +Inf, as in the Go client
    if (!std::isnan(v)) i = std::lower_bound(bounds->begin(), bounds->end(), v) - bounds->begin();
    counts[i].fetch_add(1, std::memory_order_relaxed);
    sum.fetch_add(v, std::memory_order_relaxed);
  }
  void Snapshot(SeriesSnapshot* out) const override {
    // _count is the +Inf bucket, so the two always agree even while others observe.
    uint64_t cumulative = 0;
    out->buckets.resize(bounds->size() + 1);
    for (size_t i = 0; i <= bounds->size(); ++i) {
      cumulative += counts[i].load(std::memory_order_relaxed);
      out->buckets[i] = cumulative;
    }
    out->count = cumulative;
    out->sum = sum.load(std::memory_order_relaxed);
  }

  const std::shared_ptr<const std::vector<double>> bounds;
  std::unique_ptr<std::atomic<uint64_t>[]> counts;  // per bucket (not cumulative), then +Inf
  std::atomic<double> sum{0};
};

struct SummaryCell final : Cell {
  explicit SummaryCell(std::shared_ptr<const SummaryOptions> o)
      : options(std::move(o)), windows(std::max(1, options->age_buckets)) {
    if (options->clock != nullptr) head_start = options->clock->Now();
  }
  void Observe(double v) {
    std::lock_guard<std::mutex> lock(mu);
    Rotate();
    auto& w = windows[head];
    if (w.size() >= std::max<size_t>(1, options->max_samples_per_bucket)) w.pop_front();
    w.push_back(v);
    sum += v;
    ++count;
  }
  void Snapshot(SeriesSnapshot* out) const override {
    std::vector<double> samples;
    {
      std::lock_guard<std::mutex> lock(mu);
      Rotate();
      for (const auto& w : windows) samples.insert(samples.end(), w.begin(), w.end());
      out->sum = sum;
      out->count = count;
    }
    std::sort(samples.begin(), samples.end(), [](double a, double b) {
      return std::isnan(b) ? !std::isnan(a) : a < b;  // NaNs last
    });
    out->quantiles.clear();
    for (double q : options->quantiles) {
      if (samples.empty()) {
        out->quantiles.push_back(std::numeric_limits<double>::quiet_NaN());
        continue;
      }
      // Nearest rank: the smallest sample with at least q of the samples at or below it.
      const double rank = std::ceil(q * static_cast<double>(samples.size()));
      const size_t i = rank < 1 ? 0 : std::min(samples.size() - 1, static_cast<size_t>(rank) - 1);
      out->quantiles.push_back(samples[i]);
    }
  }
  // Moves the head window forward to the clock's time, clearing windows that aged out.
  // REQUIRES: mu held.
  void Rotate() const {
    if (options->clock == nullptr || windows.size() < 2) return;
    const core::Duration width = options->max_age / static_cast<int64_t>(windows.size());
    if (width <= core::Duration::zero()) return;
    const core::Time now = options->clock->Now();
    if (now - head_start >= options->max_age) {
      for (auto& w : windows) w.clear();
      head_start = now;
      return;
    }
    while (now - head_start >= width) {
      head = (head + 1) % windows.size();
      windows[head].clear();
      head_start = head_start + width;
    }
  }

  const std::shared_ptr<const SummaryOptions> options;
  mutable std::mutex mu;
  mutable std::vector<std::deque<double>> windows;  // guarded by mu
  mutable size_t head = 0;                          // guarded by mu
  mutable core::Time head_start;                    // guarded by mu
  double sum = 0;                                   // guarded by mu
  uint64_t count = 0;                               // guarded by mu
};

}  // namespace internal

// --- Handles ---

void Counter::Add(double v) const {
  if (cell_ == nullptr || !(v >= 0)) return;
  cell_->value.fetch_add(v, std::memory_order_relaxed);
}
double Counter::Value() const { return cell_ ? cell_->value.load(std::memory_order_relaxed) : 0; }

void Gauge::Set(double v) const {
  if (cell_ != nullptr) cell_->value.store(v, std::memory_order_relaxed);
}
void Gauge::Add(double v) const {
  if (cell_ != nullptr) cell_->value.fetch_add(v, std::memory_order_relaxed);
}
double Gauge::Value() const { return cell_ ? cell_->value.load(std::memory_order_relaxed) : 0; }

void Histogram::Observe(double v) const {
  if (cell_ != nullptr) cell_->Observe(v);
}

void Summary::Observe(double v) const {
  if (cell_ != nullptr) cell_->Observe(v);
}

// --- Family ---

Family::Family(MetricType type, FamilyOptions options)
    : type_(type),
      name_(std::move(options.name)),
      help_(std::move(options.help)),
      label_names_(std::move(options.label_names)) {}

Status Family::CheckValues(const LabelValues& values) const {
  if (values.size() != label_names_.size()) {
    return Status::Invalid("metric " + name_ + ": " + std::to_string(values.size()) +
                           " label values given for the label names " + JoinNames(label_names_));
  }
  for (size_t i = 0; i < values.size(); ++i) {
    if (!core::IsValidUtf8(values[i])) {
      return Status::Invalid("metric " + name_ + ": the value of label " + label_names_[i] +
                             " is not valid UTF-8");
    }
  }
  return Status::Ok();
}

Result<LabelValues> Family::ToValues(const Labels& labels) const {
  LabelValues values;
  values.reserve(label_names_.size());
  for (const auto& n : label_names_) {
    auto it = labels.find(n);
    if (it == labels.end()) {
      return Status::Invalid("metric " + name_ + ": label " + n + " is missing (label names " +
                             JoinNames(label_names_) + ")");
    }
    values.push_back(it->second);
  }
  if (labels.size() != label_names_.size()) {
    for (const auto& [n, v] : labels) {
      if (std::find(label_names_.begin(), label_names_.end(), n) == label_names_.end()) {
        return Status::Invalid("metric " + name_ + ": label " + n + " is not one of " +
                               JoinNames(label_names_));
      }
    }
  }
  return values;
}

Result<std::shared_ptr<internal::Cell>> Family::Lookup(const LabelValues& values) {
  NS_RETURN_IF_ERROR(CheckValues(values));
  {
    std::shared_lock<std::shared_mutex> lock(mu_);
    auto it = series_.find(values);
    if (it != series_.end()) return it->second;
  }
  std::unique_lock<std::shared_mutex> lock(mu_);
  auto [it, inserted] = series_.try_emplace(values);
  if (inserted) it->second = NewCell();
  return it->second;
}

Result<std::shared_ptr<internal::Cell>> Family::Lookup(const Labels& labels) {
  auto values = ToValues(labels);
  if (!values.ok()) return values.status();
  return Lookup(*values);
}

bool Family::Delete(const LabelValues& values) {
  std::unique_lock<std::shared_mutex> lock(mu_);
  return series_.erase(values) > 0;
}

bool Family::Delete(const Labels& labels) {
  auto values = ToValues(labels);
  return values.ok() && Delete(*values);
}

size_t Family::DeleteMatching(const Labels& partial) {
  std::vector<std::pair<size_t, const std::string*>> want;
  for (const auto& [n, v] : partial) {
    auto it = std::find(label_names_.begin(), label_names_.end(), n);
    if (it == label_names_.end()) return 0;
    want.emplace_back(it - label_names_.begin(), &v);
  }
  std::unique_lock<std::shared_mutex> lock(mu_);
  return std::erase_if(series_, [&](const auto& entry) {
    return std::all_of(want.begin(), want.end(),
                       [&](const auto& w) { return entry.first[w.first] == *w.second; });
  });
}

void Family::Reset() {
  std::unique_lock<std::shared_mutex> lock(mu_);
  series_.clear();
}

size_t Family::size() const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  return series_.size();
}

FamilySnapshot Family::Snapshot() const {
  FamilySnapshot out;
  out.name = name_;
  out.help = help_;
  out.type = type_;
  out.label_names = label_names_;
  FillSnapshot(&out);
  std::vector<std::pair<LabelValues, std::shared_ptr<internal::Cell>>> copy;
  {
    std::shared_lock<std::shared_mutex> lock(mu_);
    copy.assign(series_.begin(), series_.end());
  }
  out.series.reserve(copy.size());
  for (auto& [values, cell] : copy) {
    SeriesSnapshot s;
    s.label_values = std::move(values);
    cell->Snapshot(&s);
    out.series.push_back(std::move(s));
  }
  return out;
}

template <typename HandleT, typename CellT>
Result<HandleT> Family::Wrap(Result<std::shared_ptr<internal::Cell>> cell) {
  if (!cell.ok()) return cell.status();
  return HandleT(std::static_pointer_cast<CellT>(std::move(cell).value()));
}

template <typename HandleT>
HandleT Family::OrDetached(Result<HandleT> handle) {
  if (handle.ok()) return std::move(handle).value();
  label_errors_.fetch_add(1, std::memory_order_relaxed);
  return HandleT();
}

Result<Counter> CounterFamily::Get(const LabelValues& values) {
  return Wrap<Counter, internal::ValueCell>(Lookup(values));
}
Result<Counter> CounterFamily::Get(const Labels& labels) {
  return Wrap<Counter, internal::ValueCell>(Lookup(labels));
}
Counter CounterFamily::WithLabelValues(const LabelValues& values) {
  return OrDetached(Get(values));
}
Counter CounterFamily::With(const Labels& labels) { return OrDetached(Get(labels)); }

Result<Gauge> GaugeFamily::Get(const LabelValues& values) {
  return Wrap<Gauge, internal::ValueCell>(Lookup(values));
}
Result<Gauge> GaugeFamily::Get(const Labels& labels) {
  return Wrap<Gauge, internal::ValueCell>(Lookup(labels));
}
Gauge GaugeFamily::WithLabelValues(const LabelValues& values) { return OrDetached(Get(values)); }
Gauge GaugeFamily::With(const Labels& labels) { return OrDetached(Get(labels)); }

Result<Histogram> HistogramFamily::Get(const LabelValues& values) {
  return Wrap<Histogram, internal::HistogramCell>(Lookup(values));
}
Result<Histogram> HistogramFamily::Get(const Labels& labels) {
  return Wrap<Histogram, internal::HistogramCell>(Lookup(labels));
}
Histogram HistogramFamily::WithLabelValues(const LabelValues& values) {
  return OrDetached(Get(values));
}
Histogram HistogramFamily::With(const Labels& labels) { return OrDetached(Get(labels)); }

Result<Summary> SummaryFamily::Get(const LabelValues& values) {
  return Wrap<Summary, internal::SummaryCell>(Lookup(values));
}
Result<Summary> SummaryFamily::Get(const Labels& labels) {
  return Wrap<Summary, internal::SummaryCell>(Lookup(labels));
}
Summary SummaryFamily::WithLabelValues(const LabelValues& values) {
  return OrDetached(Get(values));
}
Summary SummaryFamily::With(const Labels& labels) { return OrDetached(Get(labels)); }

std::shared_ptr<internal::Cell> CounterFamily::NewCell() const {
  return std::make_shared<internal::ValueCell>();
}
std::shared_ptr<internal::Cell> GaugeFamily::NewCell() const {
  return std::make_shared<internal::ValueCell>();
}
std::shared_ptr<internal::Cell> HistogramFamily::NewCell() const {
  return std::make_shared<internal::HistogramCell>(bounds_);
}
std::shared_ptr<internal::Cell> SummaryFamily::NewCell() const {
  return std::make_shared<internal::SummaryCell>(options_);
}

// --- Buckets ---

std::vector<double> DefaultBuckets() { return {.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}; }

std::vector<double> ExponentialBuckets(double start, double factor, int count) {
  std::vector<double> out;
  for (int i = 0; i < count; ++i, start *= factor) out.push_back(start);
  return out;
}

std::vector<double> LinearBuckets(double start, double width, int count) {
  std::vector<double> out;
  for (int i = 0; i < count; ++i, start += width) out.push_back(start);
  return out;
}

// --- Registry ---

Status Registry::Check(const FamilyOptions& o, MetricType type) const {
  if (!IsValidMetricName(o.name)) return Status::Invalid("invalid metric name \"" + o.name + "\"");
  if (!core::IsValidUtf8(o.help)) return Status::Invalid("metric " + o.name + ": help is not UTF-8");
  std::set<std::string_view> seen;
  for (const auto& l : o.label_names) {
    if (!IsValidLabelName(l)) {
      return Status::Invalid("metric " + o.name + ": invalid label name \"" + l + "\"");
    }
    if ((type == MetricType::kHistogram && l == "le") ||
        (type == MetricType::kSummary && l == "quantile")) {
      return Status::Invalid("metric " + o.name + ": label name \"" + l + "\" is reserved for " +
                             MetricTypeName(type) + "s");
    }
    if (!seen.insert(l).second) {
      return Status::Invalid("metric " + o.name + ": label name \"" + l + "\" given twice");
    }
  }
  if (families_.count(o.name) > 0) {
    return Status(StatusCode::kAlreadyExists, "metric " + o.name + " is already registered");
  }
  for (const auto& mine : SampleNames(o.name, type)) {
    for (const auto& [other_name, other] : families_) {
      for (const auto& theirs : SampleNames(other_name, other->type())) {
        if (mine == theirs) {
          return Status(StatusCode::kAlreadyExists, "metric " + o.name + ": the sample name " +
                                                        mine + " is taken by metric " + other_name);
        }
      }
    }
  }
  return Status::Ok();
}

template <typename F>
Result<F*> Registry::Insert(std::unique_ptr<F> family) {
  F* raw = family.get();
  families_.emplace(family->name(), std::move(family));
  return raw;
}

Result<CounterFamily*> Registry::AddCounter(FamilyOptions options) {
  std::lock_guard<std::mutex> lock(mu_);
  NS_RETURN_IF_ERROR(Check(options, MetricType::kCounter));
  return Insert(std::unique_ptr<CounterFamily>(new CounterFamily(std::move(options))));
}

Result<GaugeFamily*> Registry::AddGauge(FamilyOptions options) {
  std::lock_guard<std::mutex> lock(mu_);
  NS_RETURN_IF_ERROR(Check(options, MetricType::kGauge));
  return Insert(std::unique_ptr<GaugeFamily>(new GaugeFamily(std::move(options))));
}

Result<HistogramFamily*> Registry::AddHistogram(FamilyOptions options, std::vector<double> bounds) {
  if (!bounds.empty() && std::isinf(bounds.back()) && bounds.back() > 0) bounds.pop_back();
  for (size_t i = 0; i < bounds.size(); ++i) {
    if (!std::isfinite(bounds[i]) || (i > 0 && !(bounds[i - 1] < bounds[i]))) {
      return Status::Invalid("metric " + options.name +
                             ": histogram buckets must be finite and strictly ascending");
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  NS_RETURN_IF_ERROR(Check(options, MetricType::kHistogram));
  return Insert(
      std::unique_ptr<HistogramFamily>(new HistogramFamily(std::move(options), std::move(bounds))));
}

Result<SummaryFamily*> Registry::AddSummary(FamilyOptions options, SummaryOptions summary) {
  std::sort(summary.quantiles.begin(), summary.quantiles.end());
  for (size_t i = 0; i < summary.quantiles.size(); ++i) {
    const double q = summary.quantiles[i];
    if (!(q >= 0 && q <= 1) || (i > 0 && summary.quantiles[i - 1] == q)) {
      return Status::Invalid("metric " + options.name +
                             ": summary quantiles must be distinct and within [0, 1]");
    }
  }
  if (summary.age_buckets < 1 || summary.max_age <= core::Duration::zero()) {
    return Status::Invalid("metric " + options.name +
                           ": a summary needs a positive max age and at least one age bucket");
  }
  std::lock_guard<std::mutex> lock(mu_);
  NS_RETURN_IF_ERROR(Check(options, MetricType::kSummary));
  return Insert(
      std::unique_ptr<SummaryFamily>(new SummaryFamily(std::move(options), std::move(summary))));
}

Family* Registry::Find(std::string_view name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = families_.find(name);
  return it == families_.end() ? nullptr : it->second.get();
}

std::vector<Family*> Registry::Families() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Family*> out;
  out.reserve(families_.size());
  for (const auto& [name, f] : families_) out.push_back(f.get());
  return out;
}

std::vector<FamilySnapshot> Registry::Gather() const {
  std::vector<FamilySnapshot> out;
  for (const Family* f : Families()) {
    FamilySnapshot s = f->Snapshot();
    if (!s.series.empty()) out.push_back(std::move(s));
  }
  return out;
}

}  // namespace nodesmith::metrics
