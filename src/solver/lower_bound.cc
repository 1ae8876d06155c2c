#include "solver/lower_bound.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include <coin/ClpSimplex.hpp>

namespace nodesmith::solver {

namespace {

// Drops open bins that another open bin dominates: compatible with every class the first one
// is, and offering at least as much of every resource per dollar (with a 1e-12 margin in the
// safe direction). Any fractional use of a dominated bin can be replaced by the dominating one
// at no extra cost, so the LP optimum is unchanged; the problem is usually far smaller.
LowerBoundProblem PruneDominated(const LowerBoundProblem& p) {
  const size_t nb = p.bins.size();
  const size_t num_resources = p.classes[0].request.size();
  std::vector<std::vector<bool>> compat(nb, std::vector<bool>(p.classes.size(), false));
  for (size_t c = 0; c < p.classes.size(); ++c) {
    for (int b : p.classes[c].bins) compat[b][c] = true;
  }
  auto dominates = [&](size_t a, size_t b) {  // does a dominate b?
    const LowerBoundBin& x = p.bins[a];
    const LowerBoundBin& y = p.bins[b];
    for (size_t c = 0; c < p.classes.size(); ++c) {
      if (compat[b][c] && !compat[a][c]) return false;
    }
    for (size_t r = 0; r < num_resources; ++r) {
      long double lhs = static_cast<long double>(x.capacity[r]) * y.price;
      long double rhs = static_cast<long double>(y.capacity[r]) * x.price * (1.0L + 1e-12L);
      if (lhs < rhs) return false;
    }
    return true;
  };
  std::vector<bool> dropped(nb, false);
  for (size_t b = 0; b < nb; ++b) {
    if (p.bins[b].fixed || p.bins[b].price <= 0) continue;
    for (size_t a = 0; a < nb && !dropped[b]; ++a) {
      if (a == b || dropped[a] || p.bins[a].fixed || p.bins[a].price <= 0) continue;
      if (dominates(a, b)) dropped[b] = true;
    }
  }
  LowerBoundProblem out;  // without seeds: the fluid LP does not use them
  std::vector<int> new_index(nb, -1);
  for (size_t b = 0; b < nb; ++b) {
    if (dropped[b]) continue;
    new_index[b] = static_cast<int>(out.bins.size());
    out.bins.push_back(p.bins[b]);
  }
  for (const auto& c : p.classes) {
    LowerBoundClass nc{c.count, c.request, {}};
    for (int b : c.bins) {
      if (new_index[b] >= 0) nc.bins.push_back(new_index[b]);
    }
    out.classes.push_back(std::move(nc));
  }
  return out;
}

// Merges classes with the same request and the same (sorted) compatible bins into one with the
// summed count. Their columns are identical, so any LP solution of one problem maps to one of
// the other at the same cost: the optimum, and the certificate built from its duals, are
// unchanged, but the LP shrinks from one class per pod spec (labels, names) to one per shape.
LowerBoundProblem MergeIdenticalClasses(LowerBoundProblem p) {
  std::map<std::pair<std::vector<double>, std::vector<int>>, size_t> index;
  std::vector<LowerBoundClass> merged;
  std::vector<int> merged_into(p.classes.size());
  for (size_t k = 0; k < p.classes.size(); ++k) {
    LowerBoundClass& c = p.classes[k];
    std::sort(c.bins.begin(), c.bins.end());
    c.bins.erase(std::unique(c.bins.begin(), c.bins.end()), c.bins.end());
    auto [it, inserted] = index.try_emplace({c.request, c.bins}, merged.size());
    merged_into[k] = static_cast<int>(it->second);
    if (inserted) {
      merged.push_back(std::move(c));
    } else {
      merged[it->second].count += c.count;
    }
  }
  p.classes = std::move(merged);
  for (LowerBoundPattern& seed : p.seeds) {
    std::map<int, int64_t> counts;
    for (const auto& [c, n] : seed.counts) {
      if (c >= 0 && static_cast<size_t>(c) < merged_into.size()) counts[merged_into[c]] += n;
    }
    seed.counts.assign(counts.begin(), counts.end());
  }
  return p;
}

// Above this many class-bin pairs (LP columns) the full LP costs more than the solve it
// bounds (hundreds of instance types times dozens of pod shapes), so GroupedWeights is used.
constexpr size_t kMaxPlacementColumns = 2000;

// Rounds a non-negative long double bound down to a double (0 when not positive).
double RoundDown(long double bound) {
  if (bound <= 0) return 0.0;
  double out = static_cast<double>(bound);
  if (static_cast<long double>(out) > bound) out = std::nextafter(out, 0.0);
  return out;
}

// A weaker bound for problems too large for the full LP: bins are pooled into groups that share
// one price per resource unit. Open bins are grouped by which resources they offer at all (so
// GPU nodes form a group apart from CPU-only nodes); existing capacity forms one more group.
// For weights w_{g,r} >= 0 with sum_r cap_{b,r} w_{g(b),r} <= price_b on every open bin, and
// u_c <= sum_r req_{c,r} w_{g,r} for every group g holding one of c's bins, every plan costs at
// least
//   sum_c count_c u_c - sum_{fixed b} sum_r cap_{b,r} w_{fixed,r}
// (each pod's u is paid by the bin it lands in). The best such w is a small LP (one column per
// group and resource, one per class); one group for everything is the plain per-resource
// ("fluid") bound, and finer groups only tighten it. The certificate is LowerBound's: each
// bin takes its group's w, clamped and scaled down until its price row holds.
std::vector<long double> GroupedWeights(const LowerBoundProblem& p) {
  const size_t nr = p.classes[0].request.size();
  const size_t nb = p.bins.size();
  // Group of each bin: by the mask of resources it offers; existing capacity apart.
  std::map<std::vector<bool>, int> group_of_mask;
  std::vector<int> group(nb);
  int num_groups = 0;
  int fixed_group = -1;
  for (size_t b = 0; b < nb; ++b) {
    if (p.bins[b].fixed) {
      if (fixed_group < 0) fixed_group = num_groups++;
      group[b] = fixed_group;
      continue;
    }
    std::vector<bool> mask(nr);
    for (size_t r = 0; r < nr; ++r) mask[r] = p.bins[b].capacity[r] > 0;
    auto [it, inserted] = group_of_mask.try_emplace(mask, num_groups);
    if (inserted) ++num_groups;
    group[b] = it->second;
  }
  std::vector<double> scale(nr, 1.0);
  for (size_t r = 0; r < nr; ++r) {
    double m = 0;
    for (const auto& b : p.bins) m = std::max(m, b.capacity[r]);
    for (const auto& c : p.classes) m = std::max(m, c.request[r]);
    if (m > 0) scale[r] = m;
  }
  std::vector<long double> fixed_capacity(nr, 0.0L);
  for (const auto& b : p.bins) {
    if (!b.fixed) continue;
    for (size_t r = 0; r < nr; ++r) fixed_capacity[r] += b.capacity[r];
  }

  // Rows: one per open bin (price), then one per (class, group) pair.
  std::vector<std::vector<std::pair<int, double>>> columns(num_groups * nr + p.classes.size());
  std::vector<double> row_lb, row_ub;
  for (size_t b = 0; b < nb; ++b) {
    if (p.bins[b].fixed) continue;
    const int row = static_cast<int>(row_ub.size());
    for (size_t r = 0; r < nr; ++r) {
      double v = p.bins[b].capacity[r] / scale[r];
      if (v != 0) columns[group[b] * nr + r].emplace_back(row, v);
    }
    row_lb.push_back(-COIN_DBL_MAX);
    row_ub.push_back(p.bins[b].price);
  }
  std::vector<double> obj(columns.size(), 0), col_lb(columns.size(), 0),
      col_ub(columns.size(), COIN_DBL_MAX);
  for (size_t c = 0; c < p.classes.size(); ++c) {
    const size_t u = num_groups * nr + c;
    std::vector<bool> seen(num_groups, false);
    for (int b : p.classes[c].bins) {
      const int g = group[b];
      if (seen[g]) continue;
      seen[g] = true;
      const int row = static_cast<int>(row_ub.size());
      columns[u].emplace_back(row, 1.0);
      for (size_t r = 0; r < nr; ++r) {
        double v = p.classes[c].request[r] / scale[r];
        if (v != 0) columns[g * nr + r].emplace_back(row, -v);
      }
      row_lb.push_back(-COIN_DBL_MAX);
      row_ub.push_back(0);
    }
    obj[u] = -static_cast<double>(p.classes[c].count);
    col_lb[u] = -COIN_DBL_MAX;
    if (p.classes[c].bins.empty()) col_ub[u] = col_lb[u] = 0;  // placed nowhere: no value
  }
  if (fixed_group >= 0) {
    for (size_t r = 0; r < nr; ++r) {
      obj[fixed_group * nr + r] = static_cast<double>(fixed_capacity[r] / scale[r]);
    }
  }
  std::vector<CoinBigIndex> starts{0};
  std::vector<int> rows;
  std::vector<double> elements;
  for (const auto& col : columns) {
    for (const auto& [row, v] : col) {
      rows.push_back(row);
      elements.push_back(v);
    }
    starts.push_back(static_cast<CoinBigIndex>(rows.size()));
  }
  ClpSimplex model;
  model.setLogLevel(0);
  model.loadProblem(static_cast<int>(columns.size()), static_cast<int>(row_ub.size()),
                    starts.data(), rows.data(), elements.data(), col_lb.data(), col_ub.data(),
                    obj.data(), row_lb.data(), row_ub.data());
  model.primal();
  if (model.status() != 0) return {};
  const double* x = model.primalColumnSolution();
  // Per-bin weights in unscaled units, clamped to >= 0 (scaled per bin by the caller).
  std::vector<long double> w(nb * nr, 0.0L);
  for (size_t b = 0; b < nb; ++b) {
    for (size_t r = 0; r < nr; ++r) {
      long double v = static_cast<long double>(x[group[b] * nr + r]) / scale[r];
      w[b * nr + r] = v > 0 ? v : 0.0L;
    }
  }
  return w;
}

// Weak duality, for per-bin weights w (already >= 0): scales each open bin's weights down until
// its price row holds, then evaluates sum_c count_c min_{b of c} req_c . w_b minus the weighted
// existing capacity, rounded down.
double Certify(const LowerBoundProblem& p, std::vector<long double> w) {
  const size_t num_resources = p.classes[0].request.size();
  const size_t nb = p.bins.size();
  for (size_t b = 0; b < nb; ++b) {
    if (p.bins[b].fixed) continue;
    long double s = 0;
    for (size_t r = 0; r < num_resources; ++r) {
      s += static_cast<long double>(p.bins[b].capacity[r]) * w[b * num_resources + r];
    }
    long double limit = static_cast<long double>(p.bins[b].price) * (1.0L - 1e-12L);
    if (s > limit) {
      long double f = s > 0 ? limit / s : 0.0L;
      for (size_t r = 0; r < num_resources; ++r) w[b * num_resources + r] *= f;
    }
  }
  long double bound = 0;
  for (const auto& c : p.classes) {
    long double u = std::numeric_limits<long double>::infinity();
    for (int b : c.bins) {
      long double v = 0;
      for (size_t r = 0; r < num_resources; ++r) {
        v += static_cast<long double>(c.request[r]) * w[b * num_resources + r];
      }
      u = std::min(u, v);
    }
    if (!std::isfinite(static_cast<double>(u))) continue;  // no bin: contributes nothing
    bound += static_cast<long double>(c.count) * u;
  }
  for (size_t b = 0; b < nb; ++b) {
    if (!p.bins[b].fixed) continue;
    for (size_t r = 0; r < num_resources; ++r) {
      bound -= static_cast<long double>(p.bins[b].capacity[r]) * w[b * num_resources + r];
    }
  }
  // Margin for the rounding of the sums above (each a few ulps of long double), then round the
  // conversion to double downwards.
  return RoundDown(bound * (1.0L - 1e-12L));
}

// A pod only ever lands in a bin it fits in alone, so each class keeps only those bins: the
// relaxation stays one of every real plan, and gets tighter (a GPU pod cannot borrow a CPU-only
// node's cores).
LowerBoundProblem DropBinsTooSmall(LowerBoundProblem p) {
  for (auto& c : p.classes) {
    std::vector<int> kept;
    for (int b : c.bins) {
      bool fits = true;
      for (size_t r = 0; r < c.request.size() && fits; ++r) {
        fits = c.request[r] <= p.bins[b].capacity[r];
      }
      if (fits) kept.push_back(b);
    }
    c.bins = std::move(kept);
  }
  return p;
}

}  // namespace

namespace {

// The full LP's row duals as per-bin weights w_{b,r} >= 0 (empty when CLP fails).
std::vector<long double> FullWeights(const LowerBoundProblem& p) {
  const size_t num_resources = p.classes[0].request.size();
  // Scale each resource so its largest capacity is 1: memory in milli-bytes and cpu in
  // milli-cores differ by twelve orders of magnitude, which the simplex handles badly.
  std::vector<double> scale(num_resources, 1.0);
  for (size_t r = 0; r < num_resources; ++r) {
    double m = 0;
    for (const auto& b : p.bins) m = std::max(m, b.capacity[r]);
    for (const auto& c : p.classes) m = std::max(m, c.request[r]);
    if (m > 0) scale[r] = m;
  }

  // Which (bin, resource) rows matter: some class using the bin requests the resource.
  const size_t nb = p.bins.size();
  std::vector<int> row_of(nb * num_resources, -1);
  int num_rows = static_cast<int>(p.classes.size());
  for (const auto& c : p.classes) {
    for (int b : c.bins) {
      for (size_t r = 0; r < num_resources; ++r) {
        if (c.request[r] > 0 && row_of[b * num_resources + r] < 0) {
          row_of[b * num_resources + r] = num_rows++;
        }
      }
    }
  }

  // Columns: x_b for used open bins, then y_{c,b}. Column-major arrays for loadProblem.
  std::vector<int> x_col(nb, -1);
  std::vector<CoinBigIndex> starts{0};
  std::vector<int> rows;
  std::vector<double> elements, col_lb, col_ub, obj;
  auto end_column = [&](double cost) {
    starts.push_back(static_cast<CoinBigIndex>(rows.size()));
    col_lb.push_back(0);
    col_ub.push_back(COIN_DBL_MAX);
    obj.push_back(cost);
  };
  for (size_t b = 0; b < nb; ++b) {
    if (p.bins[b].fixed) continue;
    bool any = false;
    for (size_t r = 0; r < num_resources; ++r) {
      int row = row_of[b * num_resources + r];
      if (row < 0) continue;
      rows.push_back(row);
      elements.push_back(-p.bins[b].capacity[r] / scale[r]);
      any = true;
    }
    if (!any) continue;
    x_col[b] = static_cast<int>(obj.size());
    end_column(p.bins[b].price);
  }
  for (size_t c = 0; c < p.classes.size(); ++c) {
    for (int b : p.classes[c].bins) {
      rows.push_back(static_cast<int>(c));
      elements.push_back(1.0);
      for (size_t r = 0; r < num_resources; ++r) {
        int row = row_of[b * num_resources + r];
        if (row < 0) continue;
        rows.push_back(row);
        elements.push_back(p.classes[c].request[r] / scale[r]);
      }
      end_column(0);
    }
  }
  std::vector<double> row_lb(num_rows, -COIN_DBL_MAX), row_ub(num_rows, 0);
  for (size_t c = 0; c < p.classes.size(); ++c) {
    row_lb[c] = row_ub[c] = static_cast<double>(p.classes[c].count);
  }
  for (size_t b = 0; b < nb; ++b) {
    if (!p.bins[b].fixed) continue;
    for (size_t r = 0; r < num_resources; ++r) {
      int row = row_of[b * num_resources + r];
      if (row >= 0) row_ub[row] = p.bins[b].capacity[r] / scale[r];
    }
  }

  ClpSimplex model;
  model.setLogLevel(0);
  model.loadProblem(static_cast<int>(obj.size()), num_rows, starts.data(), rows.data(),
                    elements.data(), col_lb.data(), col_ub.data(), obj.data(), row_lb.data(),
                    row_ub.data());
  model.dual();
  if (model.status() != 0) return {};  // infeasible or failed: no certificate
  const double* duals = model.dualRowSolution();

  // w_{b,r} in unscaled units: the dual of a <= row of a minimisation is <= 0.
  std::vector<long double> w(nb * num_resources, 0.0L);
  for (size_t b = 0; b < nb; ++b) {
    for (size_t r = 0; r < num_resources; ++r) {
      int row = row_of[b * num_resources + r];
      if (row < 0) continue;
      long double v = -static_cast<long double>(duals[row]) / scale[r];
      w[b * num_resources + r] = v > 0 ? v : 0.0L;
    }
  }
  return w;
}

// ---------------------------------------------------------------------------------------------
// The configuration LP: a tighter bound where pods are large next to the nodes.
//
// The fluid LP lets a node be filled to the last milli-core; a real node holds whole pods. The
// configuration LP buys patterns instead (a bin and how many pods of each class it holds, a
// packing that fits):  min sum_p price_p x_p  s.t.  sum_p a_{p,c} x_p >= count_c,  x >= 0.
// It is solved by column generation over the patterns found so far; a new pattern comes from an
// exact knapsack per bin priced by the master's duals u_c (ConfigurationKnapsack).
//
// Certificate (Farley's bound): for any u >= 0 and, for every open bin b, any K_b at least the
// value sum_c a_c u_c of every pattern that fits b,
//   cost(any plan) = sum_nodes price_b >= sum_nodes (price_b / K_b) value(node)
//                 >= s * sum_c count_c u_c,   s = min_b price_b / K_b,
// since every pod is in some node. The knapsack returns such a K_b (its best pattern, or the
// bound of a search cut short), so the number is proven whatever the LP solver's tolerances.
// Existing capacity is not modelled here: with fixed bins only the fluid bound is used.

// Work limits: knapsack nodes per bin and pricing, over the whole bound, and master rounds.
// Past the node limit every bin is still priced, with its search cut at the root (its bound is
// then the knapsack's LP relaxation), so the certificate stays complete.
constexpr int64_t kKnapsackNodes = 2000;
constexpr int64_t kConfigurationNodes = 200000;
constexpr int kConfigurationRounds = 40;
// Improving patterns a knapsack hands the master per bin and round.
constexpr size_t kColumnsPerBin = 4;
// Above this many classes, open bins or (class, bin) pairs the configuration LP is not tried (the
// fluid bound stands). With a hundred pod shapes (the OpenB trace) column generation converges
// too slowly: after a hundred rounds of exact pricing (minutes) the master is still falling and
// the Farley bound of its duals is below the fluid bound. Karpenter's 400 fake types and 30 pod
// shapes would cost a tenth of a second for nothing: its pods are small next to its nodes.
constexpr size_t kMaxConfigurationClasses = 64;
constexpr size_t kMaxConfigurationBins = 512;
constexpr size_t kMaxConfigurationPairs = 4000;

// The most valuable pattern of one bin under values u: a bounded multi-dimensional knapsack,
// solved by depth-first branch and bound. Bounds: the fractional knapsack of each resource on
// its own, and a Lagrangian bound with the resource prices of the knapsack's LP relaxation.
class ConfigurationKnapsack {
 public:
  struct Item {
    int cls = 0;
    double value = 0;  // u_c
    int64_t max = 0;   // pods of the class one bin can hold (and no more than the class has)
  };
  ConfigurationKnapsack(const std::vector<double>& capacity,
                        const std::vector<const std::vector<double>*>& requests, std::vector<Item> items)
      : capacity_(capacity), requests_(requests), items_(std::move(items)) {
    const size_t nr = capacity_.size();
    // Best value per share of the bin first: the depth-first search finds good patterns early.
    auto weight = [&](const Item& it) {
      double w = 0;
      for (size_t r = 0; r < nr; ++r) {
        if (capacity_[r] > 0) w += (*requests_[it.cls])[r] / capacity_[r];
      }
      return w;
    };
    std::stable_sort(items_.begin(), items_.end(),
                     [&](const Item& a, const Item& b) { return a.value * weight(b) > b.value * weight(a); });
    for (size_t r = 0; r < nr; ++r) {
      bool used = false;
      for (const auto& it : items_) used = used || (*requests_[it.cls])[r] > 0;
      if (used) resources_.push_back(r);
    }
    // Per resource, the items by value per unit of it (items not using it first).
    by_ratio_.resize(resources_.size());
    for (size_t k = 0; k < resources_.size(); ++k) {
      const size_t r = resources_[k];
      std::vector<int>& order = by_ratio_[k];
      for (size_t i = 0; i < items_.size(); ++i) order.push_back(static_cast<int>(i));
      auto ratio = [&](int i) {
        const double q = (*requests_[items_[i].cls])[r];
        return q > 0 ? items_[i].value / q : std::numeric_limits<double>::infinity();
      };
      std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return ratio(a) > ratio(b); });
    }
  }

