// augmented_lagrangian — penalty formulation with augmented-Lagrangian iterations (index-1 form).
//
// Equations ([Bayo1988]; [BayoLedesma1996]; keys in docs/sources.md): with the stabilized
// right-hand side
//   γ̃ = γ − 2ζω₀ψ − ω₀²Φ   (ψ = J v − ν on all rows, Φ on holonomic rows),
// iterate from the multipliers of the previous call
//   (M + α_p JᵀJ) q̈_{k+1} = Q − Jᵀλ_k + α_p Jᵀγ̃,
//   λ_{k+1} = λ_k + α_p (J q̈_{k+1} − γ̃),
// until ‖q̈_{k+1} − q̈_k‖∞ ≤ tol·(1 + ‖q̈_{k+1}‖∞), or until the change stops contracting below
// √tol·(1 + ‖q̈‖∞) (counted as "stagnations"). The leading matrix is symmetric positive definite
// whatever the rank of J, so redundant constraints (Bricard) pass; at IFToMM A02's singular
// positions the iteration itself stops converging (newton_failed at the first one, t ≈ 0.72 s:
// docs/methods.md, "Singular configurations"). The iterations remove the O(1/α_p) error of the
// pure penalty method. At convergence q̈ and λ solve the KKT system (λ is then the particular
// solution the iteration reached: not unique when J is rank-deficient).
// Two paths (linear_solver):
// - dense (problems without sparse evaluation, or linear_solver = dense): Cholesky of
//   M + α_p JᵀJ and the classical iteration above, α_p = alpha_rel·‖M‖∞/‖JᵀJ‖∞ at each call (the
//   penalty then does not depend on units: a slider-crank with 1e-6 kg·m² inertias and a 1000 kg
//   vehicle get the same conditioning). Rounding in M + α_p JᵀJ leaves a floor of about
//   ε·cond(M + α_p JᵀJ) under the attainable accuracy.
// - sparse (problems that send M and J as entries: the chains, where that floor rose with N and
//   the iteration stagnated on every call of n_four_bar from N = 100): LDLᵀ of
//   [M Jᵀ; J −I/α_p], and after the first iterate the same update in correction form — with the
//   KKT residuals r_q = Q − M q̈ − Jᵀλ and r_c = γ̃ − J q̈,
//     (M + α_p JᵀJ) δq = r_q + α_p Jᵀr_c,  δλ = α_p (J δq − r_c),
//   which solves for a small correction instead of the whole q̈ from a right-hand side of size
//   α_p‖Jᵀγ̃‖: no rounding floor. Each iteration contracts the error by about
//   1/(1 + α_p s) along a direction of J M⁻¹Jᵀ with eigenvalue s, so the penalty tried first is
//   alpha_rel_max's (1e8, few iterations on chains of any length); a multiplier pivot of the
//   factorization below 1e3/α_p reveals a direction of J M⁻¹Jᵀ that the regularization
//   dominates (redundant rows, a singular position; see kSoftPivot), along which a large
//   penalty would only hasten a spurious exact solution: that call falls back to alpha_rel
//   (counted as "penalty_fallbacks"; the smallest pivot times α_p over the calls is
//   "min_pivot_times_alpha").
// Measured (docs/performance.md): n_four_bar N = 1000, fehlberg78 1e-10, 0.7 s: 2 075 steps and
// error 2.7e-5 with the classical iteration, 32 steps and 2.0e-10 now; n_pendulum N = 200 did
// not converge at t = 0 and runs now.
// Parameters: alpha_p — absolute penalty factor as in the peers (1e7…1e9), unset by default
// (then no fallback); alpha_rel (1e4) and alpha_rel_max (1e8) as above;
// omega0 (10 1/s) and zeta (1) for the stabilization, the natural frequency and damping ratio of
// the constraint error as in baumgarte (omega and xi, their earlier names here, are accepted as
// aliases), tol (1e-12), max_iterations (50), linear_solver (auto | dense | sparse; auto: sparse
// wherever the problem sends entries; ‖JᵀJ‖∞ is then accumulated row by row).
// State: x = [q; v].
// Fails when: the iteration does not converge within max_iterations (status newton_failed, the
// nearest status: an iterative solve that failed); M + α_p JᵀJ not positive definite (singular).
#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "core/errors.hpp"
#include "core/registry.hpp"
#include "methods/base/acceleration_method.hpp"

