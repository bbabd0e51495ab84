#include "integrators/base/sparse_lu.hpp"

#include <klu.h>

#include <algorithm>
#include <cmath>
#include <new>
#include <stdexcept>
#include <string>

namespace cmb {

namespace {

// Refresh the pivots when a refactorization's pivot ratio falls below this fraction of the
// ratio the pivoting factorization had: partial pivoting bounds the multipliers, a reused pivot
// sequence does not, and a thousandfold loss is far beyond the drift of a Newton iteration's
// matrix within a step or between neighbouring steps.
constexpr double kPivotLoss = 1e-3;

// KLU's C interface takes the pattern's arrays as non-const; it only reads them.
int* mutable_data(const std::vector<int>& v) { return const_cast<int*>(v.data()); }

}  // namespace

struct SparseLu::Klu {
  Klu() { klu_defaults(&common); }
  ~Klu() { free(); }
  void free() {
    if (numeric) klu_free_numeric(&numeric, &common);
    if (symbolic) klu_free_symbolic(&symbolic, &common);
  }
  klu_common common{};
  klu_symbolic* symbolic = nullptr;
  klu_numeric* numeric = nullptr;
};

SparseLu::SparseLu() : klu_(std::make_unique<Klu>()) {}

SparseLu::~SparseLu() = default;

void SparseLu::reset(int size) {
  klu_->free();
  assembly_.reset(size);
  pivoting_ = 0;
}

void SparseLu::begin() { assembly_.begin(); }

// KLU's symbolic analysis (block-triangular form, AMD ordering) of the pattern just fixed.
void SparseLu::analyse() {
  klu_common& common = klu_->common;
  klu_defaults(&common);
  common.halt_if_singular = 0;  // a vanishing pivot is reported through the ratio
  common.tol = 1.0;             // partial pivoting: the largest entry of the column, as DenseLu
  klu_->symbolic = klu_analyze(assembly_.size(), mutable_data(assembly_.column_start()),
                               mutable_data(assembly_.row_index()), &common);
  if (klu_->symbolic == nullptr) {
    if (common.status == KLU_OUT_OF_MEMORY) throw std::bad_alloc();
    throw std::logic_error("sparse iteration matrix: KLU's analysis failed with status " +
                           std::to_string(common.status));
  }
}

double SparseLu::pivot_ratio() {
  if (assembly_.size() == 0) return 1.0;
  if (!klu_rcond(klu_->symbolic, klu_->numeric, &klu_->common)) return 0.0;
  return std::isfinite(klu_->common.rcond) ? klu_->common.rcond : 0.0;
}

double SparseLu::factorize() {
  if (assembly_.size() == 0) return 1.0;
  if (assembly_.finish()) analyse();
  klu_common& common = klu_->common;
  if (klu_->numeric != nullptr) {
    if (klu_refactor(mutable_data(assembly_.column_start()), mutable_data(assembly_.row_index()),
                     assembly_.values().data(), klu_->symbolic, klu_->numeric, &common)) {
      const double ratio = pivot_ratio();
      if (ratio >= kPivotLoss * pivoting_ratio_) return ratio;
    }
    klu_free_numeric(&klu_->numeric, &common);
  }
  klu_->numeric =
      klu_factor(mutable_data(assembly_.column_start()), mutable_data(assembly_.row_index()),
                 assembly_.values().data(), klu_->symbolic, &common);
  if (klu_->numeric == nullptr) {
    if (common.status == KLU_OUT_OF_MEMORY) throw std::bad_alloc();
    throw std::logic_error("sparse iteration matrix: KLU failed with status " +
                           std::to_string(common.status));
  }
  ++pivoting_;
  pivoting_ratio_ = pivot_ratio();
  return pivoting_ratio_;
}

void SparseLu::solve_in_place(VecRef b) {
  const int size = assembly_.size();
  if (size > 0) klu_solve(klu_->symbolic, klu_->numeric, size, 1, b.data(), &klu_->common);
}

}  // namespace cmb
