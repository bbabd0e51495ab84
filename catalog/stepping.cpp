#include "catalog/stepping.hpp"

#include <map>
#include <stdexcept>

#include "catalog/catalog.hpp"
#include "core/integrator.hpp"

namespace cmb {

namespace {

LoopOutcome run_dae(Method& method, const StepperSettings& settings, Vec& x,
                    const std::vector<double>& sample_times, const SampleObserver& observer,
                    const LoopLimits& limits) {
  return dynamic_cast<Integrator&>(method).integrate(settings, x, sample_times, observer, limits);
}

}  // namespace

const StepperSpec& integrator_stepper(const std::string& integrator_id) {
  // Built once, after every integrator is in the catalog (programs add theirs first).
  static const std::map<std::string, StepperSpec> table = [] {
    std::map<std::string, StepperSpec> specs;
    for (const auto& entry : integrator_registry())
      specs[entry.id] = {kDaeStepper, entry.kind, entry.order,
                         "the own time stepping of the DAE integrator " + entry.id, run_dae};
    return specs;
  }();
  const auto it = table.find(integrator_id);
  if (it != table.end()) return it->second;
  find_integrator(integrator_id);  // an InputError listing the valid ids when it is unknown
  throw std::logic_error("integrator '" + integrator_id +
                         "' was added after the first run was prepared");
}

const StepperSpec& stepper_of_run(const std::string& stepper, const std::string& method) {
  return stepper == kDaeStepper ? integrator_stepper(method) : find_stepper(stepper);
}

}  // namespace cmb
