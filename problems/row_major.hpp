// Copies a row-major array (the layout of the sympy-generated problem code) into an Eigen
// matrix of any storage order.
#pragma once

#include <array>

#include "core/types.hpp"

namespace cmb {

template <int Rows, int Cols>
void copy_row_major(const std::array<double, Rows * Cols>& data, MatRef out) {
  for (int i = 0; i < Rows; ++i)
    for (int j = 0; j < Cols; ++j) out(i, j) = data[i * Cols + j];
}

}  // namespace cmb
