#include "methods/base/acceleration_method.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "core/errors.hpp"

namespace cmb {

std::vector<ParamSpec> baumgarte_param_specs(const nlohmann::json& default_omega0) {
  return {
      nonnegative_number("alpha", nullptr, "damping gain α in Φ̈ + 2αΦ̇ + β²Φ = 0 [1/s]"),
      nonnegative_number("beta", nullptr, "stiffness gain β [1/s]; give with alpha"),
      nonnegative_number("omega0", default_omega0,
                         "natural frequency of the error dynamics (beta = omega0) [1/s]"),
      nonnegative_number("zeta", 1.0, "damping ratio (alpha = zeta·omega0); 1 = critical"),
  };
}

ParamSpec pseudo_inverse_linear_solver_param() {
  return choice_param("linear_solver", {"auto", "dense", "sparse"},
                      "sparse: LDLᵀ of [M Jᵀ; J 0] where it certifies full row rank, the dense "
                      "pseudo-inverse elsewhere (problems with sparse evaluation); auto: sparse "
                      "wherever it applies");
}

BaumgarteGains resolve_baumgarte_gains(const Params& params, const std::string& owner) {
  const bool has_alpha = params.is_set("alpha");
  const bool has_beta = params.is_set("beta");
  if (has_alpha || has_beta) {
    if (!(has_alpha && has_beta))
      throw InputError(owner + ": give both 'alpha' and 'beta', or use 'omega0' and 'zeta'");
    if (params.was_given("omega0") || params.was_given("zeta"))
      throw InputError(owner + ": give either ('alpha', 'beta') or ('omega0', 'zeta'), not both");
    return {params.number("alpha"), params.number("beta")};
  }
  if (!params.is_set("omega0")) {
    if (params.was_given("zeta"))
      throw InputError(owner + ": 'zeta' needs 'omega0' to switch the Baumgarte terms on");
    return {};
  }
  const double omega0 = params.number("omega0");
  return {params.number("zeta") * omega0, omega0};
}

nlohmann::json AccelerationMethod::effective_params() const {
  nlohmann::json out = params().values();
  out["baumgarte_alpha"] = gains_.alpha;
  out["baumgarte_beta"] = gains_.beta;
  return out;
}

void AccelerationMethod::bind(const Problem& problem) {
  problem_ = &problem;
  const Sizes s = problem.sizes();
  if (s.mu > 0 && !accepts_unilateral_rows())
    throw NumericalFailure(RunStatus::unsupported,
                           "the problem has " + std::to_string(s.mu) +
                               " unilateral rows (g(q) >= 0); only methods with the inequality "
                               "capability (gauss_qp) handle them");
  n_ = s.nq;
  mh_ = s.mh;
  m_ = s.m();
  dense_ = uses_dense_matrices(problem);
  M_.setZero(dense_ ? n_ : 0, dense_ ? n_ : 0);
  J_.setZero(dense_ ? m_ : 0, dense_ ? n_ : 0);
  q_.setZero(n_);
  v_.setZero(n_);
  Q_.setZero(n_);
  gamma_.setZero(m_);
  qdd_.setZero(n_);
  lambda_.setZero(m_);
  Phi_.setZero(mh_);
  nu_.setZero(m_);
  psi_.setZero(m_);
  probe_dxdt_.setZero(2 * n_);
  rank_cap_ = probed_rank_ = probed_confident_ = m_;
  lowest_rank_seen_ = -1;  // unknown: the first hold_rank probes
  probing_ = false;
  if (!dense_) sparse_.bind(problem);
  bind_solver();
}

bool AccelerationMethod::choose_dense(const Problem& problem, const std::string& linear_solver,
                                      bool sparse_applicable, const std::string& why) const {
  const bool possible = problem.has_sparse_evaluation() && sparse_applicable;
  if (linear_solver == "sparse" && !possible)
    throw NumericalFailure(
        RunStatus::unsupported,
        "linear_solver = sparse on problem '" + problem.info().id +
            "': " + (problem.has_sparse_evaluation() ? why : "it has no sparse evaluation") +
            " (use dense or auto)");
  return linear_solver == "dense" || !possible;
}

void AccelerationMethod::jacobian_times(CVecRef v, VecRef out) const {
  if (dense_)
    out.noalias() = J_ * v;
  else
    sparse_.jacobian_times(v, out);
}

void AccelerationMethod::pack(double t, CVecRef q, CVecRef v, VecRef x) {
  x.head(n_) = q;
  x.tail(n_) = v;
  packed(t, x);
}

void AccelerationMethod::found_rank(int rank, int confident_rank) {
  lowest_rank_seen_ = std::min(lowest_rank_seen_, rank);
  if (!probing_) return;
  probed_rank_ = std::min(probed_rank_, rank);
  probed_confident_ = std::min(probed_confident_, confident_rank);
}

void AccelerationMethod::hold_rank(double t, CVecRef x) {
  if (lowest_rank_seen_ >= m_ && rank_cap_ == m_) return;  // full rank at every call since
  probing_ = true;
  probed_rank_ = probed_confident_ = m_;
  stats().add("rank_probes");
  try {
    rhs(x, probe_dxdt_, t);
  } catch (...) {
    probing_ = false;
    throw;
  }
  probing_ = false;
  rank_cap_ = probed_rank_ <= rank_cap_ ? probed_rank_ : std::max(rank_cap_, probed_confident_);
  lowest_rank_seen_ = rank_cap_;
}

void AccelerationMethod::factor_pseudo_inverse(PseudoInverse& pinv, CMatRef A, double rel_tol) {
  pinv.compute(A, rel_tol, std::sqrt(rel_tol), rank_cap());
  found_rank(pinv.rank(), pinv.confident_rank());
  if (pinv.used_svd()) {
    stats().add("svd_calls");
    if (pinv.rank() > 0)
      stats().note_min("min_kept_singular_value", pinv.smallest_kept_singular_value_bound());
  } else {
    stats().add("svd_calls", 0);
    stats().note_min("min_singular_value_bound", pinv.smallest_kept_singular_value_bound());
  }
}

bool AccelerationMethod::solve_sparse_full_rank(double rel_tol, bool of_jacobian) {
  stats().add("svd_calls", 0);
  if (rank_cap() < m_ || !sparse_.factorize_quasi_definite()) return false;
  using Block = SparseKktSolver::Block;
  double smallest = 1.0, largest = 1.0;  // bounds on J M^{-1/2}'s (or J's) singular values
  if (m_ > 0) {
    const auto b = sparse_.singular_value_bounds(Block::multipliers);
    smallest = b.smallest;
    largest = b.largest;
    if (of_jacobian) {  // J = (J M^{-1/2}) M^{1/2}, and M^{1/2}'s singular values are C_M's
      const auto c = sparse_.singular_value_bounds(Block::coordinates);
      smallest *= c.smallest;
      largest *= c.largest;
    }
    const double ratio = smallest / largest;
    const double rounding =
        1e3 * (sparse_.longest_factor_row() + 2) * std::numeric_limits<double>::epsilon();
    if (!(ratio >= std::sqrt(rel_tol) && ratio * ratio >= rounding)) return false;
  }
  sparse_.solve_factorized(Q_, gamma_, qdd_, lambda_);
  found_rank(m_, m_);
  if (m_ > 0) stats().note_min("min_singular_value_bound", smallest);
  return true;
}

void AccelerationMethod::evaluate_dense_fallback(double t, const std::string& method) {
  if (n_ > kMaxDenseCoordinates) {
    std::ostringstream msg;
    msg << method << ": the sparse path could not certify that J has full row rank at t = " << t
        << " (a singular position or redundant rows), and the dense SVD that decides the rank is "
           "limited to "
        << kMaxDenseCoordinates << " coordinates (n = " << n_ << ")";
    throw NumericalFailure(RunStatus::singular, msg.str());
  }
  stats().add("dense_fallbacks");
  if (M_.rows() != n_) {
    M_.setZero(n_, n_);
    J_.setZero(m_, n_);
  }
  problem_->mass_matrix(t, q_, M_);
  problem_->jacobian(t, q_, J_);
  require_finite(M_.allFinite() && J_.allFinite(), "the problem's M or J", t);
}

bool AccelerationMethod::mass_is_diagonal() const {
  for (int j = 1; j < n_; ++j)  // M is symmetric: the strict upper triangle decides
    for (int i = 0; i < j; ++i)
      if (M_(i, j) != 0.0) return false;
  return true;
}

void AccelerationMethod::unpack(double, CVecRef x, VecRef q, VecRef v) {
  q = x.head(n_);
  v = x.tail(n_);
}

void AccelerationMethod::add_baumgarte_terms(double t, CVecRef q, CVecRef v) {
  // γ ← γ − 2αψ − β²Φ, with ψ = J v − ν on all rows and Φ on the holonomic rows only.
  problem_->velocity_rhs(t, q, nu_);
  jacobian_times(v, psi_);
  nu_ -= psi_;  // nu_ now holds −ψ
  gamma_.noalias() += 2.0 * gains_.alpha * nu_;
  if (mh_ > 0) {
    problem_->constraints(t, q, Phi_);
    gamma_.head(mh_).noalias() -= gains_.beta * gains_.beta * Phi_;
  }
}

void AccelerationMethod::rhs(CVecRef x, VecRef dxdt, double t) {
  q_ = x.head(n_);
  v_ = x.tail(n_);
  require_finite(x.allFinite(), "the state", t);
  // One reference each for the calls below (a temporary Ref per argument costs a destructor).
  const Eigen::Ref<const Vec> q(q_), v(v_);
  problem_->forces(t, q, v, Q_);
  problem_->acceleration_rhs(t, q, v, gamma_);
  bool finite = Q_.allFinite() && gamma_.allFinite();
  if (dense_) {
    problem_->mass_matrix(t, q, M_);
    problem_->jacobian(t, q, J_);
    finite = finite && M_.allFinite() && J_.allFinite();
  } else {
    finite = sparse_.evaluate(t, q) && finite;
  }
  require_finite(finite, "the problem's M, Q, J or gamma", t);
  if (gains_.alpha != 0.0 || gains_.beta != 0.0) add_baumgarte_terms(t, q, v);
  solve_accelerations(t);
  dxdt.head(n_) = v_;
  dxdt.tail(n_) = qdd_;
}

}  // namespace cmb
