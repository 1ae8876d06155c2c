#include "solver/repack.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <utility>

#include <coin/ClpSimplex.hpp>

namespace nodesmith::solver {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Greedy passes: the first with the given values, the rest with corrected ones; past the
// minimum, only while the fills have looked at fewer than kPassWork classes in all.
constexpr int kMinPasses = 6;
constexpr int kMaxPasses = 20;
constexpr int64_t kPassWork = 40000000;
// Column-generation rounds of PackByPatterns.
constexpr int kPatternRounds = 8;

// Share of `capacity` that `request` takes on its scarcest resource; +inf when it does not fit.
double DominantShare(const ResourceVector& request, const ResourceVector& capacity) {
  double share = 0;
  for (size_t r = 0; r < request.size(); ++r) {
    if (request[r] <= 0) continue;
    if (request[r] > capacity[r]) return kInf;
    share = std::max(share, static_cast<double>(request[r]) / static_cast<double>(capacity[r]));
  }
  return share;
}

// Distinct new-bin patterns (a type and its pods per class), in the order first met.
class PatternPool {
 public:
  // Adds (t, counts) unless it holds no pod or is known; true when added.
  bool Add(int t, const std::vector<int64_t>& counts) {
    if (std::all_of(counts.begin(), counts.end(), [](int64_t n) { return n == 0; })) return false;
    if (!seen_.emplace(t, counts).second) return false;
    patterns_.push_back(RepackBin{t, counts});
    return true;
  }
  void AddNewBinsOf(const RepackPlan& plan) {
    const RepackBin* last = nullptr;
    for (const RepackBin& bin : plan.new_bins) {
      // A pattern the greedy repeated is checked once.
      if (last == nullptr || bin.type != last->type || bin.counts != last->counts) Add(bin.type, bin.counts);
      last = &bin;
    }
  }
  const std::vector<RepackBin>& patterns() const { return patterns_; }

 private:
  std::set<std::pair<int, std::vector<int64_t>>> seen_;
  std::vector<RepackBin> patterns_;
};

class Packer {
 public:
  Packer(const std::vector<RepackType>& types, const std::vector<RepackClass>& classes,
         const std::vector<int>& pinned_sets)
      : types_(types), classes_(classes), pinned_sets_(pinned_sets) {}

  // Types kept, first values and fill orders; false when some pod fits no type.
  bool Prepare();
  // One greedy pass with the current values.
  RepackPlan Pack(const std::vector<std::vector<RepackClass>>& pinned);
  // Sequential value correction: each class's value moves halfway towards what its pods
  // actually paid in `plan` (every bin's price shared out in proportion to value), so pods
  // that ended up in poorly filled nodes weigh more in the next pass.
  void Correct(const RepackPlan& plan, const std::vector<std::vector<RepackClass>>& pinned);
  // Keeps `seed`'s pinned bins and re-packs the movable pods left for new bins by patterns: the
  // LP over the patterns of `pool` (cover every class at least price), new patterns priced by
  // its duals (each type filled as BestFill fills it) for a few rounds, then whole copies of the
  // LP's patterns and the greedy for the rest.
  RepackPlan PackByPatterns(const RepackPlan& seed, const std::vector<std::vector<RepackClass>>& pinned,
                            PatternPool pool);
  // Classes the fills have looked at so far: a measure of the time spent.
  int64_t work() const { return work_; }
  // Phase 2 of Pack for remaining_; false when some pod fits nowhere.
  bool OpenBins(RepackPlan& plan);
  // Buys every bin as the cheapest type holding it and sums the price; false when one fits none.
  bool Settle(RepackPlan& plan, const std::vector<std::vector<RepackClass>>& pinned) const;
  void SortByDensity();

