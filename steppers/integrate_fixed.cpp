// Fixed-step steppers: euler, rk4, rk_gill, adams_bashforth_moulton.
#include <boost/array.hpp>
#include <boost/fusion/container/vector.hpp>
#include <boost/numeric/odeint.hpp>
#include <cmath>
#include <functional>

#include "steppers/step_loop.hpp"

namespace cmb::detail {

namespace odeint = boost::numeric::odeint;

namespace {

// Runge–Kutta–Gill: classical RK4 nodes with Gill's weights, which reduce round-off storage.
using GillBase = odeint::explicit_generic_rk<4, 4, State, double, State, double>;
class RungeKuttaGill : public GillBase {
 public:
  RungeKuttaGill() : GillBase(coefficients_a(), coefficients_b(), coefficients_c()) {}

 private:
  static const double kRoot2;
  static GillBase::coef_a_type coefficients_a() {
    const boost::array<double, 1> a1 = {{0.5}};
    const boost::array<double, 2> a2 = {{(kRoot2 - 1.0) / 2.0, (2.0 - kRoot2) / 2.0}};
    const boost::array<double, 3> a3 = {{0.0, -kRoot2 / 2.0, 1.0 + kRoot2 / 2.0}};
    return GillBase::coef_a_type(a1, a2, a3);
  }
  static GillBase::coef_b_type coefficients_b() {
    return {{1.0 / 6.0, (2.0 - kRoot2) / 6.0, (2.0 + kRoot2) / 6.0, 1.0 / 6.0}};
  }
  static GillBase::coef_c_type coefficients_c() { return {{0.0, 0.5, 0.5, 1.0}}; }
};
const double RungeKuttaGill::kRoot2 = std::sqrt(2.0);

LoopOutcome run_euler(Method& method, const StepperSettings& settings, Vec& x,
                      const std::vector<double>& sample_times, const SampleObserver& observer,
                      const LoopLimits& limits) {
  odeint::euler<State> stepper;
  return fixed_rk(stepper, method, settings.dt, x, sample_times, observer, limits);
}

LoopOutcome run_rk4(Method& method, const StepperSettings& settings, Vec& x,
                    const std::vector<double>& sample_times, const SampleObserver& observer,
                    const LoopLimits& limits) {
  odeint::runge_kutta4<State> stepper;
  return fixed_rk(stepper, method, settings.dt, x, sample_times, observer, limits);
}

LoopOutcome run_rk_gill(Method& method, const StepperSettings& settings, Vec& x,
                        const std::vector<double>& sample_times, const SampleObserver& observer,
                        const LoopLimits& limits) {
  RungeKuttaGill stepper;
  return fixed_rk(stepper, method, settings.dt, x, sample_times, observer, limits);
}

LoopOutcome run_adams_bashforth_moulton(Method& method, const StepperSettings& settings, Vec& x,
                                        const std::vector<double>& sample_times,
                                        const SampleObserver& observer, const LoopLimits& limits) {
  odeint::adams_bashforth_moulton<4, State> stepper;
  return fixed_rk(stepper, method, settings.dt, x, sample_times, observer, limits);
}

}  // namespace

}  // namespace cmb::detail

using cmb::StepperKind;
namespace run = cmb::detail;

CMB_DEFINE_STEPPER(adams_bashforth_moulton) {
  return {"adams_bashforth_moulton",
          StepperKind::fixed,
          4,
          "4-step Adams-Bashforth-Moulton predictor-corrector (started with RK4)",
          run::run_adams_bashforth_moulton,
          "Adams–Bashforth–Moulton 4"};
}
CMB_DEFINE_STEPPER(euler) {
  return {"euler", StepperKind::fixed, 1, "explicit Euler", run::run_euler, "Euler"};
}
CMB_DEFINE_STEPPER(rk4) {
  return {"rk4", StepperKind::fixed, 4, "classical Runge-Kutta", run::run_rk4, "RK4"};
}
CMB_DEFINE_STEPPER(rk_gill) {
  return {"rk_gill",
          StepperKind::fixed,
          4,
          "Runge-Kutta-Gill [Gill1951; Notes-Baumgarte-ja], generic odeint tableau",
          run::run_rk_gill,
          "Runge–Kutta–Gill"};
}
