// `cmbench run`: one problem, one method, one stepper; the record and series written both or
// neither; a watchdog for runs stuck past their time limit.
#include <chrono>
#include <cmath>
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
#include "cli/command.hpp"
#include "harness/run/context.hpp"
#include "harness/run/run.hpp"
#include "harness/run/run_request.hpp"
#include "harness/run/run_settings.hpp"
#include "harness/run/self_converged.hpp"
#include "records/output.hpp"

namespace cmb::cli {

namespace {

// --param KEY=VALUE: the value read as JSON (a bare word is a string), routed by the harness.
void apply_param(RunConfig& config, const std::string& assignment) {
  const auto [key, value] = parse_assignment(assignment);
  cmb::apply_param(config, key, value);
}

std::string fmt(double value, const char* format = "%.3g") {
  if (!std::isfinite(value)) return "n/a";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

void print_summary(const RunRecord& r) {
  std::ostringstream out;
  out << r.key << ": " << to_string(r.status);
  if (!r.message.empty()) out << " (" << r.message << ")";
  out << "\n";
  if (r.metrics && r.work && r.timing) {
    const RunMetrics& m = *r.metrics;
    if (m.error)
      out << "  error   final max abs " << fmt(m.error->final_abs_max) << ", max abs over "
          << "samples " << fmt(m.error->max_abs) << ", scd " << fmt(m.error->scd, "%.2f")
          << " (reference: " << (r.reference ? r.reference->kind : "none") << ")\n";
    out << "  drift   position max " << fmt(m.position_drift.max) << ", velocity max "
        << fmt(m.velocity_drift.max) << "\n";
    if (m.energy)
      out << "  energy  max |E - E0| " << fmt(m.energy->max_abs)
          << " (E0 = " << fmt(m.energy->E0, "%.6g") << ")\n";
    const RunWork& w = *r.work;
    out << "  work    " << w.rhs_calls << " RHS calls, " << w.steps_accepted << " steps accepted, "
        << w.steps_rejected << " rejected\n";
    const TimingRecord& t = *r.timing;
    out << "  time    instrumented " << fmt(t.instrumented_s) << " s";
    if (std::isfinite(t.min_s) && t.cpu)
      out << "; over " << t.repetitions << " repetitions: CPU min " << fmt(t.cpu->min_s)
          << " s (spread " << fmt(t.cpu->spread, "%.2f") << "), wall min " << fmt(t.min_s)
          << " s, median " << fmt(t.median_s) << " s";
    out << "\n";
  }
  std::cout << out.str();
}

// Outputs are checked before the simulation, so that an unwritable path costs no run time.
void check_outputs(const std::string& out_path, const std::string& series_path) {
  if (!out_path.empty() && !series_path.empty() && same_file(out_path, series_path))
    throw InputError("--out '" + out_path + "' and --series '" + series_path +
                     "' name the same file: the record and the series would overwrite each other");
  // Paths the user named for this run's outputs: a device or a FIFO (/dev/stdout) is written.
  if (!out_path.empty()) check_writable(out_path, NonRegular::write_in_place);
  if (!series_path.empty()) check_writable(series_path, NonRegular::write_in_place);
}

// Removes the series file at `series_path`: one written before the record failed, or an earlier
// run's left beside a record of a run stopped from outside (which has no series). Never a device
// or FIFO (as root, removing /dev/null would delete the node).
void remove_series_file(const std::string& series_path) {
  std::error_code ec;
  if (!series_path.empty() && std::filesystem::is_regular_file(series_path, ec))
    std::filesystem::remove(series_path, ec);
}

// Both files or neither: when the second cannot be written, the first is removed again.
void write_outputs(const std::string& out_path, const RunResult& result,
                   const std::string& series_path) {
  if (!series_path.empty())
    write_file_atomically(
        series_path,
        [&result](const Emit& emit) {
          stream_series_csv(*result.problem, result.series, result.reference, emit);
        },
        NonRegular::write_in_place);
  if (out_path.empty()) return;
  try {
    write_run_record(out_path, result.record, 2, NonRegular::write_in_place);
  } catch (const OutputError&) {
    remove_series_file(series_path);
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
  method_params_of(config.formulation_id());  // an unknown id fails before the parameters do
  for (const auto& p : params) apply_param(config, p);
  PreparedRun run = prepare_run(config);
  check_outputs(out_path, series_path);
  // The reference first, outside the run's time limit (as a campaign's reference pass does).
  resolve_reference(run);
  const double limit = run.config.limits.wall_time_limit;
  RunRecord stopped = record_header(run);
  if (run.reference_block) stopped.reference = run.reference_block;
  Watchdog watchdog(limit > 0 ? limit + time_limit_margin(limit) : 0.0, [&] {
    std::ostringstream why;
    why << "wall-time limit reached: the run was stopped " << limit + time_limit_margin(limit)
        << " s after it started (limit " << limit << " s plus margin; the limit is otherwise "
        << "checked between steps)";
    stopped.status = RunStatus::time_limit;
    stopped.message = why.str();
    stopped.context = run_context();
    int code = 1;
    try {
      if (!out_path.empty()) write_run_record(out_path, stopped, 2, NonRegular::write_in_place);
      remove_series_file(series_path);
      std::cout << stopped.key << ": time_limit (" << why.str() << ")" << std::endl;
    } catch (const OutputError& e) {
      std::cerr << "cmbench: error: " << e.what() << std::endl;
      code = 2;
    }
    std::_Exit(code);
  });
  const RunResult result = execute_run(run);
  watchdog.cancel();
  if (result.record.status == RunStatus::invalid_input) {
    // Bad input found while starting the run (e.g. an inconsistent initial state): nothing is
    // written, as for any other input error.
    throw InputError(result.record.message);
  }
  write_outputs(out_path, result, series_path);
  print_summary(result.record);
  return result.record.status == RunStatus::ok ? 0 : 1;
}

// What `cmbench run` parses: the run settings as text, one per row of the settings table
// (harness/run/run_settings.hpp), which reads them as the other callers' settings are read.
struct RunOptions {
  RunConfig config;
  std::string integrator;
  std::vector<std::string> params;
  std::string out_path, series_path;
  std::vector<std::string> setting_texts = std::vector<std::string>(run_settings().size());
  std::vector<CLI::Option*> setting_opts;
};

// The method and stepper, or the DAE integrator (which steps itself: stepper "dae").
void choose_solver(const RunOptions& o, RunConfig& config) {
  if (!o.integrator.empty()) {
    if (!config.method.empty() || !config.stepper.empty())
      throw InputError("--integrator " + o.integrator +
                       " steps itself: give it instead of --method and --stepper, not with them");
    config.integrator = o.integrator;
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
  nlohmann::json given = nlohmann::json::object();
  for (std::size_t i = 0; i < run_settings().size(); ++i) {
    if (!o.setting_opts[i]->count()) continue;
    const RunSetting& setting = run_settings()[i];
    const nlohmann::json value = value_from_text(setting, o.setting_texts[i]);
    const std::string problem = value_problem(setting, value);
    if (!problem.empty())  // named with the text as typed
      throw InputError(written(setting.name, o.setting_texts[i], SettingSurface::command_line) +
                       ": " + problem);
    given[setting.name] = value;
  }
  apply_run_settings(config, given, SettingSurface::command_line);
  return config;
}

// One option per run setting, its help with what it expects and its default.
void add_setting_options(CLI::App* run, RunOptions& o) {
  const nlohmann::json defaults = run_settings_json();
  for (std::size_t i = 0; i < run_settings().size(); ++i) {
    const RunSetting& setting = run_settings()[i];
    const nlohmann::json& fallback = defaults[i]["default"];
    std::string help = setting.help + "; " + expected_value(setting);
    if (!fallback.is_null())
      help += " (default " +
              (fallback.is_string() ? fallback.get<std::string>() : fallback.dump()) + ")";
    static const char* kTypeNames[] = {"NUMBER", "INTEGER", "CHOICE", "PATH"};
    o.setting_opts.push_back(run->add_option(setting.flag, o.setting_texts[i], help)
                                 ->type_name(kTypeNames[static_cast<int>(setting.type)]));
  }
}

}  // namespace

Command add_run_command(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  RunConfig& config = o->config;
  auto* run = app.add_subcommand(
      "run", "Run one problem with one method and one stepper, or with one DAE integrator");
  run->add_option("--problem", config.problem, "problem id (see `cmbench list problems`)")
      ->required()
      ->check(not_empty("a problem id (`cmbench list problems`)"));
  run->add_option("--method", config.method, "method id (see `cmbench list methods`)")
      ->check(not_empty("a method id (`cmbench list methods`)"));
  run->add_option("--stepper", config.stepper, "stepper id (see `cmbench list steppers`)")
      ->check(not_empty("a stepper id (`cmbench list steppers`)"));
  run->add_option("--integrator", o->integrator,
                  "a DAE integrator instead of method and stepper (see `cmbench list "
                  "integrators`)")
      ->check(not_empty("an integrator id (`cmbench list integrators`)"));
  run->add_option("--param", o->params,
                  "parameter key=value; keys: problem.KEY, method.KEY, or an unprefixed key "
                  "that only one of them declares (repeatable)");
  add_setting_options(run, *o);
  run->add_option("--out", o->out_path, "write the JSON record here (atomically)")
      ->check(output_path());
  run->add_option("--series", o->series_path, "write the sampled time series as CSV here")
      ->check(output_path());
  return {run, [o] { return run_with(settings_of(*o), o->params, o->out_path, o->series_path); }};
}

}  // namespace cmb::cli