 private:
  // The fractional price of a request: the cheapest type's price times the share it takes, over
  // the types of `set` (-1: of every set the class may go to).
  double Value(const RepackClass& c, int set = -1) const {
    double best = kInf;
    for (int t : kept_) {
      const int s = types_[t].set;
      if (set >= 0 ? s != set : !(c.sets.empty() || std::find(c.sets.begin(), c.sets.end(), s) != c.sets.end())) {
        continue;
      }
      best = std::min(best, types_[t].price * DominantShare(c.request, types_[t].capacity));
    }
    return c.value >= 0 ? c.value + 1e-3 * best : best;
  }
  int PinnedSet(size_t k) const { return pinned_sets_.empty() ? 0 : pinned_sets_[k]; }
  bool Allowed(size_t c, int set) const { return allowed_[c][static_cast<size_t>(set)] != 0; }
  // Fills `free` first-fit-decreasing (in type t's order) from `remaining`; returns the value added.
  double Fill(int t, int order, ResourceVector free, std::vector<int64_t>& counts) const;
  // The better of both fill orders: value added, counts in `counts`.
  double BestFill(int t, const ResourceVector& free, std::vector<int64_t>& counts) const {
    std::vector<int64_t> other;
    double best = Fill(t, 0, free, counts);
    int64_t placed = 0;
    for (int64_t n : counts) placed += n;
    const int orders = classes_.size() <= kMaxBalancedClasses && placed <= kMaxBalancedPods ? 3 : 2;
    for (int order = 1; order < orders; ++order) {
      const double v = order == 2 ? FillBalanced(t, free, other) : Fill(t, order, free, other);
      if (v > best * (1 + 1e-12)) {
        counts.swap(other);
        best = v;
      }
    }
    return best;
  }
  // (2) one pod at a time, each time the class worth most per unit of what it takes of the
  // capacity still free (resources weighted by 1 / free): keeps the node's resources in
  // balance, e.g. memory-heavy pods beside CPU-heavy ones. Pod by pod, so only for few classes.
  static constexpr size_t kMaxBalancedClasses = 256;
  // The pod-by-pod fill only runs where first-fit decreasing placed at most this many pods.
  static constexpr int64_t kMaxBalancedPods = 32;
  double FillBalanced(int t, ResourceVector free, std::vector<int64_t>& counts) const;
  // The cheapest type holding `used` whose set is `set`, or for set -1 a set every class with
  // pods in `counts` may go to (ties: the lowest index).
  int CheapestHolding(const ResourceVector& used, int set, const std::vector<int64_t>& counts) const;

