// gauss_qp — Gauss's principle of least constraint solved as a quadratic program.
//
// Equations ([Thesis-UK-en], its minimization problem; [Gauss1829]; [UdwadiaKalaba1992]; keys in
// docs/sources.md):
//   q̈ = argmin_x ½ (x − a_f)ᵀ M (x − a_f)   s.t.   J x = γ   [and G_c x ≥ d_c],   a_f = M⁻¹Q,
// with λ from M(q̈ − a_f) = −Jᵀλ − G_cᵀλ_c (cmbench's sign convention; a support pushing on the
// body has λ_c ≤ 0). Three paths, chosen per problem:
//  - equality rows, one priority level (fast path, exact): the Schur complement of the KKT
//    system, S = J M⁻¹Jᵀ — the same minimizer the QP solver finds, allocation-free; when J has
//    lost row rank (redundant rows) the SVD path below with a single level takes over;
//  - priority levels (Problem::row_priority): in z = Lᵀ(x − a_f) (M = LLᵀ) the objective is ½|z|²
//    and the rows read B z = r with B = J L⁻ᵀ, r = γ − J a_f. Level by level, z gains the
//    minimum-norm least-squares correction of that level's rows inside the null space left by
//    the levels above (SVD of B_ℓ P with P the current null-space projector): higher levels exact,
//    lower ones least-squares — the prioritization [Thesis-UK-en] says Udwadia–Kalaba lacks;
//  - unilateral rows g(q) ≥ 0 (supports, stops): rows closed at the current state (g ≤
//    contact_tol and ġ ≤ contact_tol) enter as G_c x ≥ d_c = −Ġv, and ALGLIB's dense QP solver
//    (minqp, augmented-Lagrangian algorithm; Debian libalglib-dev, GPL-2.0+) solves the problem.
//    `solver: qp` sends equality-only problems there too (tests check both paths agree).
// softness s (MuJoCo-style soft constraints, [MuJoCo2012]): S → S + R with R = s·diag(S); with
// Baumgarte terms (omega0, zeta) it plays MuJoCo's impedance and reference acceleration
// a_ref = −bψ − kΦ, and it shows the drift a soft model accepts. Fast path only.
// Parameters: solver (auto | qp), softness (0), rank_tol (1e-9: Schur pivot ratio below which J
// counts as rank-deficient and the SVD path takes over, with the same value as its relative
// singular-value cutoff; the Schur complement squares J's condition number, so pivots much
// smaller than this give λ with large relative errors — on Bricard, 1e-12 lets states slightly
// off the manifold, where J has full rank, produce wrong accelerations),
// contact_tol (1e-9), qp_tol (1e-12), Baumgarte terms (off by default), linear_solver (auto |
// dense | sparse: the equality fast path as a sparse LDLᵀ of [M Jᵀ; J 0] for problems that send
// M and J as entries, falling back to the dense SVD path on rank loss).
// Rank hold (one priority level, no softness; AccelerationMethod::hold_rank): at most the rank
// found at the last accepted state, so after a rank loss the SVD path is kept even where a
// stage off the manifold would pass the Schur test.
// State: x = [q; v]. λ has m entries followed by mu entries for the unilateral rows.
// Fails when: the QP solver fails (singular, with its termination code); unilateral rows or
// priorities are combined with softness, or unilateral rows with priorities (unsupported);
// a build without ALGLIB meets unilateral rows (unsupported). Impacts (velocity jumps at contact)
// are outside this acceleration-level formulation.
#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "core/errors.hpp"
#include "core/lower_solve.hpp"
#include "core/padded_svd.hpp"
#include "core/qp.hpp"
#include "core/registry.hpp"
#include "methods/base/acceleration_method.hpp"
#include "methods/base/schur_kkt_method.hpp"

namespace cmb {
namespace {

class GaussQp : public AccelerationMethod {
 public:
  explicit GaussQp(const Params& params)
      : AccelerationMethod(params, resolve_baumgarte_gains(params, "method 'gauss_qp'")),
        force_qp_(params.choice("solver") == "qp"),
        softness_(params.number("softness")),
        rank_tol_(params.number("rank_tol")),
        contact_tol_(params.number("contact_tol")),
        qp_tol_(params.number("qp_tol")),
        linear_solver_(params.choice("linear_solver")) {}

