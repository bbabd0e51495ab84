#include "core/sparse_kkt.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/errors.hpp"

namespace cmb {

// Collects the (row, col) sequence of M's and J's entries as positions in K's upper triangle.
class SparseKktSolver::Recorder : public SparseSink {
 public:
  Recorder(int n, bool jacobian) : n_(n), jacobian_(jacobian) {}
  std::vector<std::pair<int, int>> positions;

 private:
  void put(int row, int col, double) override {
    if (jacobian_)
      positions.emplace_back(col, n_ + row);  // Jᵀ block: (coordinate, n + constraint row)
    else
      positions.emplace_back(row <= col ? row : -1, col);  // M: upper triangle only
  }
  int n_;
  bool jacobian_;
};

// Adds each value into its slot (SparseSink's slot mode); the sending order is the one recorded
// at bind.
class SparseKktSolver::Writer : public SparseSink {
 public:
  Writer(const std::vector<int>& slot, double* values)
      : SparseSink(slot.data(), slot.size(), values) {}
  using SparseSink::sent;

 private:
  void put(int, int, double) override {}  // never called: slot mode adds inline
};

void SparseKktSolver::bind(const Problem& problem, bool identity_mass) {
  problem_ = &problem;
  identity_mass_ = identity_mass;
  const Sizes s = problem.sizes();
  n_ = s.nq;
  m_ = s.m();
  Vec q(n_), v(n_);
  problem.initial_state(q, v);
  Recorder mass(n_, false), jac(n_, true);
  if (!identity_mass) problem.mass_matrix_entries(0.0, q, mass);
  problem.jacobian_entries(0.0, q, jac);
  std::vector<Eigen::Triplet<double>> triplets;
  for (const auto& [r, c] : mass.positions)
    if (r >= 0) triplets.emplace_back(r, c, 0.0);
  for (const auto& [r, c] : jac.positions) triplets.emplace_back(r, c, 0.0);
  for (int i = 0; i < n_ + m_; ++i) triplets.emplace_back(i, i, 0.0);  // every pivot exists
  K_.resize(n_ + m_, n_ + m_);
  K_.setFromTriplets(triplets.begin(), triplets.end());
  K_.makeCompressed();
  auto position = [this](int row, int col) {
    const int* begin = K_.innerIndexPtr() + K_.outerIndexPtr()[col];
    const int* end = K_.innerIndexPtr() + K_.outerIndexPtr()[col + 1];
    return static_cast<int>(std::lower_bound(begin, end, row) - K_.innerIndexPtr());
  };
  slot_.clear();
  for (const auto& [r, c] : mass.positions) slot_.push_back(r >= 0 ? position(r, c) : -1);
  for (const auto& [r, c] : jac.positions) slot_.push_back(position(r, c));
  ldlt_.analyze(K_);
  longest_factor_row_ = ldlt_.longest_row();
  solution_.setZero(n_ + m_);
  multiplier_diagonal_.clear();
  for (int r = 0; r < m_; ++r) multiplier_diagonal_.push_back(position(n_ + r, n_ + r));
  coordinate_diagonal_.clear();
  for (int i = 0; i < n_; ++i) coordinate_diagonal_.push_back(position(i, i));
  jacobian_columns_.assign(n_, {});
  for (int r = 0; r < m_; ++r)
    for (int k = K_.outerIndexPtr()[n_ + r]; k < K_.outerIndexPtr()[n_ + r + 1]; ++k)
      if (K_.innerIndexPtr()[k] < n_) jacobian_columns_[K_.innerIndexPtr()[k]].emplace_back(r, k);
  row_work_.setZero(n_);
  bound_work_.setZero(2 * (n_ + m_));
  touched_.assign(n_, 0);
  mark_.assign(n_, -1);
}

bool SparseKktSolver::evaluate(double t, CVecRef q) {
  double* values = K_.valuePtr();
  std::fill(values, values + K_.nonZeros(), 0.0);
  Writer writer(slot_, values);
  if (identity_mass_)
    for (int s : coordinate_diagonal_) values[s] = 1.0;
  else
    problem_->mass_matrix_entries(t, q, writer);
  problem_->jacobian_entries(t, q, writer);
  if (writer.sent() != slot_.size())
    throw NumericalFailure(RunStatus::invalid_input,
                           "problem '" + problem_->info().id +
                               "' sent a different number of sparse entries than at bind "
                               "(its entry pattern must not change)");
  return Eigen::Map<const Vec>(values, K_.nonZeros()).allFinite();
}

void SparseKktSolver::jacobian_times(CVecRef v, VecRef out) const {
  out.setZero();
  for (int col = n_; col < n_ + m_; ++col)
    for (Eigen::SparseMatrix<double>::InnerIterator it(K_, col); it; ++it)
      if (it.row() < n_) out(col - n_) += it.value() * v(it.row());
}

void SparseKktSolver::jacobian_transpose_times(CVecRef y, VecRef out) const {
  out.setZero();
  for (int col = n_; col < n_ + m_; ++col)
    for (Eigen::SparseMatrix<double>::InnerIterator it(K_, col); it; ++it)
      if (it.row() < n_) out(it.row()) += it.value() * y(col - n_);
}

void SparseKktSolver::mass_times(CVecRef v, VecRef out) const {
  if (identity_mass_) {
    out = v;
    return;
  }
  out.setZero();
  for (int col = 0; col < n_; ++col)
    for (Eigen::SparseMatrix<double>::InnerIterator it(K_, col); it; ++it) {
      out(it.row()) += it.value() * v(col);
      if (it.row() != col) out(col) += it.value() * v(it.row());
    }
}

double SparseKktSolver::smallest_multiplier_pivot() const {
  return m_ > 0 ? ldlt_.diagonal().tail(m_).cwiseAbs().minCoeff()
                : std::numeric_limits<double>::infinity();
}

void SparseKktSolver::set_multiplier_diagonal(double value) {
  for (int s : multiplier_diagonal_) K_.valuePtr()[s] = value;
}

bool SparseKktSolver::factorize_quasi_definite() {
  ldlt_.factorize_in_place(K_);
  if (ldlt_.info() != Eigen::Success) return false;
  const Vec& d = ldlt_.diagonal();
  return d.head(n_).minCoeff() > 0.0 && (m_ == 0 || d.tail(m_).maxCoeff() < 0.0);
}

void SparseKktSolver::solve_in_place(VecRef x) const { ldlt_.solve_in_place(x.data()); }

SparseKktSolver::SingularValueBounds SparseKktSolver::singular_value_bounds(Block block) {
  const int begin = block == Block::coordinates ? 0 : n_;
  const int end = block == Block::coordinates ? n_ : n_ + m_;
  const Eigen::SparseMatrix<double>& L = ldlt_.strict_lower();
  const int* Lp = L.outerIndexPtr();
  const int* Li = L.innerIndexPtr();
  const double* Lx = L.valuePtr();
  const Vec& d = ldlt_.diagonal();
  // Forward pass over the block's columns: C's column sums (‖C‖₁), row sums (‖C‖∞, gathered in
  // row_sum), ‖C‖_F², and x = T⁻¹𝟙 for the comparison matrix T (x_i = 1 + Σ_{j<i} |l_ij| x_j).
  double* x = bound_work_.data();
  double* row_sum = bound_work_.data() + (n_ + m_) - begin;  // row_sum[i], i in [begin, end)
  for (int j = begin; j < end; ++j) {
    row_sum[j] = 0.0;
    x[j] = 1.0;
  }
  double frobenius2 = 0.0, norm1 = 0.0;
  for (int j = begin; j < end; ++j) {
    const double s = std::sqrt(std::abs(d(j)));
    double column = 1.0, column2 = 1.0;
    row_sum[j] += s;
    for (int p = Lp[j]; p < Lp[j + 1] && Li[p] < end; ++p) {
      const double a = std::abs(Lx[p]);
      column += a;
      column2 += a * a;
      row_sum[Li[p]] += a * s;
      x[Li[p]] += a * x[j];
    }
    norm1 = std::max(norm1, s * column);
    frobenius2 += std::abs(d(j)) * column2;
  }
  double norm_inf = 0.0, inverse_inf = 0.0;
  for (int j = begin; j < end; ++j) {
    norm_inf = std::max(norm_inf, row_sum[j]);
    inverse_inf = std::max(inverse_inf, x[j] / std::sqrt(std::abs(d(j))));
  }
  // Backward pass: y = T⁻ᵀ w with w_i = |d_i|^{-1/2} bounds C⁻¹'s column sums (‖C⁻¹‖₁).
  double inverse_1 = 0.0;
  for (int j = end - 1; j >= begin; --j) {
    double y = 1.0 / std::sqrt(std::abs(d(j)));
    for (int p = Lp[j]; p < Lp[j + 1] && Li[p] < end; ++p) y += std::abs(Lx[p]) * x[Li[p]];
    x[j] = y;  // x_j (forward pass) is used up: y_j takes its place for the rows above
    inverse_1 = std::max(inverse_1, y);
  }
  SingularValueBounds bounds;
  bounds.largest = std::min(std::sqrt(frobenius2), std::sqrt(norm1 * norm_inf));
  const double inverse_norm = std::sqrt(inverse_1 * inverse_inf);
  bounds.smallest = std::isfinite(inverse_norm) && inverse_norm > 0.0 ? 1.0 / inverse_norm : 0.0;
  return bounds;
}

double SparseKktSolver::mass_norm_inf() {
  row_work_.setZero();
  for (int col = 0; col < n_; ++col)
    for (Eigen::SparseMatrix<double>::InnerIterator it(K_, col); it; ++it) {
      row_work_(it.row()) += std::abs(it.value());  // stored: upper triangle, row <= col
      if (it.row() != col) row_work_(col) += std::abs(it.value());
    }
  return n_ > 0 ? row_work_.maxCoeff() : 0.0;
}

double SparseKktSolver::jtj_norm_inf() {
  const double* v = K_.valuePtr();
  double largest = 0.0;
  int touched_count = 0;
  row_work_.setZero();
  std::fill(mark_.begin(), mark_.end(), -1);
  for (int i = 0; i < n_; ++i) {
    // Row i of JᵀJ: Σ_r J(r, i) J(r, ·), accumulated densely over the coordinates it touches.
    for (const auto& [r, at_ri] : jacobian_columns_[i])
      for (int k = K_.outerIndexPtr()[n_ + r]; k < K_.outerIndexPtr()[n_ + r + 1]; ++k) {
        const int j = K_.innerIndexPtr()[k];
        if (j >= n_) continue;
        if (mark_[j] != i) {
          mark_[j] = i;
          touched_[touched_count++] = j;
        }
        row_work_(j) += v[at_ri] * v[k];
      }
    double sum = 0.0;
    for (int t = 0; t < touched_count; ++t) {
      sum += std::abs(row_work_(touched_[t]));
      row_work_(touched_[t]) = 0.0;
    }
    touched_count = 0;
    largest = std::max(largest, sum);
  }
  return largest;
}

bool SparseKktSolver::solve(CVecRef Q, CVecRef gamma, double pivot_tol, VecRef qdd, VecRef lambda) {
  ldlt_.factorize_in_place(K_);
  last_largest_pivot_ = 0.0;
  if (ldlt_.info() != Eigen::Success) {
    last_pivot_ratio_ = 0.0;
    return false;
  }
  // Coordinates first: D's head holds M's pivots (> 0), its tail −(J M⁻¹Jᵀ)'s (< 0).
  const Vec& d = ldlt_.diagonal();
  if (d.head(n_).minCoeff() <= 0.0) {
    last_pivot_ratio_ = 0.0;
    return false;
  }
  if (m_ > 0) {
    last_largest_pivot_ = d.tail(m_).cwiseAbs().maxCoeff();
    last_pivot_ratio_ = -d.tail(m_).maxCoeff() / last_largest_pivot_;  // sign-checked
    if (!(last_pivot_ratio_ >= pivot_tol)) return false;
  }
  solve_factorized(Q, gamma, qdd, lambda);
  return true;
}

bool SparseKktSolver::solve_regularized(CVecRef Q, CVecRef gamma, double pivot_tol, VecRef qdd,
                                        VecRef lambda) {
  // An exactly zero pivot stops Eigen's factorization before the pivots are known: then the
  // scale of J M⁻¹Jᵀ is estimated as ‖JᵀJ‖∞ / ‖M‖∞ (J = 0: 1 / ‖M‖∞, λ = 0 for γ = 0).
  double scale = last_largest_pivot_;
  if (!(scale > 0.0)) {
    const double mass = mass_norm_inf();
    if (!(mass > 0.0)) return false;
    scale = jtj_norm_inf() / mass;
    if (!(scale > 0.0)) scale = 1.0 / mass;
  }
  const double epsilon = pivot_tol * scale;
  if (!(epsilon > 0.0)) return false;
  set_multiplier_diagonal(-epsilon);
  const bool ok = factorize_quasi_definite();
  set_multiplier_diagonal(0.0);
  if (!ok) return false;
  solve_factorized(Q, gamma, qdd, lambda);
  return true;
}

void SparseKktSolver::solve_factorized(CVecRef Q, CVecRef gamma, VecRef qdd, VecRef lambda) {
  solution_.head(n_) = Q;
  solution_.tail(m_) = gamma;
  ldlt_.solve_in_place(solution_.data());
  qdd = solution_.head(n_);
  lambda = solution_.tail(m_);
}

}  // namespace cmb
