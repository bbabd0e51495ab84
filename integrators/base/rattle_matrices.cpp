#include "integrators/base/rattle_matrices.hpp"

#include <cmath>
#include <sstream>

#include "integrators/base/linear_solver_choice.hpp"

namespace cmb {
namespace {

// auto's sparse path from this many rows on. The sparse path is faster even on spatial_chain
// N = 1 (m = 9: docs/integrators.md, rattle's sparse path); the threshold keeps the small
// mechanisms of the committed sets (pendulum, crank-rocker, tops: m <= 8) on the dense path, whose
// results they hold to the last bit.
constexpr int kSparseFromRows = 16;

// J W coefficient by coefficient below this many rows (a blocked product's set-up costs more than
// it saves there: crank-rocker, m = 8, 2.5x faster per step), blocked from it on (spatial_chain
// N = 32, m = 288: lazily 85 ms per step).
constexpr int kBlockedProductRows = 32;

// What the sparse path needs that the problem lacks ("" when it has it all): J and M as entries,
// and a diagonal M (W = M⁻¹Jᵀ keeps J's pattern, J M⁻¹Jᵀ is then sparse), judged on M's entries
// at the initial state (rattle's bind has refused an M that varies).
std::string sparse_path_missing(const Problem& problem) {
  if (!problem.has_sparse_evaluation())
    return "the problem's sparse entries of M and J (it has no sparse evaluation)";
  const Sizes s = problem.sizes();
  Vec q(s.nq), v(s.nq);
  problem.initial_state(q, v);
  struct OffDiagonal : SparseSink {
    bool found = false;
    void put(int row, int col, double value) override { found |= row != col && value != 0.0; }
  } off;
  problem.mass_matrix_entries(0.0, q, off);
  return off.found ? "a diagonal mass matrix" : "";
}

// Whether a Cholesky factor's squared pivots stay above tol times the largest.
bool pivots_regular(const Eigen::LLT<Mat>& llt, double tol) {
  if (llt.matrixLLT().rows() == 0) return true;
  const auto d = llt.matrixLLT().diagonal().cwiseAbs2();
  return d.minCoeff() > tol * d.maxCoeff();
}

}  // namespace

void RattleMatrices::bind(const Problem& problem, const std::string& linear_solver,
                          double pivot_tol) {
  problem_ = &problem;
  n_ = problem.sizes().nq;
  m_ = problem.sizes().mh;
  pivot_tol_ = pivot_tol;
  sparse_ = choose_sparse_path("rattle", linear_solver, sparse_path_missing(problem), m_,
                               kSparseFromRows);
  const int dense_n = sparse_ ? 0 : n_, dense_m = sparse_ ? 0 : m_;
  M_.setZero(dense_n, dense_n);
  mass_.compute(Mat::Identity(dense_n, dense_n));
  inverse_mass_diagonal_.setOnes(n_);
  J_.setZero(dense_m, dense_n);
  W_.setZero(dense_n, dense_m);
  velocity_block_.setZero(dense_m, dense_m);
  velocity_matrix_.compute(Mat::Identity(dense_m, dense_m));
  newton_matrix_.bind(dense_m);
  newton_lu_.reset(m_);
  velocity_lu_.reset(m_);
  jt_x_.setZero(n_);
}

std::string RattleMatrices::set_mass(double t, CVecRef q) {
  if (sparse_) return set_diagonal_mass(t, q);
  problem_->mass_matrix(t, q, M_);
  mass_.compute(M_);
  diagonal_mass_ = M_.isDiagonal(0.0);
  inverse_mass_diagonal_ = M_.diagonal().cwiseInverse();
  return mass_.info() == Eigen::Success ? "" : "the mass matrix is not positive definite";
}

// Sparse path: M's diagonal from its entries (never an n × n matrix), and J's pattern.
std::string RattleMatrices::set_diagonal_mass(double t, CVecRef q) {
  struct Diagonal : SparseSink {
    Vec d;
    bool off_diagonal = false;
    void put(int row, int col, double value) override {
      if (row == col)
        d(row) += value;
      else
        off_diagonal |= value != 0.0;
    }
  } mass;
  mass.d.setZero(n_);
  problem_->mass_matrix_entries(t, q, mass);
  if (mass.off_diagonal) return "the mass matrix is not diagonal (the sparse path needs one)";
  if (!(mass.d.array() > 0.0).all() || !mass.d.allFinite())
    return "the mass matrix is not positive definite";
  diagonal_mass_ = true;
  inverse_mass_diagonal_ = mass.d.cwiseInverse();
  J_n_.record(*problem_, t, q);
  J_k_.record(*problem_, t, q);
  plan_.build(J_n_);
  return "";
}

void RattleMatrices::end_of_step(double t, CVecRef q) {
  const char* what = "J M⁻¹Jᵀ (the velocity half's matrix)";
  if (sparse_) {
    J_n_.evaluate(*problem_, t, q);
    const double ratio = plan_.factorize(J_n_, inverse_mass_diagonal_, J_n_, velocity_lu_);
    require_finite(std::isfinite(ratio), "rattle: J or J M⁻¹Jᵀ", t);
    if (!(ratio > pivot_tol_))
      throw NumericalFailure(RunStatus::singular, singular_message(what, t));
    return;
  }
  problem_->jacobian(t, q, J_);
  W_ = J_.transpose();
  solve_with_mass(W_);
  require_finite(W_.allFinite(), "rattle: J or M⁻¹Jᵀ", t);
  multiply_jw(velocity_block_);
  velocity_matrix_.compute(velocity_block_);
  if (velocity_matrix_.info() != Eigen::Success || !pivots_regular(velocity_matrix_, pivot_tol_))
    throw NumericalFailure(RunStatus::singular, singular_message(what, t));
}

double RattleMatrices::form_newton(double t, CVecRef q) {
  if (sparse_) {
    J_k_.evaluate(*problem_, t, q);
    return plan_.factorize(J_k_, inverse_mass_diagonal_, J_n_, newton_lu_);
  }
  problem_->jacobian(t, q, J_);  // end_of_step evaluates J(q_{n+1}) again
  multiply_jw(newton_matrix_.matrix());
  return newton_matrix_.factorize();
}

void RattleMatrices::multiply_jw(Mat& out) const {
  if (m_ < kBlockedProductRows)
    out.noalias() = J_.lazyProduct(W_);
  else
    out.noalias() = J_ * W_;
}

std::string RattleMatrices::singular_message(const char* what, double t) const {
  std::ostringstream msg;
  msg << "rattle: " << what << " is singular at t = " << t << " (pivot ratio below " << pivot_tol_
      << "): J has lost row rank (redundant rows or a singular configuration)";
  return msg.str();
}

}  // namespace cmb