  bool multipliers_unique() const override { return unique_; }
  bool post_step(double t, VecRef x) override {
    hold_rank(t, x);
    return false;
  }

 private:
  void packed(double t, CVecRef x) override { hold_rank(t, x); }
  struct Level {
    std::vector<int> rows;
    Mat B, A;  // the level's rows of B, and B_ℓ P
    Vec r;
    PaddedSvd svd;
  };

  bool accepts_unilateral_rows() const override { return true; }

  [[noreturn]] void unsupported(const std::string& why) const {
    throw NumericalFailure(RunStatus::unsupported, "gauss_qp: " + why);
  }

  // The sparse KKT path (core/sparse_kkt.hpp) serves the equality fast path when the problem
  // sends entries, there are no unilateral rows, one priority level and no softness.
  bool uses_dense_matrices(const Problem& problem) const override {
    const Sizes s = problem.sizes();
    bool one_level = true;
    for (int i = 1; i < s.m(); ++i)
      one_level = one_level && problem.row_priority(i) == problem.row_priority(0);
    return choose_dense(problem, linear_solver_,
                        s.mu == 0 && !force_qp_ && softness_ == 0.0 && one_level,
                        "the sparse path needs no unilateral rows, one priority level, softness 0 "
                        "and solver auto");
  }

  void bind_solver() override {
    mu_ = problem_->sizes().mu;
    lambda_.setZero(m_ + mu_);
    if ((mu_ > 0 || force_qp_) && !DenseQp::available())
      unsupported("this build has no QP library (configured with CMB_ALGLIB=OFF)");
    if (softness_ > 0.0 && (mu_ > 0 || problem_levels() > 1 || force_qp_))
      unsupported(
          "softness applies to the equality fast path only (no unilateral rows, one "
          "priority level, solver auto)");
    if (mu_ > 0 && problem_levels() > 1)
      unsupported("unilateral rows together with priority levels are not supported");
    if (dense_matrices()) bind_dense_workspace();  // sparse path: waits for a first rank loss
  }

  int problem_levels() const {
    std::set<int> priorities;
    for (int i = 0; i < m_; ++i) priorities.insert(problem_->row_priority(i));
    return static_cast<int>(priorities.size());
  }

  void bind_dense_workspace() {
    bind_levels();
    M_.setZero(n_, n_);
    J_.setZero(m_, n_);
    schur_.bind(n_, m_);
    llt_ = Eigen::LLT<Mat>(n_);
    a_f_.setZero(n_);
    z_.setZero(n_);
    w_.setZero(n_);
    Bt_.setZero(n_, m_);
    B_.setZero(m_, n_);
    P_.setZero(n_, n_);
    r_.setZero(m_);
    svd_all_.bind(m_, n_);
    G_.setZero(mu_, n_);
    G_active_.setZero(mu_, n_);
    gaps_.setZero(mu_);
    d_.setZero(mu_);
    d_active_.setZero(mu_);
    lambda_c_.setZero(mu_);
    active_rows_.assign(mu_, 0);
    dense_workspace_ = true;
  }

  void bind_levels() {
    std::set<int> priorities;
    for (int i = 0; i < m_; ++i) priorities.insert(problem_->row_priority(i));
    levels_.clear();
    for (int p : priorities) {
      Level level;
      for (int i = 0; i < m_; ++i)
        if (problem_->row_priority(i) == p) level.rows.push_back(i);
      const int rows = static_cast<int>(level.rows.size());
      level.B.setZero(rows, n_);
      level.A.setZero(rows, n_);
      level.r.setZero(rows);
      level.svd.bind(rows, n_);
      levels_.push_back(std::move(level));
    }
  }

  void solve_accelerations(double t) override {
    stats().add("factorizations");
    if (mu_ > 0 || force_qp_)
      solve_qp(t);
    else if (levels_.size() > 1)
      solve_prioritized(t);
    else
      solve_fast(t);
  }

