#include "steppers/steppers.hpp"

#include <algorithm>
#include <stdexcept>

#include "core/params.hpp"
#include "core/registry.hpp"

// The entry functions of the listed steppers (defined by CMB_DEFINE_STEPPER).
#define CMB_STEPPER(id) cmb::StepperSpec cmb_stepper_entry_##id();
#include "steppers/steppers.def"
#undef CMB_STEPPER

namespace cmb {

namespace {

bool by_id(const StepperSpec& a, const StepperSpec& b) { return a.id < b.id; }

std::vector<StepperSpec>& stepper_table() {
  static std::vector<StepperSpec> table = [] {
    std::vector<StepperSpec> listed = {
#define CMB_STEPPER(id) cmb_stepper_entry_##id(),
#include "steppers/steppers.def"
#undef CMB_STEPPER
    };
    std::sort(listed.begin(), listed.end(), by_id);
    return listed;
  }();
  return table;
}

}  // namespace

const std::vector<StepperSpec>& stepper_list() { return stepper_table(); }

void add_steppers(std::vector<StepperSpec> entries) {
  auto& table = stepper_table();
  for (auto& entry : entries) {
    if (!is_valid_entry_id(entry.id) || !entry.run)
      throw std::invalid_argument("stepper '" + entry.id +
                                  "' needs a snake_case id and a run function");
    const auto at = std::lower_bound(table.begin(), table.end(), entry, by_id);
    if (at != table.end() && at->id == entry.id)
      throw std::invalid_argument("stepper '" + entry.id + "' is already in the table");
    table.insert(at, std::move(entry));
  }
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
