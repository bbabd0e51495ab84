#include "integrators/base/sparse_assembly.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace cmb {

void SparseAssembly::reset(int size) {
  size_ = size;
  fixed_ = false;
  recorded_.clear();
  first_values_.clear();
  slot_.clear();
  cursor_ = 0;
}

void SparseAssembly::begin() {
  cursor_ = 0;
  if (fixed_) {
    std::fill(values_.begin(), values_.end(), 0.0);
  } else {
    recorded_.clear();
    first_values_.clear();
  }
}

bool SparseAssembly::finish() {
  if (!fixed_) {
    compress();
    return true;
  }
  if (cursor_ != slot_.size())
    throw std::logic_error("sparse iteration matrix: " + std::to_string(cursor_) +
                           " entries sent where the pattern recorded " +
                           std::to_string(slot_.size()) +
                           " (a problem's entry sequence must not change with the state)");
  return false;
}

void SparseAssembly::compress() {
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
  fixed_ = true;
  cursor_ = recorded_.size();
}

}  // namespace cmb
