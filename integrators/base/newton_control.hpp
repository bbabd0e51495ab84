// The stopping and refresh rules of the simplified Newton iterations of the index-3 integrators
// (generalized_alpha, ali3p), restarted at every step. The iteration matrix is formed at the
// first iteration and kept while the correction shrinks at least fourfold per iteration; after
// one that does not, it is formed again — unless a fresh matrix already failed to speed the
// iteration up in this step (then the slowness is the iteration's own, e.g. ali3p's multiplier
// update near a singular configuration, and new matrices would only cost). The iteration has
// converged when the correction is at most `bound`; it has stalled, and is accepted as converged
// (counted as a stagnation), when the correction stops shrinking below the rounding floor of the
// linear solves, ~ε·ℓ/r for a factorization with pivot ratio r (ℓ the size of the mechanism):
// near a singular configuration of IFToMM A02 (r ≈ 2e-6) generalized-α's corrections fluctuate
// at 1e-9 = 3ε·ℓ/r whatever the number of iterations or fresh matrices.
// Header-only: it needs no build rule of its own.
#pragma once

#include <limits>

namespace cmb {

class NewtonControl {
 public:
  enum class Verdict { go_on, converged, stalled };

  void start(double bound, double scale) {
    bound_ = bound;
    scale_ = scale;
    k_ = 0;
    previous_ = 0.0;
    refresh_ = true;
    may_refresh_ = true;
  }

  // Form the iteration matrix before this iteration's solve (always at the first).
  bool refresh() const { return refresh_; }
  // A matrix was formed for this iteration; ratio: its smallest over its largest LU pivot.
  void formed(double ratio) {
    ratio_ = ratio;
    age_ = 0;
    is_refresh_ = k_ > 0;
  }

  // After this iteration's update, with `size` its correction.
  Verdict judge(double size) {
    const double theta = k_ > 0 ? size / previous_ : 0.0;
    Verdict verdict = Verdict::go_on;
    if (size <= bound_)
      verdict = Verdict::converged;
    else if (k_ > 0 && theta > kStallRate && size <= floor())
      verdict = Verdict::stalled;
    if (age_ == 1 && is_refresh_ && theta > kStallRate) may_refresh_ = false;
    refresh_ = may_refresh_ && k_ > 0 && theta > kRefreshRate;
    ++age_;
    ++k_;
    previous_ = size;
    return verdict;
  }

  double last_correction() const { return previous_; }

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

  double bound_ = 0.0, scale_ = 1.0, previous_ = 0.0, ratio_ = 1.0;
  int k_ = 0, age_ = 0;
  bool refresh_ = true, may_refresh_ = true, is_refresh_ = false;
};

}  // namespace cmb
