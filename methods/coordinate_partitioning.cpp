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
// fixed by the user (`independent`: comma-separated coordinate indices). When Φ_z becomes
// ill-conditioned at an accepted step — 1/(‖Φ_z⁻¹‖‖J‖) below repartition_tol — the automatic
// choice is repeated and the stepper reset.
// Root guard: Newton starts from the previous call's root, and its later corrections must stay
// below half its first one (the linear prediction); otherwise the step that asked for that
// state is rejected and retried smaller (StepRejected), since Newton was on its way to another
// root — another assembly mode. Without it, fehlberg78 at 1e-8 on andrews_squeezer ended `ok`
// on a flipped loop (error 193 rad with |Φ| ≤ 9e-13).
// Parameters: independent ("auto"), newton_tol (1e-12: max |Φ_i|), max_iterations (20),
// repartition_tol (0.1; lower values keep a partition longer and make Newton work harder).
// State: x = [q_i; q̇_i] (2k entries).
// Fails when: J is rank-deficient (redundant rows: unsupported), the problem has nonholonomic
// rows (unsupported), Newton does not converge or the root guard trips even for tiny steps
// (newton_failed, branch_switch; fixed-step steppers cannot retry, so there the first failure
// ends the run: a chart boundary crossed within one step, or a true singular configuration),
// or a user-fixed partition is singular.
#include <Eigen/LU>
#include <algorithm>
#include <set>
#include <sstream>

#include "core/errors.hpp"
#include "core/kkt.hpp"
#include "core/registry.hpp"

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
  // In-place solves with the LU of Φ_z. Eigen's solve() and in-place permutations take heap
  // temporaries, so the permutation goes through a member buffer.
  void solve_dependent(VecRef b) {
    permuted_.noalias() = lu_.permutationP() * b;
    b = permuted_;
    lu_.matrixLU().triangularView<Eigen::UnitLower>().solveInPlace(b);
    lu_.matrixLU().triangularView<Eigen::Upper>().solveInPlace(b);
  }
  void solve_dependent_transposed(VecRef b) {
    lu_.matrixLU().triangularView<Eigen::Upper>().transpose().solveInPlace(b);
    lu_.matrixLU().triangularView<Eigen::UnitLower>().transpose().solveInPlace(b);
    permuted_.noalias() = lu_.permutationP().transpose() * b;
    b = permuted_;
  }
  [[noreturn]] void unsupported(const std::string& why) const {
    throw NumericalFailure(RunStatus::unsupported, "coordinate_partitioning: " + why);
  }
  std::vector<int> parse_fixed_choice() const;
  void choose_partition(CMatRef J);
  void set_partition(const std::vector<int>& independent);
  void split_jacobian();
  void recover(double t, CVecRef x);
  void guard_root(double t, double predicted, double corrected);
  static constexpr double kRootRatio = 0.5;
  static constexpr double kRootFloor = 100.0;  // × newton_tol: round-off of converged iterates

  std::string fixed_choice_;
  double newton_tol_, repartition_tol_;
  int max_iterations_;
  const Problem* problem_ = nullptr;
  int n_ = 0, m_ = 0, k_ = 0;
  std::vector<int> dep_, indep_;
  // q_ holds the last call's root (Newton's warm start); q_accepted_ the root at the last accepted
  // step, where a rejected step's retry starts again (the rejected step's stages may be far off).
  Vec q_, q_accepted_, q_first_, v_, Phi_, Q_, gamma_, qdd_, lambda_, rhs_m_, permuted_, work_n_,
      qdd_i_;
  Mat M_, J_, Jz_, Ji_, D_, R_, MR_, Mr_;
  Eigen::PartialPivLU<Mat> lu_;
  Eigen::LLT<Mat> llt_;
};

