// Sparse LU for the iteration matrices of the index-3 integrators (generalized_alpha, ali3p) on
// problems that send M, J and the residual tangents as entries: SuiteSparse's KLU [Davis2010],
// the solver circuit simulators use on matrices whose pattern stays fixed while their values
// change. The pattern is recorded from the entries of the first assembly and analysed once
// (KLU's block-triangular form and AMD ordering); later assemblies add their values into the
// slots the pattern fixed, in the same order. The first factorization pivots (threshold partial
// pivoting); later ones are numeric refactorizations with its pivot sequence, which allocate
// nothing — unless the pivot ratio has fallen a thousandfold since the last pivoting
// factorization, when pivots are chosen anew (the values moved too far for the old ones).
#pragma once

#include <cstddef>
#include <memory>

#include "core/problem.hpp"
#include "core/types.hpp"
#include "integrators/base/sparse_assembly.hpp"

namespace cmb {

class SparseLu {
 public:
  SparseLu();
  SparseLu(const SparseLu&) = delete;
  SparseLu& operator=(const SparseLu&) = delete;
  ~SparseLu();

  // Forgets the pattern: the next assembly records it again (a new run or problem size).
  void reset(int size);
  // Starts an assembly: the matrix is zero, entries are added until factorize().
  void begin();
  // Adds value at (row, col); entries at the same position sum. Inline: an assembly adds each
  // entry of M, J (twice) and the tangents.
  void add(int row, int col, double value) { assembly_.add(row, col, value); }
  // The matrix being assembled (for an AssemblySink).
  SparseAssembly& assembly() { return assembly_; }
  // Ends the assembly and factorizes. Returns the pivot ratio min |u_kk| / max |u_kk| (of KLU's
  // row-scaled matrix; 0 when a pivot vanishes: then the factors must not be used). Throws
  // std::logic_error when the entries' sequence differs from the recorded pattern.
  double factorize();
  // b ← A⁻¹ b with the last factorization.
  void solve_in_place(VecRef b);
  // Pivoting factorizations so far (the first, and each pivot refresh): they allocate.
  long pivoting_factorizations() const { return pivoting_; }
  // Nonzeros of the assembled matrix (its pattern).
  std::size_t nonzeros() const { return assembly_.nonzeros(); }

 private:
  struct Klu;  // KLU's control block and factors (sparse_lu.cpp: klu.h stays out of headers)

  void analyse();
  double pivot_ratio();

  SparseAssembly assembly_;
  std::unique_ptr<Klu> klu_;
  double pivoting_ratio_ = 0.0;  // pivot ratio at the last pivoting factorization
  long pivoting_ = 0;
};

}  // namespace cmb
