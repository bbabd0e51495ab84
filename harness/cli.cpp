#include "harness/cli.hpp"

#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

#include <CLI/CLI.hpp>

#include "core/kkt.hpp"
#include "catalog/catalog.hpp"
#include "harness/campaign.hpp"
#include "harness/context.hpp"
#include "harness/merge.hpp"
#include "harness/compare.hpp"
#include "harness/output.hpp"
#include "harness/run.hpp"

namespace cmb {

namespace {

std::string capability_text(const Capabilities& c) {
  std::vector<std::string> items;
  if (c.redundant) items.push_back("redundant");
  if (c.singular) items.push_back("rank loss (solve survives; branch not guaranteed)");
  if (c.nonholonomic) items.push_back("nonholonomic");
  if (c.drift_free) items.push_back("drift-free");
  if (c.inequality) items.push_back("inequality");
  return items.empty() ? "-" : join(items, ", ");
}

void print_list(const std::string& what) {
  std::ostringstream out;
  if (what.empty() || what == "problems") {
    out << "Problems:\n";
    for (const auto& e : problem_registry())
      out << "  " << e.id << " — " << e.summary << "\n" << describe_params(e.params, "      ");
  }
  if (what.empty() || what == "methods") {
    out << "Methods:\n";
    for (const auto& e : method_registry())
      out << "  " << e.id << " — " << e.summary << "\n      handles: "
          << capability_text(e.capabilities) << "\n"
          << describe_params(e.params, "      ");
  }
  if (what.empty() || what == "steppers") {
    out << "Steppers (fixed: --dt H; adaptive: --tol T or --abs-tol/--rel-tol, optional --dt "
           "first step and --max-dt):\n";
    for (const auto& s : stepper_list())
      out << "  " << s.id << " — " << (s.kind == StepperKind::fixed ? "fixed" : "adaptive")
          << ", order " << (s.order ? std::to_string(s.order) : std::string("variable")) << ": "
          << s.summary << "\n";
  }
  std::cout << out.str();
}

// One line per indicator; numbered families (n_four_bar's rocker_i_parallel) collapse to the
// first and the count.
std::string describe_branch_indicators(const Problem& problem) {
  const auto indicators = problem.branch_indicators();
  if (indicators.empty()) return "  branch:       one assembly mode (no indicators)\n";
  std::ostringstream out;
  out << "  branch:       " << indicators.size() << " indicator(s), checked at every step\n";
  const std::size_t shown = std::min<std::size_t>(indicators.size(), 4);
  for (std::size_t i = 0; i < shown; ++i) {
    const auto& b = indicators[i];
    out << "    " << b.name << ": " << b.meaning;
    if (b.kind == BranchIndicator::Kind::sign)
      out << " (keeps its sign)\n";
    else
      out << " (stays within " << b.tolerance << " of its initial value)\n";
  }
  if (indicators.size() > shown) out << "    ... and " << indicators.size() - shown << " more\n";
  return out.str();
}

void print_description(const std::string& id, const std::vector<std::string>& params) {
  const auto& entry = find_problem(id);
  nlohmann::json given = nlohmann::json::object();
  for (const auto& assignment : params) {
    const auto eq = assignment.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError("--param expects key=value, got '" + assignment + "'");
    std::string key = assignment.substr(0, eq);
    if (key.rfind("problem.", 0) == 0) key = key.substr(8);
    given[key] = parse_cli_value(assignment.substr(eq + 1));
  }
  const auto problem = make_problem(id, given);
  const Sizes s = problem->sizes();
  Vec q(s.nq), v(s.nq);
  problem->initial_state(q, v);
  Mat J(s.m(), s.nq);
  problem->jacobian(0.0, q, J);
  const ReferenceInfo ref = problem->reference_info();
  std::ostringstream out;
  out << problem->info().id << " — " << problem->info().title << "\n"
      << "  source:       " << problem->info().source << "\n"
      << "  tags:         " << (problem->info().tags.empty() ? "-" : join(problem->info().tags, ", "))
      << "\n"
      << "  coordinates:  " << s.nq << "\n"
      << "  constraints:  " << s.mh << " holonomic, " << s.mn << " nonholonomic, " << s.mu
      << " unilateral; rank of J at t = 0: " << row_rank(J) << " of " << s.m() << "\n"
      << "  mobility:     " << s.nq - row_rank(J) << " (coordinates − rank of J at t = 0)\n"
      << "  outputs:      " << join(problem->output_names(), ", ") << "\n"
      << "  horizon:      " << problem->t_end() << " s (default; --t-end or t_end to change)\n"
      << "  energy:       " << (problem->has_energy() ? "conserved (reported as drift)" : "none") << "\n"
      << "  reference:    " << to_string(ref.kind);
  if (!ref.provenance.empty()) out << " — " << ref.provenance;
  if (std::isfinite(ref.accuracy)) out << " (accuracy ~" << ref.accuracy << ")";
  out << "\n" << describe_branch_indicators(*problem);
  out << "  parameters:\n" << describe_params(entry.params, "    ")
      << "  values:       " << problem->params().dump() << "\n";
  std::cout << out.str();
}

bool declares(const std::vector<ParamSpec>& specs, const std::string& key) {
  for (const auto& s : specs)
    if (s.name == key) return true;
  return false;
}

std::vector<std::string> names_of(const std::vector<ParamSpec>& specs) {
  std::vector<std::string> out;
  for (const auto& s : specs) out.push_back(s.name);
  return out;
}

// --param problem.N=2, --param method.alpha=5, or an unprefixed key that only one of them has.
void apply_param(RunConfig& config, const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    throw InputError("--param expects key=value (e.g. method.alpha=5 or problem.N=2), got '" +
                     assignment + "'");
  std::string key = assignment.substr(0, eq);
  const nlohmann::json value = parse_cli_value(assignment.substr(eq + 1));
  const auto& problem_specs = find_problem(config.problem).params;
  const auto& method_specs = find_method(config.method).params;
  auto set = [&](nlohmann::json& params, const std::string& name) {
    if (params.contains(name))
      throw InputError("--param " + name + " is given twice: give each parameter once");
    params[name] = value;
  };
  if (key.rfind("problem.", 0) == 0) return set(config.problem_params, key.substr(8));
  if (key.rfind("method.", 0) == 0) return set(config.method_params, key.substr(7));
  const bool in_problem = declares(problem_specs, key);
  const bool in_method = declares(method_specs, key);
  if (in_problem && in_method)
    throw InputError("--param " + key + " is ambiguous: write problem." + key + " or method." +
                     key);
  if (in_problem) {
    set(config.problem_params, key);
  } else if (in_method) {
    set(config.method_params, key);
  } else {
    throw InputError("unknown parameter '" + key + "' (problem '" + config.problem +
                     "' takes: " + join(names_of(problem_specs), ", ") + "; method '" +
                     config.method + "' takes: " + join(names_of(method_specs), ", ") + ")");
  }
}

std::string fmt(const nlohmann::json& value, const char* format = "%.3g") {
  if (!value.is_number()) return "n/a";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, value.get<double>());
  return buffer;
}

void print_summary(const nlohmann::json& r) {
  std::ostringstream out;
  out << r["key"].get<std::string>() << ": " << r["status"].get<std::string>();
  if (!r["message"].get<std::string>().empty()) out << " (" << r["message"].get<std::string>() << ")";
  out << "\n";
  if (r.contains("metrics")) {
    const auto& m = r["metrics"];
    if (m["error"].is_object())
      out << "  error   final max abs " << fmt(m["error"]["final_abs_max"]) << ", max abs over "
          << "samples " << fmt(m["error"]["max_abs"]) << ", scd " << fmt(m["error"]["scd"], "%.2f")
          << " (reference: " << r["reference"]["kind"].get<std::string>() << ")\n";
    out << "  drift   position max " << fmt(m["drift"]["position"]["max"]) << ", velocity max "
        << fmt(m["drift"]["velocity"]["max"]) << "\n";
    if (m["energy"].is_object())
      out << "  energy  max |E - E0| " << fmt(m["energy"]["max_abs"]) << " (E0 = "
          << fmt(m["energy"]["E0"], "%.6g") << ")\n";
    const auto& w = r["work"];
    out << "  work    " << w["rhs_calls"] << " RHS calls, " << w["steps_accepted"]
        << " steps accepted, " << w["steps_rejected"] << " rejected\n";
    const auto& t = r["timing"];
    out << "  time    instrumented " << fmt(t["instrumented_s"]) << " s";
    if (t["min_s"].is_number())
      out << "; min " << fmt(t["min_s"]) << " s, median " << fmt(t["median_s"]) << " s over "
          << t["repetitions"] << " repetitions";
    out << "\n";
  }
  std::cout << out.str();
}

// Outputs are checked before the simulation, so that an unwritable path costs no run time.
void check_outputs(const std::string& out_path, const std::string& series_path) {
  if (!out_path.empty() && out_path == series_path)
    throw InputError("--out and --series name the same file '" + out_path +
                     "': the record and the series would overwrite each other");
  if (!out_path.empty()) check_writable(out_path);
  if (!series_path.empty()) check_writable(series_path);
}

// Both files or neither: when the second cannot be written, the first is removed again.
void write_outputs(const std::string& out_path, const RunResult& result,
                   const std::string& series_path) {
  if (!series_path.empty())
    write_file_atomically(series_path, [&result](const Emit& emit) {
      stream_series_csv(*result.problem, result.series, result.reference, emit);
    });
  if (out_path.empty()) return;
  try {
    write_file_atomically(out_path, result.record.dump(2) + "\n");
  } catch (const OutputError&) {
    // Never a device or FIFO (as root, removing /dev/null would delete the node).
    std::error_code ec;
    if (!series_path.empty() && std::filesystem::is_regular_file(series_path, ec))
      std::filesystem::remove(series_path, ec);
    throw;
  }
}

// Stops `cmbench run` from outside when the run overruns its time limit inside one step (or the
// reference computation, or the repetitions): after limit + margin it writes the record with
// status time_limit (no series: there is none to write) and ends the process with exit code 1.
class Watchdog {
 public:
  Watchdog(double seconds, std::function<void()> on_expiry) {
    if (!(seconds > 0)) return;
    thread_ = std::thread([this, seconds, on_expiry = std::move(on_expiry)] {
      std::unique_lock<std::mutex> lock(mutex_);
      const auto deadline = std::chrono::steady_clock::now() +
                            std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                std::chrono::duration<double>(seconds));
      if (!stopped_.wait_until(lock, deadline, [this] { return cancelled_; })) on_expiry();
    });
  }
  // Called when the run finished in time; blocks if the watchdog is already ending the process.
  void cancel() {
    if (!thread_.joinable()) return;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      cancelled_ = true;
    }
    stopped_.notify_one();
    thread_.join();
  }
  ~Watchdog() { cancel(); }

 private:
  std::mutex mutex_;
  std::condition_variable stopped_;
  bool cancelled_ = false;
  std::thread thread_;
};

