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
// bounds (hundreds of instance types times dozens of pod shapes), so AggregateBound is used.
constexpr size_t kMaxPlacementColumns = 2000;

// Rounds a non-negative long double bound down to a double (0 when not positive).
double RoundDown(long double bound) {
  if (bound <= 0) return 0.0;
  double out = static_cast<double>(bound);
  if (static_cast<long double>(out) > bound) out = std::nextafter(out, 0.0);
  return out;
}

// A weaker bound from one price per unit of each resource, shared by every bin: for weights
// w_r >= 0 with sum_r cap_{b,r} w_r <= price_b on every open bin, every plan costs at least
//   sum_c count_c sum_r req_{c,r} w_r - sum_{fixed b} sum_r cap_{b,r} w_r
// (each pod's weighted request is paid by the bin it lands in). The best such w is an LP with
// one column per resource and one row per open bin, solved in well under a millisecond; it
// equals the full LP when every class may use every bin and one resource binds. Certified as
// LowerBound: w clamped to >= 0 and scaled down until every open bin's price row holds.
double AggregateBound(const LowerBoundProblem& p) {
  const size_t num_resources = p.classes[0].request.size();
  std::vector<long double> demand(num_resources, 0.0L), fixed(num_resources, 0.0L);
  for (const auto& c : p.classes) {
    if (c.bins.empty()) continue;  // placed nowhere in the relaxation: contributes nothing
    for (size_t r = 0; r < num_resources; ++r) {
      demand[r] += static_cast<long double>(c.count) * c.request[r];
    }
  }
  for (const auto& b : p.bins) {
    if (!b.fixed) continue;
    for (size_t r = 0; r < num_resources; ++r) fixed[r] += b.capacity[r];
  }
  std::vector<double> scale(num_resources, 1.0);
  for (size_t r = 0; r < num_resources; ++r) {
    double m = 0;
    for (const auto& b : p.bins) m = std::max(m, b.capacity[r]);
    if (m > 0) scale[r] = m;
  }
  // Column r is w_r * scale_r; maximise (demand - fixed) . w, i.e. minimise its negation.
  std::vector<CoinBigIndex> starts{0};
  std::vector<int> rows;
  std::vector<double> elements, col_lb(num_resources, 0), col_ub(num_resources, COIN_DBL_MAX),
      obj(num_resources, 0);
  std::vector<size_t> open;
  for (size_t b = 0; b < p.bins.size(); ++b) {
    if (!p.bins[b].fixed) open.push_back(b);
  }
  for (size_t r = 0; r < num_resources; ++r) {
    for (size_t i = 0; i < open.size(); ++i) {
      double v = p.bins[open[i]].capacity[r] / scale[r];
      if (v == 0) continue;
      rows.push_back(static_cast<int>(i));
      elements.push_back(v);
    }
    starts.push_back(static_cast<CoinBigIndex>(rows.size()));
    obj[r] = -static_cast<double>((demand[r] - fixed[r]) / scale[r]);
    // A resource no bin offers cannot be priced without bound; it gets no weight.
    if (demand[r] - fixed[r] <= 0) col_ub[r] = 0;
  }
  std::vector<double> row_lb(open.size(), -COIN_DBL_MAX), row_ub(open.size());
  for (size_t i = 0; i < open.size(); ++i) row_ub[i] = p.bins[open[i]].price;
  ClpSimplex model;
  model.setLogLevel(0);
  model.loadProblem(static_cast<int>(num_resources), static_cast<int>(open.size()), starts.data(),
                    rows.data(), elements.data(), col_lb.data(), col_ub.data(), obj.data(),
                    row_lb.data(), row_ub.data());
  model.primal();
  if (model.status() != 0) return 0;
  const double* x = model.primalColumnSolution();
  std::vector<long double> w(num_resources);
  for (size_t r = 0; r < num_resources; ++r) {
    long double v = static_cast<long double>(x[r]) / scale[r];
    w[r] = v > 0 ? v : 0.0L;
  }
  long double factor = 1.0L;
  for (size_t b : open) {
    long double s = 0;
    for (size_t r = 0; r < num_resources; ++r) {
      s += static_cast<long double>(p.bins[b].capacity[r]) * w[r];
    }
    long double limit = static_cast<long double>(p.bins[b].price) * (1.0L - 1e-12L);
    if (s > limit) factor = std::min(factor, s > 0 ? limit / s : 0.0L);
  }
  long double bound = 0;
  for (size_t r = 0; r < num_resources; ++r) bound += (demand[r] - fixed[r]) * w[r] * factor;
  return RoundDown(bound * (1.0L - 1e-12L));
}

}  // namespace

double LowerBound(const LowerBoundProblem& problem) {
  if (problem.classes.empty() || problem.bins.empty()) return 0;
  const LowerBoundProblem p = MergeIdenticalClasses(PruneDominated(problem));
  const size_t num_resources = p.classes[0].request.size();
  size_t placement_columns = 0;
  for (const auto& c : p.classes) placement_columns += c.bins.size();
  if (placement_columns > kMaxPlacementColumns) return AggregateBound(p);

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
  if (model.status() != 0) return 0;  // infeasible or failed: no certificate
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

}  // namespace nodesmith::solver
