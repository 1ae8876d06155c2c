// Registry: Prometheus metric families (counter, gauge, histogram, summary) with fixed label
// names, and the handles that update one series of a family.
//
// A family is registered once with its name, help text and label names; a histogram also gets
// its bucket upper bounds, a summary its quantiles. A series (one combination of label values)
// is created on first lookup and lives until Delete, DeleteMatching or Reset removes it; a family
// with no series is not exported. Lookups check the label count and UTF-8 and fail with a Status
// (Get) or give a detached handle whose updates are dropped (WithLabelValues / With), never
// a crash. Registering a name twice, or a name whose exported sample names collide with an
// existing family's (a histogram `x` and a counter `x_count`), is an error.
//
// Thread-safety: every method of Registry and of the families may be called from any thread.
// Handles are cheap to copy; Counter/Gauge/Histogram updates are lock-free atomics, a Summary
// update takes a short per-series lock. A handle keeps its series alive: updates through a
// handle whose series was deleted are not exported (as Prometheus' Go client does).
// Ownership: the Registry owns its families; the pointers it returns live as long as it does.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/duration.h"
#include "core/status.h"

namespace nodesmith::metrics {

enum class MetricType { kCounter, kGauge, kHistogram, kSummary };
// "counter", "gauge", "histogram", "summary" (the `# TYPE` word).
const char* MetricTypeName(MetricType type);

using LabelValues = std::vector<std::string>;
using Labels = std::map<std::string, std::string>;

// What Gather copies out of one series.
struct SeriesSnapshot {
  LabelValues label_values;       // in the family's label-name order
  double value = 0;               // counter, gauge
  std::vector<uint64_t> buckets;  // histogram: cumulative counts per bound, the last is +Inf
  std::vector<double> quantiles;  // summary: one value per quantile (NaN with no observations)
  double sum = 0;                 // histogram, summary
  uint64_t count = 0;             // histogram, summary
};

// What Gather copies out of one family.
struct FamilySnapshot {
  std::string name;
  std::string help;
  MetricType type = MetricType::kGauge;
  std::vector<std::string> label_names;
  std::vector<double> bounds;     // histogram: finite upper bounds, ascending (+Inf implied)
  std::vector<double> quantiles;  // summary: the quantiles, ascending
  std::vector<SeriesSnapshot> series;
};

namespace internal {
// One series' storage; the family knows the concrete type.
struct Cell {
  virtual ~Cell() = default;
  virtual void Snapshot(SeriesSnapshot* out) const = 0;
};
struct ValueCell;
struct HistogramCell;
struct SummaryCell;
}  // namespace internal

// --- Handles: one series each. A default-constructed (detached) handle ignores updates. ---

class Counter {
 public:
  Counter() = default;
  void Inc() const { Add(1); }
  // Counters only go up: a negative or NaN `v` is ignored.
  void Add(double v) const;
  double Value() const;  // 0 when detached
  bool attached() const { return cell_ != nullptr; }

 private:
  friend class Family;
  explicit Counter(std::shared_ptr<internal::ValueCell> c) : cell_(std::move(c)) {}
  std::shared_ptr<internal::ValueCell> cell_;
};

class Gauge {
 public:
  Gauge() = default;
  void Set(double v) const;
  void Inc() const { Add(1); }
  void Dec() const { Add(-1); }
  void Add(double v) const;
  void Sub(double v) const { Add(-v); }
  double Value() const;  // 0 when detached
  bool attached() const { return cell_ != nullptr; }

 private:
  friend class Family;
  explicit Gauge(std::shared_ptr<internal::ValueCell> c) : cell_(std::move(c)) {}
  std::shared_ptr<internal::ValueCell> cell_;
};

class Histogram {
 public:
  Histogram() = default;
  // Counts `v` in the first bucket whose upper bound is >= v (NaN: only in +Inf).
  void Observe(double v) const;
  bool attached() const { return cell_ != nullptr; }

