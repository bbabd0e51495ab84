// What the index-3 integrators (generalized_alpha, ali3p) evaluate besides their recurrences:
// the force residual r = M(q) a − Q(t, q, v) + J(q)ᵀw (w the multipliers, or λ* + αΦ in the
// penalty form), its tangents K = ∂r/∂q and C = −∂Q/∂v (the problem's own where it declares them,
// else forward difference quotients), M and J for the iteration matrices — dense, or as entries
// added into a SparseLu on the sparse path — the consistent start (the KKT solve), the norms the
// integrators scale by, and the refusals of what neither integrator handles. Allocation-free
// after bind, except at a run's start (pack) and kkt_start on the dense path.
// Header-only: it needs no build rule of its own.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "core/method.hpp"
#include "core/params.hpp"
#include "core/problem.hpp"
#include "core/schur_kkt.hpp"
#include "core/sparse_kkt.hpp"
#include "core/types.hpp"
#include "integrators/base/jacobian_rows.hpp"
#include "integrators/base/linear_solver_choice.hpp"
#include "integrators/base/sparse_lu.hpp"

namespace cmb {

// The `multipliers` parameter of both index-3 integrators (Index3Terms::sample_values).
inline ParamSpec multipliers_param() {
  return choice_param("multipliers", {"kkt", "scheme"},
                      "what samples report as q̈ and λ: the KKT solution at the step's (q, v), or "
                      "the scheme's iterates (rounding grows like 1/h²)");
}

// The scales the integrators take at a run's start: ‖M‖∞, ‖J‖∞, ‖JᵀJ‖∞, and per row ‖J_i‖∞
// and (J M⁻¹Jᵀ)_ii.
struct StartNorms {
  double mass = 0.0, jacobian = 0.0, jtj = 0.0;
  Vec row_max, row_inertia;
};

// Ends the run with status singular unless a factorization's pivot ratio (smallest over largest
// |u_kk|) exceeds threshold; `what` names the integrator and the matrix.
inline void require_regular(double ratio, double threshold, double t, const char* what) {
  if (ratio > threshold) return;
  std::ostringstream msg;
  msg << what << " is singular at t = " << t << " (LU pivot ratio " << ratio << " <= " << threshold
      << "): J has lost row rank (redundant rows or a singular configuration)";
  throw NumericalFailure(RunStatus::singular, msg.str());
}

class Index3Terms {
 public:
  // Refuses nonholonomic and unilateral rows (the index-3 formulations enforce Φ(t, q) = 0
  // only) and more than kMaxDenseCoordinates coordinates (the iteration matrices are dense).
  // needs_tangents: whether the sparse path's caller forms iteration matrices from the residual
  // tangents (RATTLE uses only the KKT solves and does not).
  void bind(const Problem& problem, const std::string& integrator,
            const std::string& linear_solver = "dense", bool needs_tangents = true) {
    const Sizes s = problem.sizes();
    if (s.mn > 0)
      throw NumericalFailure(RunStatus::unsupported,
                             integrator + ": the index-3 formulation enforces holonomic rows " +
                                 "Φ(t, q) = 0 only; this problem has " + std::to_string(s.mn) +
                                 " nonholonomic row(s) A_nh v = c, which have no position-level "
                                 "form to enforce");
    if (s.mu > 0)
      throw NumericalFailure(RunStatus::unsupported,
                             integrator + ": unilateral rows g(t, q) ≥ 0 are not handled");
    problem_ = &problem;
    n_ = s.nq;
    m_ = s.mh;
    sparse_ = problem.has_sparse_evaluation();
    analytic_ = problem.has_residual_tangents();
    needs_tangents_ = needs_tangents;
    sparse_path_ = choose_sparse_path(integrator, linear_solver, sparse_path_missing(), n_ + m_);
    if (!sparse_path_) refuse_beyond_dense_size(integrator, s.nq);
    const int dense = sparse_path_ ? 0 : n_;
    M_.setZero(dense, dense);
    K_.setZero(dense, dense);
    C_.setZero(dense, dense);
    J_.setZero(sparse_path_ ? 0 : m_, dense);
    Jt_.setZero(dense, sparse_path_ ? 0 : m_);
    Mw_.setZero(sparse_ ? 0 : n_, sparse_ ? 0 : n_);
    Jw_.setZero(sparse_ ? 0 : m_, sparse_ ? 0 : n_);
    Q_.setZero(n_);
    Q0_.setZero(n_);
    a_.setZero(n_);
    w_.setZero(m_);
    jtw_.setZero(n_);
    qp_.setZero(n_);
    vp_.setZero(n_);
    rp_.setZero(n_);
    gamma_.setZero(m_);
    if (sparse_path_) {
      kkt_.bind(problem);
      jacobian_rows_.bind(m_);
    } else {
      schur_.bind(n_, m_);
    }
  }

