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
  size_ = size;
  analysed_ = false;
  recorded_.clear();
  first_values_.clear();
  slot_.clear();
  pivoting_ = 0;
}

void SparseLu::begin() {
  cursor_ = 0;
  if (analysed_)
    std::fill(values_.begin(), values_.end(), 0.0);
  else {
    recorded_.clear();
    first_values_.clear();
  }
}

// Compressed columns of the recorded pattern (duplicates merged, rows ascending), the slot of
// every entry, and KLU's symbolic analysis.
void SparseLu::analyse() {
  std::vector<std::pair<int, int>> positions;  // (col, row), sorted
  positions.reserve(recorded_.size());
  for (const auto& [row, col] : recorded_) positions.emplace_back(col, row);
  std::sort(positions.begin(), positions.end());
  positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
  column_start_.assign(size_ + 1, 0);
  row_index_.resize(positions.size());
  for (std::size_t k = 0; k < positions.size(); ++k) {
    ++column_start_[positions[k].first + 1];
    row_index_[k] = positions[k].second;
  }
  for (int j = 0; j < size_; ++j) column_start_[j + 1] += column_start_[j];
  values_.assign(positions.size(), 0.0);
  slot_.resize(recorded_.size());
  for (std::size_t k = 0; k < recorded_.size(); ++k) {
    const std::pair<int, int> key(recorded_[k].second, recorded_[k].first);
    slot_[k] = static_cast<int>(std::lower_bound(positions.begin(), positions.end(), key) -
                                positions.begin());
    values_[slot_[k]] += first_values_[k];
  }
  klu_common& common = klu_->common;
  klu_defaults(&common);
  common.halt_if_singular = 0;  // a vanishing pivot is reported through the ratio
  common.tol = 1.0;             // partial pivoting: the largest entry of the column, as DenseLu
  klu_->symbolic = klu_analyze(size_, column_start_.data(), row_index_.data(), &common);
  if (klu_->symbolic == nullptr) {
    if (common.status == KLU_OUT_OF_MEMORY) throw std::bad_alloc();
    throw std::logic_error("sparse iteration matrix: KLU's analysis failed with status " +
                           std::to_string(common.status));
  }
  analysed_ = true;
  cursor_ = recorded_.size();
}

double SparseLu::pivot_ratio() {
  if (size_ == 0) return 1.0;
  if (!klu_rcond(klu_->symbolic, klu_->numeric, &klu_->common)) return 0.0;
  return std::isfinite(klu_->common.rcond) ? klu_->common.rcond : 0.0;
}

double SparseLu::factorize() {
  if (size_ == 0) return 1.0;
  if (!analysed_) analyse();
  if (cursor_ != slot_.size())
    throw std::logic_error("sparse iteration matrix: " + std::to_string(cursor_) +
                           " entries sent where the pattern recorded " +
                           std::to_string(slot_.size()) +
                           " (a problem's entry sequence must not change with the state)");
  klu_common& common = klu_->common;
  if (klu_->numeric != nullptr) {
    if (klu_refactor(column_start_.data(), row_index_.data(), values_.data(), klu_->symbolic,
                     klu_->numeric, &common)) {
      const double ratio = pivot_ratio();
      if (ratio >= kPivotLoss * pivoting_ratio_) return ratio;
    }
    klu_free_numeric(&klu_->numeric, &common);
  }
  klu_->numeric =
      klu_factor(column_start_.data(), row_index_.data(), values_.data(), klu_->symbolic, &common);
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
  if (size_ > 0) klu_solve(klu_->symbolic, klu_->numeric, size_, 1, b.data(), &klu_->common);
}

}  // namespace cmb
