#include "harness/run/grid_reference.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace cmb {

namespace {

constexpr long kStencil = 8;  // nodes of the interpolating polynomial (degree 7)

// The polynomial through the kStencil grid times first, first + stride, … and their rows of
// `table`, at time t, which is none of them: the barycentric form [BerrutTrefethen2004], with the
// weights of these nodes (the grid need not be uniform).
Vec interpolate(const std::vector<double>& grid, const Mat& table, long first, long stride,
                double t) {
  Vec numerator = Vec::Zero(table.cols());
  double denominator = 0.0;
  // Times in units of the stencil's span: the weights' scale cancels, their range stays modest.
  const double span = grid[first + (kStencil - 1) * stride] - grid[first];
  for (long j = 0; j < kStencil; ++j) {
    const double tj = grid[first + j * stride];
    double weight = 1.0;
    for (long m = 0; m < kStencil; ++m)
      if (m != j) weight /= (tj - grid[first + m * stride]) / span;
    const double c = weight / ((t - tj) / span);
    numerator += c * table.row(first + j * stride).transpose();
    denominator += c;
  }
  return numerator / denominator;
}

// The first of the kStencil nodes around interval `below` (between nodes below and below + 1) on
// a grid of `nodes` nodes: centred where it can be, shifted inwards at the ends.
long stencil_start(long below, long nodes) {
  return std::clamp(below - (kStencil / 2 - 1), 0L, nodes - kStencil);
}

}  // namespace

SampledReference sample_reference(const GridReference& reference,
                                  const std::vector<double>& times) {
  const std::vector<double>& grid = reference.grid;
  const long nodes = static_cast<long>(grid.size());
  if (nodes < kStencil) throw std::logic_error("a grid reference needs at least 8 grid times");
  const double t_end = grid.back();
  SampledReference out{Mat(times.size(), reference.outputs.cols())};
  for (std::size_t i = 0; i < times.size(); ++i) {
    const double t = times[i];
    // The interval [grid[k], grid[k + 1]] holding t, and the grid time nearest to it.
    const long above = std::upper_bound(grid.begin(), grid.end(), t) - grid.begin();
    const long k = std::clamp(above - 1, 0L, nodes - 2);
    const long nearest = std::abs(t - grid[k]) <= std::abs(grid[k + 1] - t) ? k : k + 1;
    if (std::abs(t - grid[nearest]) <= 1e-9 * t_end) {
      out.values.row(i) = reference.outputs.row(nearest);
      continue;
    }
    const long first = stencil_start(k, nodes);
    out.values.row(i) = interpolate(grid, reference.outputs, first, 1, t).transpose();
    out.interpolated = true;
    out.interpolation_error = std::max(out.interpolation_error, reference.interval_errors[k]);
  }
  return out;
}

std::vector<double> interpolation_errors(const std::vector<double>& grid, const Mat& outputs) {
  const long nodes = static_cast<long>(grid.size());
  if (nodes < 2 * kStencil + 1 || (nodes - 1) % 2 != 0)
    throw std::logic_error("the interpolation estimate needs an even number (>= 16) of intervals");
  const long coarse_nodes = (nodes - 1) / 2 + 1;
  std::vector<double> errors(nodes - 1, 0.0);
  for (long m = 0; m + 1 < coarse_nodes; ++m) {
    const long odd = 2 * m + 1;
    const Vec read = interpolate(grid, outputs, 2 * stencil_start(m, coarse_nodes), 2, grid[odd]);
    const double error = (read - outputs.row(odd).transpose()).cwiseAbs().maxCoeff();
    errors[odd - 1] = errors[odd] = error;
  }
  return errors;
}

}  // namespace cmb
