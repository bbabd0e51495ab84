// bricard — Bricard's mechanism (IFToMM A04): an overconstrained spatial loop, redundant
// constraints everywhere.
//
// Data (IFToMM A04 [IFToMM; Gonzalez2006] in docs/sources.md): five moving rods of 1 m,
// 1 kg, square section 0.1 m (inertia (L² + a²)m/12 across, 2a²m/12 along the rod); six revolute
// joints at (0,0,0) → (1,0,0) → (1,−1,0) → (1,−1,1) → (0,−1,1) → (0,0,1) → back to (0,0,0)
// (the last segment is the ground), axes J1 ∥ y, J2 ∥ z, J3 ∥ x, J4 ∥ y, J5 ∥ z, J6 ∥ x;
// g = 9.81 m/s² along −y; released at rest; 10 s.
// Formulation (cmbench's choice): the open chain ground–J1–rod1–…–J5–rod5 in its five relative
// joint angles q = (a1…a5), closed at J6 by five rows — the chain end at the ground point
// (0,0,1) and rod 5's J6 axis parallel to the ground's x axis. nq = 5, mh = 5: Grübler's count
// gives 0 degrees of freedom but J has rank 4 everywhere, so the mechanism moves with one.
// Methods that assume full row rank must report it (index1, baumgarte, projection: singular;
// coordinate_partitioning: unsupported); SVD, pseudo-inverse, QP and penalty methods pass.
// Equations derived by problems/derive/bricard.py (sympy) into problems/generated/bricard.inc.
// Reference: self-converged (two independent tight runs, harness/run/self_converged.hpp).
// Energy is conserved. Outputs: joint J3's position (x, y, z) [m] and the first joint angle.
// Branch indicators (value kind, 0.1 rad): a3 − a1, a5 − a1, a4 − a2 (wrapped), zero along the
// reference motion (a, b, a, b, a); the loop's other solution branches (a3 = −π/2, a2 = a4; or
// a1 = a4 = −π/2, a3 = a5; J of rank 3 there) break these equalities.
#include <array>
#include <cmath>

#include "core/registry.hpp"
#include "problems/generated_model.hpp"

namespace cmb {
namespace {

#include "problems/generated/bricard.inc"

namespace gen = bricard_generated;

class Bricard : public GeneratedProblem<5, 5> {
 public:
  explicit Bricard(const Params& params)
      : GeneratedProblem({"bricard",
                          "Bricard's overconstrained mechanism (IFToMM A04)",
                          "IFToMM benchmark A04 [IFToMM; Gonzalez2006]; "
                          "reference: self-converged",
                          {"closed_loop", "redundant", "spatial"}},
                         params, Sizes{5, 5, 0},
                         {gen::bricard_mass_matrix, gen::bricard_forces, gen::bricard_constraints,
                          gen::bricard_jacobian, gen::bricard_gamma, gen::bricard_energy}) {}

  void initial_state(VecRef q, VecRef v) const override {
    q.setZero();
    v.setZero();
  }
  // Along the mechanism's one-degree-of-freedom motion from q = 0 the joint angles stay pairwise
  // equal, a1 = a3 = a5 and a2 = a4; the other solution branches of the loop (found by Newton
  // from random starts: a3 = −π/2 with a2 = a4, or a1 = a4 = −π/2 with a3 = a5; rank 3) break
  // that symmetry by O(1). Value indicators, 0.1 rad as for n_four_bar.
  std::vector<BranchIndicator> branch_indicators() const override {
    using K = BranchIndicator::Kind;
    return {{"a3_equals_a1", "a3 − a1 [rad], wrapped; 0 on the reference branch", K::value, 0.1},
            {"a5_equals_a1", "a5 − a1 [rad], wrapped; 0 on the reference branch", K::value, 0.1},
            {"a4_equals_a2", "a4 − a2 [rad], wrapped; 0 on the reference branch", K::value, 0.1}};
  }
  void branch_indicator_values(double, CVecRef q, VecRef b) const override {
    constexpr double kTwoPi = 6.283185307179586476925286766559;
    b << std::remainder(q(2) - q(0), kTwoPi), std::remainder(q(4) - q(0), kTwoPi),
        std::remainder(q(3) - q(1), kTwoPi);
  }

  std::vector<std::string> output_names() const override { return {"J3_x", "J3_y", "J3_z", "a1"}; }
  void outputs(double, CVecRef q, CVecRef, VecRef y) const override {
    std::array<double, 3> p{};
    gen::bricard_joint3(q.data(), p.data());
    y << p[0], p[1], p[2], q(0);
  }
  ReferenceInfo reference_info() const override {
    ReferenceInfo ref;
    ref.kind = ReferenceKind::self_converged;
    ref.provenance = "computed by the harness (two independent tight runs)";
    return ref;
  }
};

}  // namespace
}  // namespace cmb

CMB_DEFINE_PROBLEM(bricard) {
  cmb::ProblemEntry entry;
  entry.id = "bricard";
  entry.display_name = "Bricard";
  entry.units.outputs = {{"J3_x", "m"}, {"J3_y", "m"}, {"J3_z", "m"}, {"a1", "rad"}};
  entry.units.holonomic = {"m", "1"};
  entry.summary = "IFToMM A04 Bricard mechanism: redundant constraints everywhere (rank 4 of 5)";
  entry.params = {cmb::t_end_param(10.0)};
  entry.make = [](const cmb::Params& p) { return std::make_unique<cmb::Bricard>(p); };
  return entry;
}
