// udwadia_kalaba — the Udwadia–Kalaba explicit equation, the analytic solution of Gauss's
// principle of least constraint.
//
// Equations ([Thesis-UK-en], its equation for the forward dynamics with constraint forces):
//   q̈ = a_f + M^{-1/2} (J M^{-1/2})⁺ (γ − J a_f),   a_f = M⁻¹Q,
// with M^{±1/2} = W Λ^{±1/2} Wᵀ from the eigendecomposition of M and ⁺ the Moore–Penrose
// inverse (variant `eig`, exactly the form of [Thesis-UK-en]). Variant `cholesky` (the default):
// M = LLᵀ and
//   q̈ = a_f + L⁻ᵀ (J L⁻ᵀ)⁺ (γ − J a_f),
// the same minimizer (any B = J S with SSᵀ = M⁻¹ gives it) at lower cost. With B = J M^{-1/2} (or
// J L⁻ᵀ) and r = γ − J a_f the reactions are λ = −(BBᵀ)⁺ r (minimum norm; flagged non-unique
// when B loses rank).
// Sources (keys in docs/sources.md): [Thesis-UK-en] (a thesis chapter on the Udwadia–Kalaba
// approach); [UdwadiaKalaba1992]; [Gauss1829].
// Pseudo-inverse (core/pseudo_inverse.hpp): pivoted QR of Bᵀ, O(n m² + m³); where a certified
// bound shows full rank the QR factors give B⁺ directly, otherwise the SVD of the m × m factor
// decides the rank at pinv_tol exactly as a full SVD of B would (work.method.svd_calls counts
// those calls).
// Sparse path (linear_solver auto or sparse, variant cholesky, problems that send M and J as
// entries): where B has full row rank, B⁺ = Bᵀ(BBᵀ)⁻¹ and q̈ is the unique solution of
// [M Jᵀ; J 0][q̈; λ] = [Q; γ], computed by that system's sparse LDLᵀ (cost linear in N on
// chains); its multiplier block is a Cholesky factor of BBᵀ = J M⁻¹Jᵀ, whose certified
// singular-value bounds decide whether B's rank is full (AccelerationMethod::
// solve_sparse_full_rank). Otherwise the call falls back to the dense pseudo-inverse above
// (work.method.dense_fallbacks), so the rank decision at pinv_tol stays the SVD's.
// Rank hold (AccelerationMethod::hold_rank), as in svd_null_space, with pinv_tol.
// Parameters: variant (cholesky | eig, default cholesky), linear_solver (auto | dense | sparse;
// variant eig is dense), pinv_tol (1e-10) — singular values of
// B below pinv_tol·σ_max are treated as zero: it decides the behaviour at singular
// configurations and with redundant rows. Baumgarte terms (alpha, beta or omega0, zeta) off by
// default: as the exact solution of Gauss's principle it drifts like index1 without them.
// Cost per call: cholesky O(n³/3 + n² m + n m² + m³) on dense M (no larger than index1's dense
// KKT solve); eig adds a Jacobi eigendecomposition of M, O(n³) with a large constant (≈ 10×
// cholesky on the catalog's small problems, bench/bench_rhs.cpp).
// State: x = [q; v]. Handles redundant and nonholonomic rows.
// Fails when: M is not positive definite (singular); the dense path refuses more than
// kMaxDenseCoordinates, a sparse-path fallback beyond it stops the run (singular).
// [Thesis-UK-en] names its drawbacks: instability near singular configurations (pinv_tol), costly
// matrix roots (variant eig), no prioritization.
#include <cmath>

#include "core/errors.hpp"
#include "core/lower_solve.hpp"
#include "core/pseudo_inverse.hpp"
#include "core/registry.hpp"
#include "methods/base/acceleration_method.hpp"

namespace cmb {
namespace {

class UdwadiaKalaba : public AccelerationMethod {
 public:
  explicit UdwadiaKalaba(const Params& params)
      : AccelerationMethod(params, resolve_baumgarte_gains(params, "method 'udwadia_kalaba'")),
        use_eig_(params.choice("variant") == "eig"),
        pinv_tol_(params.number("pinv_tol")),
        linear_solver_(params.choice("linear_solver")) {}

  bool multipliers_unique() const override { return unique_; }
  bool post_step(double t, VecRef x) override {
    hold_rank(t, x);
    return false;
  }

 private:
  void packed(double t, CVecRef x) override { hold_rank(t, x); }
  // The sparse path forms no M^{-1/2}: variant eig (the matrix root of [Thesis-UK-en]) is dense.
  bool uses_dense_matrices(const Problem& problem) const override {
    return choose_dense(problem, linear_solver_, !use_eig_,
                        "variant eig forms M^(-1/2) densely (use variant cholesky)");
  }
  void bind_solver() override {
    if (dense_matrices()) {
      refuse_beyond_dense_size("udwadia_kalaba", n_);
      bind_dense_workspace();  // sparse path: at the first fallback
    }
  }

  void bind_dense_workspace() {
    eig_ = Eigen::JacobiSVD<Mat, Eigen::NoQRPreconditioner>(n_, n_, Eigen::ComputeFullV);
    llt_ = Eigen::LLT<Mat>(n_);
    M_inv_sqrt_.setZero(n_, n_);
    W_scaled_.setZero(n_, n_);
    w_.setZero(n_);
    d_sqrt_.setZero(n_);
    B_.setZero(m_, n_);
    Bt_.setZero(n_, m_);
    a_f_.setZero(n_);
    z_.setZero(n_);
    r_.setZero(m_);
    pinv_.bind(m_, n_);
    dense_workspace_ = true;
  }

