// rolling_disk — a thin disk rolling without slipping on a horizontal plane (spatial,
// nonholonomic), started in steady turning.
//
// Model: uniform thin disk, m = 1 kg, r = 0.5 m (inertia ½mr² about its axis, ¼mr² about a
// diameter), g = 9.81 m/s². Coordinates q = (x, y, ψ, θ, φ): contact point, yaw about the
// vertical, lean about the yawed horizontal axis (θ = 0 upright), spin about the disk axis; the
// centre is C = P + r·(unit vector from contact to centre), so contact is built in.
// Two nonholonomic rows: the disk's material contact point has no horizontal velocity.
// nq = 5, mh = 0, mn = 2. Lagrange's equations, the rows, γ and the energy are derived by
// problems/derive/rolling_disk.py (sympy) into problems/generated/rolling_disk.inc.
// Initial state: steady turning with lean θ0 = 0.3 rad and yaw rate Ω = 1 rad/s; the spin rate
// (−4.2924 rad/s) and contact-point velocity solve the reduced equations exactly (the script
// derives them and asserts the remaining equations vanish).
// Reference (analytic): the steady motion itself — θ, ψ̇ and φ̇ stay constant.
// Energy is conserved. Outputs: lean θ [rad], yaw rate ψ̇ [rad/s], spin rate φ̇ [rad/s].
// Horizon 10 s.
#include <array>
#include <cmath>

#include "core/registry.hpp"
#include "problems/generated_model.hpp"

namespace cmb {
namespace {

#include "problems/generated/rolling_disk.inc"

namespace gen = rolling_disk_generated;

class RollingDisk : public GeneratedProblem<5, 2> {
 public:
  explicit RollingDisk(const Params& params)
      : GeneratedProblem(
            {"rolling_disk",
             "Thin disk rolling without slipping (steady turning)",
             "classical rolling disk (e.g. [NeimarkFufaev1972]; [OReilly1996]); equations "
             "derived in problems/derive/rolling_disk.py",
             {"nonholonomic", "spatial"}},
            params, Sizes{5, 0, 2},
            {gen::disk_mass_matrix, gen::disk_forces, nullptr, gen::disk_constraint_matrix,
             gen::disk_gamma, gen::disk_energy}) {}

  void initial_state(VecRef q, VecRef v) const override {
    q << 0.0, 0.0, 0.0, gen::kSteadyLean, 0.0;
    v << gen::kSteadyVx, gen::kSteadyVy, gen::kSteadyYawRate, 0.0, gen::kSteadySpinRate;
  }
  std::vector<std::string> output_names() const override {
    return {"lean", "yaw_rate", "spin_rate"};
  }
  void outputs(double, CVecRef q, CVecRef v, VecRef y) const override { y << q(3), v(2), v(4); }

  ReferenceInfo reference_info() const override {
    return {ReferenceKind::analytic, "steady turning: lean, yaw rate and spin rate constant",
            1e-14};
  }
  Mat reference_outputs(const std::vector<double>& times) const override {
    Mat out(times.size(), 3);
    out.col(0).setConstant(gen::kSteadyLean);
    out.col(1).setConstant(gen::kSteadyYawRate);
    out.col(2).setConstant(gen::kSteadySpinRate);
    return out;
  }
};

}  // namespace
}  // namespace cmb

CMB_DEFINE_PROBLEM(rolling_disk) {
  cmb::ProblemEntry entry;
  entry.id = "rolling_disk";
  entry.display_name = "Rolling disk";
  entry.units.outputs = {{"lean", "rad"}, {"yaw_rate", "rad/s"}, {"spin_rate", "rad/s"}};
  entry.units.nonholonomic = {"m/s"};
  entry.summary = "thin disk rolling without slipping (2 nonholonomic rows), steady turning";
  entry.params = {cmb::t_end_param(10.0)};
  entry.make = [](const cmb::Params& p) { return std::make_unique<cmb::RollingDisk>(p); };
  return entry;
}
