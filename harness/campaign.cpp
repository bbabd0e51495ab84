#include "harness/campaign.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include <regex.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/errors.hpp"
#include "core/json_input.hpp"
#include "catalog/catalog.hpp"
#include "harness/context.hpp"
#include "harness/output.hpp"

namespace cmb {

namespace build_info {
extern const char* const git_sha;
}

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
      fail_at(path + "/" + key, "unknown key (valid: " +
                                    join(std::vector<std::string>(valid.begin(), valid.end()), ", ") +
                                    ")");
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

std::string file_stem(const CampaignRun& run) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : run.key) {
    h ^= c;
    h *= 1099511628211ull;
  }
  std::ostringstream out;
  out << run.config.problem << "__" << run.config.method << "__" << run.config.stepper << "__"
      << std::hex << h;
  return out.str();
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
  if (doc.contains("repeat")) base.repeat = static_cast<int>(integer_at(doc, "repeat", 0, kMaxRepeat));
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
    check_keys(list[i], p, {"id", "params", "t_end", "sample_dt", "label", "perturbations"}, {"id"});
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
  if (!doc["exclude"].is_array()) fail_at("/exclude", "expected an array, got " + excerpt(doc["exclude"]));
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
        fail_at(p + "/" + field, "'" + id + "' is not one of this campaign's " + field + "s (" +
                                     join(std::vector<std::string>(ids->begin(), ids->end()), ", ") +
                                     ")");
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
  check_keys(doc, "", {"name", "description", "repeat", "sample_dt", "time_limit", "max_steps",
                       "max_rhs_calls",
                       "initial_assembly", "initial_tol", "problems", "methods", "steppers",
                       "exclude"},
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

namespace {

// The record of a run whose worker died: what was asked (the metrics are gone with it).
json crash_record(const CampaignRun& run, const std::string& why,
                  RunStatus status = RunStatus::diverged) {
  const RunConfig& c = run.config;
  return {{"schema", "cmbench.run/1"},
          {"key", run.key},
          {"status", to_string(status)},
          {"message", why},
          {"problem", {{"id", c.problem}, {"params", c.problem_params}}},
          {"method", {{"id", c.method}, {"params", c.method_params}}},
          {"stepper", {{"id", c.stepper}}},
          {"context", run_context()}};
}

// A worker that could not write its record or series exits with this code: the parent stops the
// campaign (the run is not recorded, so --resume redoes it) instead of recording a status.
constexpr int kWorkerOutputFailed = 4;
// A worker whose run threw something unexpected records it and exits with this code, so the
// campaign can end with a non-zero exit code after recording everything else.
constexpr int kWorkerInternalError = 5;

// SIGINT, SIGTERM and SIGHUP stop a campaign the same way: the parent notices (the handler only
// sets a flag and interrupts waitpid), stops and reaps its workers, removes their temporary files
// and then dies of the same signal, so the shell sees how it ended; --resume finishes the rest.
volatile std::sig_atomic_t stop_signal = 0;
extern "C" void note_stop_signal(int signal) { stop_signal = signal; }
constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};

void catch_stop_signals() {
  stop_signal = 0;
  struct sigaction action {};
  action.sa_handler = note_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: waitpid returns EINTR
  for (int signal : kStopSignals) ::sigaction(signal, &action, nullptr);
}

void default_stop_signals() {
  for (int signal : kStopSignals) std::signal(signal, SIG_DFL);
}

struct Worker {
  const CampaignRun* run;
  std::chrono::steady_clock::time_point started;
  bool killed = false;  // by the parent, past its time limit
};

// Waits for a worker to end, killing those past their time limit plus margin meanwhile. Returns
// -1 with errno EINTR when a stop signal arrived.
pid_t wait_for_worker(std::map<pid_t, Worker>& active, int& wstatus) {
  for (;;) {
    bool limited = false;
    const auto now = std::chrono::steady_clock::now();
    for (auto& [pid, worker] : active) {
      const double limit = worker.run->config.limits.wall_time_limit;
      if (limit <= 0) continue;
      limited = true;
      const std::chrono::duration<double> used = now - worker.started;
      if (!worker.killed && used.count() > limit + time_limit_margin(limit)) {
        ::kill(pid, SIGKILL);
        worker.killed = true;
      }
    }
    const pid_t pid = ::waitpid(-1, &wstatus, limited ? WNOHANG : 0);
    if (pid != 0) return pid;
    if (stop_signal) {
      errno = EINTR;
      return -1;
    }
    ::usleep(20000);  // 20 ms: a negligible load, and a negligible addition to the overshoot
  }
}

// Executes one run in a worker process; never returns.
[[noreturn]] void work(const CampaignRun& run, const fs::path& out) {
  int code = 0;
  try {
    PreparedRun prepared = prepare_run(run.config);
    const RunResult result = execute_run(prepared);
    write_file_atomically((out / "series" / (run.file + ".csv")).string(), [&](const Emit& emit) {
      stream_series_csv(*result.problem, result.series, result.reference, emit);
    });
    write_file_atomically((out / "runs" / (run.file + ".json")).string(), result.record.dump(1) + "\n");
  } catch (const OutputError& e) {
    std::cerr << "cmbench: error: " << e.what() << "\n";
    code = kWorkerOutputFailed;
  } catch (const std::exception& e) {
    code = kWorkerInternalError;
    try {
      write_file_atomically((out / "runs" / (run.file + ".json")).string(),
                            crash_record(run, std::string("internal error: ") + e.what()).dump(1));
    } catch (const OutputError& e) {
      std::cerr << "cmbench: error: " << e.what() << "\n";
      code = kWorkerOutputFailed;
    } catch (...) {
      code = 3;
    }
  }
  std::fflush(nullptr);
  _exit(code);
}


// Stops the other workers after one could not write (they would meet the same full disk), waits
// for them and removes what they may have left half-written.
void stop_workers(std::map<pid_t, Worker>& active, const fs::path& out) {
  for (const auto& [pid, run] : active) ::kill(pid, SIGTERM);
  for (const auto& [pid, run] : active) ::waitpid(pid, nullptr, 0);
  active.clear();
  std::error_code ec;
  for (const char* sub : {"runs", "series"})
    for (const auto& entry : fs::directory_iterator(out / sub, ec))
      if (entry.path().filename().string().rfind(".cmb-", 0) == 0) fs::remove(entry.path(), ec);
}

void make_directory(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw OutputError("cannot create the directory '" + dir.string() + "': " + ec.message());
}

// The top-level keys in which two campaign files differ.
std::vector<std::string> differing_keys(const json& a, const json& b) {
  std::set<std::string> keys;
  for (const auto& [k, v] : a.items()) keys.insert(k);
  for (const auto& [k, v] : b.items()) keys.insert(k);
  std::vector<std::string> out;
  for (const auto& k : keys)
    if (!a.contains(k) || !b.contains(k) || a[k] != b[k]) out.push_back(k);
  return out;
}

// An output directory holds at most one campaign: without --resume it must hold none; with it,
// the same campaign file (the records were made with its settings), unless --force.
void check_output_dir(const Campaign& campaign, const CampaignOptions& options, const fs::path& out) {
  const fs::path stored_file = out / "campaign.json";
  std::error_code ec;
  if (fs::exists(out, ec) && !fs::is_directory(out, ec))
    throw OutputError("--out '" + out.string() + "' exists and is not a directory");
  if (!fs::exists(stored_file, ec)) {
    if (fs::exists(out / "results.json", ec) || fs::exists(out / "runs", ec))
      throw InputError("output directory '" + out.string() + "' holds results without a "
                       "campaign.json: choose another --out");
    return;
  }
  if (!options.resume)
    throw InputError("output directory '" + out.string() + "' already holds a campaign's results: "
                     "use --resume to finish it or --out for a fresh directory");
  std::ifstream in(stored_file);
  const json stored = json::parse(in, nullptr, false);
  if (stored.is_discarded())
    throw InputError("'" + stored_file.string() + "' is not valid JSON: cannot tell which "
                     "campaign the directory holds (choose another --out)");
  if (stored == campaign.source || options.force) return;
  throw InputError("--resume: '" + out.string() + "' holds campaign '" +
                   stored.value("name", std::string("?")) + "' with other settings (differs in: " +
                   join(differing_keys(stored, campaign.source), ", ") +
                   "); its records were made with those: use a fresh --out, or --force to "
                   "resume anyway");
}

// The runs without a valid record. A record counts only if it parses and holds this run's key:
// a truncated file or one copied over another run's name is redone (and said so).
std::vector<const CampaignRun*> runs_to_do(const std::vector<const CampaignRun*>& selected,
                                           const fs::path& out) {
  std::vector<const CampaignRun*> pending;
  std::size_t redone = 0;
  for (const auto* run : selected) {
    const fs::path record = out / "runs" / (run->file + ".json");
    std::error_code ec;
    if (!fs::exists(record, ec)) {
      pending.push_back(run);
      continue;
    }
    std::ifstream in(record);
    const json doc = json::parse(in, nullptr, false);
    if (doc.is_object() && doc.value("key", std::string()) == run->key) continue;
    std::cerr << "cmbench: redoing " << run->key << ": its record '" << record.string()
              << (doc.is_discarded() ? "' is unreadable" : "' holds another run") << "\n";
    fs::remove(record, ec);
    pending.push_back(run);
    ++redone;
  }
  if (redone) std::cerr << "cmbench: " << redone << " record(s) redone\n";
  return pending;
}

// --filter as a POSIX extended regular expression. glibc matches these without backtracking
// (std::regex's ECMAScript matcher takes exponential time on patterns like '(.*)*X').
class KeyFilter {
 public:
  explicit KeyFilter(const std::string& pattern) : active_(!pattern.empty()) {
    if (!active_) return;
    const int error = ::regcomp(&regex_, pattern.c_str(), REG_EXTENDED | REG_NOSUB);
    if (error != 0) {
      char reason[256];
      ::regerror(error, &regex_, reason, sizeof reason);
      throw InputError("--filter " + excerpt(json(pattern)) +
                       " is not a valid (POSIX extended) regular expression: " + reason);
    }
  }
  ~KeyFilter() {
    if (active_) ::regfree(&regex_);
  }
  KeyFilter(const KeyFilter&) = delete;
  KeyFilter& operator=(const KeyFilter&) = delete;

  bool matches(const std::string& key) const {
    return !active_ || ::regexec(&regex_, key.c_str(), 0, nullptr, 0) == 0;
  }

 private:
  bool active_;
  regex_t regex_{};
};

std::string default_out_dir(const std::string& name) {
  std::string date = utc_timestamp().substr(0, 10);
  return (fs::path("results") / name / (date + "_" + build_info::git_sha)).string();
}

std::string format_seconds(double s) {
  std::ostringstream out;
  out.precision(s < 10 ? 2 : 0);
  out << std::fixed << s << " s";
  return out.str();
}

}  // namespace

