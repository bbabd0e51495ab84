// The heavy symmetric top on a fixed tip, shared by its models in different coordinates
// (lagrange_top in Euler parameters, lagrange_top_natural in the rotation matrix's columns): its
// data, its release and the reference both compare against. The data are cmbench's
// choice ([Goldstein2002] §5.7 for the system): m = 1 kg, centre of mass at l = 0.1 m from the tip
// along the body axis z̄, inertia about the centre of mass A = 0.002 (transverse) and C = 0.004
// kg·m² (about z̄), gravity g = 9.81 m/s² along −z.
// Release: tip up, the axis tilted theta0 from the vertical in the y–z plane (Euler angles z-x-z
// φ = ψ = 0, θ = theta0), body angular velocity ω̄ = (0, phidot0 sin θ0, spin), no nutation rate.
#pragma once

#include <string>
#include <vector>

#include "core/params.hpp"
#include "core/problem.hpp"

namespace cmb::symmetric_top {

constexpr double kMass = 1.0, kArm = 0.1, kTransverse = 0.002, kAxial = 0.004, kG = 9.81;

// A symmetric body on a fixed point: mass m, centre of mass at `arm` l along the body axis,
// inertia about the centre of mass A (transverse) and C (axial), gravity g along −z. The
// reference serves any such body (spatial_chain's single link is one); kTop is the top's.
struct TopData {
  double mass, arm, transverse, axial, g;
};
constexpr TopData kTop{kMass, kArm, kTransverse, kAxial, kG};

// Transverse moment of inertia about the fixed point, A₀ = A + m l².
constexpr double tip_transverse(const TopData& d = kTop) {
  return d.transverse + d.mass * d.arm * d.arm;
}

struct Release {
  double theta0, spin, phidot0;
};

// The release a problem's parameters give (any the parameters accept: the reference has no
// singular configuration).
Release release_from(const Params& params, const std::string& problem);

// Body angular velocity at the release, ω̄ = (0, phidot0 sin θ0, spin).
Eigen::Vector3d release_body_rate(const Release& r);

// The parameters both models declare (t_end, theta0, spin, phidot0) and their outputs.
std::vector<ParamSpec> params();
std::vector<std::string> output_names();

// The reduced-ODE reference: the top as its axis e and its angular momentum L about the tip
// (six smooth equations with no chart, so no singular release), the body frame carried along the
// axis and turned by the constant spin in closed form, Bulirsch–Stoer at tolerance 1e-13;
// outputs cm_x, cm_y, cm_z, body_x_z at `times` (tests/test_top_reference.cpp checks it against
// the nutation cubic and against Euler's equations with a quaternion in long double).
ReferenceInfo reference_info();
Mat reference_outputs(const Release& r, const std::vector<double>& times);
// The same for another body (TopData): its cm_x, cm_y, cm_z and body_x_z.
Mat reference_outputs(const TopData& d, const Release& r, const std::vector<double>& times);

}  // namespace cmb::symmetric_top
