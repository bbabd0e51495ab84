// kane_pendulum — double-rod pendulum with a sliding particle, Kane's method ([Notes-Kane-en]).
//
// System ([Notes-Kane-en]): rod A turns about N.z by q1 (pinned at O, length l, centre at l/2 along
// A.x); rod B turns about A.x by q2, centred at l·A.x and lying along B.y; particle Q slides
// along B.y at distance q3 from B's centre. Each body and the particle have mass m; rod inertias
// m l²/12 about the two axes across the rod. Gravity m g along N.x; torsional springs kt on q1
// and q2; a linear spring kl on q3 (equal and opposite on Q and B's centre).
// Data: m = 1 kg, g = 9.81 m/s², kt = 0.01 N·m/rad, kl = 2 N/m, l = 0.6 m; q(0) = (5°, 5°,
// 0.1 m), u(0) = (0.1 rad/s, 0.2 rad/s, 0.3 m/s); horizon 2 s.
// Constrained formulation for the methods: p = (q1, q2, xQ, yQ, zQ) — the rod angles and the
// particle's Cartesian position — with Lagrange's equations M(p) p̈ = Q(p, ṗ) − Jᵀλ and two
// holonomic rows keeping Q on B's axis: (Q − B_o)·B.x = 0, (Q − B_o)·B.z = 0. nq = 5, mh = 2.
// Reference: Kane's equations in the minimal coordinates (q1, q2, q3) — generalized active and
// inertia forces, sympy's KanesMethod — integrated by Bulirsch–Stoer at tolerance 1e-13. Both
// formulations are derived by problems/derive/kane_pendulum.py into
// problems/generated/kane_pendulum.inc (a test checks that file is current).
// Energy (kinetic + gravity + springs) is conserved. Outputs: q1, q2 [rad], xQ, yQ, zQ [m].
// Departure from the source: its listing forms M = ∂F*/∂u̇ and F = F*|u̇=0 + Fr from the
// generalized inertia forces F* and integrates u̇ = M⁻¹F. Since F* = −M_k u̇ + …, that M is minus
// the mass matrix and Kane's equations Fr + F* = 0 read u̇ = −M⁻¹F: the listing's sign makes the
// system gain energy (18.2 J in 2 s from the source's initial state, RK4 with h = 1e-4, against
// 1e-13 J with Kane's sign: problems/derive/kane_pendulum.py --source-listing-energy). The
// reference here solves sympy's KanesMethod equations M_k u̇ = F_k, with the right sign.
#include <array>
#include <boost/numeric/odeint.hpp>
#include <cmath>

#include "core/registry.hpp"
#include "problems/generated_model.hpp"

namespace cmb {
namespace {

#include "problems/generated/kane_pendulum.inc"

namespace gen = kane_pendulum_generated;
constexpr double kPi = 3.141592653589793238462643383279502884;
const std::array<double, 3> kQ0 = {5.0 * kPi / 180.0, 5.0 * kPi / 180.0, 0.1};
const std::array<double, 3> kU0 = {0.1, 0.2, 0.3};

class KanePendulum : public GeneratedProblem<5, 2> {
 public:
  explicit KanePendulum(const Params& params)
      : GeneratedProblem(
            {"kane_pendulum",
             "Double-rod pendulum with a sliding particle (Kane's method)",
             "Kane's-method chapter [Notes-Kane-en], sympy.physics.mechanics [SymPyMechanics]; "
             "reference: Kane's minimal-coordinate equations",
             {"closed_loop", "spatial"}},
            params, Sizes{5, 2, 0},
            {gen::constrained_mass_matrix, gen::constrained_forces, gen::constrained_constraints,
             gen::constrained_jacobian, gen::constrained_gamma, gen::constrained_energy}) {}

  void initial_state(VecRef q, VecRef v) const override {
    std::array<double, 3> position{}, velocity{};
    gen::kane_particle_position(kQ0.data(), position.data());
    gen::kane_particle_velocity(kQ0.data(), kU0.data(), velocity.data());
    q << kQ0[0], kQ0[1], position[0], position[1], position[2];
    v << kU0[0], kU0[1], velocity[0], velocity[1], velocity[2];
  }
  std::vector<std::string> output_names() const override { return {"q1", "q2", "xQ", "yQ", "zQ"}; }
  void outputs(double, CVecRef q, CVecRef, VecRef y) const override { y = q; }

  ReferenceInfo reference_info() const override {
    return {ReferenceKind::reduced_ode,
            "Kane's equations in the minimal coordinates (q1, q2, q3), sympy KanesMethod, "
            "Bulirsch-Stoer at tolerance 1e-13",
            1e-10};
  }
  Mat reference_outputs(const std::vector<double>& times) const override;
};

Mat KanePendulum::reference_outputs(const std::vector<double>& times) const {
  using State = std::array<double, 6>;  // [q1, q2, q3, u1, u2, u3]
  auto kane = [](const State& s, State& ds, double) {
    std::array<double, 9> mass{};
    std::array<double, 3> forcing{};
    gen::kane_mass_matrix(s.data(), mass.data());
    gen::kane_forcing(s.data(), s.data() + 3, forcing.data());
    const Eigen::Matrix3d M =
        Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(mass.data());
    const Eigen::Vector3d du = M.ldlt().solve(Eigen::Map<const Eigen::Vector3d>(forcing.data()));
    for (int i = 0; i < 3; ++i) {
      ds[i] = s[3 + i];
      ds[3 + i] = du(i);
    }
  };
  std::vector<double> grid = times;
  const bool prepend_zero = grid.empty() || grid.front() != 0.0;
  if (prepend_zero) grid.insert(grid.begin(), 0.0);
  Mat out(grid.size(), 5);
  std::size_t row = 0;
  auto record = [&](const State& s, double) {
    std::array<double, 3> position{};
    gen::kane_particle_position(s.data(), position.data());
    out.row(row++) << s[0], s[1], position[0], position[1], position[2];
  };
  State s = {kQ0[0], kQ0[1], kQ0[2], kU0[0], kU0[1], kU0[2]};
  namespace odeint = boost::numeric::odeint;
  odeint::bulirsch_stoer<State> stepper(1e-13, 1e-13);
  odeint::integrate_times(stepper, kane, s, grid.begin(), grid.end(), 1e-3, record);
  return prepend_zero ? Mat(out.bottomRows(times.size())) : out;
}

}  // namespace
}  // namespace cmb

CMB_DEFINE_PROBLEM(kane_pendulum) {
  cmb::ProblemEntry entry;
  entry.id = "kane_pendulum";
  entry.summary =
      "double-rod pendulum with sliding particle (Kane's method); Kane's equations as reference";
  entry.params = {cmb::t_end_param(2.0)};
  entry.make = [](const cmb::Params& p) { return std::make_unique<cmb::KanePendulum>(p); };
  return entry;
}
