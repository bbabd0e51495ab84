// What the index-3 integrators (generalized_alpha, ali3p) evaluate besides their recurrences:
// the force residual r = M(q) a − Q(t, q, v) + J(q)ᵀw (w the multipliers, or λ* + αΦ in the
// penalty form), its tangents K = ∂r/∂q and C = −∂Q/∂v by forward difference quotients, dense M
// and J for the iteration matrices, the consistent start (the KKT solve) and the refusals of what
// neither integrator handles. Allocation-free after bind, except kkt_start (a run's start only).
// Header-only: it needs no build rule of its own.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>

#include "core/errors.hpp"
#include "core/method.hpp"
#include "core/params.hpp"
#include "core/problem.hpp"
#include "core/schur_kkt.hpp"
#include "core/types.hpp"

namespace cmb {

// out = Aᵀy from the entries of A as they are sent: Jᵀλ at O(nnz), the transpose of ProductSink.
class TransposeProductSink : public SparseSink {
 public:
  TransposeProductSink(const Vec& y, VecRef out) : y_(y), out_(out) { out_.setZero(); }

 private:
  void put(int row, int col, double value) override { out_(col) += value * y_(row); }
  const Vec& y_;
  VecRef out_;
};

// The `multipliers` parameter of both index-3 integrators (Index3Terms::sample_values).
inline ParamSpec multipliers_param() {
  return choice_param("multipliers", {"kkt", "scheme"},
                      "what samples report as q̈ and λ: the KKT solution at the step's (q, v), or "
                      "the scheme's iterates (rounding grows like 1/h²)");
}

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
  void bind(const Problem& problem, const std::string& integrator) {
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
    refuse_beyond_dense_size(integrator, s.nq);
    problem_ = &problem;
    n_ = s.nq;
    m_ = s.mh;
    sparse_ = problem.has_sparse_evaluation();
    M_.setZero(n_, n_);
    J_.setZero(m_, n_);
    Jt_.setZero(n_, m_);
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
    schur_.bind(n_, m_);
  }

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
  long tangents(double t, CVecRef q, CVecRef v, CVecRef a, CVecRef w, CVecRef r0, MatRef K,
                MatRef C) {
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

  const Problem* problem_ = nullptr;
  int n_ = 0, m_ = 0;
  bool sparse_ = false;
  double scale_ = 1.0;
  Mat M_, J_, Jt_, Mw_, Jw_;
  Vec Q_, Q0_, a_, w_, jtw_, qp_, vp_, rp_, gamma_;
  SchurKktSolver schur_;
};

}  // namespace cmb
