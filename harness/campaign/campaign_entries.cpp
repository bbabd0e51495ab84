#include "harness/campaign/campaign_entries.hpp"

#include <cmath>

#include "catalog/catalog.hpp"
#include "catalog/stepping.hpp"
#include "core/json_input.hpp"
#include "harness/run/run_settings.hpp"

namespace cmb::campaign_file {

using nlohmann::json;

[[noreturn]] void fail_at(const std::string& path, const std::string& what) {
  throw InputError("campaign " + (path.empty() ? std::string("/") : path) + ": " + what);
}

void check_keys(const json& object, const std::string& path, const std::set<std::string>& valid,
                const std::set<std::string>& required) {
  if (!object.is_object()) fail_at(path, "expected a JSON object, got " + excerpt(object));
  for (const auto& [key, value] : object.items())
    if (!valid.count(key))
      fail_at(path + "/" + key,
              "unknown key (valid: " +
                  join(std::vector<std::string>(valid.begin(), valid.end()), ", ") + ")");
  for (const auto& key : required)
    if (!object.contains(key)) fail_at(path + "/" + key, "missing required key");
}

const json& array_at(const json& doc, const std::string& key) {
  const json& value = doc.at(key);
  if (!value.is_array() || value.empty())
    fail_at("/" + key, "expected a non-empty array, got " + excerpt(value));
  return value;
}

std::string string_at(const json& object, const std::string& key, const std::string& path) {
  const json& value = object.at(key);
  if (!value.is_string()) fail_at(path + "/" + key, "expected a string, got " + excerpt(value));
  return value.get<std::string>();
}

json setting_at(const std::string& name, const json& value, const std::string& path) {
  const RunSetting* setting = find_run_setting(name);
  const std::string problem = value_problem(*setting, value);
  if (!problem.empty()) fail_at(path, problem + ", got " + excerpt(value));
  return value;
}

// A value of the run setting `name` or a non-empty array of them (a sweep).
std::vector<double> sweep_at(const std::string& name, const json& value, const std::string& path) {
  std::vector<double> out;
  if (value.is_array()) {
    if (value.empty()) fail_at(path, "empty sweep");
    for (std::size_t i = 0; i < value.size(); ++i)
      out.push_back(setting_at(name, value[i], path + "/" + std::to_string(i)).get<double>());
  } else {
    out.push_back(setting_at(name, value, path).get<double>());
  }
  return out;
}

json params_at(const json& object, const std::string& path) {
  if (!object.contains("params")) return json::object();
  if (!object["params"].is_object())
    fail_at(path + "/params", "expected a JSON object, got " + excerpt(object["params"]));
  return object["params"];
}

void check_text(const json& object, const char* key, const std::string& path) {
  if (object.contains(key) && !object[key].is_string())
    fail_at(path + "/" + key, "expected a string, got " + excerpt(object[key]));
}

RunConfig parse_run_template(const json& doc) {
  RunConfig base;
  base.surface = SettingSurface::campaign;
  for (const auto& setting : run_settings())
    if (set_at_top_level(setting) && doc.contains(setting.name))
      setting.assign(base, setting_at(setting.name, doc[setting.name], "/" + setting.name));
  return base;
}

std::vector<Perturbation> parse_perturbations(const json& list, const std::string& path) {
  if (!list.is_array() || list.empty()) fail_at(path, "expected a non-empty array of objects");
  std::vector<Perturbation> out;
  for (std::size_t k = 0; k < list.size(); ++k) {
    const std::string kp = path + "/" + std::to_string(k);
    check_keys(list[k], kp, {"position", "velocity"}, {});
    Perturbation perturbation;
    for (const char* axis : {"position", "velocity"}) {
      if (!list[k].contains(axis)) continue;
      const json value = setting_at(std::string("perturb_") + axis, list[k][axis], kp + "/" + axis);
      (axis[0] == 'p' ? perturbation.position : perturbation.velocity) = value.get<double>();
    }
    out.push_back(perturbation);
  }
  return out;
}

std::vector<CampaignProblem> parse_problems(const json& doc) {
  std::vector<CampaignProblem> problems;
  const json& list = array_at(doc, "problems");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string p = "/problems/" + std::to_string(i);
    check_keys(list[i], p, {"id", "params", "t_end", "sample_dt", "label", "perturbations"},
               {"id"});
    check_text(list[i], "label", p);
    CampaignProblem entry;
    entry.id = string_at(list[i], "id", p);
    entry.params = params_at(list[i], p);
    if (list[i].contains("t_end"))
      entry.t_end = setting_at("t_end", list[i]["t_end"], p + "/t_end");
    if (list[i].contains("sample_dt"))
      entry.sample_dt = setting_at("sample_dt", list[i]["sample_dt"], p + "/sample_dt");
    if (list[i].contains("perturbations"))
      entry.perturbations = parse_perturbations(list[i]["perturbations"], p + "/perturbations");
    at_path(p, [&] { make_problem(entry.id, entry.params); });
    problems.push_back(entry);
  }
  return problems;
}

