// coordinate_partitioning — independent coordinates with the R matrix (generalized coordinate
// partitioning; the "metoda projekce" of [Notes-DAE-cs]).
//
// Equations ([Notes-DAE-cs]; [WehageHaug1982]; keys in docs/sources.md): split q = [z; q_i] into m
// dependent and k = n − m independent coordinates. With Φ_z, Φ_i the column blocks of J,
//   ż = −Φ_z⁻¹Φ_i q̇_i,   R = [−Φ_z⁻¹Φ_i ; E],   J R = 0,   v = R q̇_i,
// and q̈ = R q̈_i + q̈_p with q̈_p = [Φ_z⁻¹γ ; 0] (this is the Ṙ q̇_i term). The reduced equations
//   RᵀMR q̈_i = Rᵀ(Q − M q̈_p)
// are integrated for x = [q_i; q̇_i] only. At every RHS call z is recovered by Newton on
// Φ(z; q_i) = 0 (warm-started from the previous call) and ż by the linear solve above, so the
// constraints hold to the Newton tolerance by construction.
// Reactions ([Notes-NullSpace-uk], "regenerating the constraint forces"): once q̈ is known the
// dependent rows of M q̈ = Q − Jᵀλ give Φ_zᵀ λ = (Q − M q̈)_z.
// Partition: chosen automatically by a fully pivoted LU of J (largest pivots → dependent), or
// fixed by the user (`independent`: comma-separated coordinate indices). By default the pivoted
// LU chooses again at every accepted step, and when its choice differs the partition changes and
// the stepper is reset; with repartition_tol < 1 it chooses again only once the partition's
// quality 1/(‖Φ_z⁻¹‖‖J‖) has fallen below repartition_tol. A partition kept while it degrades
// makes the independent coordinates a poor chart (their motion's derivatives grow), which costs
// a fixed-step stepper decades of accuracy (docs/methods.md measures it).
// Root guard: Newton starts from the previous call's root, and its later corrections must stay
// below half its first one (the linear prediction); otherwise the step that asked for that
// state is rejected and retried smaller (StepRejected), since Newton was on its way to another
// root — another assembly mode. Without it, fehlberg78 at 1e-8 on andrews_squeezer ended `ok`
// on a flipped loop (error 193 rad with |Φ| ≤ 9e-13).
// Parameters: independent ("auto"), newton_tol (1e-12: max |Φ_i|), max_iterations (20),
// repartition_tol (1: choose at every step; lower values keep a partition longer, with fewer
// stepper resets but a worse-conditioned chart).
// State: x = [q_i; q̇_i] (2k entries).
// Fails when: J is rank-deficient (redundant rows: unsupported), the problem has nonholonomic
// rows (unsupported), Newton does not converge or the root guard trips even for tiny steps
// (newton_failed, branch_switch; fixed-step steppers cannot retry, so there the first failure
// ends the run: a chart boundary crossed within one step, or a true singular configuration),
// or a user-fixed partition is singular.
#include <sstream>

#include "core/errors.hpp"
#include "core/kkt.hpp"
#include "core/registry.hpp"
#include "methods/base/coordinate_partition.hpp"

namespace cmb {
namespace {

class CoordinatePartitioning : public Method {
 public:
  explicit CoordinatePartitioning(const Params& params)
      : Method(params),
        fixed_choice_(params.text("independent")),
        newton_tol_(params.number("newton_tol")),
        repartition_tol_(params.number("repartition_tol")),
        max_iterations_(static_cast<int>(params.integer("max_iterations"))) {}

  void bind(const Problem& problem) override;
  int state_size() const override { return 2 * k_; }
  void pack(double t, CVecRef q, CVecRef v, VecRef x) override;
  void unpack(double t, CVecRef x, VecRef q, VecRef v) override;
  void rhs(CVecRef x, VecRef dxdt, double t) override;
  bool post_step(double t, VecRef x) override;
  const Vec& accelerations() const override { return qdd_; }
  const Vec& multipliers() const override { return lambda_; }

 private:
  [[noreturn]] void unsupported(const std::string& why) const {
    throw NumericalFailure(RunStatus::unsupported, "coordinate_partitioning: " + why);
  }
  void recover(double t, CVecRef x);
  void guard_root(double t, double predicted, double corrected);
  static constexpr double kRootRatio = 0.5;
  static constexpr double kRootFloor = 100.0;  // × newton_tol: round-off of converged iterates

