// ida's iteration matrix ∂F/∂y + c_j ∂F/∂y' (rows and columns as in ida_residual.hpp) assembled
// sparsely, for problems that send M and J as entries, send their residual tangents, and have
// holonomic rows only. Exact blocks: I, M, J, Jᵀ and the problem's tangents, K(a = v', w = λ) in
// the dynamic rows and K(0, μ) − K(0, 0) = ∂(J_hᵀμ)/∂q in ggl's kinematic rows. The constraint
// rows (ggl: J v − ν; index1: J v' − γ) are differentiated by difference quotients with their
// columns grouped by colour: row r depends only on the coordinates of J's row r (holonomic rows:
// Φ_r, ν_r and γ_r are functions of those alone), so columns that share no row of J are perturbed
// together, and a chain costs a handful of evaluations of the constraint rows per matrix, not n.
#pragma once

#include <utility>
#include <vector>

#include "core/problem.hpp"
#include "core/types.hpp"
#include "integrators/base/ida_dae.hpp"
#include "integrators/base/sparse_assembly.hpp"

namespace cmb {

// A colouring of the columns of a sparse pattern (entries (row, col), duplicates allowed): no two
// columns of one colour share a row. Greedy in column order, smallest free colour first; columns
// without entries get −1. Returns the colour of each of the `columns` columns.
std::vector<int> colour_columns(int columns, const std::vector<std::pair<int, int>>& entries);

class IdaSparseMatrix {
 public:
  // Records J's pattern at the problem's initial state, colours its columns, and fixes the
  // matrix's pattern by one assembly there. Allocation happens here only.
  void bind(const Problem& problem, IdaFormulation formulation);

  // The matrix at (t, y, y') into matrix(): ewt are the error weights and h the step, which set
  // the difference increments. Returns false when an entry is not finite.
  bool assemble(double t, double cj, const double* y, const double* yp, const double* ewt,
                double h);
  const SparseAssembly& matrix() const { return matrix_; }

  int colours() const { return colour_count_; }
  // Evaluations of the constraint rows so far (one per colour and column block per matrix).
  long evaluations() const { return evaluations_; }

 private:
  // g = J(q) v − ν(t, q) (ggl) or J(q) v' − γ(t, q, v) (index1): the constraint rows.
  void constraint_rows(double t, CVecRef q, CVecRef v, VecRef g);
  // Difference quotients of the constraint rows in the q (block 0) or v (block 1) columns into
  // derivative_, one value per distinct position of J.
  void differences(double t, int block, const double* yp, const double* ewt, double h);
  void add_exact_blocks(double t, double cj);
  void add_differences(int col_offset);

  const Problem* problem_ = nullptr;
  IdaFormulation formulation_ = IdaFormulation::ggl;
  int n_ = 0, m_ = 0, size_ = 0, constraint_row0_ = 0;
  std::vector<std::pair<int, int>> positions_;  // distinct (row, col) of J, sorted
  std::vector<int> colour_;                     // of each coordinate column
  int colour_count_ = 0;
  SparseAssembly matrix_;
  Vec q_, v_, vp_, lambda_, mu_, zero_a_, zero_w_, perturbed_, g0_, g_, nu_, gamma_, delta_;
  Vec derivative_;
  long evaluations_ = 0;
};

}  // namespace cmb
