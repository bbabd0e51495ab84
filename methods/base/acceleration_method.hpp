// Shared skeleton of the methods whose ODE state is x = [q; v] and that solve for q̈ at the
// acceleration level. It evaluates M, Q, J and γ into preallocated storage, optionally adds
// Baumgarte terms to γ, and leaves the linear algebra to the concrete method.
#pragma once

#include <vector>

#include "core/method.hpp"
#include "core/params.hpp"
#include "core/pseudo_inverse.hpp"
#include "core/sparse_kkt.hpp"

namespace cmb {

// Baumgarte gains in Φ̈ + 2αΦ̇ + β²Φ = 0, given as (alpha, beta) or as (omega0, zeta) with
// alpha = zeta·omega0 and beta = omega0.
struct BaumgarteGains {
  double alpha = 0.0;
  double beta = 0.0;
};

// Parameter declarations for the gains; with default_omega0 = null the terms are off unless
// the user sets them.
std::vector<ParamSpec> baumgarte_param_specs(const nlohmann::json& default_omega0);

// linear_solver of svd_null_space and udwadia_kalaba (AccelerationMethod::solve_sparse_full_rank).
ParamSpec pseudo_inverse_linear_solver_param();

// Throws InputError when the two parameterizations are mixed or a pair is incomplete.
// Returns zero gains when nothing is set.
BaumgarteGains resolve_baumgarte_gains(const Params& params, const std::string& owner);

class AccelerationMethod : public Method {
 public:
  AccelerationMethod(Params params, BaumgarteGains gains)
      : Method(std::move(params)), gains_(gains) {}

  void bind(const Problem& problem) final;
  int state_size() const final { return 2 * n_; }
  void pack(double t, CVecRef q, CVecRef v, VecRef x) final;
  void unpack(double t, CVecRef x, VecRef q, VecRef v) final;
  void rhs(CVecRef x, VecRef dxdt, double t) final;
  const Vec& accelerations() const final { return qdd_; }
  const Vec& multipliers() const final { return lambda_; }
  const BaumgarteGains& gains() const { return gains_; }
  nlohmann::json effective_params() const override;

 protected:
  // Methods that handle unilateral rows override this; the others refuse such problems.
  virtual bool accepts_unilateral_rows() const { return false; }
  // False for the sparse path: M and J then live in sparse_ (bound before bind_solver) and M_,
  // J_ stay empty. Methods with a linear_solver parameter decide through choose_dense().
  virtual bool uses_dense_matrices(const Problem& problem) const { return true; }
  // linear_solver = auto | dense | sparse, given whether this method can take the sparse path
  // on `problem` (sparse_applicable, beyond the problem sending entries); `sparse` where it
  // cannot is `unsupported`, with `why`.
  bool choose_dense(const Problem& problem, const std::string& linear_solver,
                    bool sparse_applicable, const std::string& why) const;
  // out = J v from whichever path is active.
  void jacobian_times(CVecRef v, VecRef out) const;
  // Called at the end of pack with the new ODE state (a run, or a timed repetition, starts).
  virtual void packed(double t, CVecRef x) {}

