#include "core/pseudo_inverse.hpp"

#include <cmath>

namespace cmb {

void PseudoInverse::bind(int rows, int cols) {
  rows_ = rows;
  cols_ = cols;
  wide_path_ = rows > cols;
  if (wide_path_) {
    wide_.bind(rows, cols);
    return;
  }
  tau_.setZero(rows);
  svd_ = Svd(rows, rows, Eigen::ComputeFullU | Eigen::ComputeFullV);
  At_.setZero(cols, rows);
  R_.setZero(rows, rows);
  R_inv_.setZero(rows, rows);
  Rt_.setZero(rows, rows);
  work_n_.setZero(cols);  // also the workspace of a reflector applied to ≤ cols columns
  work_m_.setZero(rows);
}

void PseudoInverse::compute(CMatRef A, double rel_tol, double confident_tol, int max_rank) {
  used_svd_ = false;
  rank_ = confident_rank_ = 0;
  smallest_bound_ = 0.0;
  if (rows_ == 0) return;
  if (wide_path_) {
    used_svd_ = true;
    wide_.compute(A, rel_tol);
    wide_.limit_rank(max_rank);
    rank_ = wide_.rank();
    confident_rank_ = wide_.rank_above(confident_tol);
    if (rank_ > 0) smallest_bound_ = wide_.singular_values()(rank_ - 1);
    return;
  }
  At_ = A.transpose();
  householder_qr();
  R_ = At_.topRows(rows_).triangularView<Eigen::Upper>();
  if (max_rank >= rows_ && R_.diagonal().cwiseAbs().minCoeff() > 0.0) {
    invert_r();
    const double inv_norm = R_inv_.norm();
    const double ratio_bound = 1.0 / (R_.norm() * inv_norm);  // ≤ σ_m / σ₁
    if (std::isfinite(ratio_bound) && ratio_bound > confident_tol) {
      rank_ = confident_rank_ = rows_;
      smallest_bound_ = 1.0 / inv_norm;  // σ_m = 1/‖R⁻¹‖₂ ≥ 1/‖R⁻¹‖_F
      return;
    }
  }
  compute_svd(rel_tol, confident_tol, max_rank);
}

// Aᵀ = Q R in place in At_ (R on and above the diagonal, the reflectors' essential parts below),
// unblocked and unpivoted: Eigen's QR classes take heap workspace for large m, and the rank
// decision needs no pivoting (the certificate bounds κ(R) = κ(A) for any R).
void PseudoInverse::householder_qr() {
  for (int k = 0; k < rows_; ++k) {
    double beta = 0.0;
    At_.col(k).tail(cols_ - k).makeHouseholderInPlace(tau_(k), beta);
    for (int j = k + 1; j < rows_; ++j) reflect(k, At_.col(j));  // column by column: small m
    At_(k, k) = beta;
  }
}

// R⁻¹ by back substitution, column by column (it is upper triangular too); column j is
// R⁻¹ e_j, formed by axpys along R's columns (contiguous in memory).
void PseudoInverse::invert_r() {
  R_inv_.setZero();
  for (int j = 0; j < rows_; ++j) {
    auto x = R_inv_.col(j);
    x(j) = 1.0;
    for (int k = j; k >= 0; --k) {
      x(k) /= R_(k, k);
      if (k > 0) x.head(k) -= x(k) * R_.col(k).head(k);
    }
  }
}

void PseudoInverse::compute_svd(double rel_tol, double confident_tol, int max_rank) {
  used_svd_ = true;
  Rt_ = R_.transpose();  // A = Rᵀ Q₁ᵀ
  svd_.compute(Rt_);
  const auto& s = svd_.singularValues();
  if (!(s(0) > 0.0)) return;
  while (rank_ < rows_ && s(rank_) > rel_tol * s(0)) ++rank_;
  while (confident_rank_ < rows_ && s(confident_rank_) > confident_tol * s(0)) ++confident_rank_;
  rank_ = std::min(rank_, std::max(max_rank, 0));
  if (rank_ > 0) smallest_bound_ = s(rank_ - 1);
}

// Q = H₀ H₁ ⋯ H_{m−1}, H_k = I − τ_k v_k v_kᵀ with v_k = [0…0, 1, essential part below the
// diagonal of column k]. Applied by hand: Eigen's applyThisOnTheLeft allocates a temporary for
// a dynamic-size vector.
void PseudoInverse::reflect(int k, VecRef x) const {
  const int len = cols_ - k;
  const auto essential = At_.col(k).tail(len - 1);
  const double w = tau_(k) * (x(k) + essential.dot(x.tail(len - 1)));
  x(k) -= w;
  x.tail(len - 1) -= w * essential;
}

void PseudoInverse::apply_q(VecRef x) const {
  for (int k = rows_ - 1; k >= 0; --k) reflect(k, x);
}

void PseudoInverse::apply_q_adjoint(VecRef x) const {
  for (int k = 0; k < rows_; ++k) reflect(k, x);
}

// A⁺ = Q₁ V Σ⁺ Uᵀ on the SVD path, Q₁ R⁻ᵀ on the QR path.
void PseudoInverse::solve(CVecRef b, VecRef x) {
  if (wide_path_) return wide_.solve(b, x);
  work_n_.setZero();
  if (used_svd_) {
    const auto& s = svd_.singularValues();
    work_m_.head(rank_).noalias() = svd_.matrixU().leftCols(rank_).transpose().lazyProduct(b);
    work_m_.head(rank_).array() /= s.head(rank_).array();
    work_n_.head(rows_).noalias() = svd_.matrixV().leftCols(rank_).lazyProduct(work_m_.head(rank_));
  } else if (rows_ > 0) {
    work_n_.head(rows_).noalias() = R_inv_.transpose().triangularView<Eigen::Lower>() * b;
  }
  apply_q(work_n_);
  x = work_n_;
}

// (Aᵀ)⁺ = U Σ⁺ Vᵀ Q₁ᵀ on the SVD path, R⁻¹ Q₁ᵀ on the QR path.
void PseudoInverse::solve_transposed(CVecRef b, VecRef x) {
  if (wide_path_) return wide_.solve_transposed(b, x);
  if (rows_ == 0) return;
  work_n_ = b;
  apply_q_adjoint(work_n_);
  if (used_svd_) {
    const auto& s = svd_.singularValues();
    work_m_.head(rank_).noalias() =
        svd_.matrixV().leftCols(rank_).transpose().lazyProduct(work_n_.head(rows_));
    work_m_.head(rank_).array() /= s.head(rank_).array();
    x.noalias() = svd_.matrixU().leftCols(rank_).lazyProduct(work_m_.head(rank_));
  } else {
    x.noalias() = R_inv_.triangularView<Eigen::Upper>() * work_n_.head(rows_);
  }
}

// null(A) = span{Q₁ V[:, r:m], Q₂}: the discarded right singular directions, then the
// complement of A's row space — Q applied to [V[:, r:m] 0; 0 I], all columns at once.
void PseudoInverse::null_space(MatRef N) {
  const int dropped = rows_ - rank_;
  const int k = cols_ - rank_;
  N.leftCols(k).setZero();
  if (dropped > 0) N.topLeftCorner(rows_, dropped) = svd_.matrixV().rightCols(dropped);
  N.block(rows_, dropped, cols_ - rows_, cols_ - rows_).setIdentity();
  for (int j = rows_ - 1; j >= 0; --j)
    N.block(j, 0, cols_ - j, k)
        .applyHouseholderOnTheLeft(At_.col(j).tail(cols_ - j - 1), tau_(j), work_n_.data());
}

}  // namespace cmb