  // Fills `best` (count per item, in items() order) and returns an upper bound on the value of
  // any fitting pattern (the best pattern's value when the search completed). `budget` is the
  // node limit of this search.
  //
  // Only patterns worth more than `floor` matter to the caller: subtrees that cannot beat it are
  // not searched, and the bound returned is then at least `floor`. Every pattern found on the way
  // that beat the best so far and `floor` is appended to `improving` (when not null).
  double Solve(int64_t budget, double floor, std::vector<int64_t>& best, int64_t& nodes_used,
               std::vector<std::vector<int64_t>>* improving = nullptr) {
    budget_ = budget;
    floor_ = floor;
    improving_ = improving;
    nodes_ = 0;
    best_value_ = 0;
    open_bound_ = 0;
    current_.assign(items_.size(), 0);
    best_.assign(items_.size(), 0);
    std::vector<double> free = capacity_;
    // The Lagrangian bound's prices cost an LP: only worth it when the single-resource bounds
    // alone cannot show at the root that nothing beats `floor` (often, once the duals settle).
    // One item is solved exactly without them.
    if (items_.size() > 1 && Bound(0, free) > floor_ * (1 + 1e-12)) lambda_ = ResourcePrices();
    Search(0, free, 0);
    best = best_;
    nodes_used = nodes_;
    return std::max({best_value_, open_bound_, floor_});
  }
  const std::vector<Item>& items() const { return items_; }