  // Whether the iteration matrices are assembled as entries into SparseLu (else dense).
  bool sparse_path() const { return sparse_path_; }

  int n() const { return n_; }
  int m() const { return m_; }
  const Problem& problem() const { return *problem_; }

  // ℓ = ‖q₀‖∞, the size of the mechanism in its coordinates' units: Newton tolerances and
  // difference increments are relative to it (a run starts at pack, which sets it).
  void set_scale(CVecRef q0) {
    const double size = q0.size() ? q0.lpNorm<Eigen::Infinity>() : 0.0;
    scale_ = size > 0.0 ? size : 1.0;
  }
  double scale() const { return scale_; }

  // Dense M and J at (t, q), for the iteration matrices and projections.
  void matrices(double t, CVecRef q) {
    problem_->mass_matrix(t, q, M_);
    problem_->jacobian(t, q, J_);
  }
  const Mat& M() const { return M_; }
  const Mat& J() const { return J_; }
  // Dense path: K and C from the last tangents().
  const Mat& K() const { return K_; }
  const Mat& C() const { return C_; }

  // r = M(q) a − Q(t, q, v) + J(q)ᵀw, with the problem's sparse entries where it sends them.
  void residual(double t, CVecRef q, CVecRef v, CVecRef a, CVecRef w, VecRef r) {
    if (sparse_) {
      a_ = a;
      w_ = w;
      ProductSink mass_times_a(a_, r);
      problem_->mass_matrix_entries(t, q, mass_times_a);
      TransposeProductSink jacobian_transpose_times_w(w_, jtw_);
      problem_->jacobian_entries(t, q, jacobian_transpose_times_w);
      r += jtw_;
    } else {
      problem_->mass_matrix(t, q, Mw_);
      problem_->jacobian(t, q, Jw_);
      r.noalias() = Mw_ * a;
      r.noalias() += Jw_.transpose() * w;
    }
    problem_->forces(t, q, v, Q_);
    r -= Q_;
  }

  // K = ∂r/∂q at fixed (v, a, w) and C = −∂Q/∂v by forward differences about (q, v), where r0 is
  // the residual. Increments √ε·max(|x_j|, scale) (ε the unit round-off) balance truncation and
  // cancellation to about √ε relative: ample for a Newton iteration matrix. Returns the number
  // of residual and force evaluations (2n + 1), which the integrators count as residual calls.
  // With the problem's own tangents (has_residual_tangents) none are needed and it returns 0.
  long tangents(double t, CVecRef q, CVecRef v, CVecRef a, CVecRef w, CVecRef r0) {
    MatRef K = K_, C = C_;
    if (analytic_) {
      DenseMatrixSink k_sink(K), c_sink(C);
      problem_->residual_tangent_entries(t, q, v, a, w, k_sink, c_sink);
      return 0;
    }
    const double root_eps = std::sqrt(std::numeric_limits<double>::epsilon());
    qp_ = q;
    for (int j = 0; j < n_; ++j) {
      const double d = root_eps * std::max(std::abs(q(j)), scale_);
      qp_(j) = q(j) + d;
      residual(t, qp_, v, a, w, rp_);
      K.col(j) = (rp_ - r0) / d;
      qp_(j) = q(j);
    }
    problem_->forces(t, q, v, Q0_);
    vp_ = v;
    const double speed = std::max(v.size() ? v.lpNorm<Eigen::Infinity>() : 0.0, scale_);
    for (int j = 0; j < n_; ++j) {
      const double d = root_eps * std::max(std::abs(v(j)), speed);
      vp_(j) = v(j) + d;
      problem_->forces(t, q, vp_, Q_);
      C.col(j) = (Q0_ - Q_) / d;
      vp_(j) = v(j);
    }
    return 2L * n_ + 1;
  }

