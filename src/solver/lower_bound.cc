#include "solver/lower_bound.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
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
  LowerBoundProblem out;
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
  for (auto& c : p.classes) {
    std::sort(c.bins.begin(), c.bins.end());
    c.bins.erase(std::unique(c.bins.begin(), c.bins.end()), c.bins.end());
    auto [it, inserted] = index.try_emplace({c.request, c.bins}, merged.size());
    if (inserted) {
      merged.push_back(std::move(c));
    } else {
      merged[it->second].count += c.count;
    }
  }
  p.classes = std::move(merged);
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
  const LowerBoundProblem p = MergeIdenticalClasses(PruneDominated(DropBinsTooSmall(problem)));
  std::vector<long double> w = Weights(p);
  return w.empty() ? 0 : Certify(p, std::move(w));
}

}  // namespace nodesmith::solver
