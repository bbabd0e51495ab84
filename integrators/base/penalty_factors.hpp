// ali3p's penalty factors and constraint test (integrators/ali3p.cpp, "Penalty"): the row
// penalties α_i, from one absolute α, or alpha_rel·(4/h²) times each row's inertia — one
// ‖M‖∞/‖JᵀJ‖∞ for every row (norm scaling) or 1/(J M⁻¹Jᵀ)_ii (rows scaling), taken at the
// start —, the weights (h²/4)α_i of the matrices' JᵀαJ, and the constraint error in the units of
// q, max_i |Φ_i| / ‖J_i‖∞ (row norms at the start).
// Header-only: it needs no build rule of its own.
#pragma once

#include <cmath>

#include "core/types.hpp"
#include "integrators/base/index3_terms.hpp"

namespace cmb {

class PenaltyFactors {
 public:
  // alpha_abs > 0: that α for every row; else alpha_rel with norm or rows scaling.
  PenaltyFactors(double alpha_abs, double alpha_rel, bool norm_scaling)
      : alpha_abs_(alpha_abs), alpha_rel_(alpha_rel), norm_scaling_(norm_scaling) {}

  void bind(int rows) {
    alpha_.setZero(rows);
    weights_.setZero(rows);
    row_inertia_.setOnes(rows);
    row_norm_.setOnes(rows);
  }

  // Whether start() needs (J M⁻¹Jᵀ)_ii (rows scaling).
  bool needs_row_inertia() const { return !norm_scaling_; }

  // The row inertias and norms from the start's scales.
  void start(const StartNorms& norms) {
    const Eigen::Index m = alpha_.size();
    for (Eigen::Index i = 0; i < m; ++i) {
      const double d = norms.row_inertia(i);
      const double norm = norms.row_max(i);
      row_inertia_(i) = d > 0.0 && std::isfinite(d) ? 1.0 / d : 1.0;
      row_norm_(i) = norm > 0.0 ? norm : 1.0;
    }
    if (norm_scaling_ && m > 0)
      row_inertia_.setConstant(norms.jtj > 0.0 ? norms.mass / norms.jtj : 1.0);
  }

  // α_i and the weights for the step h.
  void set_step(double h) {
    if (alpha_abs_ > 0.0)
      alpha_.setConstant(alpha_abs_);
    else
      alpha_ = (alpha_rel_ * 4.0 / (h * h)) * row_inertia_;
    weights_ = (0.25 * h * h) * alpha_;
  }

  const Vec& alpha() const { return alpha_; }
  const Vec& weights() const { return weights_; }  // (h²/4)α_i

  // max_i |Φ_i| / ‖J_i‖∞: the constraint error in the units of q.
  double constraint_error(const Vec& Phi) const {
    return Phi.size() ? Phi.cwiseAbs().cwiseQuotient(row_norm_).maxCoeff() : 0.0;
  }

 private:
  double alpha_abs_, alpha_rel_;
  bool norm_scaling_;
  Vec alpha_, weights_;  // α_i, and (h²/4)α_i
  Vec row_inertia_;  // 1/(J M⁻¹Jᵀ)_ii at the start, or ‖M‖∞/‖JᵀJ‖∞ (norm scaling)
  Vec row_norm_;     // ‖J_i‖∞ at the start
};

}  // namespace cmb