int run_command(RunConfig config, const std::vector<std::string>& params,
                const std::string& out_path, const std::string& series_path) {
  find_problem(config.problem);
  find_method(config.method);
  for (const auto& p : params) apply_param(config, p);
  PreparedRun run = prepare_run(config);
  check_outputs(out_path, series_path);
  const double limit = run.config.limits.wall_time_limit;
  nlohmann::json stopped = record_header(run);
  Watchdog watchdog(limit > 0 ? limit + time_limit_margin(limit) : 0.0, [&] {
    std::ostringstream why;
    why << "wall-time limit reached: the run was stopped " << limit + time_limit_margin(limit)
        << " s after it started (limit " << limit << " s plus margin; the limit is otherwise "
        << "checked between steps)";
    stopped["status"] = to_string(RunStatus::time_limit);
    stopped["message"] = why.str();
    stopped["context"] = run_context();
    int code = 1;
    try {
      if (!out_path.empty()) write_file_atomically(out_path, stopped.dump(2) + "\n");
      std::cout << stopped["key"].get<std::string>() << ": time_limit (" << why.str() << ")"
                << std::endl;
    } catch (const OutputError& e) {
      std::cerr << "cmbench: error: " << e.what() << std::endl;
      code = 2;
    }
    std::_Exit(code);
  });
  const RunResult result = execute_run(run);
  watchdog.cancel();
  if (result.record["status"] == "invalid_input") {
    // Bad input found while starting the run (e.g. an inconsistent initial state): nothing is
    // written, as for any other input error.
    throw InputError(result.record["message"].get<std::string>());
  }
  write_outputs(out_path, result, series_path);
  print_summary(result.record);
  return result.record["status"] == "ok" ? 0 : 1;
}

