// test_penalty — Bayo's pure penalty formulation, a test-only method whose accelerations are
// approximate by design: it declares so (capabilities.approximation_param) and states its error
// bounds, which the conformance suite checks, with their improvement as the penalty grows,
// instead of the exact methods' 1e-9 (docs/extending.md, "Approximate methods").
// Equations ([Bayo1988]; docs/sources.md): with the stabilized γ̃ = γ − 2ξωψ − ω²Φ (Bayo's
// −J̇q̇ − 2ξωΦ̇ − ω²Φ; ψ = J v − ν on all rows, Φ on holonomic rows),
//   (M + αJᵀJ) q̈ = Q + αJᵀγ̃,   λ = α (J q̈ − γ̃)   (so that M q̈ = Q − Jᵀλ),
// one Cholesky factorization per call, α = alpha_rel·‖M‖∞/‖JᵀJ‖∞ (a penalty that does not
// depend on units, as augmented_lagrangian's α_p).
// Error: subtracting the KKT equations M q̈* + Jᵀλ* = Q, J q̈* = γ̃ leaves, for e = q̈ − q̈*,
// M e = Jᵀ(λ* − λ) and J e = λ/α, hence exactly e = M⁻¹JᵀS⁺λ/α and Jᵀ(λ − λ*) = −M e, with
// S = J M⁻¹Jᵀ: an O(1/α) error, while the rounding of M + αJᵀJ grows like α (no α makes q̈
// exact). approximation_bounds() turns both into bounds.
// Parameters: alpha_rel (1e7), omega (10 1/s) and xi (1), the natural frequency and damping
// ratio of the constraint error.
// State: x = [q; v]. Fails when: M + αJᵀJ is not positive definite (singular).
#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/registry.hpp"
#include "methods/base/acceleration_method.hpp"

namespace cmb {
namespace {

// Higham's γ_k = k u / (1 − k u): the relative error of k floating-point operations in a row.
double gamma_k(int k) {
  const double u = std::numeric_limits<double>::epsilon() / 2;
  return k * u / (1 - k * u);
}

class Penalty : public AccelerationMethod {
 public:
  explicit Penalty(const Params& p)
      : AccelerationMethod(p, {p.number("xi") * p.number("omega"), p.number("omega")}),
        alpha_rel_(p.number("alpha_rel")) {}

  // λ = α(J q̈ − γ̃) is the penalty's particular choice; with redundant rows others exist.
  bool multipliers_unique() const override { return false; }
  ApproximationBounds approximation_bounds() const override;

 private:
  void bind_solver() override {
    A_.setZero(n_, n_);
    JtJ_.setZero(n_, n_);
    llt_ = Eigen::LLT<Mat>(n_);
  }

  void solve_accelerations(double t) override {
    JtJ_.noalias() = J_.transpose().lazyProduct(J_);
    const double jtj = JtJ_.lpNorm<Eigen::Infinity>();
    alpha_ = jtj > 0.0 ? alpha_rel_ * M_.lpNorm<Eigen::Infinity>() / jtj : 0.0;
    A_ = M_;
    A_.noalias() += alpha_ * JtJ_;
    llt_.compute(A_);
    if (llt_.info() != Eigen::Success) fail_not_positive_definite("M + alpha·JᵀJ", t);
    qdd_ = Q_;
    qdd_.noalias() += alpha_ * J_.transpose().lazyProduct(gamma_);  // gamma_ is γ̃
    llt_.solveInPlace(qdd_);
    lambda_.noalias() = J_.lazyProduct(qdd_);
    lambda_ -= gamma_;
    lambda_ *= alpha_;
  }

