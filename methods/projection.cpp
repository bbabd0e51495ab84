// projection — index-1 accelerations plus coordinate projection after every accepted step.
//
// Equations ([HairerWanner1996], §VII.2; [Blajer2002]; keys in docs/sources.md):
// q̈ from the KKT system as in index1; after each accepted step the state is projected back onto
// the constraint manifold in the metric W (W = I, or W = M: mass-orthogonal):
//   positions (Newton on min ½‖q − q̃‖²_W s.t. Φ(q) = 0):  Δq = −W⁻¹Φ_qᵀ (Φ_q W⁻¹Φ_qᵀ)⁻¹ Φ,
//   velocities (one linear step, all rows):                 Δv = −W⁻¹Jᵀ (J W⁻¹Jᵀ)⁻¹ (J v − ν).
// With W = M the velocity projection never increases kinetic energy for scleronomic constraints.
// The projection runs once per accepted step, never inside Runge–Kutta stages; the harness then
// resets the stepper (FSAL derivatives, multistep history and extrapolation tables are stale).
// Design: a method of its own (not an option on every method), so it appears in comparisons as
// one configuration with one set of parameters.
// Parameters: metric (euclidean | mass, default mass), position_tol (1e-12: max |Φ_i| after the
// Newton iterations), velocity_tol (1e-12: project velocities when max |ψ_i| exceeds it),
// max_iterations (20); pivot_tol, rank_policy, linear_solver as in index1. On the sparse path
// (holonomic problems) the projections solve [W Φ_qᵀ; Φ_q 0][Δ; μ] = [0; r] with the same sparse
// LDLᵀ (W = M or I), so a step costs O(n) as the RHS does; otherwise they are dense.
// State: x = [q; v]. Drift-free: every sample satisfies |Φ| ≤ position_tol.
// Root guard: a position correction larger than half the step's own change of q rejects the
// step (adaptive steppers retry it smaller): near a singular configuration Newton's step along
// the nearly dropped direction is amplified by 1/σ_min and can reach another assembly branch.
// The first step after the initial state is exempt (a deliberately perturbed start needs a large
// first correction). A Newton iteration that does not converge also rejects the step.
// Near a singular configuration (measured on IFToMM A02, n_four_bar N = 2, rank_policy =
// truncate, pivot_tol 1e-10, fehlberg78 over 20 s): the index-1 RHS that projection integrates
// has a real eigenvalue ≈ 2|ω|/δ at distance δ from the singular position (ω the rockers' rate;
// tests/test_methods.cpp, SingularConfiguration), so a local error made at δ_min grows like
// (δ₀/δ_min)² during a passage. Tighter tolerances make the controller land steps closer to the
// singular position; the velocity projection then removes the amplified component along the
// other branch's tangent at once (up to 3e-2 m/s in one step at tol 1e-12), which dissipates
// energy (0.30 J of 35.8) and leaves a phase error: max error 2.9e-6 m at tol 1e-10 but 6.3 m at
// 1e-12, though the run stays on the parallelogram branch. Larger pivot_tol caps 1/δ (1e-6:
// 1.5e-3 m at 1e-12). For crossings of singular positions use tolerances ≥ 1e-10 or baumgarte
// with ω₀ = 100 and rank_policy = truncate (docs/methods.md, "Singular configurations").
// Command: build/cmbench run --problem n_four_bar --param N=2 --method projection --param
// rank_policy=truncate --param pivot_tol=1e-10 --param linear_solver=dense --stepper fehlberg78
// --tol 1e-12 (or 1e-10; --param pivot_tol=1e-6).
// Fails when: Newton does not reach position_tol even for small steps (newton_failed) or the
// root guard trips even for small steps (branch_switch); with fixed steps the first occurrence
// ends the run; J loses row rank (singular, as index1; the dense projections drop vanishing
// pivots, the sparse ones report singular unless rank_policy = truncate, which regularizes them
// as the RHS does).
#include <algorithm>
#include <sstream>

#include "core/errors.hpp"
#include "core/registry.hpp"
#include "methods/base/schur_kkt_method.hpp"

namespace cmb {
namespace {

class Projection : public SchurKktMethod {
 public:
  explicit Projection(const Params& params)
      : SchurKktMethod(params, {}),
        mass_metric_(params.choice("metric") == "mass"),
        position_tol_(params.number("position_tol")),
        velocity_tol_(params.number("velocity_tol")),
        max_iterations_(static_cast<int>(params.integer("max_iterations"))) {}