  std::string fixed_choice_;
  double newton_tol_, repartition_tol_;
  int max_iterations_;
  const Problem* problem_ = nullptr;
  int n_ = 0, m_ = 0, k_ = 0;
  CoordinatePartition partition_;
  // q_ holds the last call's root (Newton's warm start); q_accepted_ the root at the last accepted
  // step, where a rejected step's retry starts again (the rejected step's stages may be far off).
  Vec q_, q_accepted_, q_first_, v_, Phi_, Q_, gamma_, qdd_, lambda_, rhs_m_, work_n_, qdd_i_;
  Mat M_, J_, D_, R_, MR_, Mr_;
  Eigen::LLT<Mat> llt_;
};

void CoordinatePartitioning::bind(const Problem& problem) {
  problem_ = &problem;
  const Sizes s = problem.sizes();
  if (s.mu > 0) unsupported("unilateral rows are not supported (use gauss_qp)");
  if (s.mn > 0)
    unsupported(
        "nonholonomic rows are not supported (independent speeds differ from "
        "independent coordinates)");
  refuse_beyond_dense_size("coordinate_partitioning", s.nq);
  n_ = s.nq;
  m_ = s.m();
  k_ = n_ - m_;
  q_.setZero(n_);
  q_accepted_.setZero(n_);
  q_first_.setZero(n_);
  v_.setZero(n_);
  problem.initial_state(q_, v_);
  J_.setZero(m_, n_);
  problem.jacobian(0.0, q_, J_);
  const int rank = row_rank(J_);
  if (rank < m_)
    unsupported("J has rank " + std::to_string(rank) + " < " + std::to_string(m_) +
                " rows (redundant constraints); use svd_null_space, udwadia_kalaba or "
                "augmented_lagrangian");
  partition_.bind(n_, m_);
  if (fixed_choice_ == "auto")
    partition_.choose(J_);
  else
    partition_.set_from_text(fixed_choice_, "independent", "coordinate_partitioning");
  Phi_.setZero(m_);
  Q_.setZero(n_);
  gamma_.setZero(m_);
  qdd_.setZero(n_);
  lambda_.setZero(m_);
  rhs_m_.setZero(m_);
  work_n_.setZero(n_);
  qdd_i_.setZero(k_);
  M_.setZero(n_, n_);
  D_.setZero(m_, k_);
  R_.setZero(n_, k_);
  MR_.setZero(n_, k_);
  Mr_.setZero(k_, k_);
  llt_ = Eigen::LLT<Mat>(k_);
  partition_.split(J_);
  if (!(partition_.rcond() > 1e-14)) {
    std::ostringstream msg;
    msg << "the dependent block Φ_z of the chosen partition is singular at the initial state";
    throw NumericalFailure(fixed_choice_ == "auto" ? RunStatus::singular : RunStatus::invalid_input,
                           msg.str());
  }
}

void CoordinatePartitioning::pack(double, CVecRef q, CVecRef v, VecRef x) {
  const std::vector<int>& indep = partition_.independent();
  q_ = q;
  q_accepted_ = q;
  v_ = v;
  for (int i = 0; i < k_; ++i) {
    x(i) = q(indep[i]);
    x(k_ + i) = v(indep[i]);
  }
}

// Newton starts from the previous call's root; its first step is the linear prediction of the
// dependent coordinates at the new independent ones. While the iteration stays with that root
// the later steps shrink quadratically, so together they stay well below the prediction
// (Kantorovich: ratio ≤ 1/2). A larger sum means the stage state was far enough away for Newton
// to reach another root — another assembly mode, e.g. a loop of Andrews' squeezer flipped — so
// the step that asked for this state is rejected and retried smaller.
void CoordinatePartitioning::guard_root(double t, double predicted, double corrected) {
  if (corrected <= kRootRatio * predicted + kRootFloor * newton_tol_) return;
  stats().add("newton_rejections");
  q_ = q_accepted_;
  std::ostringstream msg;
  msg << "Newton on the dependent coordinates moved " << corrected
      << " beyond its first (predicted) step " << predicted << " at t = " << t
      << ": it would risk converging to another assembly branch";
  throw StepRejected(RunStatus::branch_switch, msg.str());
}

void CoordinatePartitioning::recover(double t, CVecRef x) {
  const std::vector<int>& dep = partition_.dependent();
  const std::vector<int>& indep = partition_.independent();
  for (int i = 0; i < k_; ++i) q_(indep[i]) = x(i);
  problem_->constraints(t, q_, Phi_);
  int iterations = 0;
  double predicted = 0.0;  // ‖first Newton step‖: the linear prediction from the warm start
  while (Phi_.lpNorm<Eigen::Infinity>() > newton_tol_) {
    if (iterations == max_iterations_ || !std::isfinite(Phi_.lpNorm<Eigen::Infinity>())) {
      std::ostringstream msg;
      msg << "Newton on the dependent coordinates did not converge at t = " << t
          << " (|Phi| = " << Phi_.lpNorm<Eigen::Infinity>() << " after " << iterations
          << " iterations)";
      q_ = q_accepted_;
      throw StepRejected(RunStatus::newton_failed, msg.str());
    }
    problem_->jacobian(t, q_, J_);
    partition_.split(J_);
    rhs_m_ = Phi_;
    partition_.solve(rhs_m_);
    for (int j = 0; j < m_; ++j) q_(dep[j]) -= rhs_m_(j);
    if (iterations == 0) {
      predicted = rhs_m_.lpNorm<Eigen::Infinity>();
      q_first_ = q_;
    }
    problem_->constraints(t, q_, Phi_);
    ++iterations;
  }
  if (iterations > 1) guard_root(t, predicted, (q_ - q_first_).lpNorm<Eigen::Infinity>());
  stats().add("newton_iterations", iterations);
  problem_->jacobian(t, q_, J_);
  partition_.split(J_);
  stats().add("factorizations");
  // Φ_z ż = ν − Φ_i q̇_i
  for (int i = 0; i < k_; ++i) v_(indep[i]) = x(k_ + i);
  problem_->velocity_rhs(t, q_, rhs_m_);
  for (int i = 0; i < k_; ++i)
    rhs_m_.noalias() -= partition_.independent_block().col(i) * x(k_ + i);
  partition_.solve(rhs_m_);
  for (int j = 0; j < m_; ++j) v_(dep[j]) = rhs_m_(j);
}

void CoordinatePartitioning::unpack(double t, CVecRef x, VecRef q, VecRef v) {
  recover(t, x);
  q = q_;
  v = v_;
}

void CoordinatePartitioning::rhs(CVecRef x, VecRef dxdt, double t) {
  const std::vector<int>& dep = partition_.dependent();
  const std::vector<int>& indep = partition_.independent();
  recover(t, x);
  problem_->mass_matrix(t, q_, M_);
  problem_->forces(t, q_, v_, Q_);
  problem_->acceleration_rhs(t, q_, v_, gamma_);
  require_finite(M_.allFinite() && Q_.allFinite() && gamma_.allFinite(),
                 "the problem's M, Q or gamma", t);
  // R = [−Φ_z⁻¹Φ_i ; E] in the original coordinate order; q̈_p = [Φ_z⁻¹γ ; 0].
  D_ = partition_.independent_block();
  for (int i = 0; i < k_; ++i) partition_.solve(D_.col(i));
  rhs_m_ = gamma_;
  partition_.solve(rhs_m_);
  R_.setZero();
  qdd_.setZero();
  for (int j = 0; j < m_; ++j) {
    R_.row(dep[j]) = -D_.row(j);
    qdd_(dep[j]) = rhs_m_(j);
  }
  for (int i = 0; i < k_; ++i) R_(indep[i], i) = 1.0;
  MR_.noalias() = M_.lazyProduct(R_);
  Mr_.noalias() = R_.transpose().lazyProduct(MR_);
  work_n_.noalias() = Q_ - M_.lazyProduct(qdd_);
  qdd_i_.noalias() = R_.transpose().lazyProduct(work_n_);
  llt_.compute(Mr_);
  stats().add("factorizations");
  if (llt_.info() != Eigen::Success) fail_not_positive_definite("reduced mass matrix RᵀMR", t);
  llt_.solveInPlace(qdd_i_);
  qdd_.noalias() += R_.lazyProduct(qdd_i_);
  // Reactions from the dependent rows: Φ_zᵀ λ = (Q − M q̈)_z.
  work_n_.noalias() = Q_ - M_.lazyProduct(qdd_);
  for (int j = 0; j < m_; ++j) rhs_m_(j) = work_n_(dep[j]);
  partition_.solve_transposed(rhs_m_);
  lambda_ = rhs_m_;
  for (int i = 0; i < k_; ++i) {
    dxdt(i) = v_(indep[i]);
    dxdt(k_ + i) = qdd_i_(i);
  }
}

bool CoordinatePartitioning::post_step(double t, VecRef x) {
  // The accepted state itself was never an RHS argument (it combines the stages): recovering it
  // here lets the root guard reject the step while the step loop can still retry it.
  recover(t, x);
  q_accepted_ = q_;
  if (fixed_choice_ != "auto") return false;
  const double quality = partition_.quality(J_);
  stats().note_min("min_partition_quality", quality);
  if (quality >= repartition_tol_) return false;
  const std::vector<int> before = partition_.independent();
  partition_.choose(J_);
  if (partition_.independent() == before) return false;
  stats().add("repartitions");
  partition_.split(J_);
  pack(t, Vec(q_), Vec(v_), x);
  return true;
}

}  // namespace
}  // namespace cmb