std::vector<int> CoordinatePartitioning::parse_fixed_choice() const {
  std::vector<int> out;
  std::stringstream in(fixed_choice_);
  std::string item;
  while (std::getline(in, item, ',')) {
    std::size_t used = 0;
    int index = -1;
    try {
      index = std::stoi(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || index < 0 || index >= n_)
      throw InputError("parameter 'independent' of method 'coordinate_partitioning': '" + item +
                       "' is not a coordinate index 0.." + std::to_string(n_ - 1));
    out.push_back(index);
  }
  if (static_cast<int>(std::set<int>(out.begin(), out.end()).size()) != k_ ||
      static_cast<int>(out.size()) != k_)
    throw InputError("parameter 'independent' of method 'coordinate_partitioning' needs " +
                     std::to_string(k_) + " distinct indices (n − m), got '" + fixed_choice_ + "'");
  return out;
}

void CoordinatePartitioning::set_partition(const std::vector<int>& independent) {
  indep_ = independent;
  std::sort(indep_.begin(), indep_.end());
  dep_.clear();
  for (int i = 0; i < n_; ++i)
    if (!std::binary_search(indep_.begin(), indep_.end(), i)) dep_.push_back(i);
}

// Largest pivots of a fully pivoted LU of J mark the best-conditioned dependent set.
void CoordinatePartitioning::choose_partition(CMatRef J) {
  Eigen::FullPivLU<Mat> lu(J);
  std::vector<int> independent;
  for (int j = m_; j < n_; ++j) independent.push_back(lu.permutationQ().indices()(j));
  set_partition(independent);
}

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
  if (fixed_choice_ == "auto")
    choose_partition(J_);
  else
    set_partition(parse_fixed_choice());
  Phi_.setZero(m_);
  Q_.setZero(n_);
  gamma_.setZero(m_);
  qdd_.setZero(n_);
  lambda_.setZero(m_);
  rhs_m_.setZero(m_);
  permuted_.setZero(m_);
  work_n_.setZero(n_);
  qdd_i_.setZero(k_);
  M_.setZero(n_, n_);
  Jz_.setZero(m_, m_);
  Ji_.setZero(m_, k_);
  D_.setZero(m_, k_);
  R_.setZero(n_, k_);
  MR_.setZero(n_, k_);
  Mr_.setZero(k_, k_);
  lu_ = Eigen::PartialPivLU<Mat>(m_);
  llt_ = Eigen::LLT<Mat>(k_);
  split_jacobian();
  if (!(lu_.rcond() > 1e-14)) {
    std::ostringstream msg;
    msg << "the dependent block Φ_z of the chosen partition is singular at the initial state";
    throw NumericalFailure(fixed_choice_ == "auto" ? RunStatus::singular : RunStatus::invalid_input,
                           msg.str());
  }
}

void CoordinatePartitioning::split_jacobian() {
  for (int j = 0; j < m_; ++j) Jz_.col(j) = J_.col(dep_[j]);
  for (int j = 0; j < k_; ++j) Ji_.col(j) = J_.col(indep_[j]);
  lu_.compute(Jz_);
}