  bool post_step(double t, VecRef x) override {
    auto q = x.head(n_);
    auto v = x.tail(n_);
    before_ = x;
    const bool moved_q = project_positions(t, q);
    const bool moved_v = project_velocities(t, q, v);
    if (moved_q || moved_v) stats().add("projections");
    if (guard_armed_ && moved_q) guard_position_correction(t, x);
    accepted_ = x;
    guard_armed_ = true;
    return moved_q || moved_v;
  }

 protected:
  void packed(double, CVecRef x) override {
    accepted_ = x;
    guard_armed_ = false;  // a deliberately perturbed start may need a large first correction
  }

 private:
  void bind_solver() override {
    SchurKktMethod::bind_solver();
    Phi_.setZero(mh_);
    nu_.setZero(m_);
    before_.setZero(2 * n_);
    accepted_.setZero(2 * n_);
    mu_.setZero(m_);
    dq_.setZero(n_);
    // Position corrections use the holonomic rows only: the sparse K holds all rows, so
    // problems with nonholonomic rows project densely.
    sparse_projection_ = !dense_matrices() && m_ == mh_;
    if (sparse_projection_) {
      projector_.bind(*problem_, !mass_metric_);
      zero_n_.setZero(n_);
      return;
    }
    llt_W_ = Eigen::LLT<Mat>(n_);
    // Its own copy of M for the metric: on the sparse path the RHS keeps no dense M.
    W_.setZero(mass_metric_ ? n_ : 0, mass_metric_ ? n_ : 0);
    Jp_.setZero(m_, n_);
    WJt_.setZero(n_, m_);
    G_.setZero(m_, m_);
    ldlt_G_ = Eigen::LDLT<Mat>(m_);
  }

  void evaluate_projector(double t, CVecRef q) {
    require_finite(projector_.evaluate(t, q), "the problem's M or J", t);
  }

  // dq_ = W⁻¹Jᵀ(J W⁻¹Jᵀ)⁻¹ r on the sparse path, at the q of the last evaluate_projector:
  // [W Jᵀ; J 0][dq; −μ] = [0; r].
  void sparse_correction(double t, CVecRef r) {
    if (!projector_.solve(zero_n_, r, pivot_tol(), dq_, mu_) &&
        !(rank_policy() == RankPolicy::truncate &&
          projector_.solve_regularized(zero_n_, r, pivot_tol(), dq_, mu_))) {
      std::ostringstream msg;
      msg << "projection: sparse factorization of [W Jᵀ; J 0] broke down at t = " << t
          << " (pivot ratio " << projector_.last_pivot_ratio() << " < " << pivot_tol()
          << "): J has lost row rank";
      throw NumericalFailure(RunStatus::singular, msg.str());
    }
  }

  // WJt_ = W⁻¹ Jᵀ and G = J W⁻¹ Jᵀ for the first `rows` rows of Jp_.
  void factor_metric(double t, CVecRef q, int rows) {
    auto J = Jp_.topRows(rows);
    auto WJt = WJt_.leftCols(rows);
    WJt = J.transpose();
    if (mass_metric_) {
      problem_->mass_matrix(t, q, W_);
      llt_W_.compute(W_);
      for (Eigen::Index j = 0; j < rows; ++j) llt_W_.solveInPlace(WJt.col(j));
    }
    G_.topLeftCorner(rows, rows).noalias() = J.lazyProduct(WJt);
    ldlt_G_.compute(G_.topLeftCorner(rows, rows));
  }

  // μ = G⁺ r, dropping pivots that vanish (redundant rows contribute nothing to a correction).
  void solve_metric(int rows, CVecRef r) {
    auto mu = mu_.head(rows);
    mu = ldlt_G_.transpositionsP() * r;
    ldlt_G_.matrixL().solveInPlace(mu);
    const auto d = ldlt_G_.vectorD();
    const double cutoff = 1e-14 * d.cwiseAbs().maxCoeff();
    for (Eigen::Index i = 0; i < rows; ++i) mu(i) = std::abs(d(i)) > cutoff ? mu(i) / d(i) : 0.0;
    ldlt_G_.matrixU().solveInPlace(mu);
    mu = ldlt_G_.transpositionsP().transpose() * mu;
  }