 private:
  friend class Family;
  explicit Histogram(std::shared_ptr<internal::HistogramCell> c) : cell_(std::move(c)) {}
  std::shared_ptr<internal::HistogramCell> cell_;
};

class Summary {
 public:
  Summary() = default;
  void Observe(double v) const;
  bool attached() const { return cell_ != nullptr; }

 private:
  friend class Family;
  explicit Summary(std::shared_ptr<internal::SummaryCell> c) : cell_(std::move(c)) {}
  std::shared_ptr<internal::SummaryCell> cell_;
};

// --- Families ---

struct FamilyOptions {
  std::string name;  // [a-zA-Z_:][a-zA-Z0-9_:]*
  std::string help;
  std::vector<std::string> label_names;  // [a-zA-Z_][a-zA-Z0-9_]*, not "__"-prefixed, unique
};

// What every family has: its series and the operations that do not depend on the type.
class Family {
 public:
  virtual ~Family() = default;
  Family(const Family&) = delete;
  Family& operator=(const Family&) = delete;

  const std::string& name() const { return name_; }
  const std::string& help() const { return help_; }
  const std::vector<std::string>& label_names() const { return label_names_; }
  MetricType type() const { return type_; }

  // Removes the series with exactly these label values; false when there is none.
  bool Delete(const LabelValues& values);
  bool Delete(const Labels& labels);
  // Removes every series whose labels include all of `partial`; returns how many.
  size_t DeleteMatching(const Labels& partial);
  // Removes every series.
  void Reset();
  size_t size() const;
  // Lookups refused by WithLabelValues/With (label count, unknown name, invalid UTF-8).
  uint64_t label_errors() const { return label_errors_.load(std::memory_order_relaxed); }

  // A copy of every series, in label-value order.
  FamilySnapshot Snapshot() const;

 protected:
  Family(MetricType type, FamilyOptions options);
  // The series for `values`, created when missing; a Status when the values do not fit.
  core::Result<std::shared_ptr<internal::Cell>> Lookup(const LabelValues& values);
  core::Result<std::shared_ptr<internal::Cell>> Lookup(const Labels& labels);
  // The handle of a looked-up series (the typed families differ only in their handle).
  template <typename HandleT, typename CellT>
  static core::Result<HandleT> Wrap(core::Result<std::shared_ptr<internal::Cell>> cell);
  // `handle`, or a detached handle counted in label_errors().
  template <typename HandleT>
  HandleT OrDetached(core::Result<HandleT> handle);
  virtual std::shared_ptr<internal::Cell> NewCell() const = 0;
  virtual void FillSnapshot(FamilySnapshot* out) const { (void)out; }

 private:
  core::Result<LabelValues> ToValues(const Labels& labels) const;
  core::Status CheckValues(const LabelValues& values) const;

  const MetricType type_;
  const std::string name_;
  const std::string help_;
  const std::vector<std::string> label_names_;
  mutable std::shared_mutex mu_;
  std::map<LabelValues, std::shared_ptr<internal::Cell>> series_;  // guarded by mu_
  std::atomic<uint64_t> label_errors_{0};
};

class CounterFamily final : public Family {
 public:
  core::Result<Counter> Get(const LabelValues& values);
  core::Result<Counter> Get(const Labels& labels);
  // As Get; on a label mismatch a detached handle (counted in label_errors()).
  Counter WithLabelValues(const LabelValues& values);
  Counter With(const Labels& labels);

 private:
  friend class Registry;
  explicit CounterFamily(FamilyOptions o) : Family(MetricType::kCounter, std::move(o)) {}
  std::shared_ptr<internal::Cell> NewCell() const override;
};

class GaugeFamily final : public Family {
 public:
  core::Result<Gauge> Get(const LabelValues& values);
  core::Result<Gauge> Get(const Labels& labels);
  Gauge WithLabelValues(const LabelValues& values);
  Gauge With(const Labels& labels);