// An integer option's lower bound, with a message that names the value (CLI11's own range
// check prints the largest double instead).
CLI::Validator integer_at_least(long minimum) {
  return CLI::Validator(
      [minimum](std::string& text) -> std::string {
        std::size_t used = 0;
        long value = 0;
        try {
          value = std::stol(text, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used != text.size() || text.empty())
          return "expects an integer >= " + std::to_string(minimum) + ", got '" + text + "'";
        if (value < minimum)
          return "must be >= " + std::to_string(minimum) + ", got " + text;
        return {};
      },
      "INTEGER >= " + std::to_string(minimum));
}

// A floating-point option's text must be a whole finite number (CLI11 reads '' as 0, and the
// message would then blame the value 0).
CLI::Validator a_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size())
          return "expects a number, got '" + text + "'";
        if (!std::isfinite(value)) return "expects a finite number, got '" + text + "'";
        return {};
      },
      "NUMBER");
}

// --shard I/N: two whole numbers and nothing else.
void parse_shard(const std::string& text, CampaignOptions& options) {
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

// An output option given as '' would otherwise be taken as "not given".
void require_nonempty(const CLI::Option* option, const std::string& value) {
  if (option->count() && value.empty())
    throw InputError(option->get_name() + " is empty: give a path");
}

template <class T>
void optional_from(CLI::Option* option, double value, std::optional<T>& target) {
  if (option->count()) target = value;
}

}  // namespace