  // Rank hold, for the methods that decide a numerical rank at every call (svd_null_space,
  // udwadia_kalaba, gauss_qp). A J that is rank-deficient on the constraint manifold (Bricard
  // everywhere, A02 at its singular positions) regains full rank a distance δ off it, with
  // σ_min ∝ δ: once drift, a Runge–Kutta stage or a difference-Jacobian perturbation pushes
  // σ_min over the threshold, the pseudo-inverse enforces that spurious row with gain 1/σ_min — a
  // stiff mode that is not in the problem. Bricard measured it: rosenbrock4's errors grew as the
  // tolerance tightened (2.5e-2 → 2.2e-1 m from 1e-6 to 1e-10; its Jacobian differences across
  // the switch), and dopri5 at 1e-8 took 2 785 steps with 2 595 rejections. So a method uses at
  // most the rank held from the last accepted state; that cap falls as soon as a call finds less
  // (threshold tol·σ₁), but rises only at an accepted state whose extra singular values clear
  // √tol·σ₁, a distance from the manifold far beyond drift. A method reports what each call finds
  // (found_rank: the ranks at tol and at √tol, before capping) and caps with rank_cap();
  // hold_rank(t, x), called from pack and post_step, re-evaluates the accepted state (one extra
  // RHS evaluation, counted as work.method.rank_probes) unless every call since the last one
  // found full rank.
  void found_rank(int rank, int confident_rank);
  int rank_cap() const { return probing_ ? m_ : rank_cap_; }
  void hold_rank(double t, CVecRef x);
  // pinv.compute(A) with thresholds rel_tol and √rel_tol under the held rank cap; reports the
  // ranks (found_rank) and the diagnostics svd_calls (calls off the certified full-rank path),
  // min_kept_singular_value (SVD path) and min_singular_value_bound (QR path, a lower bound).
  void factor_pseudo_inverse(PseudoInverse& pinv, CMatRef A, double rel_tol);
  // Sparse path of the pseudo-inverse methods (svd_null_space, udwadia_kalaba). Where J has full
  // row rank both formulas reduce to the unique solution of [M Jᵀ; J 0][q̈; λ] = [Q; γ], which
  // the sparse LDLᵀ computes; the same factor certifies the rank: its multiplier block is a
  // Cholesky factor of J M⁻¹Jᵀ, so SparseKktSolver::singular_value_bounds bounds σ_m/σ₁ of
  // J M^{-1/2} — and, divided by M^{1/2}'s condition bound, of J itself (of_jacobian). Certified
  // when that bound ρ clears √rel_tol (the dense QR path's certificate) and ρ² ≥ 1e3 (w + 2) u,
  // w the longest row of the factor: it squares J's condition number, and its rounding (∝ w u
  // relative to ‖J M⁻¹Jᵀ‖) then cannot move σ_m across rel_tol·σ₁. Fills qdd_ and lambda_ and
  // reports full rank; returns false (nothing filled) under a rank cap below m, a factorization
  // with pivots of the wrong sign or no certificate — the caller then takes its dense path.
  bool solve_sparse_full_rank(double rel_tol, bool of_jacobian);
  // For a fallback from the sparse path: evaluates M_ and J_ densely (sized at the first call,
  // n² memory only where needed; counted as work.method.dense_fallbacks). Beyond
  // kMaxDenseCoordinates the run stops as `singular`, naming the limit.
  void evaluate_dense_fallback(double t, const std::string& method);
  // M_ has no nonzero off the diagonal (point masses and planar bodies in absolute coordinates):
  // its square root, inverse and Cholesky factor are then diagonal, O(n) instead of O(n³).
  bool mass_is_diagonal() const;
  // Sizes the solver's own workspace; M_, J_ etc. are already sized.
  virtual void bind_solver() {}
  // From M_, Q_, J_ and gamma_ (stabilized), fill qdd_ and lambda_. t is for messages.
  virtual void solve_accelerations(double t) = 0;

  bool dense_matrices() const { return dense_; }
  SparseKktSolver sparse_;

  const Problem* problem_ = nullptr;
  int n_ = 0;
  int mh_ = 0;
  int m_ = 0;
  Mat M_, J_;
  Vec q_, v_;  // the state of the current rhs call
  Vec Q_, gamma_, qdd_, lambda_;

 private:
  void add_baumgarte_terms(double t, CVecRef q, CVecRef v);

  BaumgarteGains gains_;
  bool dense_ = true;
  bool probing_ = false;
  int rank_cap_ = 0, probed_rank_ = 0, probed_confident_ = 0, lowest_rank_seen_ = 0;
  Vec probe_dxdt_;
  Vec Phi_, nu_, psi_;
};

}  // namespace cmb
