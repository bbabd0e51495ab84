// One run = problem (+ params) × method (+ params) × stepper (+ dt or tolerances) × horizon ×
// sampling. prepare_run validates everything a user can get wrong (InputError, nothing written);
// execute_run never throws for numerical trouble: it returns a record with a status.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "catalog/stepping.hpp"
#include "core/integrator.hpp"
#include "core/method.hpp"
#include "core/problem.hpp"
#include "harness/run/grid_reference.hpp"
#include "harness/run/initial_state.hpp"
#include "harness/run/metrics.hpp"
#include "records/run_record.hpp"
#include "steppers/steppers.hpp"

namespace cmb {

// Upper bounds on what one run may ask for (InputError beyond): timed repetitions, and samples
// (each holds the outputs, λ and residuals; a million of them is already ~0.5 GB for a small
// problem).
constexpr int kMaxRepeat = 1000;
constexpr long kMaxSamples = 1000000;
// What a run's sampled series may take in memory (series_bytes): 2 GB, the memory per CPU of a
// usual cluster allocation. A larger series is refused before the run (choose a larger
// sample_dt) instead of failing for want of memory at some sample.
constexpr double kMaxSeriesBytes = 2e9;

// Who wrote a run's settings, which decides how a message spells a setting: `--max-steps` on
// the command line, `max_steps=` for Python keywords and JSON run requests, `max_steps` in a
// campaign file (whose messages add the JSON path). harness/run/run_settings.hpp has the table.
enum class SettingSurface { command_line, keywords, campaign };

// What a run integrates with: a method and an ODE stepper, or a DAE integrator, which steps
// itself (then method and stepper are empty).
struct RunConfig {
  std::string problem;
  nlohmann::json problem_params = nlohmann::json::object();
  std::string method;
  std::string stepper;
  std::string integrator;
  nlohmann::json method_params = nlohmann::json::object();  // of the method or the integrator
  std::optional<double> dt;         // fixed step (required) or first trial step (adaptive)
  std::optional<double> abs_tol;    // adaptive only
  std::optional<double> rel_tol;    // adaptive only
  std::optional<double> max_dt;     // adaptive only
  std::optional<double> t_end;      // default: the problem's horizon
  std::optional<double> sample_dt;  // default: t_end / 100
  // Timed repetitions after the instrumented run (harness/run/timing.hpp): at least `repeat` (0:
  // none), more until they add up to timing_min_s, none started past timing_max_s.
  int repeat = 3;
  double timing_min_s = 0.2;
  double timing_max_s = 20.0;
  LoopLimits limits;
  InitialStateOptions initial;  // consistency check / projection / deliberate perturbation
  // "problem": the problem's own reference; "self_converged": computed by the harness with two
  // independent configurations and cached (harness/run/self_converged.hpp). Problems whose
  // reference kind is self_converged always get the latter.
  std::string reference = "problem";
  std::string reference_cache = "results/references";
  bool compute_reference = true;  // off for the reference computations themselves
  SettingSurface surface = SettingSurface::command_line;  // for messages only

  bool steps_itself() const { return !integrator.empty(); }
  // The ids a record, a key and a campaign's exclusions give the run: the method or the
  // integrator as "method", the stepper or the integrator's own stepping ("dae") as "stepper".
  const std::string& formulation_id() const { return steps_itself() ? integrator : method; }
  std::string stepper_id() const { return steps_itself() ? kDaeStepper : stepper; }
};

// The stepper block of a run: the ODE stepper's, or the integrator's own (catalog/stepping.hpp).
const StepperSpec& stepper_of(const RunConfig& config);

struct PreparedRun {
  RunConfig config;
  std::unique_ptr<Problem> problem;
  std::unique_ptr<Method> method;          // with `stepper`, or
  std::unique_ptr<Integrator> integrator;  // which steps itself (`stepper` is its record block)
  const StepperSpec* stepper = nullptr;
  Formulation& formulation() const {
    return method ? static_cast<Formulation&>(*method) : *integrator;
  }
  StepperSettings settings;
  double t_end = 0.0;
  std::vector<double> sample_times;  // excludes 0, ends at t_end
  std::string key;                   // stable, readable identifier of the configuration
  // The parameters given with a value other than the default (by canonical name): those the
  // key names, and the record's problem.given and method.given.
  std::vector<std::string> problem_given, method_given;
  // A run is a leaf: when its errors are measured against a computed reference
  // (needs_grid_reference), resolve_reference (harness/run/self_converged.hpp) fills these before
  // execute_run — the values and the record's "reference" block, or why they failed.
  std::optional<GridReference> grid_reference;
  std::optional<ReferenceRecord> reference_block;  // replaces the header's reference when set
  std::string reference_failure;  // non-empty: the run ends without starting, with this status:
  RunStatus reference_failure_status = RunStatus::reference_failed;
};

// True when the run measures its errors against a self-converged reference: the problem has
// no other, or the configuration asks for one.
bool needs_grid_reference(const PreparedRun& run);

PreparedRun prepare_run(const RunConfig& config);

// The memory a prepared run's sampled series takes, in bytes: an upper estimate from the sample
// count and what each sample holds (time, residuals, energy, outputs, multipliers, signed rows
// of small problems, the reference's outputs), with the allocator's overhead per vector and
// the copies the metrics make. tests/test_budgets.cpp measures it against the process's
// resident memory.
std::size_t series_bytes(const PreparedRun& run);

// The names in `params` whose value is not the default of `specs` (a parameter given with its
// default value is the default configuration: same key, same identity).
std::vector<std::string> given_params(const nlohmann::json& params,
                                      const std::vector<ParamSpec>& specs);

// The parts of a run's record known before it starts (key, problem, method, stepper, limits,
// reference): what a record says about a run that was stopped from outside.
RunRecord record_header(const PreparedRun& run);

// A run checks its time limit between steps; one long step, the reference computation or the
// timing repetitions can overrun it, so a watchdog (`run`) or the campaign parent stops it this
// long after the limit.
inline double time_limit_margin(double limit) { return 2.0 + 0.05 * limit; }

struct RunResult {
  RunRecord record;  // its status says how the run ended
  SampleSeries series;
  Mat reference;  // reference outputs at the sample times (empty if none)
  const Problem* problem = nullptr;
};

// Integrates x from t = 0 over the run's sample times: the method with its ODE stepper, or the
// integrator's own stepping.
LoopOutcome integrate_run(PreparedRun& run, Vec& x, const SampleObserver& observer,
                          const LoopLimits& limits);

// Integrates a prepared run (with its reference resolved, see PreparedRun) and returns its record.
RunResult execute_run(PreparedRun& run);

}  // namespace cmb