namespace cmb {
namespace {

BaumgarteGains penalty_gains(const Params& p) {
  return {p.number("zeta") * p.number("omega0"), p.number("omega0")};
}

class AugmentedLagrangian : public AccelerationMethod {
 public:
  explicit AugmentedLagrangian(const Params& params)
      : AccelerationMethod(params, penalty_gains(params)),
        alpha_abs_(params.is_set("alpha_p") ? params.number("alpha_p") : 0.0),
        alpha_rel_(params.number("alpha_rel")),
        alpha_rel_max_(std::max(params.number("alpha_rel_max"), params.number("alpha_rel"))),
        tol_(params.number("tol")),
        max_iterations_(static_cast<int>(params.integer("max_iterations"))),
        linear_solver_(params.choice("linear_solver")) {}

  bool multipliers_unique() const override { return false; }

 private:
  // Sparse path: problems that send M and J as entries, linear_solver auto or sparse.
  bool uses_dense_matrices(const Problem& problem) const override {
    return choose_dense(problem, linear_solver_, true, "");
  }

  void bind_solver() override {
    if (dense_matrices()) {
      llt_ = Eigen::LLT<Mat>(n_);
      A_.setZero(n_, n_);
      JtJ_.setZero(n_, n_);
    } else {
      kkt_work_.setZero(n_ + m_);
    }
    rhs0_.setZero(n_);
    rhs_.setZero(n_);
    previous_.setZero(n_);
    rq_.setZero(n_);
    delta_.setZero(n_);
    residual_.setZero(m_);
    correction_.setZero(m_);
    stats().add("stagnations", 0);  // the counters' first use must not allocate inside rhs
    if (!dense_matrices()) stats().add("penalty_fallbacks", 0);
    warm_lambda_.setZero(m_);
    warm_qdd_.setZero(n_);
    forget_warm_start();
  }

  // The iteration starts from the previous call's λ and q̈ (iterate, iterate_corrections).
  void save_warm_start() override {
    warm_lambda_ = lambda_;
    warm_qdd_ = qdd_;
  }
  void restore_warm_start() override {
    lambda_ = warm_lambda_;
    qdd_ = warm_qdd_;
  }

  void solve_accelerations(double t) override {
    resume_warm_start();
    if (dense_matrices()) {
      factor_dense(t);
      iterate(t);
    } else {
      factor_sparse(t);
      iterate_corrections(t);
    }
  }

  double penalty(double M_norm, double JtJ_norm) const {
    return alpha_abs_ > 0.0 || JtJ_norm == 0.0 ? alpha_abs_ : alpha_rel_ * M_norm / JtJ_norm;
  }

  void factor_dense(double t) {
    JtJ_.noalias() = J_.transpose().lazyProduct(J_);
    alpha_p_ = penalty(M_.lpNorm<Eigen::Infinity>(), JtJ_.lpNorm<Eigen::Infinity>());
    stats().note_max("max_alpha_p", alpha_p_);
    A_ = M_;
    A_.noalias() += alpha_p_ * JtJ_;
    llt_.compute(A_);
    stats().add("factorizations");
    if (llt_.info() != Eigen::Success) fail_not_positive_definite("M + alpha_p·JᵀJ", t);
    rhs0_ = Q_;
    rhs0_.noalias() += alpha_p_ * J_.transpose().lazyProduct(gamma_);  // γ_ is already γ̃
  }

  // [M Jᵀ; J −I/α_p] eliminates to M + α_p JᵀJ on the coordinates (core/sparse_kkt.hpp). The
  // penalty tried first is alpha_rel_max's; a multiplier pivot below kSoftPivot/α_p means a
  // direction of J M⁻¹Jᵀ the regularization dominates (redundant rows, a singular position):
  // there a large penalty only speeds the iteration toward a spurious exact solution, so the
  // call falls back to alpha_rel's (counted as penalty_fallbacks).
  void factor_sparse(double t) {
    const double mass = sparse_.mass_norm_inf(), jtj = sparse_.jtj_norm_inf();
    const bool adaptive = alpha_abs_ == 0.0 && jtj > 0.0 && alpha_rel_max_ > alpha_rel_;
    alpha_p_ = adaptive ? alpha_rel_max_ * mass / jtj : penalty(mass, jtj);
    bool ok = factor_sparse_with(alpha_p_);
    const double pivot_scale = ok ? sparse_.smallest_multiplier_pivot() * alpha_p_ : 0.0;
    if (adaptive && ok) stats().note_min("min_pivot_times_alpha", pivot_scale);
    if (adaptive && !(pivot_scale > kSoftPivot)) {
      stats().add("penalty_fallbacks");
      alpha_p_ = penalty(mass, jtj);
      ok = factor_sparse_with(alpha_p_);
    }
    stats().note_max("max_alpha_p", alpha_p_);
    if (!ok) fail_not_positive_definite("M + alpha_p·JᵀJ", t);
    sparse_.jacobian_transpose_times(gamma_, rhs0_);
    rhs0_ *= alpha_p_;
    rhs0_ += Q_;
  }

