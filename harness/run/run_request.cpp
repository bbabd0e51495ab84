#include "harness/run/run_request.hpp"

#include <cmath>
#include <set>

#include "catalog/catalog.hpp"
#include "catalog/stepping.hpp"
#include "core/errors.hpp"
#include "core/json_input.hpp"

namespace cmb {

namespace {

using nlohmann::json;

std::vector<std::string> names_of(const std::vector<ParamSpec>& specs) {
  std::vector<std::string> out;
  for (const auto& s : specs) out.push_back(s.name);
  return out;
}

double number_of(const json& request, const std::string& key) {
  const json& value = request.at(key);
  if (!value.is_number() || !std::isfinite(value.get<double>()))
    throw InputError("run setting '" + key + "' expects a finite number, got " + excerpt(value));
  return value.get<double>();
}

long whole_number_of(const json& request, const std::string& key, double max) {
  const double value = number_of(request, key);
  if (std::floor(value) != value || value < 0 || value > max)
    throw InputError("run setting '" + key + "' expects a whole number from 0 to " +
                     json(max).dump() + ", got " + excerpt(request.at(key)));
  return static_cast<long>(value);
}

std::string text_of(const json& request, const std::string& key) {
  const json& value = request.at(key);
  if (!value.is_string())
    throw InputError("run setting '" + key + "' expects a string, got " + excerpt(value));
  return value.get<std::string>();
}

const std::set<std::string> kNumbers = {"dt",
                                        "tol",
                                        "abs_tol",
                                        "rel_tol",
                                        "max_dt",
                                        "t_end",
                                        "sample_dt",
                                        "time_limit",
                                        "initial_tol",
                                        "perturb_position",
                                        "perturb_velocity",
                                        "timing_min_s",
                                        "timing_max_s"};
const std::set<std::string> kTexts = {"problem",         "method",    "stepper",
                                      "integrator",      "reference", "reference_cache",
                                      "initial_assembly"};
const std::set<std::string> kCounts = {"repeat", "max_steps", "max_rhs_calls"};

void check_request_keys(const json& request) {
  if (!request.is_object()) throw InputError("a run is a JSON object, got " + excerpt(request));
  std::vector<std::string> valid(kTexts.begin(), kTexts.end());
  valid.insert(valid.end(), kNumbers.begin(), kNumbers.end());
  valid.insert(valid.end(), kCounts.begin(), kCounts.end());
  valid.push_back("params");
  for (const auto& [key, value] : request.items())
    if (std::find(valid.begin(), valid.end(), key) == valid.end())
      throw InputError("unknown run setting '" + key + "' (valid: " + join(valid, ", ") + ")");
  auto given = [&](const char* key) { return request.contains(key) && !request[key].is_null(); };
  if (!given("problem")) throw InputError("a run needs 'problem'");
  if (given("integrator") && (given("method") || given("stepper")))
    throw InputError(
        "a run has either 'integrator' (a DAE integrator, which steps itself) or "
        "'method' and 'stepper', not both");
  if (!given("integrator") && !(given("method") && given("stepper")))
    throw InputError("a run needs 'method' and 'stepper', or 'integrator'");
}

void set_number(RunConfig& c, const std::string& key, double v) {
  if (key == "timing_min_s") c.timing_min_s = v;
  if (key == "timing_max_s") c.timing_max_s = v;
  if (key == "dt") c.dt = v;
  if (key == "tol") c.abs_tol = c.rel_tol = v;
  if (key == "abs_tol") c.abs_tol = v;
  if (key == "rel_tol") c.rel_tol = v;
  if (key == "max_dt") c.max_dt = v;
  if (key == "t_end") c.t_end = v;
  if (key == "sample_dt") c.sample_dt = v;
  if (key == "initial_tol") c.initial.tolerance = v;
  if (key == "perturb_position") c.initial.perturb_position = v;
  if (key == "perturb_velocity") c.initial.perturb_velocity = v;
  if (key == "time_limit") {
    if (!(v > 0)) throw InputError("run setting 'time_limit' must be > 0 seconds");
    c.limits.wall_time_limit = v;
  }
}

}  // namespace

void apply_param(RunConfig& config, const std::string& key, const json& value) {
  const auto& problem_specs = find_problem(config.problem).params;
  const auto& method_specs = method_params_of(config.method);
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
                   "' takes: " + join(names_of(problem_specs), ", ") + "; method '" +
                   config.method + "' takes: " + join(names_of(method_specs), ", ") + ")");
}

RunConfig run_config_from_json(const json& request) {
  check_request_keys(request);
  RunConfig c;
  for (const auto& [key, value] : request.items()) {
    if (value.is_null() || key == "params") continue;
    if (kTexts.count(key)) {
      const std::string text = text_of(request, key);
      if (key == "problem") c.problem = text;
      if (key == "method") c.method = text;
      if (key == "stepper") c.stepper = text;
      if (key == "integrator") {
        c.method = text;
        c.stepper = kDaeStepper;
      }
      if (key == "reference") c.reference = text;
      if (key == "reference_cache") c.reference_cache = text;
      if (key == "initial_assembly") c.initial.assembly = text;
    } else if (kCounts.count(key)) {
      if (key == "repeat") c.repeat = static_cast<int>(whole_number_of(request, key, kMaxRepeat));
      if (key == "max_steps") c.limits.max_steps = whole_number_of(request, key, 9e15);
      if (key == "max_rhs_calls") c.limits.max_rhs_calls = whole_number_of(request, key, 9e15);
    } else {
      set_number(c, key, number_of(request, key));
    }
  }
  find_problem(c.problem);
  method_params_of(c.method);
  const json params = request.value("params", json::object());
  if (!params.is_null() && !params.is_object())
    throw InputError("run setting 'params' expects an object, got " + excerpt(params));
  if (params.is_object())
    for (const auto& [key, value] : params.items()) apply_param(c, key, value);
  return c;
}

}  // namespace cmb