 private:
  // Prices per unit of each resource (indexed like resources_) from the duals of the knapsack's
  // LP relaxation. Any prices >= 0 bound the knapsack (Lagrangian relaxation of its capacity
  // rows, see Bound); these make the bound at the root the LP relaxation's value, which the
  // single-resource bounds miss when two resources bind at once. Empty when the LP fails.
  std::vector<double> ResourcePrices() const {
    const int n = static_cast<int>(items_.size());
    const int m = static_cast<int>(resources_.size());
    if (n == 0 || m == 0) return {};
    std::vector<CoinBigIndex> starts{0};
    std::vector<int> rows;
    std::vector<double> elements, obj, col_lb(n, 0), col_ub, row_lb(m, -COIN_DBL_MAX), row_ub(m, 1.0);
    for (const Item& it : items_) {
      for (int k = 0; k < m; ++k) {
        const double q = (*requests_[it.cls])[resources_[k]];
        if (q > 0) {
          rows.push_back(k);
          elements.push_back(q / capacity_[resources_[k]]);
        }
      }
      starts.push_back(static_cast<CoinBigIndex>(rows.size()));
      obj.push_back(-it.value);
      col_ub.push_back(static_cast<double>(it.max));
    }
    ClpSimplex lp;
    lp.setLogLevel(0);
    lp.loadProblem(n, m, starts.data(), rows.data(), elements.data(), col_lb.data(), col_ub.data(),
                   obj.data(), row_lb.data(), row_ub.data());
    lp.dual();
    if (lp.status() != 0) return {};
    std::vector<double> lambda(m);
    for (int k = 0; k < m; ++k) lambda[k] = std::max(0.0, -lp.dualRowSolution()[k]) / capacity_[resources_[k]];
    return lambda;
  }