  // Sparse path: the entries of factor·M, of k_factor·K + c_factor·C (the problem's tangents at
  // (t, q, v, a, w)) and of factor·J (at row offset `offset`, mirrored as Jᵀ) into `lu`.
  void add_mass(double t, CVecRef q, double factor, SparseLu& lu) const {
    AssemblySink sink(lu.assembly(), factor);
    problem_->mass_matrix_entries(t, q, sink);
  }
  void add_tangents(double t, CVecRef q, CVecRef v, CVecRef a, CVecRef w, double k_factor,
                    double c_factor, SparseLu& lu) const {
    AssemblySink k_sink(lu.assembly(), k_factor), c_sink(lu.assembly(), c_factor);
    problem_->residual_tangent_entries(t, q, v, a, w, k_sink, c_sink);
  }
  void add_jacobian(double t, CVecRef q, double factor, int offset, SparseLu& lu) const {
    AssemblySink sink(lu.assembly(), factor, offset, 0, true);
    problem_->jacobian_entries(t, q, sink);
  }
  // Sparse path: Jᵀ diag(weights) J at (t, q) into `lu`, row by row of J (each row's entries
  // pairwise: the pattern is fixed because J's is).
  void add_weighted_gram(double t, CVecRef q, CVecRef weights, SparseLu& lu) {
    jacobian_rows_.capture(*problem_, t, q);
    jacobian_rows_.add_weighted_gram(weights, lu);
  }
  // Sparse path: out = M x and out += Jᵀ y at (t, q) from the entries (x, y plain vectors).
  void mass_times(double t, CVecRef q, const Vec& x, VecRef out) const {
    ProductSink sink(x, out);
    problem_->mass_matrix_entries(t, q, sink);
  }
  void add_jacobian_transpose_times(double t, CVecRef q, const Vec& y, VecRef out) {
    TransposeProductSink sink(y, jtw_);
    problem_->jacobian_entries(t, q, sink);
    out += jtw_;
  }
  // Sparse path: the KKT solver (start, samples, generalized_alpha's projections).
  SparseKktSolver& sparse_kkt() { return kkt_; }

  // The start's scales, at (t, q) (pack: may allocate). row_inertia only when asked (it solves
  // with M once per row).
  StartNorms start_norms(double t, CVecRef q, bool row_inertia) {
    StartNorms out;
    out.row_max = Vec::Ones(m_);
    out.row_inertia = Vec::Ones(m_);
    if (!sparse_path_) {
      matrices(t, q);
      out.mass = M_.lpNorm<Eigen::Infinity>();
      out.jacobian = m_ ? J_.lpNorm<Eigen::Infinity>() : 0.0;
      out.jtj = m_ ? (J_.transpose() * J_).lpNorm<Eigen::Infinity>() : 0.0;
      for (int i = 0; i < m_; ++i) out.row_max(i) = J_.row(i).lpNorm<Eigen::Infinity>();
      if (row_inertia && m_ > 0) {
        const Eigen::LLT<Mat> llt(M_);
        const Mat y = llt.matrixL().solve(J_.transpose());
        for (int i = 0; i < m_; ++i) out.row_inertia(i) = y.col(i).squaredNorm();
      }
      return out;
    }
    kkt_.evaluate(t, q);
    out.mass = kkt_.mass_norm_inf();
    out.jtj = m_ ? kkt_.jtj_norm_inf() : 0.0;
    jacobian_rows_.capture(*problem_, t, q);
    jacobian_rows_.row_norms(out.row_max, out.jacobian);
    if (row_inertia && m_ > 0)
      jacobian_rows_.inverse_mass_diagonal(*problem_, t, q, out.row_inertia);
    return out;
  }

  // T += Jᵀ diag(weights) J for the current J, column by column over J's nonzeros:
  // O(nnz(J)·n) where a product would cost O(m·n²), and no heap workspace.
  void add_weighted_jtj(CVecRef weights, MatRef T) {
    Jt_ = J_.transpose();
    for (int j = 0; j < n_; ++j)
      for (int i = 0; i < m_; ++i)
        if (J_(i, j) != 0.0) T.col(j) += (weights(i) * J_(i, j)) * Jt_.col(i);
  }