  bool factor_sparse_with(double alpha) {
    if (m_ > 0 && alpha > 0.0) sparse_.set_multiplier_diagonal(-1.0 / alpha);
    stats().add("factorizations");
    return (m_ == 0 || alpha > 0.0) && sparse_.factorize_quasi_definite();
  }

  // (M + α_p JᵀJ)⁻¹ rhs_ into `out`.
  void solve_penalized(VecRef out) {
    if (dense_matrices()) {
      out = rhs_;
      llt_.solveInPlace(out);
      return;
    }
    kkt_work_.head(n_) = rhs_;
    kkt_work_.tail(m_).setZero();
    sparse_.solve_in_place(kkt_work_);
    out = kkt_work_.head(n_);
  }

  void iterate(double t) {
    // λ_ keeps the previous call's multipliers: a warm start that usually saves iterations.
    double last_change = std::numeric_limits<double>::infinity();
    for (int k = 1; k <= max_iterations_; ++k) {
      stats().add("iterations");
      previous_ = qdd_;
      if (dense_matrices()) {
        rhs_ = rhs0_;
        rhs_.noalias() -= J_.transpose().lazyProduct(lambda_);
      } else {
        sparse_.jacobian_transpose_times(lambda_, rhs_);
        rhs_ = rhs0_ - rhs_;
      }
      solve_penalized(qdd_);
      jacobian_times(qdd_, residual_);
      residual_ -= gamma_;
      lambda_.noalias() += alpha_p_ * residual_;
      const double change = (qdd_ - previous_).lpNorm<Eigen::Infinity>();
      if (k == 1) {  // the change from the previous call's q̈ says nothing about convergence
        last_change = change;
        continue;
      }
      // Rounding in the ill-conditioned M + α_p JᵀJ puts a floor under the change; once the
      // iteration stops contracting near that floor it has reached its attainable accuracy.
      if (converged_or_stalled(change, k > 2, last_change)) return;
    }
    fail_not_converged(t);
  }

  // Whether the iteration stops after an iterate that changed q̈ by `change`: converged (below
  // tol, relative to 1 + |q̈|), or stalled — contracting by less than half while already below
  // √tol, as good as this penalty allows (counted as stagnations; only once `may_stall`, i.e.
  // with enough iterates behind it for a contraction rate).
  bool converged_or_stalled(double change, bool may_stall, double& last_change) {
    const double scale = 1.0 + qdd_.lpNorm<Eigen::Infinity>();
    if (change <= tol_ * scale) return true;
    if (may_stall && change > 0.5 * last_change && change <= std::sqrt(tol_) * scale) {
      stats().add("stagnations");
      return true;
    }
    last_change = change;
    return false;
  }

  [[noreturn]] void fail_not_converged(double t) const {
    std::ostringstream msg;
    msg << "augmented-Lagrangian iterations did not converge within " << max_iterations_
        << " iterations at t = " << t;
    throw NumericalFailure(RunStatus::newton_failed, msg.str());
  }

  // The sparse path's iteration: the first iterate as in iterate() (from the previous call's
  // multipliers), then the same update in correction form. With r_q = Q − M q̈ − Jᵀλ and
  // r_c = γ̃ − J q̈: (M + α_p JᵀJ) δq = r_q + α_p Jᵀr_c, δλ = α_p (J δq − r_c) — algebraically
  // the classical step, but it solves for a small correction from residuals, not for the whole
  // q̈ from a right-hand side of size α_p‖Jᵀγ̃‖, so rounding in M + α_p JᵀJ no longer sets a
  // floor of ε·cond under the attainable accuracy (the classical form stagnated there on every
  // call of n_four_bar from N = 100).
  void iterate_corrections(double t) {
    stats().add("iterations");
    sparse_.jacobian_transpose_times(lambda_, rhs_);
    rhs_ = rhs0_ - rhs_;
    solve_penalized(qdd_);
    jacobian_times(qdd_, residual_);
    residual_ -= gamma_;
    lambda_.noalias() += alpha_p_ * residual_;
    double last_change = std::numeric_limits<double>::infinity();
    for (int k = 2; k <= max_iterations_; ++k) {
      stats().add("iterations");
      sparse_.mass_times(qdd_, rq_);
      sparse_.jacobian_transpose_times(lambda_, rhs_);
      rq_ = Q_ - rq_ - rhs_;
      jacobian_times(qdd_, residual_);
      residual_ = gamma_ - residual_;
      sparse_.jacobian_transpose_times(residual_, rhs_);
      rhs_ = rq_ + alpha_p_ * rhs_;
      solve_penalized(delta_);
      qdd_ += delta_;
      jacobian_times(delta_, correction_);
      lambda_.noalias() += alpha_p_ * (correction_ - residual_);
      // Directions of J M⁻¹Jᵀ far below 1/α_p (where J loses rank) contract slowly: once the
      // corrections stop shrinking below √tol, the iterate is as good as this penalty allows.
      if (converged_or_stalled(delta_.lpNorm<Eigen::Infinity>(), k > 3, last_change)) return;
    }
    fail_not_converged(t);
  }

