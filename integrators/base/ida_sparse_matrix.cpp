#include "integrators/base/ida_sparse_matrix.hpp"

#include <algorithm>

namespace cmb {

namespace {

// Receives the entries of J once, at bind: the pattern.
class PatternSink : public SparseSink {
 public:
  explicit PatternSink(std::vector<std::pair<int, int>>& entries) : entries_(entries) {}

 private:
  void put(int row, int col, double) override { entries_.emplace_back(row, col); }
  std::vector<std::pair<int, int>>& entries_;
};

// Takes entries and drops them: the tangent C where only K is wanted.
class DiscardSink : public SparseSink {
 private:
  void put(int, int, double) override {}
};

// Sends J's entries to where ida's matrix holds them (rows and columns of ida_residual.hpp):
// Jᵀ in the dynamic rows' λ columns, and per formulation ggl's J_hᵀ (μ columns), J_h (Φ rows)
// and J (velocity rows' v columns), or index1's c_j J (acceleration rows' v columns).
class JacobianBlocksSink : public SparseSink {
 public:
  JacobianBlocksSink(SparseAssembly& matrix, IdaFormulation formulation, int n, int m, double cj)
      : matrix_(matrix), ggl_(formulation == IdaFormulation::ggl), n_(n), m_(m), cj_(cj) {}