  // Upper bound on the value items [from, n) can add within `free`: the least of the fractional
  // knapsack of each resource alone and the Lagrangian bound
  //   sum_r lambda_r free_r + sum_i max_i * max(0, value_i - sum_r lambda_r q_{i,r}),
  // which holds for any lambda >= 0 (each pattern's value is at most that expression).
  double Bound(size_t from, const std::vector<double>& free) const {
    double bound = std::numeric_limits<double>::infinity();
    if (!lambda_.empty()) {
      double v = 0;
      for (size_t k = 0; k < resources_.size(); ++k) v += lambda_[k] * std::max(0.0, free[resources_[k]]);
      for (size_t i = from; i < items_.size(); ++i) {
        double cost = 0;
        for (size_t k = 0; k < resources_.size(); ++k) cost += lambda_[k] * (*requests_[items_[i].cls])[resources_[k]];
        v += static_cast<double>(items_[i].max) * std::max(0.0, items_[i].value - cost);
      }
      bound = v;
    }
    for (size_t k = 0; k < resources_.size(); ++k) {
      const size_t r = resources_[k];
      double left = free[r];
      double v = 0;
      for (int i : by_ratio_[k]) {
        if (static_cast<size_t>(i) < from) continue;
        const double q = (*requests_[items_[i].cls])[r];
        const double n = static_cast<double>(items_[i].max);
        if (q <= 0) {
          v += n * items_[i].value;
        } else if (q * n <= left) {
          v += n * items_[i].value;
          left -= q * n;
        } else {
          v += items_[i].value * left / q;
          break;
        }
      }
      bound = std::min(bound, v);
    }
    return bound;
  }

