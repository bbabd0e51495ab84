// test_midpoint — a test-only stepper, the worked example of docs/extending.md: the explicit
// midpoint rule (second order, two RHS calls per step) as an odeint generic Runge–Kutta tableau
// run by the shared fixed-step loop. Registered only in the extension test build
// (tests/extension/extra_steppers.def) to prove that a stepper needs one file and one line.
#include <boost/array.hpp>
#include <boost/numeric/odeint.hpp>

#include "steppers/step_loop.hpp"

namespace {

namespace odeint = boost::numeric::odeint;
using cmb::detail::State;

// Butcher tableau: c = (0, 1/2), a21 = 1/2, b = (0, 1).
using MidpointBase = odeint::explicit_generic_rk<2, 2, State, double, State, double>;
class ExplicitMidpoint : public MidpointBase {
 public:
  ExplicitMidpoint()
      : MidpointBase(MidpointBase::coef_a_type(boost::array<double, 1>{{0.5}}),
                     MidpointBase::coef_b_type{{0.0, 1.0}}, MidpointBase::coef_c_type{{0.0, 0.5}}) {
  }
};

cmb::LoopOutcome run_midpoint(cmb::Method& method, const cmb::StepperSettings& settings,
                              cmb::Vec& x, const std::vector<double>& sample_times,
                              const cmb::SampleObserver& observer, const cmb::LoopLimits& limits) {
  ExplicitMidpoint stepper;
  return cmb::detail::fixed_rk(stepper, method, settings.dt, x, sample_times, observer, limits);
}

}  // namespace

CMB_DEFINE_STEPPER(test_midpoint) {
  return {"test_midpoint", cmb::StepperKind::fixed, 2, "explicit midpoint rule (test only)",
          run_midpoint,    "Midpoint (test)"};
}
