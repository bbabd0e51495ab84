#include "harness/steppers.hpp"

#include <algorithm>

#include "core/params.hpp"

// The entry functions of the listed steppers (defined by CMB_DEFINE_STEPPER).
#define CMB_STEPPER(id) cmb::StepperSpec cmb_stepper_entry_##id();
#include "harness/steppers.def"
#ifdef CMB_EXTRA_STEPPERS_DEF
#include CMB_EXTRA_STEPPERS_DEF
#endif
#undef CMB_STEPPER

namespace cmb {

const std::vector<StepperSpec>& stepper_list() {
  static const std::vector<StepperSpec> list = [] {
    std::vector<StepperSpec> table = {
#define CMB_STEPPER(id) cmb_stepper_entry_##id(),
#include "harness/steppers.def"
#ifdef CMB_EXTRA_STEPPERS_DEF
#include CMB_EXTRA_STEPPERS_DEF
#endif
#undef CMB_STEPPER
    };
    std::sort(table.begin(), table.end(),
              [](const StepperSpec& a, const StepperSpec& b) { return a.id < b.id; });
    return table;
  }();
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
