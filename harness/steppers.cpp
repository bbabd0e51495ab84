#include "harness/steppers.hpp"

#include "core/params.hpp"
#include "harness/stepper_runs.hpp"

namespace cmb {

const std::vector<StepperSpec>& stepper_list() {
  static const std::vector<StepperSpec> list = {
      {"adams_bashforth_moulton", StepperKind::fixed, 4,
       "4-step Adams-Bashforth-Moulton predictor-corrector (started with RK4)",
       detail::run_adams_bashforth_moulton},
      {"bulirsch_stoer", StepperKind::adaptive, 0, "Bulirsch-Stoer extrapolation, variable order",
       detail::run_bulirsch_stoer},
      {"cash_karp54", StepperKind::adaptive, 5, "Cash-Karp 5(4), error-controlled",
       detail::run_cash_karp54},
      {"dopri5", StepperKind::adaptive, 5, "Dormand-Prince 5(4), FSAL, error-controlled",
       detail::run_dopri5},
      {"euler", StepperKind::fixed, 1, "explicit Euler", detail::run_euler},
      {"fehlberg78", StepperKind::adaptive, 8, "Runge-Kutta-Fehlberg 7(8), error-controlled",
       detail::run_fehlberg78},
      {"rk4", StepperKind::fixed, 4, "classical Runge-Kutta", detail::run_rk4},
      {"rk_gill", StepperKind::fixed, 4,
       "Runge-Kutta-Gill [Gill1951; Notes-Baumgarte-ja], generic odeint tableau",
       detail::run_rk_gill},
      {"rosenbrock4", StepperKind::adaptive, 4,
       "Rosenbrock 4(3) for stiff problems; Jacobian by central differences of the RHS",
       detail::run_rosenbrock4},
  };
  return list;
}

const StepperSpec& find_stepper(const std::string& id) {
  std::vector<std::string> ids;
  for (const auto& spec : stepper_list()) {
    if (spec.id == id) return spec;
    ids.push_back(spec.id);
  }
  throw InputError("unknown stepper '" + id + "' (valid: " + join(ids, ", ") + ")");
}

LoopOutcome integrate(Method& method, const StepperSpec& stepper, const StepperSettings& settings,
                      Vec& x, const std::vector<double>& sample_times,
                      const SampleObserver& observer, const LoopLimits& limits) {
  return stepper.run(method, settings, x, sample_times, observer, limits);
}

}  // namespace cmb
