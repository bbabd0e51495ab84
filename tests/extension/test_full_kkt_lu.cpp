// test_full_kkt_lu — a test-only method, the worked example of docs/extending.md: it solves the
// whole KKT matrix [M Jᵀ; J 0] by partially pivoted LU. Registered only in the extension test
// build (tests/extension/extra_methods.def) to prove that the conformance suites pick up a new
// entry without any other edit.
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

CMB_DEFINE_METHOD(test_full_kkt_lu) {
  cmb::MethodEntry entry;
  entry.id = "test_full_kkt_lu";
  entry.summary = "test-only: whole KKT matrix by partially pivoted LU";
  entry.capabilities.nonholonomic = true;  // nonholonomic rows are just rows of J
  entry.make = [](const cmb::Params& p) { return std::make_unique<cmb::FullKktLu>(p); };
  return entry;
}