  bool project_positions(double t, VecRef q) {
    if (mh_ == 0) return false;
    problem_->constraints(t, q, Phi_);
    if (Phi_.lpNorm<Eigen::Infinity>() <= position_tol_) return false;
    for (int k = 0; k < max_iterations_; ++k) {
      stats().add("newton_iterations");
      if (sparse_projection_) {
        evaluate_projector(t, q);
        sparse_correction(t, Phi_);
        q -= dq_;
      } else {
        problem_->jacobian(t, q, Jp_);
        factor_metric(t, q, mh_);
        solve_metric(mh_, Phi_);
        q.noalias() -= WJt_.leftCols(mh_).lazyProduct(mu_.head(mh_));
      }
      problem_->constraints(t, q, Phi_);
      if (Phi_.lpNorm<Eigen::Infinity>() <= position_tol_) return true;
    }
    std::ostringstream msg;
    msg << "position projection did not reach |Phi| <= " << position_tol_ << " in "
        << max_iterations_ << " Newton iterations at t = " << t
        << " (|Phi| = " << Phi_.lpNorm<Eigen::Infinity>() << ")";
    throw StepRejected(RunStatus::newton_failed, msg.str());
  }

  bool project_velocities(double t, CVecRef q, VecRef v) {
    if (m_ == 0) return false;
    problem_->velocity_rhs(t, q, nu_);
    if (sparse_projection_) {
      evaluate_projector(t, q);
      projector_.jacobian_times(v, mu_);
      nu_ = mu_ - nu_;  // ψ
      if (nu_.lpNorm<Eigen::Infinity>() <= velocity_tol_) return false;
      sparse_correction(t, nu_);
      v -= dq_;
      return true;
    }
    problem_->jacobian(t, q, Jp_);
    nu_.noalias() = Jp_.lazyProduct(v) - nu_;  // ψ
    if (nu_.lpNorm<Eigen::Infinity>() <= velocity_tol_) return false;
    factor_metric(t, q, m_);
    solve_metric(m_, nu_);
    v.noalias() -= WJt_.lazyProduct(mu_);
    return true;
  }

  // The position projection is a Newton iteration, and near a singular configuration (IFToMM
  // A02's horizontal rockers) its step along the nearly dropped direction is amplified by
  // 1/σ_min: it can land on another root of Φ(q) = 0, another assembly branch. A correction that
  // undoes the step's local error is far smaller than the step's own change of q; one larger
  // than half of it means Newton went elsewhere, and the step is rejected (retried smaller).
  void guard_position_correction(double t, CVecRef x) {
    const double step = (before_.head(n_) - accepted_.head(n_)).lpNorm<Eigen::Infinity>();
    const double correction = (x.head(n_) - before_.head(n_)).lpNorm<Eigen::Infinity>();
    if (correction <= kRootRatio * step + kRootFloor * position_tol_) return;
    stats().add("newton_rejections");
    std::ostringstream msg;
    msg << "position projection moved q by " << correction << ", more than half the step's own "
        << "change " << step << ", at t = " << t
        << ": Newton would risk converging to another assembly branch";
    throw StepRejected(RunStatus::branch_switch, msg.str());
  }
  static constexpr double kRootRatio = 0.5;
  static constexpr double kRootFloor = 100.0;  // × position_tol: round-off of converged iterates

  bool mass_metric_;
  double position_tol_, velocity_tol_;
  int max_iterations_;
  bool sparse_projection_ = false;
  SparseKktSolver projector_;  // K with the metric W in the coordinate block
  Vec zero_n_;
  Eigen::LLT<Mat> llt_W_;
  Eigen::LDLT<Mat> ldlt_G_;
  Mat W_, Jp_, WJt_, G_;
  Vec Phi_, nu_, mu_, dq_;
  // The state the step produced (before projecting) and the state at the previous accepted step.
  Vec before_, accepted_;
  bool guard_armed_ = false;
};

}  // namespace
}  // namespace cmb

CMB_DEFINE_METHOD(projection) {
  cmb::MethodEntry entry;
  entry.id = "projection";
  entry.display_name = "Projection";
  entry.summary = "index-1 KKT solve + Newton projection of q and projection of v after each step";
  entry.capabilities.nonholonomic = true;
  entry.capabilities.drift_free = true;
  entry.params = {
      cmb::choice_param("metric", {"mass", "euclidean"},
                        "projection metric W: the mass matrix or the identity"),
      cmb::positive_number("position_tol", 1e-12, "target max |Phi_i| after projection"),
      cmb::positive_number("velocity_tol", 1e-12, "project v when max |psi_i| exceeds this"),
      cmb::integer_param("max_iterations", 20, 1, 1000,
                         "Newton iterations allowed per position projection")};
  for (auto& spec : cmb::schur_param_specs()) entry.params.push_back(spec);
  entry.make = [](const cmb::Params& p) { return std::make_unique<cmb::Projection>(p); };
  return entry;
}
