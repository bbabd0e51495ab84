// SparseKktSolver::Ldlt — the numeric LDLᵀ of K replayed with row patterns recorded at analysis,
// and its triangular solves (core/sparse_kkt.hpp says why).
#include <algorithm>

#include "core/sparse_kkt.hpp"

namespace cmb {

void SparseKktSolver::Ldlt::analyze(const Eigen::SparseMatrix<double>& upper) {
  analyzePattern(upper);
  // Row k of L has its nonzeros where the elimination tree paths from the entries of K's
  // column k (rows ≤ k) meet; Eigen's factorization finds them in this order at every call.
  const int size = static_cast<int>(upper.rows());
  std::vector<int> tags(size), path(size), row(size);
  row_pattern_.clear();
  row_pattern_start_.assign(1, 0);
  for (int k = 0; k < size; ++k) {
    int top = size;
    tags[k] = k;
    for (Eigen::SparseMatrix<double>::InnerIterator it(upper, k); it; ++it) {
      int i = static_cast<int>(it.index());
      if (i > k) continue;
      int len = 0;
      for (; tags[i] != k; i = m_parent[i]) {
        path[len++] = i;
        tags[i] = k;
      }
      while (len > 0) row[--top] = path[--len];
    }
    row_pattern_.insert(row_pattern_.end(), row.begin() + top, row.end());
    row_pattern_start_.push_back(static_cast<int>(row_pattern_.size()));
  }
  // Where each entry of L goes: Eigen's factorization appends l_ki to column i in the order of
  // k, so its position, and the part of column i filled before it, are fixed by the pattern.
  // Recorded once, with L's row indices, they spare the factorization its bookkeeping.
  const int* Lp = m_matrix.outerIndexPtr();
  int* Li = m_matrix.innerIndexPtr();
  std::vector<int> filled(size, 0);
  row_slot_.resize(row_pattern_.size());
  for (int k = 0; k < size; ++k)
    for (int t = row_pattern_start_[k]; t < row_pattern_start_[k + 1]; ++t) {
      const int i = row_pattern_[t];
      row_slot_[t] = Lp[i] + filled[i]++;
      Li[row_slot_[t]] = k;
    }
  for (int i = 0; i < size; ++i) m_nonZerosPerCol[i] = filled[i];
  y_.setZero(size);
}

int SparseKktSolver::Ldlt::longest_row() const {
  int longest = 0;
  for (std::size_t k = 0; k + 1 < row_pattern_start_.size(); ++k)
    longest = std::max(longest, row_pattern_start_[k + 1] - row_pattern_start_[k]);
  return longest;
}

void SparseKktSolver::Ldlt::factorize_in_place(const Eigen::SparseMatrix<double>& upper) {
  const int size = static_cast<int>(upper.rows());
  const int* Lp = m_matrix.outerIndexPtr();
  const int* Li = m_matrix.innerIndexPtr();
  double* Lx = m_matrix.valuePtr();
  const int* Ap = upper.outerIndexPtr();
  const int* Ai = upper.innerIndexPtr();
  const double* Ax = upper.valuePtr();
  const int* slot = row_slot_.data();
  double* y = y_.data();
  m_diag.resize(size);
  bool ok = true;
  for (int k = 0; k < size; ++k) {
    for (int a = Ap[k]; a < Ap[k + 1]; ++a)
      if (Ai[a] <= k) y[Ai[a]] += Ax[a];
    double d = y[k] * m_shiftScale + m_shiftOffset;
    y[k] = 0.0;
    for (int t = row_pattern_start_[k]; t < row_pattern_start_[k + 1]; ++t) {
      const int i = row_pattern_[t];
      const double yi = y[i];
      y[i] = 0.0;
      const double l_ki = yi / m_diag[i];
      for (int p = Lp[i]; p < slot[t]; ++p) y[Li[p]] -= Lx[p] * yi;  // column i above row k
      d -= l_ki * yi;
      Lx[slot[t]] = l_ki;
    }
    m_diag[k] = d;
    if (d == 0.0) {
      ok = false;
      break;
    }
  }
  m_info = ok ? Eigen::Success : Eigen::NumericalIssue;
  m_factorizationIsOk = true;
}

void SparseKktSolver::Ldlt::solve_in_place(double* x) const {
  const int size = static_cast<int>(m_matrix.cols());
  const int* Lp = m_matrix.outerIndexPtr();
  const int* Li = m_matrix.innerIndexPtr();
  const double* Lx = m_matrix.valuePtr();
  for (int i = 0; i < size; ++i) {  // L (unit lower, by columns)
    const double xi = x[i];
    if (xi != 0.0)
      for (int p = Lp[i]; p < Lp[i + 1]; ++p) x[Li[p]] -= xi * Lx[p];
  }
  for (int i = 0; i < size; ++i) x[i] /= m_diag[i];
  for (int i = size - 1; i >= 0; --i) {  // Lᵀ (unit upper, by rows = L's columns)
    double xi = x[i];
    for (int p = Lp[i]; p < Lp[i + 1]; ++p) xi -= Lx[p] * x[Li[p]];
    x[i] = xi;
  }
}

}  // namespace cmb
