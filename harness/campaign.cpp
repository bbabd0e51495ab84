#include "harness/campaign.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include <sys/wait.h>
#include <unistd.h>

#include "core/errors.hpp"
#include "core/registry.hpp"
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
  if (!object.is_object()) fail_at(path, "expected a JSON object, got " + object.dump());
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
    fail_at("/" + key, "expected a non-empty array, got " + value.dump());
  return value;
}

std::string string_at(const json& object, const std::string& key, const std::string& path) {
  const json& value = object.at(key);
  if (!value.is_string()) fail_at(path + "/" + key, "expected a string, got " + value.dump());
  return value.get<std::string>();
}

double positive_at(const json& value, const std::string& path) {
  if (!value.is_number() || !(value.get<double>() > 0.0))
    fail_at(path, "expected a number > 0, got " + value.dump());
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
    fail_at(path + "/params", "expected a JSON object, got " + object["params"].dump());
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

struct StepperEntry {
  std::string id;
  std::vector<double> values;  // dt values (fixed) or tolerances (adaptive)
  std::optional<double> max_dt;
  bool fixed;
};

}  // namespace

Campaign load_campaign(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError("cannot read campaign file '" + path + "'");
  Campaign campaign;
  try {
    campaign.source = json::parse(in);
  } catch (const json::parse_error& e) {
    throw InputError("campaign file '" + path + "' is not valid JSON: " + e.what());
  }
  const json& doc = campaign.source;
  check_keys(doc, "", {"name", "description", "repeat", "sample_dt", "time_limit", "problems",
                       "methods", "steppers", "exclude"},
             {"name", "problems", "methods", "steppers"});
  campaign.name = string_at(doc, "name", "");
  if (!std::regex_match(campaign.name, std::regex("[A-Za-z0-9_-]+")))
    fail_at("/name", "use letters, digits, '_' and '-' only, got '" + campaign.name + "'");
  int repeat = 3;
  if (doc.contains("repeat")) {
    if (!doc["repeat"].is_number_integer() || doc["repeat"].get<int>() < 0)
      fail_at("/repeat", "expected an integer >= 0, got " + doc["repeat"].dump());
    repeat = doc["repeat"].get<int>();
  }
  std::optional<double> sample_dt;
  if (doc.contains("sample_dt")) sample_dt = positive_at(doc["sample_dt"], "/sample_dt");
  double time_limit = 0.0;  // per run, seconds; 0: none
  if (doc.contains("time_limit")) time_limit = positive_at(doc["time_limit"], "/time_limit");

  struct ProblemEntry {
    std::string id;
    json params;
    std::optional<double> t_end;
  };
  std::vector<ProblemEntry> problems;
  const json& problem_list = array_at(doc, "problems");
  for (std::size_t i = 0; i < problem_list.size(); ++i) {
    const std::string p = "/problems/" + std::to_string(i);
    check_keys(problem_list[i], p, {"id", "params", "t_end", "label"}, {"id"});
    ProblemEntry entry{string_at(problem_list[i], "id", p), params_at(problem_list[i], p), {}};
    if (problem_list[i].contains("t_end")) entry.t_end = positive_at(problem_list[i]["t_end"], p + "/t_end");
    at_path(p, [&] { make_problem(entry.id, entry.params); });
    problems.push_back(entry);
  }
  std::vector<std::pair<std::string, json>> methods;
  const json& method_list = array_at(doc, "methods");
  for (std::size_t i = 0; i < method_list.size(); ++i) {
    const std::string p = "/methods/" + std::to_string(i);
    check_keys(method_list[i], p, {"id", "params", "label"}, {"id"});
    methods.emplace_back(string_at(method_list[i], "id", p), params_at(method_list[i], p));
    at_path(p, [&] { make_method(methods.back().first, methods.back().second); });
  }
  std::vector<StepperEntry> steppers;
  const json& stepper_list_json = array_at(doc, "steppers");
  for (std::size_t i = 0; i < stepper_list_json.size(); ++i) {
    const std::string p = "/steppers/" + std::to_string(i);
    const json& s = stepper_list_json[i];
    check_keys(s, p, {"id", "dt", "tol", "max_dt"}, {"id"});
    StepperEntry entry;
    entry.id = string_at(s, "id", p);
    at_path(p + "/id", [&] { entry.fixed = find_stepper(entry.id).kind == StepperKind::fixed; });
    const char* needed = entry.fixed ? "dt" : "tol";
    const char* wrong = entry.fixed ? "tol" : "dt";
    if (!s.contains(needed))
      fail_at(p, std::string("stepper '") + entry.id + "' is " + (entry.fixed ? "fixed-step" : "adaptive") +
                     ": give '" + needed + "' (a number or an array of numbers)");
    if (s.contains(wrong))
      fail_at(p + "/" + wrong, std::string("does not apply to ") + (entry.fixed ? "fixed-step" : "adaptive") +
                                   " stepper '" + entry.id + "'");
    entry.values = sweep_at(s[needed], p + "/" + needed);
    if (s.contains("max_dt")) {
      if (entry.fixed) fail_at(p + "/max_dt", "does not apply to a fixed-step stepper");
      entry.max_dt = positive_at(s["max_dt"], p + "/max_dt");
    }
    steppers.push_back(entry);
  }
  std::vector<json> excludes;
  if (doc.contains("exclude")) {
    if (!doc["exclude"].is_array()) fail_at("/exclude", "expected an array");
    for (std::size_t i = 0; i < doc["exclude"].size(); ++i) {
      check_keys(doc["exclude"][i], "/exclude/" + std::to_string(i), {"problem", "method", "stepper"}, {});
      excludes.push_back(doc["exclude"][i]);
    }
  }
  auto excluded = [&](const std::string& p, const std::string& m, const std::string& s) {
    for (const auto& e : excludes)
      if ((!e.contains("problem") || e["problem"] == p) && (!e.contains("method") || e["method"] == m) &&
          (!e.contains("stepper") || e["stepper"] == s))
        return true;
    return false;
  };

  std::set<std::string> keys;
  for (std::size_t pi = 0; pi < problems.size(); ++pi)
    for (std::size_t mi = 0; mi < methods.size(); ++mi)
      for (std::size_t si = 0; si < steppers.size(); ++si) {
        if (excluded(problems[pi].id, methods[mi].first, steppers[si].id)) continue;
        for (std::size_t vi = 0; vi < steppers[si].values.size(); ++vi) {
          CampaignRun run;
          RunConfig& c = run.config;
          c.problem = problems[pi].id;
          c.problem_params = problems[pi].params;
          c.t_end = problems[pi].t_end;
          c.method = methods[mi].first;
          c.method_params = methods[mi].second;
          c.stepper = steppers[si].id;
          if (steppers[si].fixed)
            c.dt = steppers[si].values[vi];
          else
            c.abs_tol = c.rel_tol = steppers[si].values[vi];
          c.max_dt = steppers[si].max_dt;
          c.sample_dt = sample_dt;
          c.repeat = repeat;
          c.limits.wall_time_limit = time_limit;
          const std::string where = "/problems/" + std::to_string(pi) + " × /methods/" +
                                    std::to_string(mi) + " × /steppers/" + std::to_string(si) +
                                    "/" + (steppers[si].fixed ? "dt" : "tol") + "/" + std::to_string(vi);
          at_path(where, [&] { run.key = prepare_run(c).key; });
          if (!keys.insert(run.key).second) fail_at(where, "duplicates run '" + run.key + "'");
          run.file = file_stem(run);
          campaign.runs.push_back(run);
        }
      }
  return campaign;
}