CMB_DEFINE_METHOD(coordinate_partitioning) {
  cmb::MethodEntry entry;
  entry.id = "coordinate_partitioning";
  entry.display_name = "Coordinate partitioning";
  entry.summary = "independent coordinates, R = [-Phi_z^-1 Phi_i; E], Newton for dependent ones";
  entry.capabilities.drift_free = true;
  cmb::ParamSpec independent;
  independent.name = "independent";
  independent.type = cmb::ParamType::text;
  independent.default_value = "auto";
  independent.description =
      "auto (pivoted LU of J) or comma-separated independent coordinate indices";
  independent.canonical_text = cmb::canonical_index_list;
  cmb::ParamSpec repartition = cmb::positive_number(
      "repartition_tol", 1.0,
      "choose the partition again when 1/(|Phi_z^-1| |J|) is below this at a step (1: at every "
      "step)");
  repartition.max = 1.0;
  entry.params = {
      independent,
      cmb::positive_number("newton_tol", 1e-12, "target max |Phi_i| of the Newton recovery"),
      cmb::integer_param("max_iterations", 20, 1, 1000,
                         "Newton iterations allowed per recovery of the dependent coordinates"),
      repartition};
  entry.make = [](const cmb::Params& p) {
    return std::make_unique<cmb::CoordinatePartitioning>(p);
  };
  return entry;
}
