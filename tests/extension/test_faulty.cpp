// test_faulty — a test-only problem that breaks on purpose, to check that every numerical fault
// ends its run with the right status and a message saying where, while the campaign goes on.
// The model is the unit pendulum in Cartesian coordinates (Φ = x² + y² − 1, m = 1, g = 9.81)
// released horizontally; from t = fault_time on, the chosen fault strikes:
//   nan_force      the applied force becomes NaN              → diverged ("not finite")
//   singular_mass  the mass matrix becomes zero               → singular
//   no_solution    Φ gains +2, which no position can satisfy  → newton_failed (projecting methods)
//   rough_force    a deterministic pseudo-random force of amplitude 1e10 N, different at every
//                  evaluation: a step passes an absolute tolerance 1e-8 only below dt ≈ 1e-18,
//                  far under the underflow bound 1e-14·t → step_limit (adaptive steppers)
//   slow           every force evaluation sleeps 2 ms        → time_limit with a wall-time limit
//   crash          the process aborts                         → the worker's crash is recorded
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "core/registry.hpp"

namespace cmb {
namespace {

constexpr double kG = 9.81;

class Faulty : public ProblemBase {
 public:
  explicit Faulty(const Params& params)
      : ProblemBase({"test_faulty",
                     "Pendulum with an injected fault (test-only)",
                     "tests",
                     {"fault_injection"}},
                    params, Sizes{2, 1, 0}),
        fault_(params.choice("fault")),
        t_fault_(params.number("fault_time")) {}

  void initial_state(VecRef q, VecRef v) const override {
    q << 1.0, 0.0;
    v.setZero();
  }
  void mass_matrix(double t, CVecRef, MatRef M) const override {
    M.setIdentity();
    if (struck("singular_mass", t)) M.setZero();
  }
  void forces(double t, CVecRef q, CVecRef, VecRef Q) const override {
    Q << 0.0, -kG;
    if (struck("nan_force", t)) Q(0) = std::nan("");
    if (struck("rough_force", t)) Q(0) += 1e10 * noise(t, q);
    if (struck("slow", t)) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    if (struck("crash", t)) std::abort();
  }
  void constraints(double t, CVecRef q, VecRef Phi) const override {
    Phi(0) = q.squaredNorm() - 1.0 + (struck("no_solution", t) ? 2.0 : 0.0);
  }
  void jacobian(double, CVecRef q, MatRef J) const override { J.row(0) = 2.0 * q.transpose(); }
  void acceleration_rhs(double, CVecRef, CVecRef v, VecRef gamma) const override {
    gamma(0) = -2.0 * v.squaredNorm();
  }
  std::vector<std::string> output_names() const override { return {"x", "y"}; }
  void outputs(double, CVecRef q, CVecRef, VecRef y) const override { y = q; }

 private:
  bool struck(const char* fault, double t) const { return t >= t_fault_ && fault_ == fault; }

  // A value in [−0.5, 0.5) hashed from the bits of (t, q): deterministic, but unrelated between
  // any two evaluation points however close.
  static double noise(double t, CVecRef q) {
    std::uint64_t h = 1469598103934665603ull;
    auto mix = [&h](double value) {
      std::uint64_t bits;
      std::memcpy(&bits, &value, sizeof bits);
      h = (h ^ bits) * 1099511628211ull;
      h ^= h >> 29;
    };
    mix(t);
    for (Eigen::Index i = 0; i < q.size(); ++i) mix(q(i));
    return static_cast<double>(h >> 11) * 0x1.0p-53 - 0.5;
  }

  std::string fault_;
  double t_fault_;
};

}  // namespace
}  // namespace cmb

CMB_DEFINE_PROBLEM(test_faulty) {
  cmb::ProblemEntry entry;
  entry.id = "test_faulty";
  entry.display_name = "Faulty (test)";
  entry.units.outputs = {{"x", "m"}, {"y", "m"}};
  entry.units.holonomic = {"m"};
  entry.summary = "test-only: pendulum with an injected numerical fault";
  entry.params = {cmb::t_end_param(1.0),
                  cmb::choice_param("fault",
                                    {"none", "nan_force", "singular_mass", "no_solution",
                                     "rough_force", "slow", "crash"},
                                    "the fault injected from fault_time on"),
                  cmb::positive_number("fault_time", 0.3, "when the fault strikes [s]")};
  entry.make = [](const cmb::Params& p) { return std::make_unique<cmb::Faulty>(p); };
  return entry;
}
