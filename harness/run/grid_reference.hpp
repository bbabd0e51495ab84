// A reference known as output values on a grid of times (the self-converged reference of
// harness/run/self_converged.hpp), read at any time of its horizon: a grid time gets its grid
// value, a time between grid times the degree-7 polynomial through the 8 nearest grid values.
// Adaptive steppers sample where their steps land, so without the polynomial their samples
// would have no reference value at all.
#pragma once

#include <vector>

#include "core/types.hpp"

namespace cmb {

// Grid values, and for each interval between grid times a bound on how far a value read inside
// it may be from the function the grid tabulates (interpolation_errors).
struct GridReference {
  std::vector<double> grid;             // 0 = t_0 < t_1 < … < t_K = t_end
  Mat outputs;                          // one row per grid time
  std::vector<double> interval_errors;  // K bounds, one per interval [t_k, t_k+1]
};

// Reference values at `times` (each in [0, t_end]), one row per time, and the largest error bound
// of the intervals they were read in (0 when every time is a grid time).
struct SampledReference {
  Mat values;
  bool interpolated = false;
  double interpolation_error = 0.0;
};
SampledReference sample_reference(const GridReference& reference, const std::vector<double>& times);

// The interpolation error of a grid's polynomial, from the table alone: every odd grid time is
// read from the even ones only (a grid of twice the spacing) and compared with its tabulated
// value; the difference, the largest over the outputs, is assigned to the two intervals beside
// that time. For a smooth function the error of a degree-7 interpolant shrinks like h⁸, so the
// full grid's error is about 2⁻⁸ of this: each estimate is a bound with that margin. The grid
// needs an even number (at least 16) of intervals.
std::vector<double> interpolation_errors(const std::vector<double>& grid, const Mat& outputs);

}  // namespace cmb
