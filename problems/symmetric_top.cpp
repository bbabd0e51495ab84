// The symmetric top's release and Euler-angle reference (problems/symmetric_top.hpp).
#include "problems/symmetric_top.hpp"

#include <array>
#include <boost/numeric/odeint.hpp>
#include <cmath>

#include "core/errors.hpp"

namespace cmb::symmetric_top {
namespace {

// The Euler-angle state of the reference: θ, θ̇, φ, ψ.
using AngleState = std::array<double, 4>;

// p_φ, the momentum conjugate to the precession angle (about the vertical).
double precession_momentum(const TopData& d, const Release& r) {
  const double s = std::sin(r.theta0);
  return tip_transverse(d) * r.phidot0 * s * s + d.axial * r.spin * std::cos(r.theta0);
}

}  // namespace

Release release_from(const Params& params, const std::string& problem) {
  const Release r{params.number("theta0"), params.number("spin"), params.number("phidot0")};
  check_release(kTop, r, problem);
  return r;
}

void check_release(const TopData& d, const Release& r, const std::string& problem) {
  const double p_phi = precession_momentum(d, r), p_psi = d.axial * r.spin;
  const double scale = std::abs(p_phi) + std::abs(p_psi);
  if (std::abs(p_phi - p_psi) <= 1e-9 * scale || std::abs(p_phi + p_psi) <= 1e-9 * scale)
    throw InputError("problem '" + problem +
                     "': with these theta0, spin and phidot0 the top passes through the vertical "
                     "(p_phi = +-p_psi), where the reference's Euler angles are singular; give "
                     "spin > 0 with phidot0 = 0, or another phidot0");
}

Eigen::Vector3d release_body_rate(const Release& r) {
  return {0.0, r.phidot0 * std::sin(r.theta0), r.spin};
}

std::vector<ParamSpec> params() {
  ParamSpec theta0 = positive_number(
      "theta0", 0.5, "initial tilt of the body axis from the upward vertical [rad]");
  theta0.max = 3.0;
  return {t_end_param(10.0), theta0,
          nonnegative_number("spin", 50.0, "spin rate about the body axis [rad/s]"),
          nonnegative_number("phidot0", 0.0, "initial precession rate [rad/s]")};
}

std::vector<std::string> output_names() { return {"cm_x", "cm_y", "cm_z", "body_x_z"}; }

ReferenceInfo reference_info() {
  return {ReferenceKind::reduced_ode,
          "the same top in Euler angles (z-x-z) with its two momenta constant, Lagrange's "
          "equation for the nutation, Bulirsch-Stoer at tolerance 1e-13",
          2e-10};
}

Mat reference_outputs(const Release& r, const std::vector<double>& times) {
  return reference_outputs(kTop, r, times);
}

Mat reference_outputs(const TopData& d, const Release& r, const std::vector<double>& times) {
  const double a0 = tip_transverse(d), p_phi = precession_momentum(d, r), p_psi = d.axial * r.spin;
  const double mgl = d.mass * d.g * d.arm, axial = d.axial, arm = d.arm;
  auto precession_rate = [=](double theta) {
    const double s = std::sin(theta);
    return (p_phi - p_psi * std::cos(theta)) / (a0 * s * s);
  };
  auto euler_angles = [=](const AngleState& s, AngleState& ds, double) {
    const double theta = s[0], phi_rate = precession_rate(theta);
    ds[0] = s[1];
    ds[1] = (a0 * phi_rate * phi_rate * std::sin(theta) * std::cos(theta) -
             p_psi * phi_rate * std::sin(theta) + mgl * std::sin(theta)) /
            a0;
    ds[2] = phi_rate;
    ds[3] = p_psi / axial - phi_rate * std::cos(theta);
  };
  std::vector<double> grid = times;
  const bool prepend_zero = grid.empty() || grid.front() != 0.0;
  if (prepend_zero) grid.insert(grid.begin(), 0.0);
  Mat out(grid.size(), 4);
  std::size_t row = 0;
  auto record = [&](const AngleState& s, double) {
    const double theta = s[0], phi = s[2], psi = s[3];
    out.row(row++) << arm * std::sin(phi) * std::sin(theta), -arm * std::cos(phi) * std::sin(theta),
        arm * std::cos(theta), std::sin(theta) * std::sin(psi);
  };
  AngleState s{r.theta0, 0.0, 0.0, 0.0};
  namespace odeint = boost::numeric::odeint;
  odeint::bulirsch_stoer<AngleState> stepper(1e-13, 1e-13);
  odeint::integrate_times(stepper, euler_angles, s, grid.begin(), grid.end(), 1e-4, record);
  return prepend_zero ? Mat(out.bottomRows(times.size())) : out;
}

}  // namespace cmb::symmetric_top
