#include "core/padded_svd.hpp"

#include <algorithm>

namespace cmb {

void PaddedSvd::bind(int rows, int cols) {
  rows_ = rows;
  cols_ = cols;
  const int s = std::max(rows, cols);
  svd_ = Svd(s, s, Eigen::ComputeFullU | Eigen::ComputeFullV);
  padded_.setZero(s, s);
  work_.setZero(s);
}

void PaddedSvd::compute(CMatRef A, double rel_tol) {
  padded_.topLeftCorner(rows_, cols_) = A;
  svd_.compute(padded_);
  const auto& s = svd_.singularValues();
  rank_ = 0;
  while (rank_ < std::min(rows_, cols_) && s(rank_) > rel_tol * s(0)) ++rank_;
}

void PaddedSvd::solve(CVecRef b, VecRef x) {
  const auto& s = singular_values();
  work_.head(rank_).noalias() = U().leftCols(rank_).transpose().lazyProduct(b);
  work_.head(rank_).array() /= s.head(rank_).array();
  x.noalias() = V().leftCols(rank_).lazyProduct(work_.head(rank_));
}

void PaddedSvd::solve_transposed(CVecRef b, VecRef x) {
  const auto& s = singular_values();
  work_.head(rank_).noalias() = V().leftCols(rank_).transpose().lazyProduct(b);
  work_.head(rank_).array() /= s.head(rank_).array();
  x.noalias() = U().leftCols(rank_).lazyProduct(work_.head(rank_));
}

}  // namespace cmb
