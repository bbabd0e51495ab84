// test_euler_dae — a test-only DAE integrator, the worked example of docs/extending.md: the
// semi-implicit (symplectic) Euler method on the index-1 equations, which steps itself:
//   [M Jᵀ; J 0] [q̈ₙ; λₙ] = [Q; γ] at (tₙ, qₙ, vₙ),  vₙ₊₁ = vₙ + h q̈ₙ,  qₙ₊₁ = qₙ + h vₙ₊₁.
// First order, fixed step, no drift control. Named once in the cmb_extension_tests build to prove
// that an integrator needs one file and one line and is picked up by the integrator suites.
// State: x = [q; v; q̈; λ], q̈ and λ those of the KKT solve at (q, v).
#include "core/integrator.hpp"
#include "core/kkt.hpp"
#include "core/registry.hpp"
#include "core/schur_kkt.hpp"

namespace cmb {
namespace {

class EulerDae : public Integrator {
 public:
  using Integrator::Integrator;

  void bind(const Problem& problem) override {
    const Sizes s = problem.sizes();
    if (s.mn > 0 || s.mu > 0)
      throw NumericalFailure(RunStatus::unsupported,
                             "test_euler_dae: holonomic rows only (no nonholonomic or unilateral)");
    problem_ = &problem;
    n_ = s.nq;
    m_ = s.m();
    M_.setZero(n_, n_);
    J_.setZero(m_, n_);
    Q_.setZero(n_);
    gamma_.setZero(m_);
    qdd_.setZero(n_);
    lambda_.setZero(m_);
    x_work_.setZero(state_size());
    schur_.bind(n_, m_);
  }
  int state_size() const override { return 2 * n_ + n_ + m_; }
  void pack(double t, CVecRef q, CVecRef v, VecRef x) override {
    x.head(n_) = q;
    x.segment(n_, n_) = v;
    solve(t, x);
  }
  void unpack(double, CVecRef x, VecRef q, VecRef v) override {
    q = x.head(n_);
    v = x.segment(n_, n_);
  }
  void evaluate_at(double, CVecRef x) override {
    qdd_ = x.segment(2 * n_, n_);
    lambda_ = x.tail(m_);
  }
  const Vec& accelerations() const override { return qdd_; }
  const Vec& multipliers() const override { return lambda_; }

  LoopOutcome integrate(const StepperSettings& settings, Vec& x,
                        const std::vector<double>& sample_times, const SampleObserver& observer,
                        const LoopLimits& limits) override {
    return run_fixed_steps(settings.dt, x, sample_times, observer, limits,
                           [this](double t, double h, Vec& state, LoopCounters& counters) {
                             state.segment(n_, n_) += h * state.segment(2 * n_, n_);
                             state.head(n_) += h * state.segment(n_, n_);
                             solve(t + h, state);
                             ++counters.rhs_calls;
                           });
  }
  void evaluate_callbacks(double t, CVecRef x) override {
    x_work_ = x;
    solve(t, x_work_);
  }

 private:
  // q̈ and λ of the KKT solve at the state's (q, v), into the state.
  void solve(double t, VecRef x) {
    const auto q = x.head(n_);
    const auto v = x.segment(n_, n_);
    problem_->mass_matrix(t, q, M_);
    problem_->forces(t, q, v, Q_);
    problem_->jacobian(t, q, J_);
    problem_->acceleration_rhs(t, q, v, gamma_);
    schur_.solve(M_, J_, Q_, gamma_, 1e-12, RankPolicy::fail, t, qdd_, lambda_);
    x.segment(2 * n_, n_) = qdd_;
    x.tail(m_) = lambda_;
  }

  const Problem* problem_ = nullptr;
  int n_ = 0, m_ = 0;
  Mat M_, J_;
  Vec Q_, gamma_, qdd_, lambda_, x_work_;
  SchurKktSolver schur_;
};

}  // namespace
}  // namespace cmb

CMB_DEFINE_INTEGRATOR(test_euler_dae) {
  cmb::IntegratorEntry entry;
  entry.id = "test_euler_dae";
  entry.display_name = "Euler DAE (test)";
  entry.summary = "test-only: semi-implicit Euler on the index-1 KKT equations";
  entry.kind = cmb::StepperKind::fixed;
  entry.order = 1;
  entry.make = [](const cmb::Params& p) { return std::make_unique<cmb::EulerDae>(p); };
  return entry;
}
