// Boost.Odeint's error-controlled steppers: cash_karp54, dopri5, fehlberg78, bulirsch_stoer,
// rosenbrock4 (cmbench's own, dop853 and dopri87: steppers/integrate_embedded_rk.cpp).
#include <algorithm>
#include <array>
#include <boost/array.hpp>
#include <boost/numeric/odeint.hpp>
#include <cmath>
#include <functional>
#include <limits>

#include "steppers/adaptive_loop.hpp"

namespace cmb::detail {

namespace odeint = boost::numeric::odeint;

namespace {

using UState = boost::numeric::ublas::vector<double>;
using UMatrix = boost::numeric::ublas::matrix<double>;

// Shampine's Rosenbrock 4(3) coefficients as Boost.Odeint 1.74 tabulates them, except d4: Boost
// has +0.0362, the published set −0.0362 (Numerical Recipes, 3rd ed., §17.5.1, StepperRoss,
// after Shampine, ACM TOMS 8 (1982); Hairer & Wanner, Solving ODEs II, §IV.7). d4 multiplies
// ∂f/∂t in the fourth stage, so the sign matters only when the right-hand side depends on t
// explicitly (rheonomic constraints): there Boost's value makes the method first order
// (tests/test_steppers.cpp measures both on car_axis). The member hides the base's d4, which is
// the name rosenbrock4 reads.
struct ShampineRosenbrockCoefficients : odeint::default_rosenbrock_coefficients<double> {
  const double d4 = -0.3620000000000023e-01;
};
using Rosenbrock4 = odeint::rosenbrock4<double, ShampineRosenbrockCoefficients>;

// rosenbrock4 needs ∂f/∂x and ∂f/∂t; central differences of the method's RHS (2n + 2 calls).
class DifferencedJacobian {
 public:
  DifferencedJacobian(Method& method, LoopCounters& counters, long budget)
      : system_{&method, &counters.rhs_calls, budget}, counters_(counters) {}

  void operator()(const UState& x, UMatrix& jac, double t, UState& dfdt) {
    const std::size_t n = x.size();
    xp_ = x;
    fp_.resize(n);
    fm_.resize(n);
    ++counters_.jacobian_evaluations;
    for (std::size_t j = 0; j < n; ++j) {
      const double h = kStep * std::max(1.0, std::abs(x[j]));
      xp_[j] = x[j] + h;
      system_(xp_, fp_, t);
      xp_[j] = x[j] - h;
      system_(xp_, fm_, t);
      xp_[j] = x[j];
      for (std::size_t i = 0; i < n; ++i) jac(i, j) = (fp_[i] - fm_[i]) / (2.0 * h);
    }
    const double ht = kStep * std::max(1.0, std::abs(t));
    system_(x, fp_, t + ht);
    system_(x, fm_, t - ht);
    for (std::size_t i = 0; i < n; ++i) dfdt[i] = (fp_[i] - fm_[i]) / (2.0 * ht);
  }