  // What a sample reports as q̈ and λ (Integrator::rhs). An index-3 scheme fixes q_{n+1} through
  // Φ = 0, so the rounding of q (ε·ℓ) reaches its q̈ and λ amplified by about 1/h² (1/(βh²) for
  // generalized-α, the penalty α ∝ 1/h² for ali3p): below some step their error grows again.
  // With `recover` the sample reports the KKT solution at the state's (q, v) instead — as
  // accurate as q and v, without that amplification — and the scheme's iterates where that
  // system cannot be solved. `unique` says whether λ is the only solution there.
  void sample_values(double t, CVecRef q, CVecRef v, CVecRef qdd_scheme, CVecRef lambda_scheme,
                     bool recover, Vec& qdd, Vec& lambda, bool& unique) {
    unique = true;
    if (recover && kkt_start(t, q, v, qdd, lambda, unique).empty()) return;
    qdd = qdd_scheme;
    lambda = lambda_scheme;
    unique = true;
  }

  // The consistent start: q̈ and λ of [M Jᵀ; J 0][q̈; λ] = [Q; γ] at (t, q, v). Where J has lost
  // row rank (redundant rows) the vanishing pivots of J M⁻¹Jᵀ are dropped, which keeps the
  // unique q̈ and one λ; `unique` tells which. Returns an empty string, or why it failed (the
  // integrator reports it from its first step: pack must not throw).
  std::string kkt_start(double t, CVecRef q, CVecRef v, VecRef qdd, VecRef lambda, bool& unique) {
    if (sparse_path_) return sparse_kkt_start(t, q, v, qdd, lambda, unique);
    matrices(t, q);
    problem_->forces(t, q, v, Q_);
    problem_->acceleration_rhs(t, q, v, gamma_);
    if (!M_.allFinite() || !J_.allFinite() || !Q_.allFinite() || !gamma_.allFinite())
      return "the problem's M, Q, J or γ is not finite at the start";
    SchurOutcome outcome =
        schur_.try_solve(M_, J_, Q_, gamma_, kStartPivotTol, RankPolicy::fail, qdd, lambda);
    if (outcome == SchurOutcome::rank_deficient)
      outcome =
          schur_.try_solve(M_, J_, Q_, gamma_, kStartPivotTol, RankPolicy::truncate, qdd, lambda);
    unique = outcome == SchurOutcome::full_rank;
    if (outcome == SchurOutcome::mass_not_positive_definite)
      return "the mass matrix is not positive definite at the start";
    if (outcome == SchurOutcome::rank_deficient)
      return "J M⁻¹Jᵀ is indefinite at the start (the KKT system has no solution)";
    return "";
  }

 private:
  static constexpr double kStartPivotTol = 1e-12;  // as the methods' default pivot_tol

  std::string sparse_path_missing() const {
    const char* needs = "the problem's sparse entries of M and J and its residual tangents";
    if (!sparse_) return std::string(needs) + " (it has no sparse evaluation)";
    if (needs_tangents_ && !analytic_) return std::string(needs) + " (it has no residual tangents)";
    return "";
  }

  std::string sparse_kkt_start(double t, CVecRef q, CVecRef v, VecRef qdd, VecRef lambda,
                               bool& unique) {
    problem_->forces(t, q, v, Q_);
    problem_->acceleration_rhs(t, q, v, gamma_);
    if (!kkt_.evaluate(t, q) || !Q_.allFinite() || !gamma_.allFinite())
      return "the problem's M, Q, J or γ is not finite at the start";
    unique = true;
    if (kkt_.solve(Q_, gamma_, kStartPivotTol, qdd, lambda)) return "";
    unique = false;
    if (kkt_.solve_regularized(Q_, gamma_, kStartPivotTol, qdd, lambda)) return "";
    return "the mass matrix is not positive definite at the start";
  }

  const Problem* problem_ = nullptr;
  int n_ = 0, m_ = 0;
  bool sparse_ = false, analytic_ = false, needs_tangents_ = true, sparse_path_ = false;
  double scale_ = 1.0;
  Mat M_, J_, Jt_, Mw_, Jw_, K_, C_;
  Vec Q_, Q0_, a_, w_, jtw_, qp_, vp_, rp_, gamma_;
  SchurKktSolver schur_;
  SparseKktSolver kkt_;
  JacobianRows jacobian_rows_;
};

}  // namespace cmb
