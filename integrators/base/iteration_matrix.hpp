// One matrix of an index-3 integrator's Newton iteration or projections on either path: dense
// (the caller fills dense() and DenseLu factorizes it) or sparse (the caller sends entries after
// begin_entries() and SparseLu factorizes them); factorize and solve go to the path bound.
// Header-only: it needs no build rule of its own.
#pragma once

#include "core/types.hpp"
#include "integrators/base/dense_lu.hpp"
#include "integrators/base/sparse_lu.hpp"

namespace cmb {

class IterationMatrix {
 public:
  void bind(int size, bool sparse) {
    sparse_ = sparse;
    dense_.bind(sparse ? 0 : size);
    sparse_lu_.reset(sparse ? size : 0);
  }
  bool sparse() const { return sparse_; }

  // Dense path: the matrix to fill before factorize().
  Mat& dense() { return dense_.matrix(); }
  // Sparse path: starts an assembly; the entries go to the returned SparseLu.
  SparseLu& begin_entries() {
    sparse_lu_.begin();
    return sparse_lu_;
  }

  // Factorizes and returns the pivot ratio (DenseLu::factorize, SparseLu::factorize).
  double factorize() { return sparse_ ? sparse_lu_.factorize() : dense_.factorize(); }
  // b ← A⁻¹ b with the last factorization.
  void solve_in_place(VecRef b) {
    if (sparse_)
      sparse_lu_.solve_in_place(b);
    else
      dense_.solve_in_place(b);
  }

 private:
  bool sparse_ = false;
  DenseLu dense_;
  SparseLu sparse_lu_;
};

}  // namespace cmb