int cli_main(int argc, char** argv) {
  // Past a file-size limit (ulimit -f) a write fails with EFBIG and is reported, instead of the
  // process dying of SIGXFSZ with half-written temporary files.
  std::signal(SIGXFSZ, SIG_IGN);
  CLI::App app{"cmbench: swap constraint-enforcement methods on the same mechanism and stepper, "
               "and measure accuracy, drift, energy and cost."};
  app.require_subcommand(1);

  std::string list_what;
  auto* list = app.add_subcommand("list", "List problems, methods (with capabilities) and "
                                          "steppers, with their parameters and defaults");
  list->add_option("what", list_what, "problems | methods | steppers (default: all)")
      ->check(CLI::IsMember({"problems", "methods", "steppers"}));

  std::string describe_id;
  std::vector<std::string> describe_params_given;
  auto* describe = app.add_subcommand(
      "describe", "Describe a problem: data source, coordinates, constraint counts and rank, "
                  "tags, reference kind and provenance, default horizon");
  describe->add_option("problem", describe_id, "problem id (see `cmbench list problems`)")
      ->required();
  describe->add_option("--param", describe_params_given, "problem parameter key=value (repeatable)");

  std::string campaign_file, shard = "1/1";
  CampaignOptions campaign_options;
  campaign_options.jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  auto* campaign = app.add_subcommand(
      "campaign", "Run a declared comparison (docs/campaigns.md) in parallel worker processes");
  campaign->add_option("file", campaign_file, "campaign JSON file")->required();
  campaign->add_option("--jobs", campaign_options.jobs, "worker processes (default: all cores)")
      ->check(integer_at_least(1));
  auto* campaign_out_opt = campaign->add_option("--out", campaign_options.out_dir,
                       "output directory (default results/<name>/<date>_<git sha>)");
  campaign->add_option("--filter", campaign_options.filter, "only runs whose key matches this regex");
  campaign->add_flag("--resume", campaign_options.resume, "finish an interrupted campaign in --out");
  campaign->add_flag("--force", campaign_options.force,
                     "with --resume: continue although --out holds a different campaign file");
  campaign->add_option("--shard", shard, "run slice I of N (I/N, e.g. 2/3)");
  campaign->add_flag("--dry-run", campaign_options.dry_run, "list the runs and stop");

  std::vector<std::string> merge_dirs;
  std::string merge_out;
  bool merge_force = false;
  auto* merge = app.add_subcommand("merge", "Join the results of campaign shards into one set");
  merge->add_option("dirs", merge_dirs, "result directories (each with a results.json)")->required();
  merge->add_option("--out", merge_out, "directory for the merged results.json")->required();
  merge->add_flag("--force", merge_force,
                  "merge results of different campaign files or builds, or replace an earlier "
                  "merge's results.json in --out");

  std::vector<std::string> compare_inputs;
  CompareOptions compare_options;
  auto* compare = app.add_subcommand(
      "compare", "Compare two result sets run by run (status, metrics, work; timing ratios). "
                 "Exit 0 when they agree, 1 when runs differ or are missing");
  compare->add_option("results", compare_inputs, "two result directories (or results.json files): A B")
      ->required()
      ->expected(2);
  compare->add_option("--rel-tol", compare_options.rel_tol,
                      "numbers within this relative difference count as equal (default 0: exact)");
  compare->add_option("--json", compare_options.json_out, "also write the comparison as JSON here");

  RunConfig config;
  std::vector<std::string> params;
  std::string out_path, series_path;
  double dt = 0, tol = 0, abs_tol = 0, rel_tol = 0, max_dt = 0, t_end = 0, sample_dt = 0;
  double time_limit = 0;
  long max_steps = config.limits.max_steps;
  long max_rhs_calls = 0;
  auto* run = app.add_subcommand("run", "Run one problem with one method and one stepper");
  run->add_option("--problem", config.problem, "problem id (see `cmbench list problems`)")
      ->required();
  run->add_option("--method", config.method, "method id (see `cmbench list methods`)")->required();
  run->add_option("--stepper", config.stepper, "stepper id (see `cmbench list steppers`)")
      ->required();
  auto* dt_opt = run->add_option("--dt", dt, "fixed step size, or first trial step (adaptive) [s]");
  auto* tol_opt = run->add_option("--tol", tol, "adaptive: absolute and relative tolerance");
  auto* abs_opt = run->add_option("--abs-tol", abs_tol, "adaptive: absolute tolerance");
  auto* rel_opt = run->add_option("--rel-tol", rel_tol, "adaptive: relative tolerance");
  auto* max_dt_opt = run->add_option("--max-dt", max_dt, "adaptive: largest step [s]");
  auto* t_end_opt = run->add_option("--t-end", t_end, "horizon [s] (default: the problem's)");
  auto* sample_opt =
      run->add_option("--sample-dt", sample_dt, "sampling interval [s] (default: t_end/100)");
  run->add_option("--param", params,
                  "parameter key=value; keys: problem.KEY, method.KEY, or an unprefixed key "
                  "that only one of them declares (repeatable)");
  run->add_option("--repeat", config.repeat, "timed repetitions without metrics (default 3)")
      ->check(integer_at_least(0));
  run->add_option("--max-steps", max_steps, "stop with status step_limit after this many steps")
      ->check(integer_at_least(1));
  run->add_option("--max-rhs-calls", max_rhs_calls,
                  "stop with status step_limit after this many RHS calls (a work budget)")
      ->check(integer_at_least(1));
  auto* time_limit_opt = run->add_option("--time-limit", time_limit,
                                         "stop with status time_limit after this many seconds");
  run->add_option("--reference", config.reference,
                  "problem (the problem's own reference) or self_converged (two independent "
                  "tight runs, cached)")
      ->check(CLI::IsMember({"problem", "self_converged"}));
  run->add_option("--reference-cache", config.reference_cache,
                  "directory of cached self-converged references (default results/references)");
  run->add_option("--initial-assembly", config.initial.assembly,
                  "reject (default: an inconsistent initial state is an error) or project "
                  "(Newton onto the constraints first)")
      ->check(CLI::IsMember({"reject", "project"}));
  run->add_option("--initial-tol", config.initial.tolerance,
                  "largest max |Phi| and max |J v - nu| accepted as consistent (default 1e-10)")
      ->check(a_number());
  run->add_option("--perturb-position", config.initial.perturb_position,
                  "start with every holonomic row violated by this amount (Phi_i(0))")
      ->check(a_number());
  run->add_option("--perturb-velocity", config.initial.perturb_velocity,
                  "start with every holonomic row's rate Phi_i'(0) equal to this")
      ->check(a_number());
  auto* out_opt = run->add_option("--out", out_path, "write the JSON record here (atomically)");
  auto* series_opt =
      run->add_option("--series", series_path, "write the sampled time series as CSV here");
  for (CLI::Option* option : {dt_opt, tol_opt, abs_opt, rel_opt, max_dt_opt, t_end_opt, sample_opt,
                              time_limit_opt})
    option->check(a_number());
  tol_opt->excludes(abs_opt)->excludes(rel_opt);

  const std::string command = argc > 1 ? argv[1] : "";
  if (argc > 1 && argv[1][0] != '-' && command != "list" && command != "run" &&
      command != "describe" && command != "campaign" && command != "merge" &&
      command != "compare") {
    std::cerr << "cmbench: error: unknown command '" << argv[1]
              << "' (valid: list, describe, run, campaign, merge, compare)\n";
    return 2;
  }
  try {
    app.parse(argc, argv);
    if (list->parsed()) {
      print_list(list_what);
      return 0;
    }
    if (describe->parsed()) {
      print_description(describe_id, describe_params_given);
      return 0;
    }
    if (merge->parsed()) {
      const std::size_t count = merge_results(merge_dirs, merge_out, merge_force);
      std::cout << count << " runs merged into " << merge_out << "/results.json\n";
      return 0;
    }
    if (compare->parsed())
      return compare_results(compare_inputs[0], compare_inputs[1], compare_options, std::cout) ? 1 : 0;
    if (campaign->parsed()) {
      require_nonempty(campaign_out_opt, campaign_options.out_dir);
      parse_shard(shard, campaign_options);
      run_campaign(load_campaign(campaign_file), campaign_options);
      return 0;
    }
    std::optional<double> tol_value;
    optional_from(tol_opt, tol, tol_value);
    optional_from(dt_opt, dt, config.dt);
    optional_from(abs_opt, abs_tol, config.abs_tol);
    optional_from(rel_opt, rel_tol, config.rel_tol);
    if (tol_value) config.abs_tol = config.rel_tol = tol_value;
    optional_from(max_dt_opt, max_dt, config.max_dt);
    optional_from(t_end_opt, t_end, config.t_end);
    optional_from(sample_opt, sample_dt, config.sample_dt);
    if (time_limit_opt->count()) {
      if (!(time_limit > 0)) throw InputError("--time-limit must be > 0 seconds");
      config.limits.wall_time_limit = time_limit;
    }
    config.limits.max_steps = max_steps;
    config.limits.max_rhs_calls = max_rhs_calls;
    require_nonempty(out_opt, out_path);
    require_nonempty(series_opt, series_path);
    return run_command(config, params, out_path, series_path);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    const auto parsed = app.get_subcommands();
    std::cerr << "cmbench: error: " << e.what() << "\n(run `cmbench "
              << (parsed.empty() ? std::string() : parsed.front()->get_name() + " ")
              << "--help` for usage)\n";
    return 2;
  } catch (const InputError& e) {
    std::cerr << "cmbench: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    // Never a crash: anything else is a cmbench bug, reported as such.
    std::cerr << "cmbench: internal error (please report): " << e.what() << "\n";
    return 3;
  }
}

}  // namespace cmb