  // a_f = M⁻¹Q and B = J M^{-1/2} through the eigendecomposition M = WΛWᵀ. For a symmetric
  // positive definite M that is its SVD; the two-sided Jacobi SVD computes it without heap
  // allocation (Eigen's tridiagonalizing eigensolver allocates), after a Cholesky check of
  // definiteness.
  void factor_eig(double t) {
    llt_.compute(M_);
    if (llt_.info() != Eigen::Success) fail_not_positive_definite("mass matrix", t);
    eig_.compute(M_);
    const auto& w = eig_.singularValues();
    const auto& W = eig_.matrixV();
    // M^{-1/2} = (W Λ^{-1/2}) Wᵀ
    W_scaled_.noalias() = W * w.cwiseSqrt().cwiseInverse().asDiagonal();
    M_inv_sqrt_.noalias() = W_scaled_.lazyProduct(W.transpose());
    z_.noalias() = W.transpose().lazyProduct(Q_);
    z_.array() /= w.array();
    a_f_.noalias() = W.lazyProduct(z_);
    B_.noalias() = J_.lazyProduct(M_inv_sqrt_);
  }

  // a_f = M⁻¹Q and B = J L⁻ᵀ through M = LLᵀ.
  void factor_cholesky(double t) {
    llt_.compute(M_);
    if (llt_.info() != Eigen::Success) fail_not_positive_definite("mass matrix", t);
    a_f_ = Q_;
    llt_.solveInPlace(a_f_);
    Bt_ = J_.transpose();
    lower_solve_in_place(llt_, Bt_);
    B_ = Bt_.transpose();
  }

  // A diagonal M = D: M^{-1/2} = L⁻ᵀ = D^{-1/2}, so both variants reduce to scaling columns.
  void factor_diagonal(double t) {
    d_sqrt_ = M_.diagonal();
    if ((d_sqrt_.array() <= 0.0).any()) fail_not_positive_definite("mass matrix", t);
    d_sqrt_ = d_sqrt_.cwiseSqrt();
    a_f_ = Q_.cwiseQuotient(M_.diagonal());
    B_.noalias() = J_ * d_sqrt_.cwiseInverse().asDiagonal();
  }

  // w = M^{-1/2} z (eig) or L⁻ᵀ z (cholesky).
  void scale_back(bool diagonal) {
    if (diagonal)
      w_ = z_.cwiseQuotient(d_sqrt_);
    else if (use_eig_)
      w_.noalias() = M_inv_sqrt_.lazyProduct(z_);
    else {
      w_ = z_;
      llt_.matrixU().solveInPlace(w_);
    }
  }

  void solve_accelerations(double t) override {
    if (!dense_matrices()) {
      stats().add("factorizations");
      unique_ = true;
      if (solve_sparse_full_rank(pinv_tol_, false)) return;
      evaluate_dense_fallback(t, "udwadia_kalaba");
      if (!dense_workspace_) bind_dense_workspace();
    }
    solve_dense(t);
  }

  void solve_dense(double t) {
    stats().add("factorizations", 2);
    const bool diagonal = mass_is_diagonal();
    if (diagonal)
      factor_diagonal(t);
    else if (use_eig_)
      factor_eig(t);
    else
      factor_cholesky(t);
    qdd_ = a_f_;
    if (m_ == 0) return;
    r_.noalias() = gamma_ - J_.lazyProduct(a_f_);
    factor_pseudo_inverse(pinv_, B_, pinv_tol_);
    unique_ = pinv_.rank() == m_;
    if (!unique_) stats().add("rank_drops");
    pinv_.solve(r_, z_);  // z = B⁺ r
    scale_back(diagonal);
    qdd_ += w_;
    pinv_.solve_transposed(z_, lambda_);  // (Bᵀ)⁺ B⁺ r
    lambda_ = -lambda_;
  }

  bool use_eig_;
  double pinv_tol_;
  std::string linear_solver_;
  bool unique_ = true, dense_workspace_ = false;
  Eigen::JacobiSVD<Mat, Eigen::NoQRPreconditioner> eig_;
  Eigen::LLT<Mat> llt_;
  PseudoInverse pinv_;
  Mat M_inv_sqrt_, W_scaled_, B_, Bt_;
  Vec a_f_, z_, w_, r_, d_sqrt_;
};

}  // namespace
}  // namespace cmb

CMB_DEFINE_METHOD(udwadia_kalaba) {
  cmb::MethodEntry entry;
  entry.id = "udwadia_kalaba";
  entry.display_name = "Udwadia–Kalaba";
  entry.summary = "Udwadia-Kalaba: a_f + M^-1/2 (J M^-1/2)^+ (gamma - J a_f), eig or Cholesky";
  entry.capabilities.redundant = true;
  entry.capabilities.singular = true;
  entry.capabilities.nonholonomic = true;
  entry.params = cmb::baumgarte_param_specs(nullptr);
  const cmb::ParamSpec variant =
      cmb::choice_param("variant", {"cholesky", "eig"},
                        "M^(±1/2) by the Cholesky factor or by eigendecomposition [Thesis-UK-en]");
  cmb::ParamSpec tol =
      cmb::positive_number("pinv_tol", 1e-10, "Moore-Penrose threshold relative to σ_max of B");
  tol.max = 1.0;
  entry.params.push_back(variant);
  entry.params.push_back(tol);
  entry.params.push_back(cmb::pseudo_inverse_linear_solver_param());
  entry.make = [](const cmb::Params& p) { return std::make_unique<cmb::UdwadiaKalaba>(p); };
  return entry;
}