  const std::vector<RepackType>& types_;
  const std::vector<RepackClass>& classes_;
  const std::vector<int>& pinned_sets_;
  mutable int64_t work_ = 0;  // see work()
  int num_sets_ = 0;
  std::vector<std::vector<uint8_t>> allowed_;  // per class and set: 1 when its pods may go there
  mutable std::vector<uint8_t> usable_;        // CheapestHolding's sets, kept to spare allocations
  std::vector<int> kept_;                 // types no other type of their set dominates, by price
  // The kept types worth trying for a new bin while the classes with pods left are those in
  // live_: a type is left out when another set offers the same capacity for no more money and
  // may hold every class still to place that the type's own set may (of two such types whose
  // sets hold the same classes, the first is tried). All of kept_ when there is one set.
  const std::vector<int>& NewBinTypes();
  // Per kept type: the kept types of other sets with the same capacity for no more money (at
  // most one per set: within a set, equal types are pruned).
  std::vector<std::vector<int>> rivals_;
  std::vector<uint8_t> live_;             // NewBinTypes' classes with pods left...
  std::vector<int> new_bin_types_;        // ...and its answer for them
  // Per fill order and type, the classes that fit it: (0) by dominant share, largest first
  // (first-fit decreasing); (1) by value per share of the type, best first (what fills the type
  // most profitably).
  std::vector<std::vector<int>> order_[2];
  std::vector<double> value_;             // per class
  std::vector<int64_t> remaining_;        // per class
  std::vector<std::vector<double>> share_;  // per type and class: DominantShare
};

double Packer::Fill(int t, int order, ResourceVector free, std::vector<int64_t>& counts) const {
  counts.assign(classes_.size(), 0);
  double value = 0;
  work_ += static_cast<int64_t>(order_[order][t].size());
  for (int c : order_[order][t]) {
    if (remaining_[c] == 0) continue;
    const ResourceVector& req = classes_[c].request;
    int64_t n = remaining_[c];
    for (size_t r = 0; r < req.size() && n > 0; ++r) {
      if (req[r] > 0) n = std::min(n, free[r] / req[r]);
    }
    if (n <= 0) continue;
    counts[c] = n;
    for (size_t r = 0; r < req.size(); ++r) free[r] -= n * req[r];
    value += static_cast<double>(n) * value_[c];
  }
  return value;
}

double Packer::FillBalanced(int t, ResourceVector free, std::vector<int64_t>& counts) const {
  counts.assign(classes_.size(), 0);
  double value = 0;
  const std::vector<int>& candidates = order_[0][t];
  for (;;) {
    int best = -1;
    double best_score = -1;
    for (int c : candidates) {
      if (counts[c] >= remaining_[c]) continue;
      const ResourceVector& req = classes_[c].request;
      double load = 0;
      bool fits = true;
      for (size_t r = 0; r < req.size() && fits; ++r) {
        if (req[r] <= 0) continue;
        if (req[r] > free[r]) fits = false;
        load += static_cast<double>(req[r]) / static_cast<double>(free[r]);
      }
      if (!fits) continue;
      const double score = load > 0 ? value_[c] / load : kInf;
      if (score > best_score) {
        best_score = score;
        best = c;
      }
    }
    work_ += static_cast<int64_t>(candidates.size());
    if (best < 0) return value;
    counts[best]++;
    SubtractFrom(free, classes_[best].request);
    value += value_[best];
  }
}

int Packer::CheapestHolding(const ResourceVector& used, int set, const std::vector<int64_t>& counts) const {
  std::vector<uint8_t>& usable = usable_;
  usable.assign(static_cast<size_t>(num_sets_), set < 0 ? 1 : 0);
  if (set >= 0) {
    usable[static_cast<size_t>(set)] = 1;
  } else if (num_sets_ > 1) {
    for (size_t c = 0; c < classes_.size(); ++c) {
      if (counts[c] == 0) continue;
      for (size_t s = 0; s < usable.size(); ++s) usable[s] &= allowed_[c][s];
    }
  }
  int best = -1;
  for (size_t t = 0; t < types_.size(); ++t) {
    if (!usable[static_cast<size_t>(types_[t].set)] || !Fits(used, types_[t].capacity)) continue;
    if (best < 0 || types_[t].price < types_[best].price) best = static_cast<int>(t);
  }
  return best;
}

bool Packer::Prepare() {
  const int nt = static_cast<int>(types_.size());
  for (const RepackType& t : types_) num_sets_ = std::max(num_sets_, t.set + 1);
  allowed_.assign(classes_.size(), std::vector<uint8_t>(static_cast<size_t>(num_sets_), 0));
  for (size_t c = 0; c < classes_.size(); ++c) {
    if (classes_[c].sets.empty()) std::fill(allowed_[c].begin(), allowed_[c].end(), 1);
    for (int s : classes_[c].sets) {
      if (s >= 0 && s < num_sets_) allowed_[c][static_cast<size_t>(s)] = 1;
    }
  }
  // A type with no more of anything for no less money (in the same set: another set may take
  // other pods) is never the better choice.
  std::vector<std::vector<int>> of_set(static_cast<size_t>(num_sets_));
  for (int t = 0; t < nt; ++t) of_set[static_cast<size_t>(types_[t].set)].push_back(t);
  for (int t = 0; t < nt; ++t) {
    bool dominated = false;
    for (int u : of_set[static_cast<size_t>(types_[t].set)]) {
      if (dominated) break;
      if (u == t || types_[u].price > types_[t].price || !Fits(types_[t].capacity, types_[u].capacity)) continue;
      // Equal types: keep the first.
      dominated = types_[u].price < types_[t].price || types_[u].capacity != types_[t].capacity || u < t;
    }
    if (!dominated) kept_.push_back(t);
  }
  std::stable_sort(kept_.begin(), kept_.end(),
                   [&](int a, int b) { return types_[a].price < types_[b].price; });
  rivals_.assign(nt, {});
  if (num_sets_ > 1) {
    std::map<ResourceVector, std::vector<int>> by_capacity;
    for (int t : kept_) by_capacity[types_[t].capacity].push_back(t);
    for (const auto& [capacity, same] : by_capacity) {
      for (int t : same) {
        for (int u : same) {
          if (types_[u].set != types_[t].set && types_[u].price <= types_[t].price) rivals_[t].push_back(u);
        }
      }
    }
  }
  value_.resize(classes_.size());
  remaining_.assign(classes_.size(), 0);
  for (size_t c = 0; c < classes_.size(); ++c) {
    value_[c] = Value(classes_[c]);
    if (!(value_[c] < kInf)) return false;  // fits no type
  }
  order_[0].resize(nt);
  order_[1].resize(nt);
  share_.assign(nt, {});
  for (int t : kept_) {
    std::vector<double>& share = share_[t];
    share.resize(classes_.size());
    for (size_t c = 0; c < classes_.size(); ++c) share[c] = DominantShare(classes_[c].request, types_[t].capacity);
    std::vector<int>& by_share = order_[0][t];
    for (size_t c = 0; c < classes_.size(); ++c) {
      if (share[c] < kInf && Allowed(c, types_[t].set)) by_share.push_back(static_cast<int>(c));
    }
    std::stable_sort(by_share.begin(), by_share.end(), [&](int a, int b) { return share[a] > share[b]; });
  }
  return true;
}

void Packer::Correct(const RepackPlan& plan, const std::vector<std::vector<RepackClass>>& pinned) {
  std::vector<double> paid(classes_.size(), 0);
  auto share_out = [&](const RepackBin& bin, double fixed_value) {
    double value = fixed_value;
    for (size_t c = 0; c < classes_.size(); ++c) value += static_cast<double>(bin.counts[c]) * value_[c];
    if (value <= 0) return;
    const double rate = types_[bin.type].price / value;
    for (size_t c = 0; c < classes_.size(); ++c) paid[c] += static_cast<double>(bin.counts[c]) * value_[c] * rate;
  };
  for (size_t k = 0; k < plan.pinned.size(); ++k) {
    double fixed_value = 0;
    for (const auto& c : pinned[k]) fixed_value += static_cast<double>(c.count) * Value(c, PinnedSet(k));
    share_out(plan.pinned[k], fixed_value);
  }
  for (const auto& bin : plan.new_bins) share_out(bin, 0);
  for (size_t c = 0; c < classes_.size(); ++c) {
    if (classes_[c].count > 0) value_[c] = (value_[c] + paid[c] / static_cast<double>(classes_[c].count)) / 2;
  }
}

RepackPlan Packer::Pack(const std::vector<std::vector<RepackClass>>& pinned) {
  RepackPlan plan;
  for (size_t c = 0; c < classes_.size(); ++c) remaining_[c] = classes_[c].count;
  SortByDensity();  // fill order (1) depends on the values

  std::vector<int64_t> counts, best_counts;
  // 1. Pinned bins, topped up; each only as a type of its own set.
  for (size_t k = 0; k < pinned.size(); ++k) {
    const int set = PinnedSet(k);
    ResourceVector used(types_.empty() ? 0 : types_[0].capacity.size(), 0);
    double pinned_value = 0;
    for (const auto& c : pinned[k]) {
      for (size_t r = 0; r < used.size(); ++r) used[r] += c.count * c.request[r];
      pinned_value += static_cast<double>(c.count) * Value(c, set);
    }
    int best = -1;
    double best_eff = -1;
    for (int t : kept_) {
      if (types_[t].set != set || !Fits(used, types_[t].capacity)) continue;
      ResourceVector free = types_[t].capacity;
      SubtractFrom(free, used);
      const double eff = (pinned_value + BestFill(t, free, counts)) / types_[t].price;
      if (eff > best_eff * (1 + 1e-12)) {
        best_eff = eff;
        best = t;
        best_counts = counts;
      }
    }
    if (best < 0) return plan;
    for (size_t c = 0; c < classes_.size(); ++c) remaining_[c] -= best_counts[c];
    plan.pinned.push_back(RepackBin{best, best_counts});
  }
  if (!OpenBins(plan)) return plan;
  plan.ok = Settle(plan, pinned);
  return plan;
}

bool Packer::OpenBins(RepackPlan& plan) {
  std::vector<int64_t> counts, best_counts;
  while (std::accumulate(remaining_.begin(), remaining_.end(), int64_t{0}) > 0) {
    int best = -1;
    double best_eff = -1;
    for (int t : NewBinTypes()) {
      const double eff = BestFill(t, types_[t].capacity, counts) / types_[t].price;
      if (eff > best_eff * (1 + 1e-12)) {
        best_eff = eff;
        best = t;
        best_counts = counts;
      }
    }
    if (best < 0 || best_eff <= 0) return false;  // nothing fits anywhere: cannot happen
    int64_t repeat = std::numeric_limits<int64_t>::max();
    for (size_t c = 0; c < classes_.size(); ++c) {
      if (best_counts[c] > 0) repeat = std::min(repeat, remaining_[c] / best_counts[c]);
    }
    for (size_t c = 0; c < classes_.size(); ++c) remaining_[c] -= repeat * best_counts[c];
    for (int64_t i = 0; i < repeat; ++i) plan.new_bins.push_back(RepackBin{best, best_counts});
  }
  return true;
}

bool Packer::Settle(RepackPlan& plan, const std::vector<std::vector<RepackClass>>& pinned) const {
  plan.price = 0;
  auto settle = [&](RepackBin& bin, ResourceVector used, int set) {
    for (size_t c = 0; c < classes_.size(); ++c) {
      if (bin.counts[c] == 0) continue;
      for (size_t r = 0; r < used.size(); ++r) used[r] += bin.counts[c] * classes_[c].request[r];
    }
    bin.type = CheapestHolding(used, set, bin.counts);
    if (bin.type >= 0) plan.price += types_[bin.type].price;
    return bin.type >= 0;
  };
  for (size_t k = 0; k < pinned.size(); ++k) {
    ResourceVector used(types_[0].capacity.size(), 0);
    for (const auto& c : pinned[k]) {
      for (size_t r = 0; r < used.size(); ++r) used[r] += c.count * c.request[r];
    }
    if (!settle(plan.pinned[k], used, PinnedSet(k))) return false;
  }
  for (auto& bin : plan.new_bins) {
    if (!settle(bin, ResourceVector(types_[0].capacity.size(), 0), -1)) return false;
  }
  return true;
}

RepackPlan Packer::PackByPatterns(const RepackPlan& seed,
                                  const std::vector<std::vector<RepackClass>>& pinned,
                                  PatternPool pool) {
  RepackPlan plan;
  plan.pinned = seed.pinned;
  const size_t nc = classes_.size();
  std::vector<int64_t> rest(nc);
  for (size_t c = 0; c < nc; ++c) {
    rest[c] = classes_[c].count;
    for (const auto& bin : seed.pinned) rest[c] -= bin.counts[c];
  }
  std::vector<int> rows_of(nc, -1);  // LP row of each class still to place
  int num_rows = 0;
  for (size_t c = 0; c < nc; ++c) {
    if (rest[c] > 0) rows_of[c] = num_rows++;
  }
  if (num_rows == 0) return plan;
  pool.AddNewBinsOf(seed);
  const std::vector<RepackBin>& patterns = pool.patterns();
  std::vector<double> x;
  std::vector<int64_t> counts;
  for (int round = 0; round < kPatternRounds; ++round) {
    // min sum price x_p  s.t.  sum_p n_{p,c} x_p >= rest_c,  x >= 0.
    std::vector<CoinBigIndex> starts{0};
    std::vector<int> rows;
    std::vector<double> elements, obj, col_lb(patterns.size(), 0), col_ub(patterns.size(), COIN_DBL_MAX);
    for (const auto& p : patterns) {
      for (size_t c = 0; c < nc; ++c) {
        if (p.counts[c] > 0 && rows_of[c] >= 0) {
          rows.push_back(rows_of[c]);
          elements.push_back(static_cast<double>(p.counts[c]));
        }
      }
      starts.push_back(static_cast<CoinBigIndex>(rows.size()));
      obj.push_back(types_[p.type].price);
    }
    std::vector<double> row_lb(num_rows), row_ub(num_rows, COIN_DBL_MAX);
    for (size_t c = 0; c < nc; ++c) {
      if (rows_of[c] >= 0) row_lb[rows_of[c]] = static_cast<double>(rest[c]);
    }
    ClpSimplex model;
    model.setLogLevel(0);
    model.loadProblem(static_cast<int>(patterns.size()), num_rows, starts.data(), rows.data(),
                      elements.data(), col_lb.data(), col_ub.data(), obj.data(), row_lb.data(),
                      row_ub.data());
    model.dual();
    if (model.status() != 0) return {};
    x.assign(model.primalColumnSolution(), model.primalColumnSolution() + patterns.size());
    // Price new patterns: each type filled by the LP's duals as values.
    const double* duals = model.dualRowSolution();
    for (size_t c = 0; c < nc; ++c) value_[c] = rows_of[c] >= 0 ? std::max(0.0, duals[rows_of[c]]) : 0;
    for (size_t c = 0; c < nc; ++c) remaining_[c] = std::max<int64_t>(rest[c], 0);
    SortByDensity();
    bool added = false;
    for (int t : NewBinTypes()) {
      const double v = BestFill(t, types_[t].capacity, counts);
      if (v > types_[t].price * (1 + 1e-9)) added = pool.Add(t, counts) || added;
    }
    if (!added) break;
  }
  // Patterns priced in after the last LP solve (the rounds ran out) have no value yet.
  x.resize(patterns.size(), 0.0);
  // Whole copies of the LP's patterns, then the greedy for what is left.
  std::vector<size_t> order(patterns.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return x[a] > x[b]; });
  for (size_t c = 0; c < nc; ++c) remaining_[c] = std::max<int64_t>(rest[c], 0);
  for (size_t i : order) {
    const int64_t copies = static_cast<int64_t>(std::floor(x[i] + 1e-9));
    for (int64_t k = 0; k < copies; ++k) {
      RepackBin bin{patterns[i].type, std::vector<int64_t>(nc, 0)};
      bool any = false;
      for (size_t c = 0; c < nc; ++c) {
        bin.counts[c] = std::min(patterns[i].counts[c], remaining_[c]);
        remaining_[c] -= bin.counts[c];
        any = any || bin.counts[c] > 0;
      }
      if (any) plan.new_bins.push_back(std::move(bin));
    }
  }
  if (!OpenBins(plan)) return {};
  plan.ok = Settle(plan, pinned);
  return plan;
}

