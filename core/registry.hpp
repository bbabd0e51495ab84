// The plug between the catalog and what it lists: the entry a method, problem or DAE integrator
// file defines with CMB_DEFINE_METHOD / CMB_DEFINE_PROBLEM / CMB_DEFINE_INTEGRATOR. The catalog
// (catalog/catalog.hpp) builds its tables from the lists methods/methods.def,
// problems/problems.def and integrators/integrators.def, one line per entry.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/integration.hpp"
#include "core/integrator.hpp"
#include "core/method.hpp"
#include "core/params.hpp"
#include "core/problem.hpp"

namespace cmb {

struct MethodEntry {
  std::string id;
  std::string summary;
  Capabilities capabilities;
  std::vector<ParamSpec> params;
  std::function<std::unique_ptr<Method>(const Params&)> make;
};

// Ids become run keys and file names: lower-case letters, digits and underscores only.
inline bool is_valid_entry_id(const std::string& id) {
  if (id.empty()) return false;
  for (const char c : id)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

struct ProblemEntry {
  std::string id;
  std::string summary;
  std::vector<ParamSpec> params;
  std::function<std::unique_ptr<Problem>(const Params&)> make;
};

// A DAE integrator (core/integrator.hpp): its scheme's kind (fixed step: dt; adaptive: tol) and
// order (0: variable) describe the "dae" stepper of its runs.
struct IntegratorEntry {
  std::string id;
  std::string summary;
  StepperKind kind = StepperKind::fixed;
  int order = 0;
  Capabilities capabilities;
  std::vector<ParamSpec> params;
  std::function<std::unique_ptr<Integrator>(const Params&)> make;
};

}  // namespace cmb

#define CMB_DEFINE_INTEGRATOR(id) cmb::IntegratorEntry cmb_integrator_entry_##id()
#define CMB_DEFINE_METHOD(id) cmb::MethodEntry cmb_method_entry_##id()
#define CMB_DEFINE_PROBLEM(id) cmb::ProblemEntry cmb_problem_entry_##id()
