// What the parts of ida (integrators/ida.cpp) share: the DAE it integrates — ggl, the stabilized
// index-2 form with y = [q; v; λ; μ], or index1 with y = [q; v; λ] (rows in ida_residual.hpp) —
// and the difference increment of its iteration matrices.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>

namespace cmb {

enum class IdaFormulation { ggl, index1 };

// A difference increment as IDA chooses its own (√ε relative to the component and to its change
// over the step, and at least the component's absolute error scale 1/ewt), rounded so that
// y + δ − y is exactly δ.
inline double ida_increment(double y, double yp, double h, double ewt) {
  static const double sqrt_eps = std::sqrt(std::numeric_limits<double>::epsilon());
  const double scale = std::max(std::abs(y), std::abs(h * yp));
  const double delta = std::max(sqrt_eps * scale, 1.0 / ewt);
  const double moved = y + delta;
  return moved - y;
}

}  // namespace cmb