const std::vector<int>& Packer::NewBinTypes() {
  if (num_sets_ == 1) return kept_;
  std::vector<uint8_t> live(classes_.size());
  for (size_t c = 0; c < classes_.size(); ++c) live[c] = remaining_[c] > 0;
  if (live == live_ && !new_bin_types_.empty()) return new_bin_types_;
  live_ = std::move(live);
  // holds[a][b]: set a may hold every live class set b may.
  const size_t ns = static_cast<size_t>(num_sets_);
  std::vector<std::vector<uint8_t>> holds(ns, std::vector<uint8_t>(ns, 1));
  for (size_t c = 0; c < classes_.size(); ++c) {
    if (!live_[c]) continue;
    for (size_t b = 0; b < ns; ++b) {
      if (!allowed_[c][b]) continue;
      for (size_t a = 0; a < ns; ++a) holds[a][b] &= allowed_[c][a];
    }
  }
  new_bin_types_.clear();
  for (int t : kept_) {
    const size_t st = static_cast<size_t>(types_[t].set);
    bool beaten = false;
    for (int u : rivals_[t]) {
      const size_t su = static_cast<size_t>(types_[u].set);
      if (!holds[su][st]) continue;
      if (types_[u].price < types_[t].price || !holds[st][su] || u < t) {
        beaten = true;
        break;
      }
    }
    if (!beaten) new_bin_types_.push_back(t);
  }
  return new_bin_types_;
}