std::vector<CampaignMethod> parse_methods(const json& doc) {
  std::vector<CampaignMethod> methods;
  if (!doc.contains("methods")) return methods;
  const json& list = array_at(doc, "methods");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string p = "/methods/" + std::to_string(i);
    check_keys(list[i], p, {"id", "params", "label"}, {"id"});
    check_text(list[i], "label", p);
    methods.push_back({string_at(list[i], "id", p), params_at(list[i], p)});
    at_path(p, [&] { make_method(methods.back().id, methods.back().params); });
  }
  return methods;
}

namespace {

// The step sizes (fixed) or tolerances (adaptive) of a stepper or integrator entry `s` at `p`.
void read_sweep(const json& s, const std::string& p, const std::string& what,
                CampaignStepper& entry) {
  const char* needed = entry.fixed ? "dt" : "tol";
  const char* wrong = entry.fixed ? "tol" : "dt";
  const std::string kind = entry.fixed ? "fixed-step" : "adaptive";
  if (!s.contains(needed))
    fail_at(p, what + " is " + kind + ": give '" + needed + "' (a number or an array of numbers)");
  if (s.contains(wrong)) fail_at(p + "/" + wrong, "does not apply to " + kind + " " + what);
  entry.values = sweep_at(needed, s[needed], p + "/" + needed);
  if (s.contains("max_dt")) {
    if (entry.fixed) fail_at(p + "/max_dt", "does not apply to a fixed-step " + what);
    entry.max_dt = setting_at("max_dt", s["max_dt"], p + "/max_dt");
  }
}

}  // namespace

std::vector<CampaignStepper> parse_steppers(const json& doc) {
  std::vector<CampaignStepper> steppers;
  if (!doc.contains("steppers")) return steppers;
  const json& list = array_at(doc, "steppers");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string p = "/steppers/" + std::to_string(i);
    check_keys(list[i], p, {"id", "dt", "tol", "max_dt"}, {"id"});
    CampaignStepper entry;
    entry.id = string_at(list[i], "id", p);
    at_path(p + "/id", [&] { entry.fixed = find_stepper(entry.id).kind == StepperKind::fixed; });
    read_sweep(list[i], p, "stepper '" + entry.id + "'", entry);
    steppers.push_back(entry);
  }
  return steppers;
}

std::vector<CampaignIntegrator> parse_integrators(const json& doc) {
  std::vector<CampaignIntegrator> integrators;
  if (!doc.contains("integrators")) return integrators;
  const json& list = array_at(doc, "integrators");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string p = "/integrators/" + std::to_string(i);
    check_keys(list[i], p, {"id", "params", "label", "dt", "tol", "max_dt", "max_rhs_calls"},
               {"id"});
    check_text(list[i], "label", p);
    CampaignIntegrator entry;
    entry.method = {string_at(list[i], "id", p), params_at(list[i], p)};
    at_path(p, [&] {
      make_integrator(entry.method.id, entry.method.params);
      entry.stepper.fixed = find_integrator(entry.method.id).kind == StepperKind::fixed;
    });
    entry.stepper.id = kDaeStepper;
    read_sweep(list[i], p, "integrator '" + entry.method.id + "'", entry.stepper);
    if (list[i].contains("max_rhs_calls"))
      entry.stepper.max_rhs_calls =
          setting_at("max_rhs_calls", list[i]["max_rhs_calls"], p + "/max_rhs_calls");
    integrators.push_back(entry);
  }
  return integrators;
}

std::vector<json> parse_excludes(const json& doc, const std::set<std::string>& problems,
                                 const std::set<std::string>& methods,
                                 const std::set<std::string>& steppers) {
  std::vector<json> excludes;
  if (!doc.contains("exclude")) return excludes;
  if (!doc["exclude"].is_array())
    fail_at("/exclude", "expected an array, got " + excerpt(doc["exclude"]));
  for (std::size_t i = 0; i < doc["exclude"].size(); ++i) {
    const std::string p = "/exclude/" + std::to_string(i);
    const json& rule = doc["exclude"][i];
    check_keys(rule, p, {"problem", "method", "stepper"}, {});
    if (rule.empty()) fail_at(p, "an empty rule would exclude every run");
    for (const auto& [field, ids] : {std::pair{"problem", &problems}, std::pair{"method", &methods},
                                     std::pair{"stepper", &steppers}}) {
      if (!rule.contains(field)) continue;
      const std::string id = string_at(rule, field, p);
      if (!ids->count(id))
        fail_at(p + "/" + field,
                "'" + id + "' is not one of this campaign's " + field + "s (" +
                    join(std::vector<std::string>(ids->begin(), ids->end()), ", ") + ")");
    }
    excludes.push_back(rule);
  }
  return excludes;
}

}  // namespace cmb::campaign_file