namespace {

json crash_record(const CampaignRun& run, const std::string& why) {
  return {{"schema", "cmbench.run/1"}, {"key", run.key},  {"status", "diverged"},
          {"message", why},            {"problem", {{"id", run.config.problem}}},
          {"method", {{"id", run.config.method}}}, {"stepper", {{"id", run.config.stepper}}},
          {"context", run_context()}};
}

// Executes one run in a worker process; never returns.
[[noreturn]] void work(const CampaignRun& run, const fs::path& out) {
  int code = 0;
  try {
    PreparedRun prepared = prepare_run(run.config);
    const RunResult result = execute_run(prepared);
    write_file_atomically((out / "series" / (run.file + ".csv")).string(),
                          series_csv(*result.problem, result.series, result.reference));
    write_file_atomically((out / "runs" / (run.file + ".json")).string(), result.record.dump(1) + "\n");
  } catch (const std::exception& e) {
    try {
      write_file_atomically((out / "runs" / (run.file + ".json")).string(),
                            crash_record(run, std::string("internal error: ") + e.what()).dump(1));
    } catch (...) {
      code = 3;
    }
  }
  std::fflush(nullptr);
  _exit(code);
}

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

std::size_t merge_results(const std::vector<std::string>& dirs, const std::string& out_dir,
                          bool force) {
  if (dirs.size() < 2) throw InputError("merge needs at least two result directories");
  std::vector<json> docs;
  for (const auto& dir : dirs) {
    std::ifstream in(fs::path(dir) / "results.json");
    if (!in) throw InputError("'" + dir + "' holds no results.json");
    json doc = json::parse(in, nullptr, false);
    if (doc.is_discarded() || doc.value("schema", "") != "cmbench.results/1")
      throw InputError("'" + dir + "/results.json' is not a cmbench results file");
    docs.push_back(std::move(doc));
  }
  const json& first = docs.front();
  for (std::size_t i = 1; i < docs.size(); ++i) {
    if (docs[i]["campaign_file"] != first["campaign_file"] && !force)
      throw InputError("'" + dirs[i] + "' comes from a different campaign file than '" + dirs[0] +
                       "' (use --force to merge anyway)");
    for (const char* key : {"git_sha", "build_type", "compiler", "flags"})
      if (docs[i]["context"][key] != first["context"][key] && !force)
        throw InputError("'" + dirs[i] + "' was produced by a different build (" + key + ": " +
                         docs[i]["context"][key].dump() + " vs " + first["context"][key].dump() +
                         "; use --force to merge anyway)");
  }
  json runs = json::array();
  std::set<std::string> seen;
  for (const auto& doc : docs)
    for (const auto& run : doc["runs"])
      if (seen.insert(run.value("key", "")).second) runs.push_back(run);
  json merged = first;
  merged["runs"] = runs;
  merged["shard"] = nullptr;
  merged["merged_from"] = dirs;
  fs::create_directories(out_dir);
  write_file_atomically((fs::path(out_dir) / "results.json").string(), merged.dump(1) + "\n");
  return runs.size();
}

int run_campaign(const Campaign& campaign, const CampaignOptions& options) {
  std::vector<const CampaignRun*> selected;
  std::regex pattern;
  if (!options.filter.empty()) {
    try {
      pattern = std::regex(options.filter);
    } catch (const std::regex_error& e) {
      throw InputError("--filter '" + options.filter + "' is not a valid regular expression");
    }
  }
  std::size_t position = 0;
  for (const auto& run : campaign.runs) {
    if (!options.filter.empty() && !std::regex_search(run.key, pattern)) continue;
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
  std::vector<const CampaignRun*> pending;
  for (const auto* run : selected) {
    const bool done = fs::exists(out / "runs" / (run->file + ".json"));
    if (done && !options.resume)
      throw InputError("output directory '" + out.string() +
                       "' already holds results of this campaign: use --resume to finish it or "
                       "--out for a fresh directory");
    if (!done) pending.push_back(run);
  }
  fs::create_directories(out / "runs");
  fs::create_directories(out / "series");
  write_file_atomically((out / "campaign.json").string(), campaign.source.dump(2) + "\n");

  const bool tty = ::isatty(STDOUT_FILENO);
  const auto start = std::chrono::steady_clock::now();
  std::map<pid_t, const CampaignRun*> active;
  std::size_t next = 0, finished = 0, failures = 0;
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
    while (next < pending.size() && static_cast<int>(active.size()) < options.jobs) {
      std::fflush(nullptr);
      const pid_t pid = ::fork();
      if (pid < 0) throw std::runtime_error("fork failed");
      if (pid == 0) work(*pending[next], out);
      active[pid] = pending[next++];
    }
    int wstatus = 0;
    const pid_t pid = ::waitpid(-1, &wstatus, 0);
    if (pid < 0) break;
    const CampaignRun& run = *active.at(pid);
    active.erase(pid);
    const fs::path record = out / "runs" / (run.file + ".json");
    if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0 || !fs::exists(record)) {
      const std::string why = WIFSIGNALED(wstatus)
                                  ? "worker crashed with signal " + std::to_string(WTERMSIG(wstatus))
                                  : "worker exited with code " + std::to_string(WEXITSTATUS(wstatus));
      write_file_atomically(record.string(), crash_record(run, why).dump(1) + "\n");
    }
    std::ifstream in(record);
    const json result = json::parse(in, nullptr, false);
    const std::string status = result.is_discarded() ? "unreadable" : result.value("status", "?");
    ++finished;
    if (status != "ok") ++failures;
    report(run, status);
  }
  if (tty) std::cout << "\n";

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
  return static_cast<int>(not_ok);
}

}  // namespace cmb
