// A sparse matrix assembled from entries whose (row, col) sequence never changes: the sequence of
// the first assembly is recorded and compressed into columns (duplicates merged, rows ascending),
// and every later assembly adds its values into the slots that sequence fixed, without
// allocating. SparseLu factorizes such a matrix with KLU; ida hands its arrays to SUNDIALS.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "core/problem.hpp"

namespace cmb {

class SparseAssembly {
 public:
  // Forgets the pattern: the next assembly records it again (a new run or problem size).
  void reset(int size);
  // Starts an assembly: the matrix is zero, entries are added until finish().
  void begin();
  // Adds value at (row, col); entries at the same position sum. Inline: it is the innermost
  // loop of every assembly.
  void add(int row, int col, double value) {
    if (!fixed_) {
      recorded_.push_back({row, col});
      first_values_.push_back(value);
      return;
    }
    if (cursor_ < slot_.size()) values_[slot_[cursor_]] += value;
    ++cursor_;
  }
  // Ends the assembly. Returns true when this one fixed the pattern (the first since reset).
  // Throws std::logic_error when the entries' sequence differs from the recorded one.
  bool finish();

  int size() const { return size_; }
  bool fixed() const { return fixed_; }
  // The compressed columns: column j holds positions column_start[j] .. column_start[j + 1].
  const std::vector<int>& column_start() const { return column_start_; }
  const std::vector<int>& row_index() const { return row_index_; }
  std::vector<double>& values() { return values_; }
  const std::vector<double>& values() const { return values_; }
  std::size_t nonzeros() const { return row_index_.size(); }

 private:
  void compress();

  int size_ = 0;
  bool fixed_ = false;
  std::vector<std::pair<int, int>> recorded_;  // (row, col) of each entry of the first assembly
  std::vector<double> first_values_;
  std::vector<int> slot_;  // position in values_ of the k-th entry sent
  std::size_t cursor_ = 0;
  std::vector<int> column_start_, row_index_;
  std::vector<double> values_;
};

// Sends a problem's entries into a SparseAssembly, times a factor, at an offset; with `mirror` each
// entry also goes to the transposed position (J as J and Jᵀ in a saddle-point matrix).
class AssemblySink : public SparseSink {
 public:
  AssemblySink(SparseAssembly& matrix, double factor, int row_offset = 0, int col_offset = 0,
               bool mirror = false)
      : matrix_(matrix),
        factor_(factor),
        row_offset_(row_offset),
        col_offset_(col_offset),
        mirror_(mirror) {}

 private:
  void put(int row, int col, double value) override {
    matrix_.add(row + row_offset_, col + col_offset_, factor_ * value);
    if (mirror_) matrix_.add(col + col_offset_, row + row_offset_, factor_ * value);
  }
  SparseAssembly& matrix_;
  double factor_;
  int row_offset_, col_offset_;
  bool mirror_;
};

}  // namespace cmb
