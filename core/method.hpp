/// \file
/// A way of turning the constrained equations into an ODE x' = f(t, x) that an ODE stepper
/// (steppers/) integrates. Sign convention everywhere: M q̈ = Q − Jᵀλ, so −Jᵀλ is the constraint
/// force.
#pragma once

#include <string>
#include <vector>

#include "core/errors.hpp"
#include "core/formulation.hpp"

namespace cmb {

/// What a method handles beyond holonomic, full-rank equality rows (`cmbench list` and
/// docs/methods.md show them); set by name in each method's entry
/// (entry.capabilities.singular = true), all false by default.
struct Capabilities {
  bool redundant = false;  ///< rank-deficient J (Bricard, duplicated rows)
  /// Its solve survives a configuration where J loses rank (the run goes on). Whether the motion
  /// stays on the mechanism's branch there is measured, not declared: the branch indicators end
  /// runs that leave it (docs/methods.md, "Singular configurations").
  bool singular = false;
  bool nonholonomic = false;  ///< velocity-level rows A_nh v = c
  bool drift_free = false;    ///< Φ = 0 and ψ = 0 held to a tolerance by construction
  bool inequality = false;    ///< unilateral rows g(q) ≥ 0
  /// Handles only a constant mass matrix and forces Q(t, q) that do not depend on v (a splitting
  /// of H = ½vᵀMv + U, as RATTLE's), refusing other problems as unsupported.
  bool separable_only = false;
  /// Accelerations approximate by design (a pure penalty method: q̈ is O(1/α) off the KKT
  /// solution): the numeric parameter that tightens the approximation as it grows, and
  /// increasing values of it for the conformance suite to sweep. The method then states its own
  /// error bounds (Method::approximation_bounds). Empty for exact methods, which the suite holds
  /// to 1e-9 (docs/extending.md, "Approximate methods").
  std::string
      approximation_param;  ///< the parameter that tightens the approximation (empty: exact)
  std::vector<double>
      approximation_sweep;  ///< increasing values of approximation_param for the conformance suite
  /// Whether the method's accelerations are approximate by design.
  bool approximate() const { return !approximation_param.empty(); }
};

/// A bound on the distance of a result of the last rhs call from the KKT solution at that state
/// (∞-norm, in the result's units): what the approximation leaves, which shrinks as its
/// parameter grows, and what rounding may add, which usually grows with it.
struct ErrorBound {
  double approximation = 0.0;  ///< what the approximation leaves
  double rounding = 0.0;       ///< what rounding may add
  /// The whole bound: approximation plus rounding.
  double total() const { return approximation + rounding; }
};

/// On q̈, and on the constraint force Jᵀλ (determined even where λ is not: redundant rows).
struct ApproximationBounds {
  ErrorBound accelerations;     ///< ‖q̈ − q̈*‖∞
  ErrorBound constraint_force;  ///< ‖Jᵀλ − Jᵀλ*‖∞
};

/// The interface a method implements: the right-hand side x' = f(t, x) of the ODE it makes of the
/// constrained equations, for an ODE stepper to integrate (methods/*.cpp; docs/extending.md).
class Method : public Formulation {
 public:
  /// Constructed from its parsed parameters, as every Formulation.
  using Formulation::Formulation;

  /// The odeint system. Must not allocate; throws NumericalFailure on singular systems.
  virtual void rhs(CVecRef x, VecRef dxdt, double t) = 0;

  /// Called after each accepted step; returns true when it changed x (the stepper is then reset).
  virtual bool post_step(double t, VecRef x) { return false; }

  /// For a method that declares approximate accelerations (Capabilities::approximation_param):
  /// bounds on the errors of the last rhs call, which it derives from its parameters and the
  /// state. Exact methods: zero. Called by the conformance suite after rhs, never in a run; it
  /// may allocate.
  virtual ApproximationBounds approximation_bounds() const { return {}; }

  /// A sample's q̈ and λ are those of one rhs call at its state (its rate is not used; the buffer
  /// is sized at the first sample). The run's own steps never asked for that call, so whatever
  /// a method's next rhs call starts from (its warm start, save_warm_start) is what it would
  /// have been without the sample: a run does the same work whatever its sampling.
  void evaluate_at(double t, CVecRef x) final {
    if (sample_rate_.size() != state_size()) sample_rate_.resize(state_size());
    if (!warm_start_saved_) save_warm_start();
    warm_start_saved_ = true;
    in_sample_ = true;
    try {
      rhs(x, sample_rate_, t);
    } catch (...) {
      in_sample_ = false;
      throw;
    }
    in_sample_ = false;
  }

 protected:
  /// A method whose rhs starts from the previous call's results (an iteration's warm start)
  /// keeps them here before a sample's call, and gets them back in restore_warm_start.
  virtual void save_warm_start() {}
  /// Puts back what save_warm_start kept.
  virtual void restore_warm_start() {}
  /// Called by such a method at the start of each rhs call outside a sample's: the warm start
  /// is the run's own again (accelerations() and multipliers() keep the sample's until then).
  void resume_warm_start() {
    if (!warm_start_saved_ || in_sample_) return;
    restore_warm_start();
    warm_start_saved_ = false;
  }
  /// Called by such a method when it binds: nothing a sample of an earlier run kept is restored.
  void forget_warm_start() { warm_start_saved_ = false; }

 private:
  Vec sample_rate_;
  bool warm_start_saved_ = false;
  bool in_sample_ = false;
};

/// Methods whose every RHS call factorizes dense n×n matrices (an SVD, a pseudo-inverse, the R
/// matrix) cost O(n³) per call: past this many coordinates one call takes tens of seconds
/// (measured: udwadia_kalaba on n_pendulum N = 1000, n = 2000, over a minute per call), so they
/// refuse larger problems as `unsupported` instead of running for days.
constexpr int kMaxDenseCoordinates = 1000;

/// Throws NumericalFailure(unsupported) naming `method` when `coordinates` exceeds
/// kMaxDenseCoordinates (for the dense O(n³)-per-call methods, at bind).
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