  void Search(size_t i, std::vector<double>& free, double value) {
    if (value > best_value_) {
      best_value_ = value;
      best_ = current_;
      if (improving_ != nullptr && value > floor_) improving_->push_back(current_);
    }
    if (i == items_.size()) return;
    const double bound = value + Bound(i, free);
    if (bound <= std::max(best_value_, floor_) * (1 + 1e-12)) return;
    if (++nodes_ > budget_) {
      open_bound_ = std::max(open_bound_, bound);
      return;
    }
    const Item& it = items_[i];
    const std::vector<double>& q = *requests_[it.cls];
    int64_t n = it.max;
    for (size_t r : resources_) {
      if (q[r] > 0) n = std::min(n, static_cast<int64_t>(std::floor(free[r] / q[r])));
    }
    for (int64_t a = n; a >= 0; --a) {
      for (size_t r : resources_) free[r] -= static_cast<double>(a) * q[r];
      current_[i] = a;
      Search(i + 1, free, value + static_cast<double>(a) * it.value);
      for (size_t r : resources_) free[r] += static_cast<double>(a) * q[r];
    }
    current_[i] = 0;
  }

  const std::vector<double>& capacity_;
  const std::vector<const std::vector<double>*>& requests_;
  std::vector<Item> items_;
  std::vector<size_t> resources_;         // resources some item requests
  std::vector<std::vector<int>> by_ratio_;  // per entry of resources_
  std::vector<double> lambda_;              // per entry of resources_ (ResourcePrices)
  int64_t budget_ = 0;
  double floor_ = 0;
  std::vector<std::vector<int64_t>>* improving_ = nullptr;
  int64_t nodes_ = 0;
  double best_value_ = 0;
  double open_bound_ = 0;  // bounds of subtrees left unexplored when the budget ran out
  std::vector<int64_t> current_, best_;
};