 private:
  void put(int row, int col, double value) override {
    matrix_.add(n_ + col, 2 * n_ + row, value);
    if (!ggl_) {
      matrix_.add(2 * n_ + row, n_ + col, cj_ * value);
      return;
    }
    matrix_.add(col, 2 * n_ + m_ + row, value);  // all rows are holonomic (mh = m)
    matrix_.add(2 * n_ + row, col, value);
    matrix_.add(2 * n_ + m_ + row, n_ + col, value);
  }
  SparseAssembly& matrix_;
  bool ggl_;
  int n_, m_;
  double cj_;
};

}  // namespace

std::vector<int> colour_columns(int columns, const std::vector<std::pair<int, int>>& entries) {
  int rows = 0;
  for (const auto& [row, col] : entries) rows = std::max(rows, row + 1);
  std::vector<std::vector<int>> rows_of_column(columns), columns_of_row(rows);
  for (const auto& [row, col] : entries) {
    rows_of_column[col].push_back(row);
    columns_of_row[row].push_back(col);
  }
  std::vector<int> colour(columns, -1);
  std::vector<int> taken_by;  // taken_by[c] == j: colour c is used by a neighbour of column j
  for (int j = 0; j < columns; ++j) {
    if (rows_of_column[j].empty()) continue;
    for (int row : rows_of_column[j])
      for (int other : columns_of_row[row])
        if (colour[other] >= 0) taken_by[colour[other]] = j;
    int c = 0;
    while (c < static_cast<int>(taken_by.size()) && taken_by[c] == j) ++c;
    if (c == static_cast<int>(taken_by.size())) taken_by.push_back(-1);
    colour[j] = c;
  }
  return colour;
}

void IdaSparseMatrix::bind(const Problem& problem, IdaFormulation formulation) {
  const Sizes s = problem.sizes();
  problem_ = &problem;
  formulation_ = formulation;
  n_ = s.nq;
  m_ = s.mh;  // the sparse path takes holonomic rows only
  size_ = 2 * n_ + m_ + (formulation == IdaFormulation::ggl ? m_ : 0);
  constraint_row0_ = formulation == IdaFormulation::ggl ? 2 * n_ + m_ : 2 * n_;
  for (Vec* v : {&q_, &v_, &vp_, &zero_a_, &perturbed_, &delta_}) v->setZero(n_);
  for (Vec* v : {&lambda_, &mu_, &zero_w_, &g0_, &g_, &nu_, &gamma_}) v->setZero(m_);
  problem.initial_state(q_, v_);
  positions_.clear();
  PatternSink pattern(positions_);
  problem.jacobian_entries(0.0, q_, pattern);
  colour_ = colour_columns(n_, positions_);
  colour_count_ = 0;
  for (int c : colour_) colour_count_ = std::max(colour_count_, c + 1);
  std::sort(positions_.begin(), positions_.end());
  positions_.erase(std::unique(positions_.begin(), positions_.end()), positions_.end());
  derivative_.setZero(static_cast<Eigen::Index>(positions_.size()));
  // One assembly at the initial state fixes the pattern (its values do not matter).
  Vec y = Vec::Zero(size_), yp = Vec::Zero(size_), ewt = Vec::Ones(size_);
  y.head(n_) = q_;
  y.segment(n_, n_) = v_;
  matrix_.reset(size_);
  assemble(0.0, 1.0, y.data(), yp.data(), ewt.data(), 1.0);
  evaluations_ = 0;
}

bool IdaSparseMatrix::assemble(double t, double cj, const double* y_data, const double* yp_data,
                               const double* ewt, double h) {
  const Eigen::Map<const Vec> y(y_data, size_), yp(yp_data, size_);
  q_ = y.head(n_);
  v_ = y.segment(n_, n_);
  vp_ = yp.segment(n_, n_);
  lambda_ = y.segment(2 * n_, m_);
  if (formulation_ == IdaFormulation::ggl) mu_ = y.tail(m_);
  matrix_.begin();
  add_exact_blocks(t, cj);
  differences(t, 0, yp_data, ewt, h);
  add_differences(0);
  if (formulation_ == IdaFormulation::index1) {  // γ depends on v
    differences(t, 1, yp_data, ewt, h);
    add_differences(n_);
  }
  matrix_.finish();
  const std::vector<double>& values = matrix_.values();
  return std::all_of(values.begin(), values.end(), [](double x) { return std::isfinite(x); });
}

void IdaSparseMatrix::add_exact_blocks(double t, double cj) {
  for (int i = 0; i < n_; ++i) {
    matrix_.add(i, i, cj);         // q' in the kinematic rows
    matrix_.add(i, n_ + i, -1.0);  // −v
  }
  AssemblySink mass(matrix_, cj, n_, n_);
  problem_->mass_matrix_entries(t, q_, mass);
  // Dynamic rows: ∂(M v' − Q + Jᵀλ)/∂q = K(v', λ) and ∂/∂v = C.
  AssemblySink k_dynamic(matrix_, 1.0, n_, 0), c_dynamic(matrix_, 1.0, n_, n_);
  problem_->residual_tangent_entries(t, q_, v_, vp_, lambda_, k_dynamic, c_dynamic);
  JacobianBlocksSink blocks(matrix_, formulation_, n_, m_, cj);
  problem_->jacobian_entries(t, q_, blocks);
  if (formulation_ != IdaFormulation::ggl) return;
  // Kinematic rows: ∂(J_hᵀμ)/∂q = K(0, μ) − K(0, 0), K being affine in w.
  DiscardSink unused;
  AssemblySink with_mu(matrix_, 1.0), without(matrix_, -1.0);
  problem_->residual_tangent_entries(t, q_, v_, zero_a_, mu_, with_mu, unused);
  problem_->residual_tangent_entries(t, q_, v_, zero_a_, zero_w_, without, unused);
}

void IdaSparseMatrix::constraint_rows(double t, CVecRef q, CVecRef v, VecRef g) {
  ++evaluations_;
  if (formulation_ == IdaFormulation::ggl) {
    ProductSink jv(v_, g);  // v_ is v here: only q is perturbed in ggl
    problem_->jacobian_entries(t, q, jv);
    problem_->velocity_rhs(t, q, nu_);
    g -= nu_;
    return;
  }
  ProductSink jvp(vp_, g);
  problem_->jacobian_entries(t, q, jvp);
  problem_->acceleration_rhs(t, q, v, gamma_);
  g -= gamma_;
}

void IdaSparseMatrix::differences(double t, int block, const double* yp, const double* ewt,
                                  double h) {
  const Vec& base = block == 0 ? q_ : v_;
  const int offset = block * n_;
  constraint_rows(t, q_, v_, g0_);
  for (int j = 0; j < n_; ++j)
    delta_(j) = ida_increment(base(j), yp[offset + j], h, ewt[offset + j]);
  for (int c = 0; c < colour_count_; ++c) {
    perturbed_ = base;
    for (int j = 0; j < n_; ++j)
      if (colour_[j] == c) perturbed_(j) += delta_(j);
    if (block == 0)
      constraint_rows(t, perturbed_, v_, g_);
    else
      constraint_rows(t, q_, perturbed_, g_);
    for (std::size_t k = 0; k < positions_.size(); ++k) {
      const auto [row, col] = positions_[k];
      if (colour_[col] == c) derivative_(k) = (g_(row) - g0_(row)) / delta_(col);
    }
  }
}

void IdaSparseMatrix::add_differences(int col_offset) {
  for (std::size_t k = 0; k < positions_.size(); ++k)
    matrix_.add(constraint_row0_ + positions_[k].first, col_offset + positions_[k].second,
                derivative_(k));
}

}  // namespace cmb
