// example_kkt_lu — the worked example of a method defined outside the tree (docs/extending.md):
// it solves the whole KKT matrix [M Jᵀ; J 0] by partially pivoted LU.
// Equations: [M Jᵀ; J 0] [q̈; λ] = [Q; γ], one dense LU of the (n + m) × (n + m) matrix per RHS
// call (O((n + m)³): a reference point, not a competitive method). No parameters.
// State: x = [q; v]. Fails when: the KKT matrix is singular (redundant rows or a singular
// configuration) — LU then returns inf/NaN, which the harness reports as `diverged`.
// Built by examples/out_of_tree/CMakeLists.txt into a cmbench of its own, and by cmbench's
// extension tests, which run every conformance suite over it.
#include <Eigen/LU>

#include "core/registry.hpp"
#include "methods/base/acceleration_method.hpp"

namespace cmb {
namespace {

class FullKktLu : public AccelerationMethod {
 public:
  explicit FullKktLu(const Params& params) : AccelerationMethod(params, {}) {}

 private:
  void bind_solver() override {
    K_.setZero(n_ + m_, n_ + m_);
    b_.setZero(n_ + m_);
    permuted_.setZero(n_ + m_);
    lu_ = Eigen::PartialPivLU<Mat>(n_ + m_);
  }

  void solve_accelerations(double) override {
    K_.topLeftCorner(n_, n_) = M_;
    K_.topRightCorner(n_, m_) = J_.transpose();
    K_.bottomLeftCorner(m_, n_) = J_;
    b_ << Q_, gamma_;
    lu_.compute(K_);
    permuted_.noalias() = lu_.permutationP() * b_;  // not in place: that would allocate
    lu_.matrixLU().triangularView<Eigen::UnitLower>().solveInPlace(permuted_);
    lu_.matrixLU().triangularView<Eigen::Upper>().solveInPlace(permuted_);
    qdd_ = permuted_.head(n_);
    lambda_ = permuted_.tail(m_);
  }

  Mat K_;
  Vec b_, permuted_;
  Eigen::PartialPivLU<Mat> lu_;
};

}  // namespace
}  // namespace cmb

CMB_DEFINE_METHOD(example_kkt_lu) {
  cmb::MethodEntry entry;
  entry.id = "example_kkt_lu";
  entry.display_name = "KKT by LU (example)";
  entry.summary = "example: whole KKT matrix [M J^T; J 0] by partially pivoted LU";
  entry.capabilities.nonholonomic = true;  // nonholonomic rows are just rows of J
  entry.make = [](const cmb::Params& p) { return std::make_unique<cmb::FullKktLu>(p); };
  return entry;
}