// The configuration LP's certified bound (0 when not tried or not solved). `p` has had its
// too-small bins dropped; classes with no bin are left out (they cannot be placed at all).
double ConfigurationBound(const LowerBoundProblem& p) {
  if (p.classes.empty() || p.classes.size() > kMaxConfigurationClasses) return 0;
  const size_t nr = p.classes[0].request.size();
  // Bins: open ones, minus those another bin beats outright (holds at least as much of
  // everything, for every class it holds, at no higher price: any pattern of the first fits it).
  std::vector<int> bins;
  std::vector<std::vector<int>> classes_of(p.bins.size());
  for (size_t c = 0; c < p.classes.size(); ++c) {
    for (int b : p.classes[c].bins) classes_of[b].push_back(static_cast<int>(c));
  }
  size_t open_bins = 0;
  for (size_t b = 0; b < p.bins.size(); ++b) {
    if (p.bins[b].fixed) return 0;  // existing capacity: the fluid bound only
    if (classes_of[b].empty()) continue;
    if (!(p.bins[b].price > 0)) return 0;  // free new capacity: nothing to prove beyond the fluid bound
    ++open_bins;
  }
  // Checked before pruning, which is quadratic: outright beaten bins are rare anyway (a larger
  // type costs more).
  if (open_bins > kMaxConfigurationBins || open_bins * p.classes.size() > kMaxConfigurationPairs) return 0;
  for (size_t b = 0; b < p.bins.size(); ++b) {
    if (classes_of[b].empty()) continue;
    bool beaten = false;
    for (size_t a = 0; a < p.bins.size() && !beaten; ++a) {
      if (a == b || classes_of[a].empty()) continue;
      if (p.bins[a].price > p.bins[b].price) continue;
      bool holds = std::includes(classes_of[a].begin(), classes_of[a].end(), classes_of[b].begin(),
                                 classes_of[b].end());
      for (size_t r = 0; r < nr && holds; ++r) holds = p.bins[a].capacity[r] >= p.bins[b].capacity[r];
      // Identical bins: keep the first.
      if (holds && p.bins[a].price == p.bins[b].price && p.bins[a].capacity == p.bins[b].capacity &&
          classes_of[a] == classes_of[b]) {
        holds = a < b;
      }
      beaten = holds;
    }
    if (!beaten) bins.push_back(static_cast<int>(b));
  }
  if (bins.empty() || bins.size() > kMaxConfigurationBins) return 0;
  // Rows: classes that some bin can hold.
  std::vector<int> row_of(p.classes.size(), -1);
  int num_rows = 0;
  for (int b : bins) {
    for (int c : classes_of[b]) {
      if (row_of[c] < 0) row_of[c] = 0;
    }
  }
  for (size_t c = 0; c < p.classes.size(); ++c) {
    if (row_of[c] >= 0 && p.classes[c].count > 0) {
      row_of[c] = num_rows++;
    } else {
      row_of[c] = -1;
    }
  }
  if (num_rows == 0) return 0;
  std::vector<const std::vector<double>*> requests;
  for (const auto& c : p.classes) requests.push_back(&c.request);
  // How many pods of class c bin b can hold.
  auto max_in = [&](int b, int c) {
    int64_t n = p.classes[c].count;
    for (size_t r = 0; r < nr; ++r) {
      const double q = p.classes[c].request[r];
      if (q > 0) n = std::min(n, static_cast<int64_t>(std::floor(p.bins[b].capacity[r] / q)));
    }
    return n;
  };

  // Master LP: one row per class (>= count), one column per pattern.
  ClpSimplex master;
  master.setLogLevel(0);
  {
    std::vector<double> row_lb(num_rows), row_ub(num_rows, COIN_DBL_MAX);
    for (size_t c = 0; c < p.classes.size(); ++c) {
      if (row_of[c] >= 0) row_lb[row_of[c]] = static_cast<double>(p.classes[c].count);
    }
    master.resize(num_rows, 0);
    for (int r = 0; r < num_rows; ++r) master.setRowBounds(r, row_lb[r], row_ub[r]);
  }
  auto add_pattern = [&](int b, const std::vector<std::pair<int, int64_t>>& counts) {
    std::vector<int> rows;
    std::vector<double> elements;
    for (const auto& [c, n] : counts) {
      if (n <= 0 || row_of[c] < 0) continue;
      rows.push_back(row_of[c]);
      elements.push_back(static_cast<double>(n));
    }
    if (rows.empty()) return;
    master.addColumn(static_cast<int>(rows.size()), rows.data(), elements.data(), 0.0, COIN_DBL_MAX,
                     p.bins[b].price);
  };
  // Start: each class alone, on the bin that holds it most cheaply per pod.
  for (size_t c = 0; c < p.classes.size(); ++c) {
    if (row_of[c] < 0) continue;
    int best_bin = -1;
    int64_t best_n = 0;
    for (int b : bins) {
      if (!std::binary_search(classes_of[b].begin(), classes_of[b].end(), static_cast<int>(c))) continue;
      const int64_t n = max_in(b, static_cast<int>(c));
      if (n > 0 && (best_bin < 0 || p.bins[b].price * static_cast<double>(best_n) <
                                        p.bins[best_bin].price * static_cast<double>(n))) {
        best_bin = b;
        best_n = n;
      }
    }
    if (best_bin < 0) return 0;
    add_pattern(best_bin, {{static_cast<int>(c), best_n}});
  }
  // The seeds that fit their bin, once each.
  std::set<std::pair<int, std::vector<std::pair<int, int64_t>>>> seeded;
  for (const LowerBoundPattern& seed : p.seeds) {
    if (seed.bin < 0 || static_cast<size_t>(seed.bin) >= p.bins.size() || p.bins[seed.bin].fixed) continue;
    std::vector<double> used(nr, 0);
    bool fits = true;
    for (const auto& [c, n] : seed.counts) {
      if (c < 0 || static_cast<size_t>(c) >= p.classes.size() || n < 0 ||
          !std::binary_search(classes_of[seed.bin].begin(), classes_of[seed.bin].end(), c)) {
        fits = false;
        break;
      }
      for (size_t r = 0; r < nr; ++r) used[r] += static_cast<double>(n) * p.classes[c].request[r];
    }
    for (size_t r = 0; r < nr && fits; ++r) fits = used[r] <= p.bins[seed.bin].capacity[r];
    if (fits && seeded.emplace(seed.bin, seed.counts).second) add_pattern(seed.bin, seed.counts);
  }

  // Column generation. The first round prices the bins at the fluid LP's class prices (whose
  // Farley bound is the fluid bound, so this bound never ends below it); later rounds at the
  // master's duals. A knapsack only has to tell whether some pattern is worth more than the
  // bin's price, so it prunes every subtree that cannot beat the price, and offers the master
  // the last few improving patterns it met rather than only its best.
  std::vector<double> u = ClassPrices(p);
  if (u.size() != p.classes.size()) u.assign(p.classes.size(), 0);
  for (size_t c = 0; c < p.classes.size(); ++c) {
    if (row_of[c] < 0) u[c] = 0;  // in no bin's knapsack: must not count towards the bound
  }
  long double best = 0;
  int64_t work = 0;
  std::vector<int64_t> counts;
  std::vector<std::vector<int64_t>> improving;
  for (int round = 0; round < kConfigurationRounds; ++round) {
    if (round > 0) {
      if (round == 1) {
        master.dual();
      } else {
        master.primal(1);  // warm start from the last basis
      }
      if (master.status() != 0) break;
      const double* duals = master.dualRowSolution();
      for (size_t c = 0; c < p.classes.size(); ++c) u[c] = row_of[c] >= 0 ? std::max(0.0, duals[row_of[c]]) : 0;
    }
    // Price every bin: the certificate needs each bin's bound, the master the patterns above price.
    long double scale = std::numeric_limits<long double>::infinity();
    bool added = false;
    const bool out_of_work = work > kConfigurationNodes;
    for (int b : bins) {
      std::vector<ConfigurationKnapsack::Item> items;
      for (int c : classes_of[b]) {
        if (row_of[c] < 0 || !(u[c] > 0)) continue;
        const int64_t n = max_in(b, c);
        if (n > 0) items.push_back({c, u[c], n});
      }
      if (items.empty()) continue;
      ConfigurationKnapsack knapsack(p.bins[b].capacity, requests, std::move(items));
      int64_t used = 0;
      improving.clear();
      const double bound =
          knapsack.Solve(out_of_work ? 0 : kKnapsackNodes, p.bins[b].price, counts, used, &improving);
      work += used;
      // A margin far above the rounding of the search's sums.
      const long double k = static_cast<long double>(bound) * (1.0L + 1e-9L);
      if (k > 0) scale = std::min(scale, static_cast<long double>(p.bins[b].price) / k);
      const size_t from = improving.size() > kColumnsPerBin ? improving.size() - kColumnsPerBin : 0;
      for (size_t j = from; j < improving.size(); ++j) {
        long double value = 0;
        std::vector<std::pair<int, int64_t>> pattern;
        for (size_t i = 0; i < improving[j].size(); ++i) {
          const auto& it = knapsack.items()[i];
          value += static_cast<long double>(improving[j][i]) * it.value;
          pattern.emplace_back(it.cls, improving[j][i]);
        }
        if (value > static_cast<long double>(p.bins[b].price) * (1.0L + 1e-7L)) {
          add_pattern(b, pattern);
          added = true;
        }
      }
    }
    long double total = 0;
    for (size_t c = 0; c < p.classes.size(); ++c) total += static_cast<long double>(p.classes[c].count) * u[c];
    if (std::isfinite(static_cast<double>(scale))) best = std::max(best, total * std::min(scale, 1.0L));
    if (out_of_work || (round > 0 && !added)) break;
  }
  return RoundDown(best * (1.0L - 1e-12L));
}

