// A way of turning the constrained equations into an ODE x' = f(t, x) that odeint integrates.
// Sign convention everywhere: M q̈ = Q − Jᵀλ, so −Jᵀλ is the constraint force.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "core/params.hpp"
#include "core/problem.hpp"
#include "core/types.hpp"

namespace cmb {

// What a method handles beyond holonomic, full-rank equality rows (`cmbench list` and
// docs/methods.md show them); set by name in each method's entry
// (entry.capabilities.singular = true), all false by default.
struct Capabilities {
  bool redundant = false;  // rank-deficient J (Bricard, duplicated rows)
  // Its solve survives a configuration where J loses rank (the run goes on). Whether the motion
  // stays on the mechanism's branch there is measured, not declared: the branch indicators end
  // runs that leave it (docs/methods.md, "Singular configurations").
  bool singular = false;
  bool nonholonomic = false;  // velocity-level rows A_nh v = c
  bool drift_free = false;    // Φ = 0 and ψ = 0 held to a tolerance by construction
  bool inequality = false;    // unilateral rows g(q) ≥ 0
  // Accelerations approximate by design (a pure penalty method: q̈ is O(1/α) off the KKT
  // solution): the numeric parameter that tightens the approximation as it grows, and
  // increasing values of it for the conformance suite to sweep. The method then states its own
  // error bounds (Method::approximation_bounds). Empty for exact methods, which the suite holds
  // to 1e-9 (docs/extending.md, "Approximate methods").
  std::string approximation_param;
  std::vector<double> approximation_sweep;
  bool approximate() const { return !approximation_param.empty(); }
};

// A bound on the distance of a result of the last rhs call from the KKT solution at that state
// (∞-norm, in the result's units): what the approximation leaves, which shrinks as its
// parameter grows, and what rounding may add, which usually grows with it.
struct ErrorBound {
  double approximation = 0.0;
  double rounding = 0.0;
  double total() const { return approximation + rounding; }
};

// On q̈, and on the constraint force Jᵀλ (determined even where λ is not: redundant rows).
struct ApproximationBounds {
  ErrorBound accelerations;     // ‖q̈ − q̈*‖∞
  ErrorBound constraint_force;  // ‖Jᵀλ − Jᵀλ*‖∞
};

// Work counters and diagnostics a method reports; names are the JSON keys in "work.method".
// Counters are summed; diagnostics keep the extreme value seen (e.g. the smallest singular value
// kept). Keys are string literals, and a map node is created only the first time a key is seen,
// so steady-state updates do not allocate.
class MethodStats {
 public:
  void add(const char* counter, long amount = 1) {
    if (!enabled_) return;
    const auto it = counters_.find(counter);  // heterogeneous: no std::string built
    if (it == counters_.end())
      counters_.emplace(counter, amount);
    else
      it->second += amount;
  }
  void note_min(const char* name, double value) { note(minima_, name, value, true); }
  void note_max(const char* name, double value) { note(maxima_, name, value, false); }
  void set_enabled(bool enabled) { enabled_ = enabled; }
  nlohmann::json to_json() const {
    nlohmann::json out(counters_);
    for (const auto& [name, value] : minima_) out[name] = value;
    for (const auto& [name, value] : maxima_) out[name] = value;
    return out;
  }

 private:
  using Extremes = std::map<std::string, double, std::less<>>;
  void note(Extremes& table, const char* name, double value, bool keep_smaller) {
    if (!enabled_) return;
    const auto it = table.find(name);
    if (it == table.end())
      table.emplace(name, value);
    else if (keep_smaller ? value < it->second : value > it->second)
      it->second = value;
  }

  std::map<std::string, long, std::less<>> counters_;
  Extremes minima_, maxima_;
  bool enabled_ = true;
};

class Method {
 public:
  explicit Method(Params params) : params_(std::move(params)) {}
  virtual ~Method() = default;

  // Sizes the workspace once for this problem. Throws NumericalFailure(unsupported) when the
  // problem has features the method cannot handle.
  virtual void bind(const Problem& problem) = 0;
  virtual int state_size() const = 0;
  virtual void pack(double t, CVecRef q, CVecRef v, VecRef x) = 0;
  virtual void unpack(double t, CVecRef x, VecRef q, VecRef v) = 0;

  // The odeint system. Must not allocate; throws NumericalFailure on singular systems.
  virtual void rhs(CVecRef x, VecRef dxdt, double t) = 0;

  // Called after each accepted step; returns true when it changed x (the stepper is then reset).
  virtual bool post_step(double t, VecRef x) { return false; }

  // The physical accelerations q̈ from the last rhs call (what the KKT oracle is compared with).
  virtual const Vec& accelerations() const = 0;

  // λ from the last rhs call, and whether it is unique (full row rank of J).
  virtual const Vec& multipliers() const = 0;
  virtual bool multipliers_unique() const { return true; }

  // For a method that declares approximate accelerations (Capabilities::approximation_param):
  // bounds on the errors of the last rhs call, which it derives from its parameters and the
  // state. Exact methods: zero. Called by the conformance suite after rhs, never in a run; it
  // may allocate.
  virtual ApproximationBounds approximation_bounds() const { return {}; }

  const Params& params() const { return params_; }
  // Parameters as recorded in results: the given ones plus values the method derived from them.
  virtual nlohmann::json effective_params() const { return params_.values(); }
  MethodStats& stats() { return stats_; }
  const MethodStats& stats() const { return stats_; }

 private:
  Params params_;
  MethodStats stats_;
};

// Methods whose every RHS call factorizes dense n×n matrices (an SVD, a pseudo-inverse, the R
// matrix) cost O(n³) per call: past this many coordinates one call takes tens of seconds
// (measured: udwadia_kalaba on n_pendulum N = 1000, n = 2000, over a minute per call), so they
// refuse larger problems as `unsupported` instead of running for days.
constexpr int kMaxDenseCoordinates = 1000;

inline void refuse_beyond_dense_size(const std::string& method, int coordinates) {
  if (coordinates <= kMaxDenseCoordinates) return;
  throw NumericalFailure(RunStatus::unsupported,
                         method + " factorizes dense n×n matrices at every RHS call: n = " +
                             std::to_string(coordinates) + " coordinates is beyond the " +
                             std::to_string(kMaxDenseCoordinates) +
                             " it accepts (use a method with a sparse path, e.g. index1 or "
                             "projection)");
}

}  // namespace cmb