  // Full row rank: the Schur complement. When J loses rank the Schur pivots carry rounding of
  // either sign and truncating them is unreliable near redundant configurations (Bricard), so
  // the minimizer is then computed by the SVD path (one level of solve_prioritized).
  void solve_fast(double t) {
    if (!dense_matrices()) {
      solve_fast_sparse(t);
      return;
    }
    if (rank_cap() < m_ && softness_ == 0.0) {  // rank-deficient at the last accepted state
      solve_prioritized(t);
      return;
    }
    const SchurOutcome outcome = schur_.try_solve(M_, J_, Q_, gamma_, rank_tol_, RankPolicy::fail,
                                                  qdd_, lambda_.head(m_), softness_);
    unique_ = outcome == SchurOutcome::full_rank;
    if (unique_) found_rank(m_, m_);
    if (outcome == SchurOutcome::rank_deficient) {
      stats().add("rank_drops");
      if (softness_ > 0.0)  // soft rows regularize S; a rank loss there is the user's model
        schur_.solve(M_, J_, Q_, gamma_, rank_tol_, RankPolicy::truncate, t, qdd_, lambda_.head(m_),
                     softness_);
      else
        solve_prioritized(t);
    } else if (outcome == SchurOutcome::mass_not_positive_definite) {
      fail_not_positive_definite("mass matrix", t);
    }
  }

  // Sparse LDLᵀ of [M Jᵀ; J 0]; on rank loss the SVD path, on dense M and J evaluated for the
  // occasion (its workspace is allocated at the first rank loss: n² memory only if needed).
  void solve_fast_sparse(double t) {
    if (rank_cap() == m_) {
      unique_ = sparse_.solve(Q_, gamma_, rank_tol_, qdd_, lambda_.head(m_));
      if (unique_) {
        found_rank(m_, m_);
        return;
      }
    }
    stats().add("rank_drops");
    if (!dense_workspace_) bind_dense_workspace();
    problem_->mass_matrix(t, q_, M_);
    problem_->jacobian(t, q_, J_);
    solve_prioritized(t);
  }

  void factor_mass(double t) {
    llt_.compute(M_);
    if (llt_.info() != Eigen::Success) fail_not_positive_definite("mass matrix", t);
    a_f_ = Q_;
    llt_.solveInPlace(a_f_);
  }

  void solve_prioritized(double t) {
    factor_mass(t);
    Bt_ = J_.transpose();
    lower_solve_in_place(llt_, Bt_);
    B_ = Bt_.transpose();
    r_.noalias() = gamma_ - J_.lazyProduct(a_f_);
    z_.setZero();
    P_.setIdentity();
    unique_ = true;
    for (Level& level : levels_) {
      const int rows = static_cast<int>(level.rows.size());
      for (int i = 0; i < rows; ++i) {
        level.B.row(i) = B_.row(level.rows[i]);
        level.r(i) = r_(level.rows[i]);
      }
      level.r.noalias() -= level.B.lazyProduct(z_);  // what this level still asks for
      level.A.noalias() = level.B.lazyProduct(P_);
      level.svd.compute(level.A, rank_tol_);
      if (levels_.size() == 1) {  // the rank hold covers the single-level minimizer only
        found_rank(level.svd.rank(), level.svd.rank_above(std::sqrt(rank_tol_)));
        level.svd.limit_rank(rank_cap());
      }
      if (level.svd.rank() < rows) unique_ = false;
      level.svd.solve(level.r, w_);
      z_ += w_;
      const auto V_r = level.svd.V().leftCols(level.svd.rank());
      P_.noalias() -= V_r.lazyProduct(V_r.transpose());
    }
    w_ = z_;
    llt_.matrixU().solveInPlace(w_);  // L⁻ᵀ z
    qdd_ = a_f_ + w_;
    // −Bᵀλ = z in the least-squares sense (z is the constraint force in the scaled variables).
    svd_all_.compute(B_, rank_tol_);
    if (levels_.size() == 1) svd_all_.limit_rank(rank_cap());
    svd_all_.solve_transposed(z_, lambda_.head(m_));
    lambda_.head(m_) *= -1.0;
  }