  // A multiplier pivot of [M Jᵀ; J −I/α_p] below kSoftPivot/α_p marks a direction of J M⁻¹Jᵀ
  // that the regularization I/α_p dominates. The pivots are not eigenvalues: an exactly
  // redundant row leaves one of a few times 1/α_p (5/α_p for tests/test_sparse.cpp's twice-stated
  // line; 4–5/α_p measured on n_four_bar N = 4 at its singular position), while the catalog's
  // chains away from singular positions keep every pivot above 3.6e5/α_p (n_four_bar N = 4 … 1000
  // over 0.7 s) and 2e7/α_p (n_pendulum): 1e3 lies between, 2.5 decades from each.
  static constexpr double kSoftPivot = 1e3;

  double alpha_abs_, alpha_rel_, alpha_rel_max_, alpha_p_ = 0.0, tol_;
  int max_iterations_;
  std::string linear_solver_;
  Eigen::LLT<Mat> llt_;
  Mat A_, JtJ_;
  Vec rhs0_, rhs_, previous_, rq_, delta_, residual_, correction_, kkt_work_;
  Vec warm_lambda_, warm_qdd_;  // the run's warm start while a sample's call overwrites it
};

}  // namespace
}  // namespace cmb

CMB_DEFINE_METHOD(augmented_lagrangian) {
  cmb::MethodEntry entry;
  entry.id = "augmented_lagrangian";
  entry.display_name = "Augmented Lagrangian";
  entry.summary = "penalty (M + alpha_p J^T J) with augmented-Lagrangian iterations on lambda";
  entry.capabilities.redundant = true;
  entry.capabilities.singular = true;
  entry.capabilities.nonholonomic = true;
  cmb::ParamSpec tol =
      cmb::positive_number("tol", 1e-12, "relative change of q̈ that ends the iterations");
  tol.max = 1.0;
  cmb::ParamSpec alpha_p =
      cmb::positive_number("alpha_p", 1.0, "absolute penalty factor (overrides alpha_rel)");
  alpha_p.default_value = nullptr;
  // The gains carry baumgarte's names; omega and xi, their names before, remain aliases.
  cmb::ParamSpec omega0 = cmb::nonnegative_number(
      "omega0", 10.0, "natural frequency of the constraint stabilization [1/s]");
  omega0.aliases = {"omega"};
  cmb::ParamSpec zeta =
      cmb::nonnegative_number("zeta", 1.0, "damping ratio of the constraint stabilization");
  zeta.aliases = {"xi"};
  entry.params = {
      alpha_p,
      cmb::positive_number("alpha_rel", 1e4, "penalty factor relative to ‖M‖/‖JᵀJ‖"),
      cmb::positive_number("alpha_rel_max", 1e8,
                           "sparse path: penalty tried first, relative to ‖M‖/‖JᵀJ‖ (alpha_rel "
                           "where J M⁻¹Jᵀ has a direction below 1/α_p)"),
      omega0,
      zeta,
      tol,
      cmb::integer_param("max_iterations", 50, 1, 10000, "iteration limit per RHS call"),
      cmb::choice_param("linear_solver", {"auto", "dense", "sparse"},
                        "penalized solve: dense Cholesky of M + α_p JᵀJ, or sparse LDLᵀ of "
                        "[M Jᵀ; J −I/α_p] (problems with sparse evaluation); auto: sparse "
                        "wherever it applies"),
  };
  entry.make = [](const cmb::Params& p) { return std::make_unique<cmb::AugmentedLagrangian>(p); };
  return entry;
}
