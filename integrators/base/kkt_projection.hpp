// generalized_alpha's optional projections after a step, at (t, q_{n+1}): v onto J v = ν
// mass-orthogonally, [M Jᵀ; J 0][Δv; μ] = [0; ν − J v], then (with `acceleration`) q̈ and λ from
// the KKT system at the projected state, the mass-orthogonal projection of q̈ onto J q̈ = γ.
// Dense with the constraint rows scaled by κ (the iteration matrix's scaling; λ = κμ), or by the
// sparse KKT solver on the sparse path. Allocation-free after bind.
// Header-only: it needs no build rule of its own.
#pragma once

#include "core/errors.hpp"
#include "core/sparse_kkt.hpp"
#include "core/types.hpp"
#include "integrators/base/dense_lu.hpp"
#include "integrators/base/index3_terms.hpp"

namespace cmb {

// The constraint blocks of a saddle-point matrix [· κJᵀ; κJ 0] whose top-left block is M-sized.
inline void fill_constraint_blocks(Mat& A, const Mat& J, double kappa) {
  const Eigen::Index n = J.cols(), m = J.rows();
  A.topRightCorner(n, m) = kappa * J.transpose();
  A.bottomLeftCorner(m, n) = kappa * J;
  A.bottomRightCorner(m, m).setZero();
}

class KktProjection {
 public:
  void bind(int n, int m, bool sparse) {
    n_ = n;
    m_ = m;
    sparse_ = sparse;
    lu_.bind(sparse ? 0 : n + m);
    rows_.setZero(m);
    b_.setZero(n + m);
    zero_.setZero(n);
    forces_.setZero(n);
  }

  // Projects v (and with `acceleration` sets qdd, lambda) at (t, q); `what` names the caller in
  // failures.
  void project(Index3Terms& terms, double t, CVecRef q, VecRef v, VecRef qdd, VecRef lambda,
               bool acceleration, double kappa, double pivot_tol) {
    if (sparse_) return project_sparse(terms, t, q, v, qdd, lambda, acceleration, pivot_tol);
    const Problem& problem = terms.problem();
    terms.matrices(t, q);
    Mat& P = lu_.matrix();
    P.topLeftCorner(n_, n_) = terms.M();
    fill_constraint_blocks(P, terms.J(), kappa);
    require_regular(lu_.factorize(), pivot_tol, t,
                    "generalized_alpha: projection matrix [M Jᵀ; J 0]");
    problem.velocity_rhs(t, q, rows_);
    rows_.noalias() -= terms.J() * v;
    b_.head(n_).setZero();
    b_.tail(m_) = kappa * rows_;
    lu_.solve_in_place(b_);
    v += b_.head(n_);
    if (!acceleration) return;
    problem.forces(t, q, v, b_.head(n_));
    problem.acceleration_rhs(t, q, v, rows_);
    b_.tail(m_) = kappa * rows_;
    lu_.solve_in_place(b_);
    qdd = b_.head(n_);
    lambda = kappa * b_.tail(m_);
  }

 private:
  // The same projections by the sparse KKT solver (its λ is unscaled).
  void project_sparse(Index3Terms& terms, double t, CVecRef q, VecRef v, VecRef qdd, VecRef lambda,
                      bool acceleration, double pivot_tol) {
    const Problem& problem = terms.problem();
    SparseKktSolver& kkt = terms.sparse_kkt();
    if (!kkt.evaluate(t, q))
      require_finite(false, "generalized_alpha: M or J at the projection", t);
    problem.velocity_rhs(t, q, rows_);
    kkt.jacobian_times(v, b_.tail(m_));
    rows_ -= b_.tail(m_);
    if (!kkt.solve(zero_, rows_, pivot_tol, b_.head(n_), b_.tail(m_)))
      require_regular(0.0, pivot_tol, t, "generalized_alpha: projection matrix [M Jᵀ; J 0]");
    v += b_.head(n_);
    if (!acceleration) return;
    problem.forces(t, q, v, forces_);
    problem.acceleration_rhs(t, q, v, rows_);
    kkt.solve_factorized(forces_, rows_, qdd, lambda);
  }

  int n_ = 0, m_ = 0;
  bool sparse_ = false;
  DenseLu lu_;
  Vec rows_, b_, zero_, forces_;
};

}  // namespace cmb
