// Campaign files: parsed and validated whole before anything runs (every error names its JSON
// path), then expanded into runs with stable keys and file names.
#include <cmath>
#include <fstream>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include "catalog/catalog.hpp"
#include "core/errors.hpp"
#include "core/json_input.hpp"
#include "harness/campaign.hpp"
#include "harness/results_file.hpp"

namespace cmb {

namespace {

namespace fs = std::filesystem;
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

double positive_at(const json& value, const std::string& path) {
  if (!value.is_number() || !(value.get<double>() > 0.0))
    fail_at(path, "expected a number > 0, got " + excerpt(value));
  return value.get<double>();
}

// A number or a non-empty array of numbers (a sweep).
std::vector<double> sweep_at(const json& value, const std::string& path) {
  std::vector<double> out;
  if (value.is_array()) {
    if (value.empty()) fail_at(path, "empty sweep");
    for (std::size_t i = 0; i < value.size(); ++i)
      out.push_back(positive_at(value[i], path + "/" + std::to_string(i)));
  } else {
    out.push_back(positive_at(value, path));
  }
  return out;
}

json params_at(const json& object, const std::string& path) {
  if (!object.contains("params")) return json::object();
  if (!object["params"].is_object())
    fail_at(path + "/params", "expected a JSON object, got " + excerpt(object["params"]));
  return object["params"];
}

// Rewrites an InputError from the registry or the run preparation with the entry's JSON path.
template <class F>
void at_path(const std::string& path, F&& body) {
  try {
    body();
  } catch (const InputError& e) {
    fail_at(path, e.what());
  }
}

// The run's file name: readable ids and the stable hash of its key.
std::string file_stem(const CampaignRun& run) {
  return run.config.problem + "__" + run.config.method + "__" + run.config.stepper + "__" +
         stable_hash(run.key);
}

struct Perturbation {
  double position = 0.0, velocity = 0.0;
};

struct ProblemEntry {
  std::string id;
  json params;
  std::optional<double> t_end;
  std::optional<double> sample_dt;  // overrides the campaign's
  std::vector<Perturbation> perturbations{Perturbation{}};
};

struct MethodEntry {
  std::string id;
  json params;
};

struct StepperEntry {
  std::string id;
  std::vector<double> values;  // dt values (fixed) or tolerances (adaptive)
  std::optional<double> max_dt;
  bool fixed;
};

// Bounds on counts, checked as doubles so that no value overflows before its message: 10^12
// steps or RHS calls is days of work even for the smallest problem.
constexpr long kMaxCount = 1000000000000L;

long integer_at(const json& doc, const std::string& key, long min, long max) {
  const json& value = doc[key];
  const double d = value.is_number() ? value.get<double>() : 0.0;
  if (!value.is_number_integer() || d < static_cast<double>(min) || d > static_cast<double>(max))
    fail_at("/" + key, "expected an integer from " + std::to_string(min) + " to " +
                           std::to_string(max) + ", got " + excerpt(value));
  return value.get<long>();
}

// `label` and `description` are free text for reports, but text: anything else is a mistake.
void check_text(const json& object, const char* key, const std::string& path) {
  if (object.contains(key) && !object[key].is_string())
    fail_at(path + "/" + key, "expected a string, got " + excerpt(object[key]));
}

// The settings shared by every run of the campaign, as a RunConfig template.
RunConfig parse_run_template(const json& doc) {
  RunConfig base;
  if (doc.contains("repeat"))
    base.repeat = static_cast<int>(integer_at(doc, "repeat", 0, kMaxRepeat));
  if (doc.contains("sample_dt")) base.sample_dt = positive_at(doc["sample_dt"], "/sample_dt");
  if (doc.contains("time_limit"))
    base.limits.wall_time_limit = positive_at(doc["time_limit"], "/time_limit");
  if (doc.contains("max_steps")) base.limits.max_steps = integer_at(doc, "max_steps", 1, kMaxCount);
  if (doc.contains("max_rhs_calls"))
    base.limits.max_rhs_calls = integer_at(doc, "max_rhs_calls", 1, kMaxCount);
  if (doc.contains("initial_assembly"))
    base.initial.assembly = string_at(doc, "initial_assembly", "");
  if (doc.contains("initial_tol"))
    base.initial.tolerance = positive_at(doc["initial_tol"], "/initial_tol");
  at_path("/initial_assembly", [&] { validate(base.initial); });
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
      const json& value = list[k][axis];
      if (!value.is_number() || !std::isfinite(value.get<double>()))
        fail_at(kp + "/" + axis, "expected a finite number, got " + excerpt(value));
      (axis[0] == 'p' ? perturbation.position : perturbation.velocity) = value.get<double>();
    }
    out.push_back(perturbation);
  }
  return out;
}

