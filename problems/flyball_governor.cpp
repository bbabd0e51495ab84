// flyball_governor — IFToMM A05, the stiff flyball governor: spring-dampers k = 8e5 N/m,
// c = 4e4 N·s/m make the ODE stiff.
//
// Data (IFToMM A05 [IFToMM; Gonzalez2006]): shaft and two rods 1.0 × 0.01 × 0.01 m and a slider
// cube of 0.1 m, density 3000 kg/m³ (0.3 kg rods and shaft, 3 kg slider); 5 kg point masses at
// the rods' free ends; two spring-dampers k = 8e5 N/m, c = 4e4 N·s/m, rest length 0.5 m;
// gravity 9.81 m/s² along the shaft axis; initial shaft spin 2π rad/s; 10 s; output s(t).
// Geometry as cmbench reads it (documented in problems/derive/flyball_governor.py): rods pinned
// at (±0.05, 0, 1) in the shaft frame, 30° below the horizontal at t = 0, swinging in the shaft's
// plane; slider centre at height s = 0.5 m; springs from the slider's side points (±0.05, 0, s)
// to the rod midpoints, at rest length at t = 0.
// Constrained formulation: q = (ψ, θ1, θ2, s, x1, y1, z1, x2, y2, z2) — shaft angle, rod angles,
// slider height and the end masses' Cartesian positions — with six rows tying each mass to its
// rod's end. nq = 10, mh = 6. Damped: no energy invariant. Reference: self-converged with two
// independent configurations suited to a stiff problem (projection + rosenbrock4 against
// coordinate_partitioning + rosenbrock4, tolerance 1e-10).
// Outputs: slider height s [m] and rod angle θ1 [rad].
#include <array>
#include <cmath>

#include "core/registry.hpp"
#include "problems/generated_model.hpp"

namespace cmb {
namespace {

#include "problems/generated/flyball_governor.inc"

namespace gen = flyball_governor_generated;
constexpr double kPi = 3.141592653589793238462643383279502884;

class FlyballGovernor : public GeneratedProblem<10, 6> {
 public:
  explicit FlyballGovernor(const Params& params)
      : GeneratedProblem({"flyball_governor",
                          "IFToMM A05: stiff flyball governor",
                          "IFToMM benchmark A05 [IFToMM; Gonzalez2006]; "
                          "reference: self-converged",
                          {"closed_loop", "stiff", "spatial"}},
                         params, Sizes{10, 6, 0},
                         {gen::flyball_mass_matrix, gen::flyball_forces, gen::flyball_constraints,
                          gen::flyball_jacobian, gen::flyball_gamma, nullptr}) {}

  void initial_state(VecRef q, VecRef v) const override {
    const double theta = kPi / 3.0;  // 30° below the horizontal
    const double reach = 0.05 + std::sin(theta), height = 1.0 - std::cos(theta);
    const double spin = 2.0 * kPi;
    q << 0.0, theta, theta, 0.5, reach, 0.0, height, -reach, 0.0, height;
    // Only the shaft turns: the masses move with ψ̇ N.z × r.
    v << spin, 0.0, 0.0, 0.0, 0.0, spin * reach, 0.0, 0.0, -spin * reach, 0.0;
  }
  std::vector<std::string> output_names() const override { return {"s", "theta1"}; }
  void outputs(double, CVecRef q, CVecRef, VecRef y) const override { y << q(3), q(1); }

  ReferenceInfo reference_info() const override {
    ReferenceInfo ref(ReferenceKind::self_converged,
                      "computed by the harness: projection + rosenbrock4 against "
                      "coordinate_partitioning + rosenbrock4, tolerance 1e-10",
                      std::nan(""));
    ref.recipe = nlohmann::json::array(
        {{{"method", "projection"}, {"stepper", "rosenbrock4"}, {"tol", 1e-10}},
         {{"method", "coordinate_partitioning"}, {"stepper", "rosenbrock4"}, {"tol", 1e-10}}});
    return ref;
  }
};

}  // namespace
}  // namespace cmb

CMB_DEFINE_PROBLEM(flyball_governor) {
  cmb::ProblemEntry entry;
  entry.id = "flyball_governor";
  entry.display_name = "Flyball governor";
  entry.units.outputs = {{"s", "m"}, {"theta1", "rad"}};
  entry.units.holonomic = {"m"};
  entry.summary = "IFToMM A05 stiff flyball governor (spring-dampers 8e5 N/m, 4e4 N s/m)";
  entry.params = {cmb::t_end_param(10.0)};
  entry.make = [](const cmb::Params& p) { return std::make_unique<cmb::FlyballGovernor>(p); };
  return entry;
}
