// slider_crank — slider-crank mechanism with the data of Flores et al., free motion under gravity.
//
// Data (Flores, Machado, Seabra, Silva [Flores2011] in docs/sources.md): crank 0.1530 m,
// connecting rod 0.3060 m, m1 = m2 = 0.038 kg, slider m3 = 0.076 kg, J1 = 7.4e-5, J2 = 5.9e-4,
// J3 = 2.7e-6 kg·m²; g = 9.81 m/s² along −y; ideal joints; crank and rod angles 0 at t = 0,
// crank rate 150 rad/s (rod −75 rad/s, consistent); default horizon 0.2 s. Rods' centres of mass
// at mid-length. Conservative: energy is an invariant.
// Coordinates: (x, y, θ) of crank, rod and slider: nq = 9; mh = 8 (three pins, slider held on
// the x axis with θ = 0). Reference: reduced ODE in the crank angle with the closed-form rod
// angle ψ = asin(−l1 sin φ / l2) (valid for all φ since l1 < l2).
// Outputs: crank angle [rad], slider position x [m].
// Branch indicator: slider_side = x_C − x_B > 0; the other assembly mode puts the slider on the
// crank pin's left.
#include <cmath>

#include "core/registry.hpp"
#include "problems/planar_linkage.hpp"

namespace cmb {
namespace {

constexpr double kCrank = 0.1530, kRod = 0.3060;
constexpr double kG = 9.81;

class SliderCrank : public PlanarLinkage {
 public:
  explicit SliderCrank(const Params& params)
      : PlanarLinkage(
            {"slider_crank",
             "Slider-crank (Flores et al. data) under gravity",
             "Flores, Machado, Seabra, Silva, J. Comput. Nonlinear Dynam. 6(1) 2011 [Flores2011]; "
             "reference: reduced ODE",
             {"closed_loop"}},
            params, {{0.038, 7.4e-5}, {0.038, 5.9e-4}, {0.076, 2.7e-6}},
            {
                {0, {-kCrank / 2, 0}, PlanarPin::kGround, {0, 0}},
                {0, {kCrank / 2, 0}, 1, {-kRod / 2, 0}},
                {1, {kRod / 2, 0}, 2, {0, 0}},
            },
            {{2, 0.0, 0.0}}, kG, 0.0, params.number("crank_rate")) {}

  std::vector<std::string> output_names() const override { return {"crank_angle", "slider_x"}; }

  void outputs(double, CVecRef q, CVecRef, VecRef y) const override { y << q(2), q(6); }

  // The slider stays on the side of the crank pin it starts on: |x_C − x_B| ≥
  // √(l2² − l1²) > 0 on that branch, so the sign never needs to change.
  std::vector<BranchIndicator> branch_indicators() const override {
    return {{"slider_side", "x_C − x_B: slider to the right (> 0) of the crank pin",
             BranchIndicator::Kind::sign}};
  }

  void branch_indicator_values(double, CVecRef q, VecRef b) const override {
    b(0) = q(6) - point(q, 0, {kCrank / 2, 0}).x();
  }

  void chart(const Jet2& phi, std::vector<Jet2>& q) const override {
    const Jet2 bx = kCrank * cos(phi), by = kCrank * sin(phi);
    const Jet2 psi = asin(-(kCrank / kRod) * sin(phi));
    const Jet2 cx = bx + kRod * cos(psi);
    q = {0.5 * bx, 0.5 * by, phi, bx + 0.5 * kRod * cos(psi), by + 0.5 * kRod * sin(psi), psi,
         cx,       0.0,      0.0};
  }
};

}  // namespace
}  // namespace cmb

CMB_DEFINE_PROBLEM(slider_crank) {
  cmb::ProblemEntry entry;
  entry.id = "slider_crank";
  entry.display_name = "Slider-crank";
  entry.units.outputs = {{"crank_angle", "rad"}, {"slider_x", "m"}};
  entry.units.holonomic = {"m", "rad"};
  entry.summary = "slider-crank with Flores et al. data, 150 rad/s initial crank rate";
  entry.params = {cmb::t_end_param(0.2)};
  cmb::ParamSpec rate;
  rate.name = "crank_rate";
  rate.default_value = 150.0;
  rate.description = "initial crank angular velocity [rad/s]";
  entry.params.push_back(rate);
  entry.make = [](const cmb::Params& p) { return std::make_unique<cmb::SliderCrank>(p); };
  return entry;
}
