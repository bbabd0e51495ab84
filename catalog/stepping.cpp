#include "catalog/stepping.hpp"

#include <map>
#include <stdexcept>

#include "catalog/catalog.hpp"

namespace cmb {

const StepperSpec& integrator_stepper(const std::string& integrator_id) {
  // Built once, after every integrator is in the catalog (programs add theirs first).
  static const std::map<std::string, StepperSpec> table = [] {
    std::map<std::string, StepperSpec> specs;
    for (const auto& entry : integrator_registry())
      specs[entry.id] = {kDaeStepper, entry.kind,
                         entry.order, "the own time stepping of the DAE integrator " + entry.id,
                         nullptr,     std::string()};
    return specs;
  }();
  const auto it = table.find(integrator_id);
  if (it != table.end()) return it->second;
  find_integrator(integrator_id);  // an InputError listing the valid ids when it is unknown
  throw std::logic_error("integrator '" + integrator_id +
                         "' was added after the first run was prepared");
}

}  // namespace cmb