// Per-bin weights from the full LP when it is small enough, else from the pooled one.
std::vector<long double> Weights(const LowerBoundProblem& p) {
  size_t placement_columns = 0;
  for (const auto& c : p.classes) placement_columns += c.bins.size();
  return placement_columns > kMaxPlacementColumns ? GroupedWeights(p) : FullWeights(p);
}

}  // namespace

std::vector<double> ClassPrices(const LowerBoundProblem& problem) {
  if (problem.classes.empty() || problem.bins.empty()) return {};
  // Dropping bins keeps the class indices (merging classes would not).
  const LowerBoundProblem p = PruneDominated(DropBinsTooSmall(problem));
  std::vector<long double> w = Weights(p);
  if (w.empty()) return {};
  const size_t nr = p.classes[0].request.size();
  for (size_t b = 0; b < p.bins.size(); ++b) {
    if (p.bins[b].fixed) continue;
    long double s = 0;
    for (size_t r = 0; r < nr; ++r) s += static_cast<long double>(p.bins[b].capacity[r]) * w[b * nr + r];
    if (s > p.bins[b].price && s > 0) {
      for (size_t r = 0; r < nr; ++r) w[b * nr + r] *= p.bins[b].price / s;
    }
  }
  std::vector<double> prices;
  for (const auto& c : p.classes) {
    long double u = std::numeric_limits<long double>::infinity();
    for (int b : c.bins) {
      long double v = 0;
      for (size_t r = 0; r < nr; ++r) v += static_cast<long double>(c.request[r]) * w[b * nr + r];
      u = std::min(u, v);
    }
    prices.push_back(std::isfinite(static_cast<double>(u)) ? static_cast<double>(u) : 0.0);
  }
  return prices;
}

double LowerBound(const LowerBoundProblem& problem) {
  if (problem.classes.empty() || problem.bins.empty()) return 0;
  const LowerBoundProblem fitting = DropBinsTooSmall(problem);
  const LowerBoundProblem p = MergeIdenticalClasses(PruneDominated(fitting));
  std::vector<long double> w = Weights(p);
  const double fluid = w.empty() ? 0 : Certify(p, std::move(w));
  // The size limits first: merging classes compares their bin lists, which costs more than the
  // fluid bound on hundreds of types.
  std::vector<uint8_t> used(fitting.bins.size(), 0);
  size_t open_bins = 0;
  for (const auto& c : fitting.classes) {
    for (int b : c.bins) {
      if (fitting.bins[b].fixed) return fluid;  // existing capacity: the fluid bound only
      if (!used[b]) ++open_bins;
      used[b] = 1;
    }
  }
  if (open_bins > kMaxConfigurationBins) return fluid;
  return std::max(fluid, ConfigurationBound(MergeIdenticalClasses(fitting)));
}

}  // namespace nodesmith::solver
