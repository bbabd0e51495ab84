// crank_rocker — four-bar crank-rocker linkage falling under gravity (a single nonlinear loop).
//
// Data: crank AB 1 m (ground pivot A = (0,0)), coupler BC 2 m, rocker DC 1.5 m (ground pivot
// D = (2,0)); uniform 1 kg rods, I = mL²/12; g = 9.81 m/s² along −y; crank angle 0, elbow-up
// assembly (C above the ground line), at rest; 10 s. Grashof: 1 + 2 ≤ 1.5 + 2 and the crank is
// shortest, so the crank turns fully and the elbow-up branch never degenerates.
// Coordinates: (x, y, θ) of each rod's centre of mass (crank, coupler, rocker): nq = 9, mh = 8.
// A parallelogram is a poor drift test (its loop equations are linear in joint angles); this
// loop is not. Reference: reduced ODE in the crank angle on the closed-form elbow-up kinematics.
// Source: cmbench's peer-comparison problem (shared/PROBLEMS.md); crank angle at 10 s ≈ −3.5299.
// Outputs: crank angle θ₁ [rad] and coupler point C (x, y) [m].
#include <cmath>

#include "core/registry.hpp"
#include "problems/planar_linkage.hpp"

namespace cmb {
namespace {

constexpr double kCrank = 1.0, kCoupler = 2.0, kRocker = 1.5, kGroundLength = 2.0;
constexpr double kMass = 1.0, kG = 9.81;

PlanarBody rod(double length) { return {kMass, kMass * length * length / 12.0}; }

class CrankRocker : public PlanarLinkage {
 public:
  explicit CrankRocker(const Params& params)
      : PlanarLinkage(
            {"crank_rocker", "Crank-rocker four-bar under gravity",
             "cmbench peer-comparison problem (shared/PROBLEMS.md); reference: reduced ODE",
             {"closed_loop"}},
            params, {rod(kCrank), rod(kCoupler), rod(kRocker)},
            {
                {0, {-kCrank / 2, 0}, PlanarPin::kGround, {0, 0}},
                {0, {kCrank / 2, 0}, 1, {-kCoupler / 2, 0}},
                {1, {kCoupler / 2, 0}, 2, {kRocker / 2, 0}},
                {2, {-kRocker / 2, 0}, PlanarPin::kGround, {kGroundLength, 0}},
            },
            {}, kG, 0.0, 0.0) {}

  std::vector<std::string> output_names() const override {
    return {"crank_angle", "C_x", "C_y"};
  }

  void outputs(double, CVecRef q, CVecRef, VecRef y) const override {
    const Eigen::Vector2d C = point(q, 1, {kCoupler / 2, 0});
    y << q(2), C.x(), C.y();
  }

  // C is the upper intersection of the circles |C − B| = coupler and |C − D| = rocker.
  void chart(const Jet2& phi, std::vector<Jet2>& q) const override {
    const Jet2 bx = kCrank * cos(phi), by = kCrank * sin(phi);
    const Jet2 ex = kGroundLength - bx, ey = -by;  // B → D
    const Jet2 d = sqrt(ex * ex + ey * ey);
    const Jet2 a = (kCoupler * kCoupler - kRocker * kRocker + d * d) / (2.0 * d);
    const Jet2 h = sqrt(kCoupler * kCoupler - a * a);
    const Jet2 ux = ex / d, uy = ey / d;
    const Jet2 cx = bx + a * ux - h * uy, cy = by + a * uy + h * ux;
    q = {0.5 * bx, 0.5 * by, phi,
         0.5 * (bx + cx), 0.5 * (by + cy), atan2(cy - by, cx - bx),
         0.5 * (kGroundLength + cx), 0.5 * cy, atan2(cy, cx - kGroundLength)};
  }
};

}  // namespace
}  // namespace cmb

CMB_DEFINE_PROBLEM(crank_rocker) {
  cmb::ProblemEntry entry;
  entry.id = "crank_rocker";
  entry.summary = "four-bar crank-rocker under gravity (nonlinear closed loop, 1 DOF)";
  entry.params = {cmb::t_end_param(10.0)};
  entry.make = [](const cmb::Params& p) { return std::make_unique<cmb::CrankRocker>(p); };
  return entry;
}