  double alpha_rel_, alpha_ = 0.0;
  Eigen::LLT<Mat> llt_;
  Mat A_, JtJ_;
};

// The spectra the bounds need: μ_min and μ_max of M, and the singular values σ of
// B = J M^{-1/2} (σ² are the eigenvalues s of S = B Bᵀ), from an SVD of L⁻¹Jᵀ (M = L Lᵀ), which
// resolves small σ to rounding relative to σ_max.
struct Spectra {
  double mu_min, mu_max;
  Vec sigma;  // descending
};

Spectra spectra(const Mat& M, const Mat& J) {
  const Eigen::SelfAdjointEigenSolver<Mat> mass(M, Eigen::EigenvaluesOnly);
  const Mat Bt = Eigen::LLT<Mat>(M).matrixL().solve(J.transpose());
  return {mass.eigenvalues().minCoeff(), mass.eigenvalues().maxCoeff(),
          Eigen::JacobiSVD<Mat>(Bt).singularValues()};
}

// The bounds of the last call, in 2-norms (which bound the ∞-norms the suite compares), with
// u the unit roundoff and ‖·‖_F Frobenius norms:
// - approximation: ‖e‖₂ ≤ ‖λ‖₂/(α√(μ_min s⁺)) and ‖M e‖₂ ≤ ‖λ‖₂√μ_max/(α√s⁺), s⁺ the smallest
//   eigenvalue of S that the penalty resolves: σ above √u σ_max (below it, αJᵀJ's own rounding,
//   of relative size u, hides the direction: a zero of S, as redundant rows give);
// - rounding ([Higham2002] §3 and Thm 10.4; docs/sources.md): the computed q̂ solves
//   (A + E) q̂ = b + f, A = M + αJᵀJ, with ‖E‖₂ ≤ γ_{m+2}(‖M‖_F + α‖J‖_F²) (forming A) +
//   γ_{3n+1}·trace(A)/(1 − γ_{n+1}) (the Cholesky solve, ‖|R̂ᵀ||R̂|‖₂ ≤ ‖R̂‖_F²) and
//   ‖f‖₂ ≤ γ_{m+2}(‖Q‖₂ + α‖J‖_F‖γ̃‖₂); A(q̂ − q̈_α) = f − E q̂ and ‖A⁻¹‖₂ ≤ 1/μ_min give δq
//   (q̈_α: the exact penalty solution). The computed λ differs from the penalty's by ρ:
//   αJA⁻¹ = α(I + αS)⁻¹B M^{-1/2} has norm ≤ κ/√μ_min, κ = max ασ/(1 + ασ²), plus the rounding
//   of α(J q̂ − γ̃). The approximation bounds use the computed λ, so ρ carries over into the
//   rounding bounds; the force's adds ‖J‖_F ρ and the rounding of forming Jᵀλ.
ApproximationBounds Penalty::approximation_bounds() const {
  if (m_ == 0 || alpha_ == 0.0) return {};
  const Spectra sp = spectra(M_, J_);
  const double u = std::numeric_limits<double>::epsilon() / 2;
  double s_plus = 0.0, kappa = 0.0;
  for (const double sigma : sp.sigma) {
    if (sigma > std::sqrt(u) * sp.sigma(0)) s_plus = sigma * sigma;
    kappa = std::max(kappa, alpha_ * sigma / (1 + alpha_ * sigma * sigma));
  }
  const double jf = J_.norm(), q = qdd_.norm(), l = lambda_.norm();
  const double E = gamma_k(m_ + 2) * (M_.norm() + alpha_ * jf * jf) +
                   gamma_k(3 * n_ + 1) * (M_.trace() + alpha_ * jf * jf) / (1 - gamma_k(n_ + 1));
  const double f = gamma_k(m_ + 2) * (Q_.norm() + alpha_ * jf * gamma_.norm());
  const double dq = (E * q + f) / sp.mu_min;
  const double rho = kappa * (E * q + f) / std::sqrt(sp.mu_min) +
                     alpha_ * gamma_k(n_ + 1) * (jf * q + gamma_.norm()) + 2 * u * l;
  const double to_qdd = 1 / (alpha_ * std::sqrt(sp.mu_min * s_plus));
  const double to_force = std::sqrt(sp.mu_max / s_plus) / alpha_;
  ApproximationBounds b;
  b.accelerations = {l * to_qdd, dq + rho * to_qdd};
  b.constraint_force = {l * to_force, rho * to_force + jf * rho + gamma_k(m_) * jf * l};
  return b;
}

}  // namespace
}  // namespace cmb

CMB_DEFINE_METHOD(test_penalty) {
  cmb::MethodEntry entry;
  entry.id = "test_penalty";
  entry.display_name = "Penalty (test)";
  entry.summary = "test-only: Bayo's pure penalty (M + alpha J^T J), approximate accelerations";
  entry.capabilities.redundant = true;     // M + αJᵀJ stays positive definite
  entry.capabilities.nonholonomic = true;  // velocity rows are rows of J like the others
  // From 1e4, where every catalog problem is already in the O(1/α) regime (its error falls
  // ten-fold per decade from the first step, measured), to beyond the rounding crossover (the
  // best agreement was measured at 1e7 to 1e10, mostly 1e8 or 1e9; the default stays a decade
  // below).
  entry.capabilities.approximation_param = "alpha_rel";
  entry.capabilities.approximation_sweep = {1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11};
  entry.params = {
      cmb::positive_number("alpha_rel", 1e7, "penalty relative to ‖M‖∞/‖JᵀJ‖∞"),
      cmb::nonnegative_number("omega", 10.0, "natural frequency of the constraint error [1/s]"),
      cmb::nonnegative_number("xi", 1.0, "damping ratio of the constraint error"),
  };
  entry.make = [](const cmb::Params& p) { return std::make_unique<cmb::Penalty>(p); };
  return entry;
}
