// J as the problem sends it (Problem::jacobian_entries): the (row, col) sequence recorded once,
// then only the values, in that order, at every evaluation — no dense m × n matrix. What RATTLE's
// sparse path needs from it: J x, Jᵀ y, and the m × m products J_a D J_bᵀ (D diagonal, J_a and J_b
// two evaluations with the same pattern) assembled into a SparseLu.
#pragma once

#include <vector>

#include "core/problem.hpp"
#include "core/types.hpp"
#include "integrators/base/sparse_lu.hpp"

namespace cmb {

class JacobianEntries : public SparseSink {
 public:
  // Records the pattern from one evaluation at (t, q) (allocates; later evaluations do not).
  void record(const Problem& problem, double t, CVecRef q);
  // The values at (t, q). Throws std::logic_error when the problem sends another sequence.
  void evaluate(const Problem& problem, double t, CVecRef q);

  // out = J x (out has m entries), out = Jᵀ y (n entries).
  void multiply(CVecRef x, VecRef out) const;
  void multiply_transpose(CVecRef y, VecRef out) const;

  const std::vector<int>& rows() const { return rows_; }
  const std::vector<int>& cols() const { return cols_; }
  const std::vector<double>& values() const { return values_; }

 private:
  void put(int row, int col, double value) override;

  std::vector<int> rows_, cols_;
  std::vector<double> values_;
  std::size_t next_ = 0;
  bool recording_ = false;
};

// The terms of J_a D J_bᵀ for one pattern: entry pairs (e, f) in the same column k, each adding
// J_a[e]·d_k·J_b[f] at (row e, row f).
class DiagonalProductPlan {
 public:
  void build(const JacobianEntries& pattern);
  // Assembles J_a D J_bᵀ into `lu` (begin, the terms, factorize) and returns the pivot ratio.
  double factorize(const JacobianEntries& a, CVecRef d, const JacobianEntries& b,
                   SparseLu& lu) const;

 private:
  struct Term {
    int e, f, column;
  };
  std::vector<Term> terms_;
  std::vector<int> rows_;
};

}  // namespace cmb
