#include "harness/steppers.hpp"

#include "core/params.hpp"

namespace cmb {

const std::vector<StepperSpec>& stepper_list() {
  static const std::vector<StepperSpec> list = {
      {"adams_bashforth_moulton", StepperKind::fixed, 4,
       "4-step Adams-Bashforth-Moulton predictor-corrector (started with RK4)"},
      {"bulirsch_stoer", StepperKind::adaptive, 0, "Bulirsch-Stoer extrapolation, variable order"},
      {"cash_karp54", StepperKind::adaptive, 5, "Cash-Karp 5(4), error-controlled"},
      {"dopri5", StepperKind::adaptive, 5, "Dormand-Prince 5(4), FSAL, error-controlled"},
      {"euler", StepperKind::fixed, 1, "explicit Euler"},
      {"fehlberg78", StepperKind::adaptive, 8, "Runge-Kutta-Fehlberg 7(8), error-controlled"},
      {"rk4", StepperKind::fixed, 4, "classical Runge-Kutta"},
      {"rk_gill", StepperKind::fixed, 4, "Runge-Kutta-Gill (seed 002), generic odeint tableau"},
      {"rosenbrock4", StepperKind::adaptive, 4,
       "Rosenbrock 4(3) for stiff problems; Jacobian by central differences of the RHS"},
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

}  // namespace cmb