  void solve_qp(double t) {
    factor_mass(t);
    const auto& q = q_;
    const auto& v = v_;
    int active = 0;
    if (mu_ > 0) {
      problem_->unilateral_gaps(t, q, gaps_);
      problem_->unilateral_jacobian(t, q, G_);
      problem_->unilateral_acceleration_rhs(t, q, v, d_);
      for (int i = 0; i < mu_; ++i) {
        const double rate = G_.row(i).dot(v);
        if (gaps_(i) <= contact_tol_ && rate <= contact_tol_) {
          G_active_.row(active) = G_.row(i);
          d_active_(active) = d_(i);
          active_rows_[active] = i;
          ++active;
        }
      }
    }
    stats().note_max("max_active_unilateral_rows", active);
    const QpResult result =
        qp_.solve(M_, a_f_, J_, gamma_, G_active_.topRows(active), d_active_.head(active), qp_tol_,
                  qdd_, lambda_.head(m_), lambda_c_.head(active));
    if (!result.ok) {
      std::ostringstream msg;
      msg << "QP solver failed at t = " << t << " (ALGLIB termination code " << result.termination
          << ")";
      throw NumericalFailure(RunStatus::singular, msg.str());
    }
    lambda_.tail(mu_).setZero();
    for (int k = 0; k < active; ++k) lambda_(m_ + active_rows_[k]) = lambda_c_(k);
    unique_ = false;  // not assessed on this path
  }

  bool force_qp_;
  double softness_, rank_tol_, contact_tol_, qp_tol_;
  std::string linear_solver_;
  bool dense_workspace_ = false;
  int mu_ = 0;
  bool unique_ = true;
  std::vector<Level> levels_;
  SchurKktSolver schur_;
  Eigen::LLT<Mat> llt_;
  PaddedSvd svd_all_;
  DenseQp qp_;
  Mat Bt_, B_, P_, G_, G_active_;
  Vec a_f_, z_, w_, r_, gaps_, d_, d_active_, lambda_c_;
  std::vector<int> active_rows_;
};

}  // namespace
}  // namespace cmb

CMB_DEFINE_METHOD(gauss_qp) {
  cmb::MethodEntry entry;
  entry.id = "gauss_qp";
  entry.display_name = "Gauss QP";
  entry.summary =
      "Gauss's principle as a QP: exact equality fast path, priority levels, "
      "unilateral rows via ALGLIB, MuJoCo-style softness";
  entry.capabilities.redundant = true;
  entry.capabilities.singular = true;
  entry.capabilities.nonholonomic = true;
  entry.capabilities.inequality = true;
  entry.params = cmb::baumgarte_param_specs(nullptr);
  const cmb::ParamSpec solver =
      cmb::choice_param("solver", {"auto", "qp"},
                        "auto: exact fast paths where they apply; qp: always the QP library");
  cmb::ParamSpec rank_tol = cmb::positive_number(
      "rank_tol", 1e-9,
      "Schur pivot ratio below which J counts as rank-deficient (then SVD cutoff)");
  rank_tol.max = 1.0;
  entry.params.push_back(solver);
  entry.params.push_back(cmb::nonnegative_number(
      "softness", 0.0, "R = softness·diag(J M^-1 J^T): 0 = hard constraints"));
  entry.params.push_back(rank_tol);
  entry.params.push_back(cmb::positive_number(
      "contact_tol", 1e-9, "a unilateral row is closed when g and g' are below this"));
  entry.params.push_back(
      cmb::positive_number("qp_tol", 1e-12, "stopping tolerance of the QP solver"));
  entry.params.push_back(cmb::choice_param(
      "linear_solver", {"auto", "dense", "sparse"},
      "equality fast path: dense Schur complement or sparse LDLᵀ of [M Jᵀ; J 0] (problems with "
      "sparse evaluation); auto: sparse wherever it applies"));
  entry.make = [](const cmb::Params& p) { return std::make_unique<cmb::GaussQp>(p); };
  return entry;
}