std::vector<ProblemEntry> parse_problems(const json& doc) {
  std::vector<ProblemEntry> problems;
  const json& list = array_at(doc, "problems");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string p = "/problems/" + std::to_string(i);
    check_keys(list[i], p, {"id", "params", "t_end", "sample_dt", "label", "perturbations"},
               {"id"});
    check_text(list[i], "label", p);
    ProblemEntry entry;
    entry.id = string_at(list[i], "id", p);
    entry.params = params_at(list[i], p);
    if (list[i].contains("t_end")) entry.t_end = positive_at(list[i]["t_end"], p + "/t_end");
    if (list[i].contains("sample_dt"))
      entry.sample_dt = positive_at(list[i]["sample_dt"], p + "/sample_dt");
    if (list[i].contains("perturbations"))
      entry.perturbations = parse_perturbations(list[i]["perturbations"], p + "/perturbations");
    at_path(p, [&] { make_problem(entry.id, entry.params); });
    problems.push_back(entry);
  }
  return problems;
}

std::vector<MethodEntry> parse_methods(const json& doc) {
  std::vector<MethodEntry> methods;
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

std::vector<StepperEntry> parse_steppers(const json& doc) {
  std::vector<StepperEntry> steppers;
  const json& list = array_at(doc, "steppers");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string p = "/steppers/" + std::to_string(i);
    const json& s = list[i];
    check_keys(s, p, {"id", "dt", "tol", "max_dt"}, {"id"});
    StepperEntry entry;
    entry.id = string_at(s, "id", p);
    at_path(p + "/id", [&] { entry.fixed = find_stepper(entry.id).kind == StepperKind::fixed; });
    const char* needed = entry.fixed ? "dt" : "tol";
    const char* wrong = entry.fixed ? "tol" : "dt";
    const std::string kind = entry.fixed ? "fixed-step" : "adaptive";
    if (!s.contains(needed))
      fail_at(p, "stepper '" + entry.id + "' is " + kind + ": give '" + needed +
                     "' (a number or an array of numbers)");
    if (s.contains(wrong))
      fail_at(p + "/" + wrong, "does not apply to " + kind + " stepper '" + entry.id + "'");
    entry.values = sweep_at(s[needed], p + "/" + needed);
    if (s.contains("max_dt")) {
      if (entry.fixed) fail_at(p + "/max_dt", "does not apply to a fixed-step stepper");
      entry.max_dt = positive_at(s["max_dt"], p + "/max_dt");
    }
    steppers.push_back(entry);
  }
  return steppers;
}

// Each rule names ids of this campaign (a rule that names anything else would silently exclude
// nothing).
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

// Every run is prepared while loading, so an absurd expansion would stall before anything
// useful happens; this bound (before exclusions) is far beyond any real comparison.
constexpr std::size_t kMaxCampaignRuns = 100000;

void check_run_count(const std::vector<ProblemEntry>& problems, std::size_t methods,
                     const std::vector<StepperEntry>& steppers) {
  std::size_t variants = 0, values = 0;
  for (const auto& p : problems) variants += p.perturbations.size();
  for (const auto& s : steppers) values += s.values.size();
  const double runs = static_cast<double>(variants) * methods * values;
  if (runs > kMaxCampaignRuns)
    fail_at("", "expands to " + std::to_string(static_cast<long long>(runs)) +
                    " runs (problem variants × methods × step sizes/tolerances); the limit is " +
                    std::to_string(kMaxCampaignRuns) + ": split it into several campaigns");
}

bool is_excluded(const std::vector<json>& excludes, const std::string& problem,
                 const std::string& method, const std::string& stepper);

// Some parameters can only be refused by a method bound to its problem (a partition's
// coordinates, a size the method does not accept): bind each pair that will run once now, so a
// mistake is an input error before the first run rather than a run status after hours.
void check_bindings(const std::vector<ProblemEntry>& problems,
                    const std::vector<MethodEntry>& methods, const std::vector<json>& excludes) {
  for (std::size_t pi = 0; pi < problems.size(); ++pi)
    for (std::size_t mi = 0; mi < methods.size(); ++mi) {
      if (is_excluded(excludes, problems[pi].id, methods[mi].id, "")) continue;
      at_path("/problems/" + std::to_string(pi) + " × /methods/" + std::to_string(mi), [&] {
        auto problem = make_problem(problems[pi].id, problems[pi].params);
        auto method = make_method(methods[mi].id, methods[mi].params);
        try {
          method->bind(*problem);
        } catch (const NumericalFailure& failure) {
          // A numerical outcome (e.g. singular at the start) is the run's status, not bad input.
          if (failure.status() == RunStatus::invalid_input) throw InputError(failure.what());
        }
      });
    }
}

