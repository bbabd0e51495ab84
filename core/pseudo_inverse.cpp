#include "core/pseudo_inverse.hpp"

#include <cmath>
#include <limits>

namespace cmb {
namespace {

// x ← (I − τ v vᵀ) x over `len` entries, v = [1, essential…]: plain loops, as the catalog's
// matrices are small enough that Eigen's dynamic-size expression set-up would dominate.
inline void reflect_raw(const double* v, double tau, int len, double* x) {
  double w = x[0];
  for (int i = 1; i < len; ++i) w += v[i] * x[i];
  w *= tau;
  x[0] -= w;
  for (int i = 1; i < len; ++i) x[i] -= w * v[i];
}

}  // namespace

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
  R_inv_.setZero(rows, rows);
  Rt_.setZero(rows, rows);
  work_n_.setZero(cols);
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
  if (max_rank >= rows_ && invert_r()) {
    double r_norm_sq = 0.0, inv_norm_sq = 0.0;
    for (int j = 0; j < rows_; ++j)
      for (int i = 0; i <= j; ++i) {
        r_norm_sq += At_(i, j) * At_(i, j);
        inv_norm_sq += R_inv_(i, j) * R_inv_(i, j);
      }
    const double ratio_bound = 1.0 / std::sqrt(r_norm_sq * inv_norm_sq);  // ≤ σ_m / σ₁
    if (std::isfinite(ratio_bound) && ratio_bound > confident_tol) {
      rank_ = confident_rank_ = rows_;
      smallest_bound_ = 1.0 / std::sqrt(inv_norm_sq);  // σ_m = 1/‖R⁻¹‖₂ ≥ 1/‖R⁻¹‖_F
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
    double* c = &At_(k, k);
    const int len = cols_ - k;
    double tail_sq = 0.0;
    for (int i = 1; i < len; ++i) tail_sq += c[i] * c[i];
    // The reflector that maps c to (β, 0, …, 0), stored as τ and v = [1, c[1..]/(c₀ − β)]
    // (Eigen's makeHouseholder convention; τ = 0 when the column is already reduced).
    if (tail_sq <= std::numeric_limits<double>::min()) {
      tau_(k) = 0.0;
      for (int i = 1; i < len; ++i) c[i] = 0.0;
      continue;
    }
    double beta = std::sqrt(c[0] * c[0] + tail_sq);
    if (c[0] >= 0.0) beta = -beta;
    const double scale = 1.0 / (c[0] - beta);
    for (int i = 1; i < len; ++i) c[i] *= scale;
    tau_(k) = (beta - c[0]) / beta;
    for (int j = k + 1; j < rows_; ++j) reflect_raw(c, tau_(k), len, &At_(k, j));
    c[0] = beta;
  }
}

// R⁻¹ (R = the upper triangle of At_) by back substitution, column by column (R⁻¹ is upper
// triangular too). False when R has a zero on its diagonal.
bool PseudoInverse::invert_r() {
  for (int j = 0; j < rows_; ++j)
    if (At_(j, j) == 0.0) return false;
  R_inv_.setZero();
  for (int j = 0; j < rows_; ++j) {
    double* x = &R_inv_(0, j);
    x[j] = 1.0;
    for (int k = j; k >= 0; --k) {
      x[k] /= At_(k, k);
      const double* r = &At_(0, k);
      for (int i = 0; i < k; ++i) x[i] -= x[k] * r[i];
    }
  }
  return true;
}

void PseudoInverse::compute_svd(double rel_tol, double confident_tol, int max_rank) {
  used_svd_ = true;
  Rt_ = At_.topRows(rows_).triangularView<Eigen::Upper>().transpose();  // A = Rᵀ Q₁ᵀ
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
void PseudoInverse::apply_q(VecRef x) const {
  double* data = x.data();
  for (int k = rows_ - 1; k >= 0; --k) reflect_raw(&At_(k, k), tau_(k), cols_ - k, data + k);
}

void PseudoInverse::apply_q_adjoint(VecRef x) const {
  double* data = x.data();
  for (int k = 0; k < rows_; ++k) reflect_raw(&At_(k, k), tau_(k), cols_ - k, data + k);
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
    for (int i = 0; i < rows_; ++i) {  // (R⁻¹)ᵀ b: column i of R⁻¹ has rows 0..i
      double sum = 0.0;
      for (int k = 0; k <= i; ++k) sum += R_inv_(k, i) * b(k);
      work_n_(i) = sum;
    }
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
    x.setZero();
    for (int j = 0; j < rows_; ++j) {  // R⁻¹ u, column by column
      const double u = work_n_(j);
      for (int i = 0; i <= j; ++i) x(i) += R_inv_(i, j) * u;
    }
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
  // Reflector by reflector over all columns: the columns' dot products are independent, so
  // they overlap in the pipeline (column by column each waits for the previous reflector).
  for (int j = rows_ - 1; j >= 0; --j)
    for (int c = 0; c < k; ++c) reflect_raw(&At_(j, j), tau_(j), cols_ - j, &N(j, c));
}

}  // namespace cmb
