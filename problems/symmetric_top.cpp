// The symmetric top's release and its reference (problems/symmetric_top.hpp).
#include "problems/symmetric_top.hpp"

#include <array>
#include <boost/numeric/odeint.hpp>
#include <cmath>

namespace cmb::symmetric_top {
namespace {

using Vec3 = Eigen::Vector3d;

// The reference's state: the body axis e, the angular momentum L about the tip, and n, a unit
// vector normal to e carried along by the axis' own rotation ω⊥ (ṅ = ω⊥ × n): every entry is
// smooth wherever the top goes, the vertical included.
using DirectorState = std::array<double, 9>;
Vec3 part(const DirectorState& s, int i) { return {s[3 * i], s[3 * i + 1], s[3 * i + 2]}; }
void set_part(DirectorState& s, int i, const Vec3& v) {
  for (int k = 0; k < 3; ++k) s[3 * i + k] = v(k);
}

}  // namespace

Release release_from(const Params& params, const std::string&) {
  return {params.number("theta0"), params.number("spin"), params.number("phidot0")};
}

Eigen::Vector3d release_body_rate(const Release& r) {
  return {0.0, r.phidot0 * std::sin(r.theta0), r.spin};
}

std::vector<ParamSpec> params() {
  ParamSpec theta0 = positive_number(
      "theta0", 0.5, "initial tilt of the body axis from the upward vertical [rad]");
  theta0.max = 3.141592653589793;
  return {t_end_param(10.0), theta0,
          nonnegative_number("spin", 50.0, "spin rate about the body axis [rad/s]"),
          nonnegative_number("phidot0", 0.0, "initial precession rate [rad/s]")};
}

std::vector<std::string> output_names() { return {"cm_x", "cm_y", "cm_z", "body_x_z"}; }

ReferenceInfo reference_info() {
  return {ReferenceKind::reduced_ode,
          "the same top as its axis e and angular momentum L about the tip (L' = m g l z x e, "
          "e' = (L x e)/A0), the body frame carried along e and turned by the constant spin, "
          "Bulirsch-Stoer at tolerance 1e-13",
          2e-10};
}

Mat reference_outputs(const Release& r, const std::vector<double>& times) {
  return reference_outputs(kTop, r, times);
}

Mat reference_outputs(const TopData& d, const Release& r, const std::vector<double>& times) {
  // A symmetric body's spin ω₃ about its axis is constant (gravity has no moment about it), so
  // ω = ω⊥ + ω₃ e with ω⊥ = (L − (L·e) e)/A₀; the body's x axis is n turned by ω₃ t about e.
  const double a0 = tip_transverse(d), mgl = d.mass * d.g * d.arm, spin = r.spin;
  const Vec3 up(0.0, 0.0, 1.0);
  auto rhs = [=](const DirectorState& s, DirectorState& ds, double) {
    const Vec3 e = part(s, 0), L = part(s, 1), n = part(s, 2);
    const Vec3 axis_rate = (L - L.dot(e) * e) / a0;
    set_part(ds, 0, axis_rate.cross(e));
    set_part(ds, 1, mgl * up.cross(e));
    set_part(ds, 2, axis_rate.cross(n));
  };
  // The release: Euler angles z-x-z φ = ψ = 0, θ = θ0, so the body axes are x̄ = (1, 0, 0),
  // ȳ = (0, cos θ0, sin θ0), z̄ = e = (0, −sin θ0, cos θ0).
  const double c0 = std::cos(r.theta0), s0 = std::sin(r.theta0);
  const Vec3 e0(0.0, -s0, c0), y0(0.0, c0, s0), x0(1.0, 0.0, 0.0);
  const Vec3 w = release_body_rate(r);
  DirectorState s{};
  set_part(s, 0, e0);
  set_part(s, 1, a0 * w(1) * y0 + d.axial * w(2) * e0);
  set_part(s, 2, x0);
  std::vector<double> grid = times;
  const bool prepend_zero = grid.empty() || grid.front() != 0.0;
  if (prepend_zero) grid.insert(grid.begin(), 0.0);
  Mat out(grid.size(), 4);
  std::size_t row = 0;
  auto record = [&](const DirectorState& x, double t) {
    const Vec3 e = part(x, 0), n = part(x, 2);
    const Vec3 body_x = std::cos(spin * t) * n + std::sin(spin * t) * e.cross(n);
    out.row(row++) << d.arm * e(0), d.arm * e(1), d.arm * e(2), body_x(2);
  };
  namespace odeint = boost::numeric::odeint;
  odeint::bulirsch_stoer<DirectorState> stepper(1e-13, 1e-13);
  odeint::integrate_times(stepper, rhs, s, grid.begin(), grid.end(), 1e-4, record);
  return prepend_zero ? Mat(out.bottomRows(times.size())) : out;
}

}  // namespace cmb::symmetric_top