 private:
  friend class Registry;
  explicit GaugeFamily(FamilyOptions o) : Family(MetricType::kGauge, std::move(o)) {}
  std::shared_ptr<internal::Cell> NewCell() const override;
};

class HistogramFamily final : public Family {
 public:
  core::Result<Histogram> Get(const LabelValues& values);
  core::Result<Histogram> Get(const Labels& labels);
  Histogram WithLabelValues(const LabelValues& values);
  Histogram With(const Labels& labels);
  const std::vector<double>& bounds() const { return *bounds_; }

 private:
  friend class Registry;
  HistogramFamily(FamilyOptions o, std::vector<double> bounds)
      : Family(MetricType::kHistogram, std::move(o)),
        bounds_(std::make_shared<const std::vector<double>>(std::move(bounds))) {}
  std::shared_ptr<internal::Cell> NewCell() const override;
  void FillSnapshot(FamilySnapshot* out) const override { out->bounds = *bounds_; }
  const std::shared_ptr<const std::vector<double>> bounds_;  // shared with the series
};

struct SummaryOptions {
  std::vector<double> quantiles;  // each in [0, 1]; exported ascending
  // Quantiles are computed over the observations of the last `max_age`, kept in `age_buckets`
  // rotating windows (Prometheus' defaults: 10 minutes, 5). Without a clock nothing ages and the
  // quantiles are over the most recent observations. _sum and _count are never windowed.
  core::Duration max_age = std::chrono::minutes(10);
  int age_buckets = 5;
  size_t max_samples_per_bucket = 2048;  // older samples of a window are dropped beyond this
  // REQUIRES: outlives the family and may be called from any thread that observes or gathers.
  const core::Clock* clock = nullptr;
};

class SummaryFamily final : public Family {
 public:
  core::Result<Summary> Get(const LabelValues& values);
  core::Result<Summary> Get(const Labels& labels);
  Summary WithLabelValues(const LabelValues& values);
  Summary With(const Labels& labels);
  const SummaryOptions& options() const { return *options_; }

 private:
  friend class Registry;
  SummaryFamily(FamilyOptions o, SummaryOptions s)
      : Family(MetricType::kSummary, std::move(o)),
        options_(std::make_shared<const SummaryOptions>(std::move(s))) {}
  std::shared_ptr<internal::Cell> NewCell() const override;
  void FillSnapshot(FamilySnapshot* out) const override { out->quantiles = options_->quantiles; }
  const std::shared_ptr<const SummaryOptions> options_;  // shared with the series
};

// --- Bucket helpers (Prometheus' Go client's, same values) ---

// .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10 (prometheus.DefBuckets).
std::vector<double> DefaultBuckets();
// `count` bounds start, start*factor, start*factor^2, ...  REQUIRES: start > 0, factor > 1.
std::vector<double> ExponentialBuckets(double start, double factor, int count);
// `count` bounds start, start+width, ...  REQUIRES: width > 0.
std::vector<double> LinearBuckets(double start, double width, int count);

class Registry {
 public:
  Registry() = default;
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // InvalidArgument for a bad name, label name or bucket list; AlreadyExists for a name taken.
  core::Result<CounterFamily*> AddCounter(FamilyOptions options);
  core::Result<GaugeFamily*> AddGauge(FamilyOptions options);
  // `bounds` strictly ascending; a trailing +Inf is dropped (it is always there).
  core::Result<HistogramFamily*> AddHistogram(FamilyOptions options, std::vector<double> bounds);
  core::Result<SummaryFamily*> AddSummary(FamilyOptions options, SummaryOptions summary);

  // nullptr when no family has this name.
  Family* Find(std::string_view name) const;
  // Every family registered, with or without series, sorted by name.
  std::vector<Family*> Families() const;
  // Every family with at least one series, sorted by name.
  std::vector<FamilySnapshot> Gather() const;

 private:
  core::Status Check(const FamilyOptions& options, MetricType type) const;  // REQUIRES: mu_ held
  template <typename F>
  core::Result<F*> Insert(std::unique_ptr<F> family);

  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<Family>, std::less<>> families_;  // guarded by mu_
};

}  // namespace nodesmith::metrics