 private:
  static constexpr double kStep = 6e-6;  // ≈ ε^(1/3): balances truncation and round-off
  CountingSystem system_;
  LoopCounters& counters_;
  UState xp_, fp_, fm_;
};

template <class ErrorStepper>
LoopOutcome run_controlled_rk(Method& method, const StepperSettings& settings, Vec& x,
                              const std::vector<double>& sample_times,
                              const SampleObserver& observer, const LoopLimits& limits) {
  if (settings.fixed_steps) {
    ErrorStepper stepper;
    return fixed_rk(stepper, method, settings.dt, x, sample_times, observer, limits);
  }
  LoopOutcome out;
  State s(x.data(), x.data() + x.size());
  auto stepper = odeint::make_controlled(settings.abs_tol, settings.rel_tol, ErrorStepper());
  const CountingSystem system{&method, &out.counters.rhs_calls, limits.max_rhs_calls};
  adaptive_loop(stepper, std::cref(system), s, out, method, settings, sample_times, observer,
                limits);
  x = as_vec(s);
  return out;
}

LoopOutcome run_bulirsch_stoer(Method& method, const StepperSettings& settings, Vec& x,
                               const std::vector<double>& sample_times,
                               const SampleObserver& observer, const LoopLimits& limits) {
  if (settings.fixed_steps)
    throw std::logic_error("bulirsch_stoer has no fixed order: no fixed-step mode");
  LoopOutcome out;
  State s(x.data(), x.data() + x.size());
  odeint::bulirsch_stoer<State> stepper(settings.abs_tol, settings.rel_tol);
  const CountingSystem system{&method, &out.counters.rhs_calls, limits.max_rhs_calls};
  adaptive_loop(stepper, std::cref(system), s, out, method, settings, sample_times, observer,
                limits);
  x = as_vec(s);
  return out;
}

LoopOutcome run_rosenbrock4(Method& method, const StepperSettings& settings, Vec& x,
                            const std::vector<double>& sample_times, const SampleObserver& observer,
                            const LoopLimits& limits) {
  LoopOutcome out;
  UState s(x.size());
  std::copy(x.data(), x.data() + x.size(), s.begin());
  const CountingSystem system{&method, &out.counters.rhs_calls, limits.max_rhs_calls};
  DifferencedJacobian jacobian(method, out.counters, limits.max_rhs_calls);
  const auto pair = std::make_pair(std::cref(system), std::ref(jacobian));
  if (settings.fixed_steps) {
    Rosenbrock4 stepper;
    fixed_loop(stepper, pair, s, settings.dt, method, sample_times, observer, out, limits);
  } else {
    odeint::rosenbrock4_controller<Rosenbrock4> stepper(settings.abs_tol, settings.rel_tol);
    adaptive_loop(stepper, pair, s, out, method, settings, sample_times, observer, limits);
  }
  std::copy(s.begin(), s.end(), x.data());
  return out;
}

LoopOutcome run_cash_karp54(Method& method, const StepperSettings& settings, Vec& x,
                            const std::vector<double>& sample_times, const SampleObserver& observer,
                            const LoopLimits& limits) {
  using Stepper = odeint::runge_kutta_cash_karp54<State>;
  return run_controlled_rk<Stepper>(method, settings, x, sample_times, observer, limits);
}

LoopOutcome run_dopri5(Method& method, const StepperSettings& settings, Vec& x,
                       const std::vector<double>& sample_times, const SampleObserver& observer,
                       const LoopLimits& limits) {
  using Stepper = odeint::runge_kutta_dopri5<State>;
  return run_controlled_rk<Stepper>(method, settings, x, sample_times, observer, limits);
}

LoopOutcome run_fehlberg78(Method& method, const StepperSettings& settings, Vec& x,
                           const std::vector<double>& sample_times, const SampleObserver& observer,
                           const LoopLimits& limits) {
  using Stepper = odeint::runge_kutta_fehlberg78<State>;
  return run_controlled_rk<Stepper>(method, settings, x, sample_times, observer, limits);
}

}  // namespace

}  // namespace cmb::detail

using cmb::StepperKind;
namespace run = cmb::detail;

CMB_DEFINE_STEPPER(bulirsch_stoer) {
  return {"bulirsch_stoer",
          StepperKind::adaptive,
          0,
          "Bulirsch-Stoer extrapolation, variable order",
          run::run_bulirsch_stoer,
          "Bulirsch–Stoer"};
}
CMB_DEFINE_STEPPER(cash_karp54) {
  return {"cash_karp54",        StepperKind::adaptive, 5, "Cash-Karp 5(4), error-controlled",
          run::run_cash_karp54, "Cash–Karp 5(4)"};
}
CMB_DEFINE_STEPPER(dopri5) {
  return {"dopri5",        StepperKind::adaptive, 5, "Dormand-Prince 5(4), FSAL, error-controlled",
          run::run_dopri5, "Dormand–Prince 5(4)"};
}
CMB_DEFINE_STEPPER(fehlberg78) {
  return {
      "fehlberg78",        StepperKind::adaptive, 8, "Runge-Kutta-Fehlberg 7(8), error-controlled",
      run::run_fehlberg78, "Fehlberg 7(8)"};
}
CMB_DEFINE_STEPPER(rosenbrock4) {
  return {"rosenbrock4",
          StepperKind::adaptive,
          4,
          "Rosenbrock 4(3) for stiff problems; Jacobian by central differences of the RHS",
          run::run_rosenbrock4,
          "Rosenbrock 4"};
}
