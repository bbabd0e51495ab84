#include "harness/run/run_request.hpp"

#include <cmath>

#include "catalog/catalog.hpp"
#include "core/errors.hpp"
#include "core/json_input.hpp"
#include "harness/run/run_settings.hpp"

namespace cmb {

namespace {

using nlohmann::json;

std::vector<std::string> names_of(const std::vector<ParamSpec>& specs) {
  std::vector<std::string> out;
  for (const auto& s : specs) out.push_back(s.name);
  return out;
}

std::string text_of(const json& request, const std::string& key) {
  const json& value = request.at(key);
  if (!value.is_string()) throw InputError(key + "=" + excerpt(value) + ": expected a string");
  return value.get<std::string>();
}

// What to run, as against how (the run settings of harness/run/run_settings.hpp).
const std::vector<std::string> kIdentityKeys = {"problem", "method", "stepper", "integrator",
                                                "params"};

void check_request_keys(const json& request) {
  if (!request.is_object()) throw InputError("a run is a JSON object, got " + excerpt(request));
  for (const auto& [key, value] : request.items())
    if (!find_run_setting(key) &&
        std::find(kIdentityKeys.begin(), kIdentityKeys.end(), key) == kIdentityKeys.end()) {
      std::vector<std::string> valid = kIdentityKeys;
      for (const auto& setting : run_settings()) valid.push_back(setting.name);
      throw InputError("unknown run setting '" + key + "' (valid: " + join(valid, ", ") + ")");
    }
  auto given = [&](const char* key) { return request.contains(key) && !request[key].is_null(); };
  if (!given("problem")) throw InputError("a run needs 'problem'");
  if (given("integrator") && (given("method") || given("stepper")))
    throw InputError(
        "a run has either 'integrator' (a DAE integrator, which steps itself) or "
        "'method' and 'stepper', not both");
  if (!given("integrator") && !(given("method") && given("stepper")))
    throw InputError("a run needs 'method' and 'stepper', or 'integrator'");
}

}  // namespace

void apply_param(RunConfig& config, const std::string& key, const json& value) {
  const auto& problem_specs = find_problem(config.problem).params;
  const auto& method_specs = method_params_of(config.formulation_id());
  auto set = [&](json& params, const std::string& name) {
    if (params.contains(name))
      throw InputError("parameter '" + name + "' is given twice: give each parameter once");
    params[name] = value;
  };
  if (key.rfind("problem.", 0) == 0) return set(config.problem_params, key.substr(8));
  if (key.rfind("method.", 0) == 0) return set(config.method_params, key.substr(7));
  const bool in_problem = find_param(problem_specs, key) != nullptr;
  const bool in_method = find_param(method_specs, key) != nullptr;
  if (in_problem && in_method)
    throw InputError("parameter '" + key + "' is ambiguous: write problem." + key + " or method." +
                     key);
  if (in_problem) return set(config.problem_params, key);
  if (in_method) return set(config.method_params, key);
  throw InputError("unknown parameter '" + key + "' (problem '" + config.problem +
                   "' takes: " + join(names_of(problem_specs), ", ") + "; " +
                   (config.steps_itself() ? "integrator '" : "method '") + config.formulation_id() +
                   "' takes: " + join(names_of(method_specs), ", ") + ")");
}

RunConfig run_config_from_json(const json& request) {
  check_request_keys(request);
  RunConfig c;
  c.surface = SettingSurface::keywords;
  json settings = json::object();
  for (const auto& [key, value] : request.items()) {
    if (value.is_null() || key == "params") continue;
    if (find_run_setting(key)) {
      settings[key] = value;
    } else {
      (key == "problem"      ? c.problem
       : key == "method"     ? c.method
       : key == "integrator" ? c.integrator
                             : c.stepper) = text_of(request, key);
    }
  }
  apply_run_settings(c, settings, SettingSurface::keywords);
  find_problem(c.problem);
  method_params_of(c.formulation_id());
  const json params = request.value("params", json::object());
  if (!params.is_null() && !params.is_object())
    throw InputError("params=" + excerpt(params) + ": expected an object");
  if (params.is_object())
    for (const auto& [key, value] : params.items()) apply_param(c, key, value);
  return c;
}

}  // namespace cmb
