// n_four_bar — IFToMM A02: N four-bar parallelograms in a row; singular configurations, scaling.
//
// Data (IFToMM library of computational benchmark problems, A02 [IFToMM; Gonzalez2006], keys in
// docs/sources.md): 2N+1 uniform slender links of 1 m and 1 kg (I = mL²/12);
// g = 9.81 m/s² along −y. Ground pivots A_i = (i, 0), i = 0..N; N+1 rockers A_i–B_i, vertical at
// t = 0 (B_i = (i, 1)); N couplers B_i–B_{i+1}. Rockers start at ω = −1 rad/s, couplers translate
// at (1, 0) m/s. IFToMM: N = 40, 20 s, outputs x, y, ẋ, ẏ of B0.
// Coordinates: (x, y, θ) of every link (rockers first, then couplers): nq = 6N + 3,
// mh = 6N + 2 (3N + 1 pins). Whenever the rockers are horizontal J loses rank and the mobility
// jumps from 1 to N + 1; a method must pass through without leaving the parallelogram branch.
// Reference: on that branch every rocker has the same angle φ and couplers translate, so the
// reduced ODE in φ (Lagrange's equation on the closed-form chart) is integrated very accurately.
// Branch indicators: rocker_i_parallel = θ_i − θ_0 (wrapped to (−π, π]) for i = 1..N, value
// kind with tolerance 0.1 rad: on the parallelogram branch it is 0, on a folded branch O(1);
// and its rate θ̇_i − θ̇_0, tolerance 0.01 rad/s. A run that jumps at a singular passage keeps
// J v = 0 but moves along a folded branch's tangent: its rockers turn at different rates at once,
// while their angles part only over the next ~0.5 s or, where a stabilization pulls them back,
// never by 0.1 rad — so the run could end ok with the jump's error (0.2 m and 239 J at N = 40).
// Measured over 176 runs to 20 s (N = 2 and 4; 11 method configurations × 8 steppers): the 50
// that end ok peak at |θ̇_i − θ̇_0| ≤ 1e-4 rad/s in 44 runs and at 1.3e-4 … 4.4e-3 rad/s in 6
// (max errors 3e-7 … 7e-5 m); with a rate tolerance of 0.1 rad/s, 3 more ended ok, with peaks
// of 0.011 … 0.057 rad/s and errors of 8e-4 … 7e-3 m from one jump that Baumgarte's
// stabilization undid.
// Parameters: N (1 … 1000, default 40), t_end (default 20 s).
#include <cmath>

#include "core/registry.hpp"
#include "problems/planar_linkage.hpp"

namespace cmb {
namespace {

constexpr double kLength = 1.0, kMass = 1.0, kG = 9.81;
constexpr double kPi = 3.141592653589793238462643383279502884;
constexpr double kParallelTolerance = 0.1;       // [rad], see branch_indicators
constexpr double kParallelRateTolerance = 0.01;  // [rad/s], see branch_indicators

int rocker(int i) { return i; }
int coupler(int n, int i) { return n + 1 + i; }

std::vector<PlanarBody> links(int n) {
  return std::vector<PlanarBody>(2 * n + 1, {kMass, kMass * kLength * kLength / 12.0});
}

std::vector<PlanarPin> pins(int n) {
  const Eigen::Vector2d low(-kLength / 2, 0), high(kLength / 2, 0);
  std::vector<PlanarPin> out;
  for (int i = 0; i <= n; ++i)
    out.push_back({rocker(i), low, PlanarPin::kGround, {i * kLength, 0}});
  for (int i = 0; i < n; ++i) {
    out.push_back({rocker(i), high, coupler(n, i), low});
    out.push_back({rocker(i + 1), high, coupler(n, i), high});
  }
  return out;
}

class NFourBar : public PlanarLinkage {
 public:
  explicit NFourBar(const Params& params)
      : PlanarLinkage({"n_four_bar",
                       "IFToMM A02: N-four-bar mechanism",
                       "IFToMM benchmark A02 [IFToMM; Gonzalez2006]; "
                       "reference: reduced ODE on the parallelogram branch",
                       {"closed_loop", "singular"}},
                      params, links(params.integer("N")), pins(params.integer("N")), {}, kG,
                      kPi / 2, -1.0),
        n_(static_cast<int>(params.integer("N"))) {}

  std::vector<std::string> output_names() const override {
    return {"B0_x", "B0_y", "B0_vx", "B0_vy"};
  }

  void outputs(double, CVecRef q, CVecRef v, VecRef y) const override {
    const Eigen::Vector2d top(kLength / 2, 0);
    y << point(q, rocker(0), top), point_velocity(q, v, rocker(0), top);
  }

  // On the parallelogram branch every rocker keeps rocker 0's angle. The folded branches meet it
  // at the singular positions, so no sign separates them: the angle difference is a value
  // indicator. A state that satisfies the constraints away from the singular positions is
  // either on this branch (difference 0) or on a folded one (O(1) difference), so 0.1 rad flags
  // a switch early while drift of a usable run (IFToMM's threshold is 1e-3 m) stays far below.
  std::vector<BranchIndicator> branch_indicators() const override {
    std::vector<BranchIndicator> out;
    for (int i = 1; i <= n_; ++i)
      out.push_back({"rocker_" + std::to_string(i) + "_parallel",
                     "θ of rocker " + std::to_string(i) + " − θ of rocker 0 [rad], wrapped",
                     BranchIndicator::Kind::value, kParallelTolerance, kParallelRateTolerance});
    return out;
  }

  void branch_indicator_values(double, CVecRef q, VecRef b) const override {
    const double theta0 = q(3 * rocker(0) + 2);
    for (int i = 1; i <= n_; ++i)
      b(i - 1) = std::remainder(q(3 * rocker(i) + 2) - theta0, 2.0 * kPi);
  }

  void chart(const Jet2& phi, std::vector<Jet2>& q) const override {
    const Jet2 c = cos(phi), s = sin(phi);
    q.resize(3 * (2 * n_ + 1));
    for (int i = 0; i <= n_; ++i) {
      q[3 * rocker(i)] = i * kLength + 0.5 * kLength * c;
      q[3 * rocker(i) + 1] = 0.5 * kLength * s;
      q[3 * rocker(i) + 2] = phi;
    }
    for (int i = 0; i < n_; ++i) {
      q[3 * coupler(n_, i)] = (i + 0.5) * kLength + kLength * c;
      q[3 * coupler(n_, i) + 1] = kLength * s;
      q[3 * coupler(n_, i) + 2] = 0.0;
    }
  }

 private:
  int n_;
};

}  // namespace
}  // namespace cmb

CMB_DEFINE_PROBLEM(n_four_bar) {
  cmb::ProblemEntry entry;
  entry.id = "n_four_bar";
  entry.display_name = "N-four-bar";
  entry.units.outputs = {{"B0_x", "m"}, {"B0_y", "m"}, {"B0_vx", "m/s"}, {"B0_vy", "m/s"}};
  entry.units.holonomic = {"m"};
  entry.summary = "IFToMM A02 N-four-bar: passes singular configurations; N scales the size";
  entry.params = {cmb::integer_param("N", 40, 1, 1000, "number of four-bar loops (2N+1 links)"),
                  cmb::t_end_param(20.0)};
  entry.make = [](const cmb::Params& p) { return std::make_unique<cmb::NFourBar>(p); };
  return entry;
}
