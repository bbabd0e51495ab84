// example_incline — the worked example of a problem defined outside the tree (docs/extending.md):
// a point mass sliding without friction on a line through the origin inclined at angle α, in
// Cartesian coordinates. Φ = y − x tan α; released at rest from the origin; g along −y. Exact
// solution: distance along the line s(t) = −½ g sin α t², so (x, y) = s (cos α, sin α); the normal
// force N = m g cos α gives λ = −N cos α under M q̈ = Q − Jᵀλ with J = [−tan α, 1].
#include <cmath>

#include "core/registry.hpp"

namespace cmb {
namespace {

constexpr double kMass = 2.0, kG = 9.81;

class Incline : public ProblemBase {
 public:
  explicit Incline(const Params& params)
      : ProblemBase({"example_incline",
                     "Point mass on an inclined line (example)",
                     "elementary mechanics; exact solution",
                     {}},
                    params, Sizes{2, 1, 0}),
        alpha_(params.number("angle")) {}

  void initial_state(VecRef q, VecRef v) const override {
    q.setZero();
    v.setZero();
  }
  void mass_matrix(double, CVecRef, MatRef M) const override { M = kMass * Mat::Identity(2, 2); }
  void forces(double, CVecRef, CVecRef, VecRef Q) const override { Q << 0.0, -kMass * kG; }
  void constraints(double, CVecRef q, VecRef Phi) const override {
    Phi(0) = q(1) - q(0) * std::tan(alpha_);
  }
  void jacobian(double, CVecRef, MatRef J) const override { J << -std::tan(alpha_), 1.0; }
  void acceleration_rhs(double, CVecRef, CVecRef, VecRef gamma) const override { gamma.setZero(); }
  bool has_energy() const override { return true; }
  double energy(double, CVecRef q, CVecRef v) const override {
    return 0.5 * kMass * v.squaredNorm() + kMass * kG * q(1);
  }
  std::vector<std::string> output_names() const override { return {"x", "y"}; }
  void outputs(double, CVecRef q, CVecRef, VecRef y) const override { y = q; }
  ReferenceInfo reference_info() const override {
    return {ReferenceKind::analytic, "uniform acceleration along the incline", 1e-15};
  }
  Mat reference_outputs(const std::vector<double>& times) const override {
    Mat out(times.size(), 2);
    for (std::size_t i = 0; i < times.size(); ++i) {
      const double s = -0.5 * kG * std::sin(alpha_) * times[i] * times[i];
      out.row(i) << s * std::cos(alpha_), s * std::sin(alpha_);
    }
    return out;
  }
  bool reference_multipliers(double, VecRef lambda) const override {
    lambda(0) = -kMass * kG * std::cos(alpha_) * std::cos(alpha_);
    return true;
  }

 private:
  double alpha_;
};

}  // namespace
}  // namespace cmb

CMB_DEFINE_PROBLEM(example_incline) {
  cmb::ProblemEntry entry;
  entry.id = "example_incline";
  entry.display_name = "Incline (example)";
  entry.units.outputs = {{"x", "m"}, {"y", "m"}};
  entry.units.holonomic = {"m"};
  entry.summary = "example: point mass on an inclined line (exact solution)";
  cmb::ParamSpec angle = cmb::positive_number("angle", 0.5, "inclination α [rad]");
  angle.max = 1.5;
  entry.params = {cmb::t_end_param(2.0), angle};
  entry.make = [](const cmb::Params& p) { return std::make_unique<cmb::Incline>(p); };
  return entry;
}
