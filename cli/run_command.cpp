// `cmbench run`: one problem, one method, one stepper; the record and series written both or
// neither; a watchdog for runs stuck past their time limit.
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include "catalog/catalog.hpp"
#include "catalog/stepping.hpp"
#include "cli/command.hpp"
#include "harness/run/context.hpp"
#include "harness/run/run.hpp"
#include "harness/run/run_request.hpp"
#include "harness/run/self_converged.hpp"
#include "records/output.hpp"

namespace cmb::cli {

namespace {

// --param KEY=VALUE: the value read as JSON (a bare word is a string), routed by the harness.
void apply_param(RunConfig& config, const std::string& assignment) {
  const auto [key, value] = parse_assignment(assignment);
  cmb::apply_param(config, key, value);
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
  if (!r["message"].get<std::string>().empty())
    out << " (" << r["message"].get<std::string>() << ")";
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
      out << "  energy  max |E - E0| " << fmt(m["energy"]["max_abs"])
          << " (E0 = " << fmt(m["energy"]["E0"], "%.6g") << ")\n";
    const auto& w = r["work"];
    out << "  work    " << w["rhs_calls"] << " RHS calls, " << w["steps_accepted"]
        << " steps accepted, " << w["steps_rejected"] << " rejected\n";
    const auto& t = r["timing"];
    out << "  time    instrumented " << fmt(t["instrumented_s"]) << " s";
    if (t["min_s"].is_number())
      out << "; over " << t["repetitions"] << " repetitions: CPU min " << fmt(t["cpu_min_s"])
          << " s (spread " << fmt(t["cpu_spread"], "%.2f") << "), wall min " << fmt(t["min_s"])
          << " s, median " << fmt(t["median_s"]) << " s";
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
// reference computation, or the repetitions): after limit + margin, the run command writes the
// record with status time_limit (no series: there is none to write) and ends the process with exit
// code 1.
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

int run_with(RunConfig config, const std::vector<std::string>& params, const std::string& out_path,
             const std::string& series_path) {
  find_problem(config.problem);
  method_params_of(config.method);  // an unknown id fails before the parameters do
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
  const RunResult result = run_with_reference(run);
  watchdog.cancel();
  if (result.status == RunStatus::invalid_input) {
    // Bad input found while starting the run (e.g. an inconsistent initial state): nothing is
    // written, as for any other input error.
    throw InputError(result.record["message"].get<std::string>());
  }
  write_outputs(out_path, result, series_path);
  print_summary(result.record);
  return result.status == RunStatus::ok ? 0 : 1;
}

// The parsed options as a run configuration (an option counts only when given).
// What `cmbench run` parses; the CLI::Option pointers tell which options were given.
struct RunOptions {
  RunConfig config;
  std::string integrator;
  std::vector<std::string> params;
  std::string out_path, series_path;
  double dt = 0, tol = 0, abs_tol = 0, rel_tol = 0, max_dt = 0, t_end = 0, sample_dt = 0;
  double time_limit = 0;
  long max_steps = LoopLimits{}.max_steps;
  long max_rhs_calls = 0;
  CLI::Option *dt_opt, *tol_opt, *abs_opt, *rel_opt, *max_dt_opt, *t_end_opt, *sample_opt,
      *time_limit_opt, *out_opt, *series_opt;
};

// The method and stepper, or the DAE integrator (which steps itself: stepper "dae").
void choose_solver(const RunOptions& o, RunConfig& config) {
  if (!o.integrator.empty()) {
    if (!config.method.empty() || !config.stepper.empty())
      throw InputError("--integrator " + o.integrator +
                       " steps itself: give it instead of --method and --stepper, not with them");
    config.method = o.integrator;
    config.stepper = kDaeStepper;
    return;
  }
  if (config.method.empty() || config.stepper.empty())
    throw InputError(
        "give --method and --stepper (a method and an odeint stepper), or "
        "--integrator (a DAE integrator; see `cmbench list integrators`)");
}

RunConfig settings_of(const RunOptions& o) {
  RunConfig config = o.config;
  choose_solver(o, config);
  std::optional<double> tol;
  optional_from(o.tol_opt, o.tol, tol);
  optional_from(o.dt_opt, o.dt, config.dt);
  optional_from(o.abs_opt, o.abs_tol, config.abs_tol);
  optional_from(o.rel_opt, o.rel_tol, config.rel_tol);
  if (tol) config.abs_tol = config.rel_tol = tol;
  optional_from(o.max_dt_opt, o.max_dt, config.max_dt);
  optional_from(o.t_end_opt, o.t_end, config.t_end);
  optional_from(o.sample_opt, o.sample_dt, config.sample_dt);
  if (o.time_limit_opt->count()) {
    if (!(o.time_limit > 0)) throw InputError("--time-limit must be > 0 seconds");
    config.limits.wall_time_limit = o.time_limit;
  }
  config.limits.max_steps = o.max_steps;
  config.limits.max_rhs_calls = o.max_rhs_calls;
  require_nonempty(o.out_opt, o.out_path);
  require_nonempty(o.series_opt, o.series_path);
  return config;
}

// The step-size, tolerance, horizon and sampling options.
void add_step_options(CLI::App* run, RunOptions& o) {
  o.dt_opt = run->add_option("--dt", o.dt, "fixed step size, or first trial step (adaptive) [s]");
  o.tol_opt = run->add_option("--tol", o.tol, "adaptive: absolute and relative tolerance");
  o.abs_opt = run->add_option("--abs-tol", o.abs_tol, "adaptive: absolute tolerance");
  o.rel_opt = run->add_option("--rel-tol", o.rel_tol, "adaptive: relative tolerance");
  o.max_dt_opt = run->add_option("--max-dt", o.max_dt, "adaptive: largest step [s]");
  o.t_end_opt = run->add_option("--t-end", o.t_end, "horizon [s] (default: the problem's)");
  o.sample_opt =
      run->add_option("--sample-dt", o.sample_dt, "sampling interval [s] (default: t_end/100)");
  o.tol_opt->excludes(o.abs_opt)->excludes(o.rel_opt);
}

// Timed repetitions and the limits that stop a run with a status.
void add_limit_options(CLI::App* run, RunOptions& o) {
  run->add_option("--repeat", o.config.repeat,
                  "timed repetitions without metrics: at least this many (default 3; 0: none), "
                  "more until --timing-min seconds")
      ->check(integer_at_least(0));
  run->add_option("--timing-min", o.config.timing_min_s,
                  "repeat until the repetitions took this long together [s] (default 0.2)")
      ->check(a_number());
  run->add_option("--timing-max", o.config.timing_max_s,
                  "start no repetition past this total [s] (default 20)")
      ->check(a_number());
  run->add_option("--max-steps", o.max_steps, "stop with status step_limit after this many steps")
      ->check(integer_at_least(1));
  run->add_option("--max-rhs-calls", o.max_rhs_calls,
                  "stop with status step_limit after this many RHS calls (a work budget)")
      ->check(integer_at_least(1));
  o.time_limit_opt = run->add_option("--time-limit", o.time_limit,
                                     "stop with status time_limit after this many seconds");
}

// The reference the errors are measured against, and the initial state.
void add_reference_and_start_options(CLI::App* run, RunConfig& config) {
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
}

}  // namespace

Command add_run_command(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  RunConfig& config = o->config;
  auto* run = app.add_subcommand(
      "run", "Run one problem with one method and one stepper, or with one DAE integrator");
  run->add_option("--problem", config.problem, "problem id (see `cmbench list problems`)")
      ->required();
  run->add_option("--method", config.method, "method id (see `cmbench list methods`)");
  run->add_option("--stepper", config.stepper, "stepper id (see `cmbench list steppers`)");
  run->add_option("--integrator", o->integrator,
                  "a DAE integrator instead of method and stepper (see `cmbench list "
                  "integrators`)");
  run->add_option("--param", o->params,
                  "parameter key=value; keys: problem.KEY, method.KEY, or an unprefixed key "
                  "that only one of them declares (repeatable)");
  add_step_options(run, *o);
  add_limit_options(run, *o);
  add_reference_and_start_options(run, config);
  o->out_opt = run->add_option("--out", o->out_path, "write the JSON record here (atomically)");
  o->series_opt =
      run->add_option("--series", o->series_path, "write the sampled time series as CSV here");
  for (CLI::Option* option : {o->dt_opt, o->tol_opt, o->abs_opt, o->rel_opt, o->max_dt_opt,
                              o->t_end_opt, o->sample_opt, o->time_limit_opt})
    option->check(a_number());
  return {run, [o] { return run_with(settings_of(*o), o->params, o->out_path, o->series_path); }};
}

}  // namespace cmb::cli