void CoordinatePartitioning::pack(double, CVecRef q, CVecRef v, VecRef x) {
  q_ = q;
  q_accepted_ = q;
  v_ = v;
  for (int i = 0; i < k_; ++i) {
    x(i) = q(indep_[i]);
    x(k_ + i) = v(indep_[i]);
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
  for (int i = 0; i < k_; ++i) q_(indep_[i]) = x(i);
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
    split_jacobian();
    rhs_m_ = Phi_;
    solve_dependent(rhs_m_);
    for (int j = 0; j < m_; ++j) q_(dep_[j]) -= rhs_m_(j);
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
  split_jacobian();
  stats().add("factorizations");
  // Φ_z ż = ν − Φ_i q̇_i
  for (int i = 0; i < k_; ++i) v_(indep_[i]) = x(k_ + i);
  problem_->velocity_rhs(t, q_, rhs_m_);
  for (int i = 0; i < k_; ++i) rhs_m_.noalias() -= Ji_.col(i) * x(k_ + i);
  solve_dependent(rhs_m_);
  for (int j = 0; j < m_; ++j) v_(dep_[j]) = rhs_m_(j);
}

void CoordinatePartitioning::unpack(double t, CVecRef x, VecRef q, VecRef v) {
  recover(t, x);
  q = q_;
  v = v_;
}

void CoordinatePartitioning::rhs(CVecRef x, VecRef dxdt, double t) {
  recover(t, x);
  problem_->mass_matrix(t, q_, M_);
  problem_->forces(t, q_, v_, Q_);
  problem_->acceleration_rhs(t, q_, v_, gamma_);
  require_finite(M_.allFinite() && Q_.allFinite() && gamma_.allFinite(),
                 "the problem's M, Q or gamma", t);
  // R = [−Φ_z⁻¹Φ_i ; E] in the original coordinate order; q̈_p = [Φ_z⁻¹γ ; 0].
  D_ = Ji_;
  for (int i = 0; i < k_; ++i) solve_dependent(D_.col(i));
  rhs_m_ = gamma_;
  solve_dependent(rhs_m_);
  R_.setZero();
  qdd_.setZero();
  for (int j = 0; j < m_; ++j) {
    R_.row(dep_[j]) = -D_.row(j);
    qdd_(dep_[j]) = rhs_m_(j);
  }
  for (int i = 0; i < k_; ++i) R_(indep_[i], i) = 1.0;
  MR_.noalias() = M_.lazyProduct(R_);
  Mr_.noalias() = R_.transpose().lazyProduct(MR_);
  work_n_.noalias() = Q_ - M_.lazyProduct(qdd_);
  qdd_i_.noalias() = R_.transpose().lazyProduct(work_n_);
  llt_.compute(Mr_);
  stats().add("factorizations");
  if (llt_.info() != Eigen::Success) {
    std::ostringstream msg;
    msg << "reduced mass matrix RᵀMR is not positive definite at t = " << t;
    throw NumericalFailure(RunStatus::singular, msg.str());
  }
  llt_.solveInPlace(qdd_i_);
  qdd_.noalias() += R_.lazyProduct(qdd_i_);
  // Reactions from the dependent rows: Φ_zᵀ λ = (Q − M q̈)_z.
  work_n_.noalias() = Q_ - M_.lazyProduct(qdd_);
  for (int j = 0; j < m_; ++j) rhs_m_(j) = work_n_(dep_[j]);
  solve_dependent_transposed(rhs_m_);
  lambda_ = rhs_m_;
  for (int i = 0; i < k_; ++i) {
    dxdt(i) = v_(indep_[i]);
    dxdt(k_ + i) = qdd_i_(i);
  }
}

bool CoordinatePartitioning::post_step(double t, VecRef x) {
  // The accepted state itself was never an RHS argument (it combines the stages): recovering it
  // here lets the root guard reject the step while the step loop can still retry it.
  recover(t, x);
  q_accepted_ = q_;
  if (fixed_choice_ != "auto") return false;
  // Quality of the partition: 1/(‖Φ_z⁻¹‖·‖J‖), i.e. rcond(Φ_z) scaled by ‖Φ_z‖/‖J‖, so that a
  // 1 × 1 block (whose rcond is always 1) is still judged against the whole Jacobian.
  const double quality = lu_.rcond() * Jz_.cwiseAbs().colwise().sum().maxCoeff() /
                         J_.cwiseAbs().colwise().sum().maxCoeff();
  stats().note_min("min_partition_quality", quality);
  if (quality >= repartition_tol_) return false;
  const std::vector<int> before = indep_;
  choose_partition(J_);
  if (indep_ == before) return false;
  stats().add("repartitions");
  split_jacobian();
  pack(t, Vec(q_), Vec(v_), x);
  return true;
}

}  // namespace
}  // namespace cmb

CMB_DEFINE_METHOD(coordinate_partitioning) {
  cmb::MethodEntry entry;
  entry.id = "coordinate_partitioning";
  entry.summary = "independent coordinates, R = [-Phi_z^-1 Phi_i; E], Newton for dependent ones";
  entry.capabilities.drift_free = true;
  cmb::ParamSpec independent;
  independent.name = "independent";
  independent.type = cmb::ParamType::text;
  independent.default_value = "auto";
  independent.description =
      "auto (pivoted LU of J) or comma-separated independent coordinate indices";
  cmb::ParamSpec repartition = cmb::positive_number(
      "repartition_tol", 0.1, "re-partition when 1/(|Phi_z^-1| |J|) falls below this at a step");
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