void Packer::SortByDensity() {
  for (int t : kept_) {
    const std::vector<double>& share = share_[t];
    std::vector<int>& by_density = order_[1][t];
    by_density = order_[0][t];
    auto density = [&](int c) { return share[c] > 0 ? value_[c] / share[c] : kInf; };
    std::stable_sort(by_density.begin(), by_density.end(),
                     [&](int a, int b) { return density(a) > density(b); });
  }
}

}  // namespace

RepackPlan Repack(const std::vector<RepackType>& types, const std::vector<RepackClass>& classes,
                  const std::vector<std::vector<RepackClass>>& pinned, const std::vector<int>& pinned_sets,
                  double lower_bound) {
  if (types.empty()) return {};
  int num_sets = 0;
  for (const RepackType& t : types) {
    if (t.set < 0) return {};
    num_sets = std::max(num_sets, t.set + 1);
  }
  if (!pinned_sets.empty() && pinned_sets.size() != pinned.size()) return {};
  for (int s : pinned_sets) {
    if (s < 0 || s >= num_sets) return {};
  }
  Packer packer(types, classes, pinned_sets);
  if (!packer.Prepare()) return {};
  RepackPlan best = packer.Pack(pinned);
  auto optimal = [&] { return best.ok && best.price <= lower_bound * (1 + 1e-9); };
  PatternPool pool;  // the nodes of every pass
  if (best.ok) pool.AddNewBinsOf(best);
  RepackPlan last = best;
  for (int pass = 1; pass < kMaxPasses && last.ok && !optimal() &&
                     (pass < kMinPasses || packer.work() < kPassWork);
       ++pass) {
    packer.Correct(last, pinned);
    last = packer.Pack(pinned);
    if (!last.ok) break;
    pool.AddNewBinsOf(last);
    if (last.price < best.price * (1 - 1e-12)) best = last;
  }
  if (best.ok && !optimal()) {
    RepackPlan patterned = packer.PackByPatterns(best, pinned, std::move(pool));
    if (patterned.ok && patterned.price < best.price * (1 - 1e-12)) best = std::move(patterned);
  }
  return best;
}

}  // namespace nodesmith::solver