bool is_excluded(const std::vector<json>& excludes, const std::string& problem,
                 const std::string& method, const std::string& stepper) {
  auto matches = [](const json& rule, const char* field, const std::string& id) {
    return !rule.contains(field) || rule[field] == id;
  };
  for (const auto& rule : excludes)
    if (matches(rule, "problem", problem) && matches(rule, "method", method) &&
        matches(rule, "stepper", stepper))
      return true;
  return false;
}

}  // namespace

Campaign load_campaign(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError("cannot read campaign file '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_campaign(text.str(), path);
}

Campaign parse_campaign(const std::string& text, const std::string& origin) {
  Campaign campaign;
  campaign.source = parse_json_input(text, "campaign file '" + origin + "'");
  const json& doc = campaign.source;
  check_keys(
      doc, "",
      {"name", "description", "repeat", "sample_dt", "time_limit", "max_steps", "max_rhs_calls",
       "initial_assembly", "initial_tol", "problems", "methods", "steppers", "exclude"},
      {"name", "problems", "methods", "steppers"});
  campaign.name = string_at(doc, "name", "");
  if (!std::regex_match(campaign.name, std::regex("[A-Za-z0-9_-]+")))
    fail_at("/name", "use letters, digits, '_' and '-' only, got " + excerpt(json(campaign.name)));
  check_text(doc, "description", "");
  const RunConfig base = parse_run_template(doc);
  const auto problems = parse_problems(doc);
  const auto methods = parse_methods(doc);
  const auto steppers = parse_steppers(doc);
  std::set<std::string> problem_ids, method_ids, stepper_ids;
  for (const auto& p : problems) problem_ids.insert(p.id);
  for (const auto& m : methods) method_ids.insert(m.id);
  for (const auto& st : steppers) stepper_ids.insert(st.id);
  const auto excludes = parse_excludes(doc, problem_ids, method_ids, stepper_ids);

  check_run_count(problems, methods.size(), steppers);

  std::set<std::string> keys;
  auto add_run = [&](RunConfig c, const std::string& where) {
    CampaignRun run;
    run.config = std::move(c);
    at_path(where, [&] { run.key = prepare_run(run.config).key; });
    if (!keys.insert(run.key).second) fail_at(where, "duplicates run '" + run.key + "'");
    run.file = file_stem(run);
    campaign.runs.push_back(std::move(run));
  };
  for (std::size_t pi = 0; pi < problems.size(); ++pi)
    for (const Perturbation& perturbation : problems[pi].perturbations)
      for (std::size_t mi = 0; mi < methods.size(); ++mi)
        for (std::size_t si = 0; si < steppers.size(); ++si) {
          const StepperEntry& stepper = steppers[si];
          if (is_excluded(excludes, problems[pi].id, methods[mi].id, stepper.id)) continue;
          for (std::size_t vi = 0; vi < stepper.values.size(); ++vi) {
            RunConfig c = base;
            c.problem = problems[pi].id;
            c.problem_params = problems[pi].params;
            c.t_end = problems[pi].t_end;
            if (problems[pi].sample_dt) c.sample_dt = problems[pi].sample_dt;
            c.initial.perturb_position = perturbation.position;
            c.initial.perturb_velocity = perturbation.velocity;
            c.method = methods[mi].id;
            c.method_params = methods[mi].params;
            c.stepper = stepper.id;
            (stepper.fixed ? c.dt : c.rel_tol) = stepper.values[vi];
            if (!stepper.fixed) c.abs_tol = c.rel_tol;
            c.max_dt = stepper.max_dt;
            add_run(std::move(c), "/problems/" + std::to_string(pi) + " × /methods/" +
                                      std::to_string(mi) + " × /steppers/" + std::to_string(si) +
                                      "/" + (stepper.fixed ? "dt" : "tol") + "/" +
                                      std::to_string(vi));
          }
        }
  if (campaign.runs.empty()) fail_at("/exclude", "every run is excluded: nothing to run");
  check_bindings(problems, methods, excludes);
  return campaign;
}

}  // namespace cmb
