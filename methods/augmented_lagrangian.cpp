// augmented_lagrangian — penalty formulation with augmented-Lagrangian iterations (index-1 form).
//
// Equations ([Bayo1988]; [BayoLedesma1996]; keys in docs/sources.md): with the stabilized
// right-hand side
//   γ̃ = γ − 2ζω₀ψ − ω₀²Φ   (ψ = J v − ν on all rows, Φ on holonomic rows),
// iterate from the multipliers of the previous call
//   (M + α_p JᵀJ) q̈_{k+1} = Q − Jᵀλ_k + α_p Jᵀγ̃,
//   λ_{k+1} = λ_k + α_p (J q̈_{k+1} − γ̃),
// until ‖q̈_{k+1} − q̈_k‖∞ ≤ tol·(1 + ‖q̈_{k+1}‖∞), or until the change stops contracting below
// √tol·(1 + ‖q̈‖∞) (rounding floor of the penalized matrix; counted as "stagnations"). The leading
// matrix is symmetric positive definite whatever the rank of J, so redundant constraints (Bricard)
// pass; at IFToMM A02's singular positions the iteration itself stops converging (newton_failed at
// the first one, t ≈ 0.72 s: docs/methods.md, "Singular configurations"). The iterations remove the
// O(1/α_p) error of the pure penalty method. At convergence q̈ and λ solve the KKT system (λ is then
// the particular solution the iteration reached: not unique when J is rank-deficient). Parameters:
// alpha_p — absolute penalty factor as in the peers (1e7…1e9), unset by default; alpha_rel (1e4) —
// used when alpha_p is unset: α_p = alpha_rel·‖M‖∞/‖JᵀJ‖∞ at each call, which makes the penalty
// independent of units (a slider-crank with 1e-6 kg·m² inertias and a 1000 kg vehicle get the same
// conditioning). Too large ill-conditions M + α_p JᵀJ (the accuracy of q̈ degrades like ε·cond); too
// small needs more iterations (each contracts the error of λ by about 1/(α_p σ_min(J M⁻¹Jᵀ))).
// omega0 (10 1/s) and zeta (1) for the stabilization, the natural frequency and damping ratio of
// the constraint error as in baumgarte (omega and xi, their earlier names here, are accepted as
// aliases), tol (1e-12), max_iterations (50), linear_solver (auto | dense | sparse: for problems
// that send M and J as entries, [M Jᵀ; J −I/α_p] is factorized sparsely instead of forming
// M + α_p JᵀJ; α_p from the same norms, ‖JᵀJ‖∞ accumulated row by row).
// State: x = [q; v].
// Fails when: the iteration does not converge within max_iterations (status newton_failed, the
// nearest status: an iterative solve that failed); M + α_p JᵀJ not positive definite (singular).
#include <Eigen/Cholesky>
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
    residual_.setZero(m_);
    stats().add("stagnations", 0);  // the counter's first use must not allocate inside rhs
  }

  void solve_accelerations(double t) override {
    if (dense_matrices())
      factor_dense(t);
    else
      factor_sparse(t);
    iterate(t);
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

  // [M Jᵀ; J −I/α_p] eliminates to M + α_p JᵀJ on the coordinates (core/sparse_kkt.hpp).
  void factor_sparse(double t) {
    alpha_p_ = penalty(sparse_.mass_norm_inf(), sparse_.jtj_norm_inf());
    stats().note_max("max_alpha_p", alpha_p_);
    if (m_ > 0 && alpha_p_ > 0.0) sparse_.set_multiplier_diagonal(-1.0 / alpha_p_);
    stats().add("factorizations");
    if (!(m_ == 0 || alpha_p_ > 0.0) || !sparse_.factorize_quasi_definite())
      fail_not_positive_definite("M + alpha_p·JᵀJ", t);
    sparse_.jacobian_transpose_times(gamma_, rhs0_);
    rhs0_ *= alpha_p_;
    rhs0_ += Q_;
  }

  // (M + α_p JᵀJ)⁻¹ rhs_ into qdd_.
  void solve_penalized() {
    if (dense_matrices()) {
      qdd_ = llt_.solve(rhs_);
      return;
    }
    kkt_work_.head(n_) = rhs_;
    kkt_work_.tail(m_).setZero();
    sparse_.solve_in_place(kkt_work_);
    qdd_ = kkt_work_.head(n_);
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
      solve_penalized();
      jacobian_times(qdd_, residual_);
      residual_ -= gamma_;
      lambda_.noalias() += alpha_p_ * residual_;
      const double change = (qdd_ - previous_).lpNorm<Eigen::Infinity>();
      const double scale = 1.0 + qdd_.lpNorm<Eigen::Infinity>();
      if (k > 1 && change <= tol_ * scale) return;
      // Rounding in the ill-conditioned M + α_p JᵀJ puts a floor under the change; once the
      // iteration stops contracting near that floor it has reached its attainable accuracy.
      if (k > 2 && change > 0.5 * last_change && change <= std::sqrt(tol_) * scale) {
        stats().add("stagnations");
        return;
      }
      last_change = change;
    }
    std::ostringstream msg;
    msg << "augmented-Lagrangian iterations did not converge within " << max_iterations_
        << " iterations at t = " << t;
    throw NumericalFailure(RunStatus::newton_failed, msg.str());
  }

  double alpha_abs_, alpha_rel_, alpha_p_ = 0.0, tol_;
  int max_iterations_;
  std::string linear_solver_;
  Eigen::LLT<Mat> llt_;
  Mat A_, JtJ_;
  Vec rhs0_, rhs_, previous_, residual_, kkt_work_;
};

}  // namespace
}  // namespace cmb

CMB_DEFINE_METHOD(augmented_lagrangian) {
  cmb::MethodEntry entry;
  entry.id = "augmented_lagrangian";
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
