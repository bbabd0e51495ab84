// The stopping and refresh rules of the simplified Newton iterations of the index-3 integrators
// (generalized_alpha, ali3p). The iteration matrix is formed at the first iteration of a step —
// or, with `keep` (the parameter iteration_matrix = kept), carried over from the previous step
// when that step converged with every iteration shrinking the correction at least fourfold. It
// is kept while the correction shrinks at least fourfold per iteration; after one that does not,
// it is formed again — unless a fresh matrix already failed to speed the iteration up in this
// step (then the slowness is the iteration's own, e.g. ali3p's multiplier update near a singular
// configuration, and new matrices would only cost).
// Convergence: with a matrix formed in this step, when the correction is at most `bound`; Newton
// then converges quadratically, so the error left is far below the bound (on IFToMM A02 at
// rounding level). A carried-over matrix converges linearly and leaves about θ/(1 − θ) times the
// correction (θ the observed contraction), so it converges only from the second iteration on,
// with θ ≤ 1/2 and θ/(1 − θ) times the correction at most kCarriedMargin·bound — never on one
// correction. Measured on A02 (N = 40, h = 1 ms, 1 s): with a margin of 1e-2 the errors grew
// 1.4× at 0.3 s and 2.5× by 6 s over those of a fresh matrix per step; with 1e-4 they agree to
// 0.1 %.
// Stall: the iteration is accepted as converged (counted as a stagnation) when the correction
// stops shrinking below the rounding floor of the linear solves, ~ε·ℓ/r for a factorization with
// pivot ratio r (ℓ the size of the mechanism): near a singular configuration of A02 (r ≈ 2e-6)
// generalized-α's corrections fluctuate at 1e-9 = 3ε·ℓ/r whatever the number of iterations or
// fresh matrices.
// Header-only: it needs no build rule of its own.
#pragma once

#include <limits>

#include "core/formulation.hpp"

namespace cmb {

class NewtonControl {
 public:
  enum class Verdict { go_on, converged, stalled };

  // keep: a matrix from an earlier step may serve this one (see above).
  void start(double bound, double scale, bool keep) {
    bound_ = bound;
    scale_ = scale;
    k_ = 0;
    previous_ = 0.0;
    contraction_ = 0.0;
    may_refresh_ = true;
    refresh_ = !(keep && reusable_);
    carried_ = !refresh_;
    fast_ = true;
  }

  // The matrix no longer fits the iteration (a new step size or run): form it at the next start.
  void invalidate() { reusable_ = false; }

  // Form the iteration matrix before this iteration's solve (always at the first, unless kept).
  bool refresh() const { return refresh_; }
  // A matrix was formed for this iteration; ratio: its smallest over its largest LU pivot.
  void formed(double ratio) {
    ratio_ = ratio;
    age_ = 0;
    is_refresh_ = k_ > 0;
    carried_ = false;
  }

  // After this iteration's update, with `size` its correction.
  Verdict judge(double size) {
    const double theta = k_ > 0 ? size / previous_ : 0.0;
    if (k_ > 0 && theta > kRefreshRate) fast_ = false;
    // A fresh matrix converges quadratically: a correction within the bound leaves an error far
    // below it. A carried one converges linearly, leaving about θ/(1 − θ) times the correction.
    const bool within = carried_ ? k_ > 0 && theta <= kStallRate &&
                                       theta / (1.0 - theta) * size <= kCarriedMargin * bound_
                                 : size <= bound_;
    Verdict verdict = Verdict::go_on;
    if (within)
      verdict = Verdict::converged;
    else if (k_ > 0 && theta > kStallRate && size <= floor())
      verdict = Verdict::stalled;
    if (age_ == 1 && is_refresh_ && theta > kStallRate) may_refresh_ = false;
    refresh_ = may_refresh_ && k_ > 0 && theta > kRefreshRate;
    ++age_;
    ++k_;
    previous_ = size;
    contraction_ = theta;
    if (verdict != Verdict::go_on) reusable_ = verdict == Verdict::converged && fast_;
    return verdict;
  }

  double last_correction() const { return previous_; }
  // The last iteration's correction over the one before (0 after a single iteration).
  double last_contraction() const { return contraction_; }

 private:
  double floor() const {
    const double eps = std::numeric_limits<double>::epsilon();
    return ratio_ > 0.0 ? kFloorFactor * eps * scale_ / ratio_ : bound_;
  }

  // Measured: slider_crank (150 rad/s) at h = 0.5 ms contracts by 0.48 per iteration with the
  // step's first matrix and converges in 4 iterations with fresh ones.
  static constexpr double kRefreshRate = 0.25;
  static constexpr double kStallRate = 0.5;      // no longer contracting
  static constexpr double kFloorFactor = 100.0;  // margin over the measured 3
  static constexpr double kCarriedMargin = 1e-4;

  double bound_ = 0.0, scale_ = 1.0, previous_ = 0.0, ratio_ = 1.0, contraction_ = 0.0;
  int k_ = 0, age_ = 0;
  bool refresh_ = true, may_refresh_ = true, is_refresh_ = false;
  bool carried_ = false, fast_ = true, reusable_ = false;
};

// Registers the counters of the index-3 integrators' Newton iterations and projections at bind:
// a counter's first use allocates, which must not happen inside a step.
inline void register_newton_counters(MethodStats& stats) {
  for (const char* key : {"newton_iterations", "linear_solves", "convergence_failures",
                          "matrix_refreshes", "stagnations", "projections"})
    stats.add(key, 0);
}

// The `iteration_matrix` parameter of both index-3 integrators.
inline const char* iteration_matrix_help() {
  return "kept: a step reuses the previous step's matrix while the iterations contract fast; "
         "per_step: a new matrix at every step's first iteration";
}

}  // namespace cmb
