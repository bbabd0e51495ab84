// crank_rocker — four-bar crank-rocker linkage falling under gravity (a single nonlinear loop).
//
// Data: crank AB 1 m (ground pivot A = (0,0)), coupler BC 2 m, rocker DC 1.5 m (ground pivot
// D = (2,0)); uniform 1 kg rods, I = mL²/12; g = 9.81 m/s² along −y; crank angle 0, elbow-up
// assembly (C above the ground line), at rest; 10 s. Grashof: 1 + 2 ≤ 1.5 + 2 and the crank is
// shortest, so the crank turns fully and the elbow-up branch never degenerates.
// Coordinates: (x, y, θ) of each rod's centre of mass (crank, coupler, rocker): nq = 9, mh = 8.
// A parallelogram is a poor drift test (its loop equations are linear in joint angles); this
// loop is not. Reference: reduced ODE in the crank angle on the closed-form elbow-up kinematics.
// Source: defined for cmbench (docs/sources.md, "Problems defined for cmbench"); the crank angle
// at 10 s, ≈ −3.5299 rad, came with its specification and is what the reference reproduces.
// Outputs: crank angle θ₁ [rad] and coupler point C (x, y) [m].
// Branch indicator: elbow_C = (D − B) × (C − B) > 0 (elbow up); the other assembly mode mirrors
// C across the line BD.
// Parameters: the four lengths (defaults above). Other values must still form a crank-rocker
// (Grashof with the crank strictly shortest), else the loop would not close for every crank
// angle; such lengths are an input error naming the condition.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/errors.hpp"
#include "core/registry.hpp"
#include "problems/planar_linkage.hpp"

namespace cmb {
namespace {

constexpr double kMass = 1.0, kG = 9.81;

struct Lengths {
  double crank, coupler, rocker, ground;
};

// The crank turns fully and the elbow-up branch never degenerates only for a Grashof linkage
// whose crank is the shortest link (strict inequalities: equality is a change point).
Lengths crank_rocker_lengths(const Params& p) {
  const Lengths l{p.number("crank"), p.number("coupler"), p.number("rocker"), p.number("ground")};
  const double longest = std::max({l.coupler, l.rocker, l.ground});
  const double others = l.coupler + l.rocker + l.ground - longest;
  if (!(l.crank < std::min({l.coupler, l.rocker, l.ground}) && l.crank + longest < others)) {
    std::ostringstream msg;
    msg << "problem 'crank_rocker': lengths crank = " << l.crank << ", coupler = " << l.coupler
        << ", rocker = " << l.rocker << ", ground = " << l.ground
        << " do not form a crank-rocker, so the loop cannot close at every crank angle (valid: "
           "the crank strictly shortest and crank + longest < sum of the other two, e.g. the "
           "defaults 1, 2, 1.5, 2)";
    throw InputError(msg.str());
  }
  return l;
}

PlanarBody rod(double length) { return {kMass, kMass * length * length / 12.0}; }

class CrankRocker : public PlanarLinkage {
 public:
  explicit CrankRocker(const Params& params) : CrankRocker(params, crank_rocker_lengths(params)) {}

  CrankRocker(const Params& params, const Lengths& l)
      : PlanarLinkage({"crank_rocker",
                       "Crank-rocker four-bar under gravity",
                       "defined for cmbench (docs/sources.md); reference: reduced ODE",
                       {"closed_loop"}},
                      params, {rod(l.crank), rod(l.coupler), rod(l.rocker)},
                      {
                          {0, {-l.crank / 2, 0}, PlanarPin::kGround, {0, 0}},
                          {0, {l.crank / 2, 0}, 1, {-l.coupler / 2, 0}},
                          {1, {l.coupler / 2, 0}, 2, {l.rocker / 2, 0}},
                          {2, {-l.rocker / 2, 0}, PlanarPin::kGround, {l.ground, 0}},
                      },
                      {}, kG, 0.0, 0.0),
        l_(l) {}

  std::vector<std::string> output_names() const override { return {"crank_angle", "C_x", "C_y"}; }

  void outputs(double, CVecRef q, CVecRef, VecRef y) const override {
    const Eigen::Vector2d C = point(q, 1, {l_.coupler / 2, 0});
    y << q(2), C.x(), C.y();
  }

  // Elbow up: C on the left of the directed line B → D. The Grashof lengths keep C off that
  // line at every crank angle, so the sign never needs to change on the reference's branch.
  std::vector<BranchIndicator> branch_indicators() const override {
    return {{"elbow_C", "(D − B) × (C − B): side of C relative to the line BD, > 0 elbow up",
             BranchIndicator::Kind::sign}};
  }

  void branch_indicator_values(double, CVecRef q, VecRef b) const override {
    const Eigen::Vector2d B = point(q, 0, {l_.crank / 2, 0});
    const Eigen::Vector2d C = point(q, 1, {l_.coupler / 2, 0});
    const Eigen::Vector2d BD = Eigen::Vector2d(l_.ground, 0.0) - B, BC = C - B;
    b(0) = BD.x() * BC.y() - BD.y() * BC.x();
  }

  // C is the upper intersection of the circles |C − B| = coupler and |C − D| = rocker.
  void chart(const Jet2& phi, std::vector<Jet2>& q) const override {
    const Jet2 bx = l_.crank * cos(phi), by = l_.crank * sin(phi);
    const Jet2 ex = l_.ground - bx, ey = -by;  // B → D
    const Jet2 d = sqrt(ex * ex + ey * ey);
    const Jet2 a = (l_.coupler * l_.coupler - l_.rocker * l_.rocker + d * d) / (2.0 * d);
    const Jet2 h = sqrt(l_.coupler * l_.coupler - a * a);
    const Jet2 ux = ex / d, uy = ey / d;
    const Jet2 cx = bx + a * ux - h * uy, cy = by + a * uy + h * ux;
    q = {0.5 * bx,
         0.5 * by,
         phi,
         0.5 * (bx + cx),
         0.5 * (by + cy),
         atan2(cy - by, cx - bx),
         0.5 * (l_.ground + cx),
         0.5 * cy,
         atan2(cy, cx - l_.ground)};
  }

 private:
  Lengths l_;
};

}  // namespace
}  // namespace cmb

CMB_DEFINE_PROBLEM(crank_rocker) {
  cmb::ProblemEntry entry;
  entry.id = "crank_rocker";
  entry.display_name = "Crank-rocker";
  entry.units.outputs = {{"crank_angle", "rad"}, {"C_x", "m"}, {"C_y", "m"}};
  entry.units.holonomic = {"m"};
  entry.summary = "four-bar crank-rocker under gravity (nonlinear closed loop, 1 DOF)";
  entry.params = {cmb::t_end_param(10.0), cmb::positive_number("crank", 1.0, "crank length AB [m]"),
                  cmb::positive_number("coupler", 2.0, "coupler length BC [m]"),
                  cmb::positive_number("rocker", 1.5, "rocker length DC [m]"),
                  cmb::positive_number("ground", 2.0, "distance between the ground pivots AD [m]")};
  entry.make = [](const cmb::Params& p) { return std::make_unique<cmb::CrankRocker>(p); };
  return entry;
}
