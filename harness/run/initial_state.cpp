#include "harness/run/initial_state.hpp"

#include <cmath>
#include <sstream>

#include "core/assembly.hpp"
#include "core/errors.hpp"

namespace cmb {

namespace {

std::string describe(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

[[noreturn]] void fail(const std::string& why) {
  throw NumericalFailure(RunStatus::invalid_input, why);
}

}  // namespace

InitialRecord make_initial_state(const Problem& problem, const InitialStateOptions& o, VecRef q,
                                 VecRef v) {
  problem.initial_state(q, v);
  const double phi0 = position_residual(problem, 0.0, q);
  const double psi0 = velocity_residual(problem, 0.0, q, v);
  InitialRecord block;
  block.assembly = o.assembly;
  block.tolerance = o.tolerance;
  block.position_residual = phi0;
  block.velocity_residual = psi0;
  const bool consistent = phi0 <= o.tolerance && psi0 <= o.tolerance;  // false for NaN
  if (!consistent && o.assembly == "reject")
    fail("the initial state violates the constraints (max |Phi| = " + describe(phi0) +
         ", max |J v - nu| = " + describe(psi0) + ", tolerance " + describe(o.tolerance) +
         "); set initial_assembly = project to start from the nearest consistent state");
  if (!consistent) {
    const AssemblyResult positions = assemble_positions(problem, 0.0, q, 0.1 * o.tolerance, 50);
    if (!positions.converged)
      fail("initial assembly failed: Gauss-Newton on Phi = 0 stopped at max |Phi| = " +
           describe(positions.residual) + " after " + std::to_string(positions.iterations) +
           " iterations (the constraints may have no solution for these parameters)");
    const double psi = assemble_velocities(problem, 0.0, q, v);
    if (!(psi <= o.tolerance))
      fail("initial assembly failed: velocity correction left max |J v - nu| = " + describe(psi));
    block.projected = true;
    block.iterations = positions.iterations;
  }
  if (!o.perturbed()) return block;
  // A uniform offset of every holonomic row: redundant rows cannot all be offset independently.
  if (o.perturb_position != 0.0) {
    const double tol = 1e-13 * std::max(1.0, std::abs(o.perturb_position));
    const AssemblyResult moved = assemble_positions(problem, 0.0, q, tol, 50, o.perturb_position);
    if (!moved.converged)
      fail("the position perturbation " + describe(o.perturb_position) +
           " cannot be reached on every holonomic row (max |Phi_i - offset| = " +
           describe(moved.residual) + "); redundant constraints cannot be offset uniformly");
  }
  const double rate_error = assemble_velocities(problem, 0.0, q, v, o.perturb_velocity);
  if (!(rate_error <= 1e-9 * std::max(1.0, std::abs(o.perturb_velocity))))
    fail("the velocity perturbation " + describe(o.perturb_velocity) +
         " cannot be reached on every holonomic row (residual " + describe(rate_error) + ")");
  block.perturbation = InitialRecord::Offset{o.perturb_position, o.perturb_velocity};
  block.perturbed_position_residual = position_residual(problem, 0.0, q);
  block.perturbed_velocity_residual = velocity_residual(problem, 0.0, q, v);
  return block;
}

}  // namespace cmb
