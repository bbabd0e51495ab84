// The run settings, declared: each one's names, type, range and help, and how it sets and reads
// a RunConfig. harness/run/run_settings.cpp reads values with them.
#include <limits>

#include "harness/run/run_settings.hpp"

namespace cmb {

namespace {

using nlohmann::json;

constexpr double kInf = std::numeric_limits<double>::infinity();
// Bounds on counts: 10^12 steps or RHS calls is days of work even for the smallest problem, and
// every such count is still exact as a double.
constexpr double kMaxCount = 1e12;

json optional_value(const std::optional<double>& value) { return value ? json(*value) : json(); }
json nonzero(double value) { return value != 0.0 ? json(value) : json(); }
json nonzero(long value) { return value != 0 ? json(value) : json(); }

using Assign = std::function<void(RunConfig&, const json&)>;
using Read = std::function<json(const RunConfig&)>;

RunSetting setting(std::string name, std::string flag, std::string campaign, SettingType type,
                   std::string help, Assign assign, Read read) {
  RunSetting s;
  s.name = std::move(name);
  s.flag = std::move(flag);
  s.campaign = std::move(campaign);
  s.type = type;
  s.help = std::move(help);
  s.assign = std::move(assign);
  s.read = std::move(read);
  return s;
}

RunSetting in_range(RunSetting s, double min, double max, bool min_exclusive) {
  s.min = min;
  s.max = max;
  s.min_exclusive = min_exclusive;
  return s;
}

// A step size, tolerance or time span: unset unless given, > 0 when given.
RunSetting positive(std::string name, std::string flag, std::string campaign, std::string help,
                    std::optional<double> RunConfig::*field) {
  return in_range(setting(
                      name, flag, campaign, SettingType::number, help,
                      [field](RunConfig& c, const json& v) { c.*field = v.get<double>(); },
                      [field](const RunConfig& c) { return optional_value(c.*field); }),
                  0.0, kInf, true);
}

RunSetting seconds(std::string name, std::string flag, std::string help, double RunConfig::*field) {
  return in_range(setting(
                      name, flag, name, SettingType::number, help,
                      [field](RunConfig& c, const json& v) { c.*field = v.get<double>(); },
                      [field](const RunConfig& c) { return json(c.*field); }),
                  0.0, kInf, false);
}

RunSetting work_limit(std::string name, std::string flag, std::string campaign, std::string help,
                      long LoopLimits::*field) {
  return in_range(setting(
                      name, flag, campaign, SettingType::count, help,
                      [field](RunConfig& c, const json& v) { c.limits.*field = v.get<long>(); },
                      [field](const RunConfig& c) { return nonzero(c.limits.*field); }),
                  1.0, kMaxCount, false);
}

RunSetting perturbation(std::string name, std::string flag, std::string campaign, std::string help,
                        double InitialStateOptions::*field) {
  return in_range(setting(
                      name, flag, campaign, SettingType::number, help,
                      [field](RunConfig& c, const json& v) { c.initial.*field = v.get<double>(); },
                      [field](const RunConfig& c) { return json(c.initial.*field); }),
                  -kInf, kInf, false);
}

RunSetting choice(std::string name, std::string flag, std::vector<std::string> choices,
                  std::string help, Assign assign, Read read) {
  RunSetting s = setting(name, flag, name, SettingType::choice, help, assign, read);
  s.choices = std::move(choices);
  return s;
}

// The step size, tolerances, horizon and sampling.
void add_step_settings(std::vector<RunSetting>& t) {
  using C = RunConfig;
  t.push_back(positive("dt", "--dt", "steppers[].dt, integrators[].dt",
                       "fixed step size, or first trial step of an adaptive stepper [s]", &C::dt));
  RunSetting tol = positive("tol", "--tol", "steppers[].tol, integrators[].tol",
                            "adaptive: absolute and relative tolerance", &C::abs_tol);
  tol.assign = [](C& c, const json& v) { c.abs_tol = c.rel_tol = v.get<double>(); };
  tol.read = [](const C& c) { return c.abs_tol == c.rel_tol ? optional_value(c.abs_tol) : json(); };
  tol.excludes = {"abs_tol", "rel_tol"};
  t.push_back(tol);
  t.push_back(positive("abs_tol", "--abs-tol", "", "adaptive: absolute tolerance", &C::abs_tol));
  t.back().excludes = {"tol"};
  t.push_back(positive("rel_tol", "--rel-tol", "", "adaptive: relative tolerance", &C::rel_tol));
  t.back().excludes = {"tol"};
  t.push_back(positive("max_dt", "--max-dt", "steppers[].max_dt, integrators[].max_dt",
                       "adaptive: largest step [s]", &C::max_dt));
  t.push_back(positive("t_end", "--t-end", "problems[].t_end", "horizon [s] (unset: the problem's)",
                       &C::t_end));
  t.push_back(positive("sample_dt", "--sample-dt", "sample_dt, problems[].sample_dt",
                       "sampling interval [s] (unset: t_end/100)", &C::sample_dt));
}

// Timing repetitions, and the limits that stop a run with a status.
void add_limit_settings(std::vector<RunSetting>& t) {
  using C = RunConfig;
  t.push_back(in_range(setting(
                           "repeat", "--repeat", "repeat", SettingType::count,
                           "timed repetitions after the instrumented run: at least this many "
                           "(0: none), more until they took the timing minimum together",
                           [](C& c, const json& v) { c.repeat = v.get<int>(); },
                           [](const C& c) { return json(c.repeat); }),
                       0.0, kMaxRepeat, false));
  t.push_back(seconds("timing_min_s", "--timing-min",
                      "repeat until the repetitions took this long together [s]",
                      &C::timing_min_s));
  t.push_back(seconds("timing_max_s", "--timing-max", "start no repetition past this total [s]",
                      &C::timing_max_s));
  t.push_back(work_limit("max_steps", "--max-steps", "max_steps",
                         "stop with status step_limit after this many steps (accepted and "
                         "rejected)",
                         &LoopLimits::max_steps));
  t.push_back(work_limit("max_rhs_calls", "--max-rhs-calls",
                         "max_rhs_calls, integrators[].max_rhs_calls",
                         "stop with status step_limit after this many RHS calls (a work budget; "
                         "unset: none)",
                         &LoopLimits::max_rhs_calls));
  t.push_back(in_range(
      setting(
          "time_limit", "--time-limit", "time_limit", SettingType::number,
          "stop with status time_limit after this many seconds of wall time, checked between "
          "steps (unset: none)",
          [](C& c, const json& v) { c.limits.wall_time_limit = v.get<double>(); },
          [](const C& c) { return nonzero(c.limits.wall_time_limit); }),
      0.0, kInf, true));
}

// The reference the errors are measured against, and the initial state.
void add_reference_and_start_settings(std::vector<RunSetting>& t) {
  using C = RunConfig;
  t.push_back(choice(
      "reference", "--reference", {"problem", "self_converged"},
      "problem: the problem's own reference; self_converged: two independent "
      "tight runs, cached",
      [](C& c, const json& v) { c.reference = v.get<std::string>(); },
      [](const C& c) { return json(c.reference); }));
  t.push_back(setting(
      "reference_cache", "--reference-cache", "reference_cache", SettingType::path,
      "directory of cached self-converged references (a campaign's default: "
      "references/ beside its output directory)",
      [](C& c, const json& v) { c.reference_cache = v.get<std::string>(); },
      [](const C& c) { return json(c.reference_cache); }));
  t.push_back(choice(
      "initial_assembly", "--initial-assembly", {"reject", "project"},
      "reject: an inconsistent initial state is an error; project: Newton onto "
      "the constraints first",
      [](C& c, const json& v) { c.initial.assembly = v.get<std::string>(); },
      [](const C& c) { return json(c.initial.assembly); }));
  t.push_back(in_range(setting(
                           "initial_tol", "--initial-tol", "initial_tol", SettingType::number,
                           "largest max |Phi| and max |J v - nu| accepted as consistent",
                           [](C& c, const json& v) { c.initial.tolerance = v.get<double>(); },
                           [](const C& c) { return json(c.initial.tolerance); }),
                       0.0, kInf, true));
  t.push_back(perturbation("perturb_position", "--perturb-position",
                           "problems[].perturbations[].position",
                           "start with every holonomic row violated by this amount (Phi_i(0))",
                           &InitialStateOptions::perturb_position));
  t.push_back(perturbation("perturb_velocity", "--perturb-velocity",
                           "problems[].perturbations[].velocity",
                           "start with every holonomic row's rate Phi_i'(0) equal to this",
                           &InitialStateOptions::perturb_velocity));
}

std::vector<RunSetting> build_table() {
  std::vector<RunSetting> table;
  add_step_settings(table);
  add_limit_settings(table);
  add_reference_and_start_settings(table);
  return table;
}

}  // namespace

const std::vector<RunSetting>& run_settings() {
  static const std::vector<RunSetting> table = build_table();
  return table;
}

}  // namespace cmb
