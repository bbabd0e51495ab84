// The entries of J at one state on the index-3 integrators' sparse path, kept in the order the
// problem sends them and grouped by row (the pattern is recorded at the first capture): they
// give Jᵀ diag(w) J for ali3p's matrices (each row's entries pairwise, so its pattern is fixed
// because J's is) and the start's row norms and (J M⁻¹Jᵀ)_ii.
// Header-only: it needs no build rule of its own.
#pragma once

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "core/problem.hpp"
#include "core/types.hpp"
#include "integrators/base/sparse_lu.hpp"

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

class JacobianRows : public SparseSink {
 public:
  void bind(int rows) {
    rows_ = rows;
    recorded_ = false;
    values_.clear();
    row_.clear();
    col_.clear();
  }
  void capture(const Problem& problem, double t, CVecRef q) {
    sent_ = 0;
    problem.jacobian_entries(t, q, *this);
    if (!recorded_) group_by_row();
    if (sent_ != values_.size())
      throw std::logic_error("index-3 integrator: the problem's J entry sequence changed");
  }
  void add_weighted_gram(CVecRef weights, SparseLu& lu) const {
    for (int r = 0; r < rows_; ++r)
      for (int a = start_[r]; a < start_[r + 1]; ++a)
        for (int b = start_[r]; b < start_[r + 1]; ++b)
          lu.add(col_[order_[a]], col_[order_[b]],
                 weights(r) * values_[order_[a]] * values_[order_[b]]);
  }
  void row_norms(VecRef row_max, double& norm) const {
    row_max.setZero();
    Vec sums = Vec::Zero(rows_);
    for (std::size_t k = 0; k < values_.size(); ++k) {
      row_max(row_[k]) = std::max(row_max(row_[k]), std::abs(values_[k]));
      sums(row_[k]) += std::abs(values_[k]);
    }
    norm = rows_ ? sums.maxCoeff() : 0.0;
  }
  // (J M⁻¹Jᵀ)_ii at the captured state, by a sparse LU of M and one solve per row (a run's
  // start: it allocates).
  void inverse_mass_diagonal(const Problem& problem, double t, CVecRef q, VecRef out) const {
    const int n = problem.sizes().nq;
    SparseLu mass;
    mass.reset(n);
    mass.begin();
    AssemblySink sink(mass.assembly(), 1.0);
    problem.mass_matrix_entries(t, q, sink);
    mass.factorize();
    Vec x(n);
    for (int r = 0; r < rows_; ++r) {
      x.setZero();
      for (int a = start_[r]; a < start_[r + 1]; ++a) x(col_[order_[a]]) += values_[order_[a]];
      const Vec row = x;
      mass.solve_in_place(x);
      out(r) = row.dot(x);
    }
  }

 private:
  void put(int row, int col, double value) override {
    if (!recorded_) {
      row_.push_back(row);
      col_.push_back(col);
      values_.push_back(value);
    } else if (sent_ < values_.size()) {
      values_[sent_] = value;
    }
    ++sent_;
  }
  void group_by_row() {
    recorded_ = true;
    order_.resize(values_.size());
    for (std::size_t k = 0; k < order_.size(); ++k) order_[k] = static_cast<int>(k);
    std::stable_sort(order_.begin(), order_.end(),
                     [this](int x, int y) { return row_[x] < row_[y]; });
    start_.assign(rows_ + 1, 0);
    for (int r : row_) ++start_[r + 1];
    for (int r = 0; r < rows_; ++r) start_[r + 1] += start_[r];
  }
  int rows_ = 0;
  bool recorded_ = false;
  std::size_t sent_ = 0;
  std::vector<int> row_, col_, order_, start_;
  std::vector<double> values_;
};

}  // namespace cmb
