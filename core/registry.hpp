/// \file
/// The plug between the catalog and what it lists: the entry a method, problem or DAE integrator
/// file defines with CMB_DEFINE_METHOD / CMB_DEFINE_PROBLEM / CMB_DEFINE_INTEGRATOR. The catalog
/// (catalog/catalog.hpp) builds its tables from the lists methods/methods.def,
/// problems/problems.def and integrators/integrators.def, one line per entry.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/integration.hpp"
#include "core/integrator.hpp"
#include "core/method.hpp"
#include "core/params.hpp"
#include "core/problem.hpp"

namespace cmb {

/// A method's catalog entry, returned by the function CMB_DEFINE_METHOD(id) defines.
struct MethodEntry {
  std::string id;                 ///< the method's id (is_valid_entry_id), as in methods.def
  std::string display_name;       ///< how figures and tables name it ("Udwadia–Kalaba")
  std::string summary;            ///< one line for `cmbench list`
  Capabilities capabilities;      ///< what it handles beyond holonomic full-rank rows
  std::vector<ParamSpec> params;  ///< every parameter it accepts
  std::function<std::unique_ptr<Method>(const Params&)> make;  ///< builds it from parsed params
};

/// Ids become run keys and file names: lower-case letters, digits and underscores only.
inline bool is_valid_entry_id(const std::string& id) {
  if (id.empty()) return false;
  for (const char c : id)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

/// The units figures label a problem's axes with: of each scored output, and of its constraint
/// rows (the velocity residual ψ = J v − ν of a holonomic row has the row's unit per second).
struct ProblemUnits {
  /// (output name, unit) for every output the problem scores, e.g. {"x", "m"}
  std::vector<std::pair<std::string, std::string>> outputs;
  std::vector<std::string> holonomic;     ///< the units of its rows Φ ("m", "rad", "1"), if any
  std::vector<std::string> nonholonomic;  ///< of its rows A_nh v − c (velocities), if any
};

/// A problem's catalog entry, returned by the function CMB_DEFINE_PROBLEM(id) defines.
struct ProblemEntry {
  std::string id;                 ///< the problem's id, as in problems.def
  std::string display_name;       ///< how figures and tables name it ("Andrews' squeezer")
  std::string summary;            ///< one line for `cmbench list`
  ProblemUnits units;             ///< units of its outputs and constraint rows
  std::vector<ParamSpec> params;  ///< every parameter it accepts
  std::function<std::unique_ptr<Problem>(const Params&)> make;  ///< builds it from parsed params
};

/// A DAE integrator (core/integrator.hpp): its scheme's kind (fixed step: dt; adaptive: tol) and
/// order (0: variable) describe the "dae" stepper of its runs.
struct IntegratorEntry {
  std::string id;                         ///< the integrator's id, as in integrators.def
  std::string display_name;               ///< how figures and tables name it ("IDA (BDF)")
  std::string summary;                    ///< one line for `cmbench list`
  StepperKind kind = StepperKind::fixed;  ///< fixed step (dt) or adaptive (tol)
  int order = 0;                          ///< the scheme's order; 0: variable
  Capabilities capabilities;              ///< what it handles, as a method's
  std::vector<ParamSpec> params;          ///< every parameter it accepts
  std::function<std::unique_ptr<Integrator>(const Params&)> make;  ///< builds it from parsed params
};

}  // namespace cmb

/// Starts the definition of the function that returns the entry of the DAE integrator `id`, in its
/// own file `integrators/<id>.cpp`: `CMB_DEFINE_INTEGRATOR(id) { cmb::IntegratorEntry entry; ...;
/// return entry; }`, listed by a line CMB_INTEGRATOR(id) in integrators/integrators.def.
#define CMB_DEFINE_INTEGRATOR(id) cmb::IntegratorEntry cmb_integrator_entry_##id()
/// Starts the definition of the function that returns the entry of the method `id`, in its own file
/// `methods/<id>.cpp`: `CMB_DEFINE_METHOD(id) { cmb::MethodEntry entry; ...; return entry; }`,
/// listed by a line CMB_METHOD(id) in methods/methods.def (docs/extending.md).
#define CMB_DEFINE_METHOD(id) cmb::MethodEntry cmb_method_entry_##id()
/// Starts the definition of the function that returns the entry of the problem `id`, in its own
/// file `problems/<id>.cpp`: `CMB_DEFINE_PROBLEM(id) { cmb::ProblemEntry entry; ...; return entry;
/// }`, listed by a line CMB_PROBLEM(id) in problems/problems.def.
#define CMB_DEFINE_PROBLEM(id) cmb::ProblemEntry cmb_problem_entry_##id()