int default_jobs() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

void set_shard(CampaignOptions& options, const std::string& text) {
  const auto slash = text.find('/');
  auto whole = [](const std::string& part) {
    return !part.empty() && part.size() < 7 &&
           part.find_first_not_of("0123456789") == std::string::npos;
  };
  if (slash == std::string::npos || !whole(text.substr(0, slash)) || !whole(text.substr(slash + 1)))
    throw InputError("--shard expects I/N with 1 <= I <= N, got '" + text + "'");
  options.shard_index = std::stoi(text.substr(0, slash));
  options.shard_count = std::stoi(text.substr(slash + 1));
  if (options.shard_count < 1 || options.shard_index < 1 ||
      options.shard_index > options.shard_count)
    throw InputError("--shard expects I/N with 1 <= I <= N, got '" + text + "'");
}


int run_campaign(const Campaign& campaign, const CampaignOptions& options) {
  std::vector<const CampaignRun*> selected;
  const KeyFilter filter(options.filter);
  std::size_t position = 0;
  for (const auto& run : campaign.runs) {
    if (!filter.matches(run.key)) continue;
    if (static_cast<int>(position++ % options.shard_count) == options.shard_index - 1)
      selected.push_back(&run);
  }
  if (options.dry_run) {
    for (const auto* run : selected) std::cout << run->key << "\n";
    std::cout << selected.size() << " runs (of " << campaign.runs.size() << " in campaign '"
              << campaign.name << "')\n";
    return 0;
  }
  const fs::path out = options.out_dir.empty() ? default_out_dir(campaign.name) : options.out_dir;
  check_output_dir(campaign, options, out);
  std::vector<const CampaignRun*> pending = runs_to_do(selected, out);
  make_directory(out / "runs");
  make_directory(out / "series");
  write_file_atomically((out / "campaign.json").string(), campaign.source.dump(2) + "\n");

  const bool tty = ::isatty(STDOUT_FILENO);
  catch_stop_signals();
  const auto start = std::chrono::steady_clock::now();
  std::map<pid_t, Worker> active;
  std::size_t next = 0, finished = 0, failures = 0, internal_errors = 0;
  const std::size_t total = pending.size();
  auto report = [&](const CampaignRun& run, const std::string& status) {
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double eta = finished ? elapsed / finished * (total - finished) : 0.0;
    std::ostringstream line;
    line << "[" << finished << "/" << total << "] " << status << "  " << run.key << "  (elapsed "
         << format_seconds(elapsed) << ", ETA " << format_seconds(eta) << ", failures " << failures
         << ")";
    if (tty)
      std::cout << "\r\033[K" << line.str() << std::flush;
    else
      std::cout << line.str() << "\n" << std::flush;
  };
  while (next < pending.size() || !active.empty()) {
    while (!stop_signal && next < pending.size() &&
           static_cast<int>(active.size()) < options.jobs) {
      std::fflush(nullptr);
      const pid_t pid = ::fork();
      if (pid < 0) throw std::runtime_error("fork failed");
      if (pid == 0) {
        default_stop_signals();
        work(*pending[next], out);
      }
      active[pid] = Worker{pending[next++], std::chrono::steady_clock::now()};
    }
    int wstatus = 0;
    const pid_t pid = stop_signal ? -1 : wait_for_worker(active, wstatus);
    if (stop_signal) {
      const int signal = stop_signal;
      stop_workers(active, out);
      if (tty) std::cout << "\n";
      std::cerr << "cmbench: campaign stopped by signal " << signal << " after " << finished
                << " of " << total << " runs; finish it with --resume\n";
      std::fflush(nullptr);
      default_stop_signals();
      std::raise(signal);
    }
    if (pid < 0 && errno == EINTR) continue;
    if (pid < 0) break;
    const Worker worker = active.at(pid);
    const CampaignRun& run = *worker.run;
    active.erase(pid);
    const fs::path record = out / "runs" / (run.file + ".json");
    if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == kWorkerOutputFailed) {
      stop_workers(active, out);
      if (tty) std::cout << "\n";
      throw OutputError("campaign stopped: a worker could not write the results of " + run.key +
                        " into '" + out.string() + "' (its message is above); the runs "
                        "recorded so far are kept: make room and finish with --resume");
    }
    const bool internal_error = WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == kWorkerInternalError;
    if (worker.killed) {
      const double limit = run.config.limits.wall_time_limit;
      std::ostringstream why;
      why << "wall-time limit reached: the worker was stopped " << limit + time_limit_margin(limit)
          << " s after it started (limit " << limit << " s plus margin; the limit is otherwise "
          << "checked between steps)";
      write_file_atomically(record.string(),
                            crash_record(run, why.str(), RunStatus::time_limit).dump(1) + "\n");
    } else if (internal_error || !WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0 ||
               !fs::exists(record)) {
      ++internal_errors;
      if (!internal_error || !fs::exists(record)) {
        const std::string why =
            WIFSIGNALED(wstatus) ? "worker crashed with signal " + std::to_string(WTERMSIG(wstatus))
                                 : "worker exited with code " + std::to_string(WEXITSTATUS(wstatus));
        write_file_atomically(record.string(), crash_record(run, why).dump(1) + "\n");
      }
    }
    std::ifstream in(record);
    const json result = json::parse(in, nullptr, false);
    const std::string status = result.is_discarded() ? "unreadable" : result.value("status", "?");
    ++finished;
    if (status != "ok") ++failures;
    report(run, status);
  }
  if (tty) std::cout << "\n";
  default_stop_signals();

  json runs = json::array();
  std::size_t not_ok = 0;
  for (const auto* run : selected) {
    std::ifstream in(out / "runs" / (run->file + ".json"));
    json record = json::parse(in, nullptr, false);
    if (record.is_discarded()) record = crash_record(*run, "record unreadable");
    if (record.value("status", "") != "ok") ++not_ok;
    runs.push_back(record);
  }
  const json results = {{"schema", "cmbench.results/1"},
                        {"campaign", campaign.name},
                        {"campaign_file", campaign.source},
                        {"shard", {{"index", options.shard_index}, {"count", options.shard_count}}},
                        {"filter", options.filter},
                        {"context", run_context()},
                        {"runs", runs}};
  write_file_atomically((out / "results.json").string(), results.dump(1) + "\n");
  std::cout << selected.size() << " runs, " << not_ok << " not ok; results in "
            << (out / "results.json").string() << "\n";
  if (internal_errors > 0)
    throw InternalRunErrors(std::to_string(internal_errors) + " run(s) ended in a crash or an "
                            "internal error (status diverged, the message says which): please "
                            "report them");
  return static_cast<int>(not_ok);
}

}  // namespace cmb
