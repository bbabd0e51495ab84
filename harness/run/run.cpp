// Executing a prepared run: the record header, the instrumented integration with its observers,
// the metrics and the timed repetitions. Preparation and validation: harness/prepare_run.cpp.
#include "harness/run/run.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "catalog/catalog.hpp"
#include "harness/run/branch_monitor.hpp"
#include "harness/run/context.hpp"
#include "harness/run/timing.hpp"

namespace cmb {

namespace {

StepperCase stepper_case(const PreparedRun& run) {
  const auto& s = run.settings;
  const bool fixed = run.stepper->kind == StepperKind::fixed;
  constexpr double kNull = std::numeric_limits<double>::quiet_NaN();
  StepperCase::Settings settings{fixed ? StepKind::fixed : StepKind::adaptive,
                                 run.stepper->order,
                                 s.dt,
                                 fixed ? kNull : s.abs_tol,
                                 fixed ? kNull : s.rel_tol,
                                 s.max_dt > 0 ? s.max_dt : kNull};
  return {run.stepper->id, settings};
}

// The formulation's counters and extremes (an extreme replaces a counter of the same name).
FormulationWork formulation_work(const MethodStats& stats) {
  FormulationWork work;
  for (const auto& [name, value] : stats.counters()) work.counts[name] = value;
  for (const auto* extremes : {&stats.minima(), &stats.maxima()})
    for (const auto& [name, value] : *extremes) {
      work.counts.erase(name);
      work.extremes[name] = value;
    }
  return work;
}

RunWork run_work(const LoopCounters& c, const Formulation& method) {
  return {c.rhs_calls,
          c.steps_accepted,
          c.steps_rejected,
          c.stepper_resets,
          c.jacobian_evaluations,
          c.method_rejections,
          formulation_work(method.stats())};
}

}  // namespace

RunRecord record_header(const PreparedRun& run) {
  const Problem& p = *run.problem;
  const Sizes s = p.sizes();
  const ReferenceInfo ref = p.reference_info();
  RunRecord record;
  record.key = run.key;
  record.problem = {p.info().id,       p.params(),
                    run.problem_given, ProblemCase::Sizes{s.nq, s.mh, s.mn},
                    p.info().tags,     p.output_names()};
  record.method = {run.config.formulation_id(), run.formulation().effective_params(),
                   run.method_given};
  record.stepper = stepper_case(run);
  record.t_end = run.t_end;
  record.samples = static_cast<std::int64_t>(run.sample_times.size());
  const LoopLimits& limits = run.config.limits;
  record.limits =
      LimitsRecord{limits.max_steps, std::nullopt,
                   limits.wall_time_limit > 0 ? limits.wall_time_limit
                                              : std::numeric_limits<double>::quiet_NaN()};
  if (limits.max_rhs_calls > 0) record.limits->max_rhs_calls = limits.max_rhs_calls;
  record.reference = ReferenceRecord{to_string(ref.kind), ref.provenance, ref.accuracy,
                                     std::nullopt, std::nullopt};
  return record;
}

namespace {

// The record's metrics; errors only against a reference, and only for a run that reached the
// horizon.
RunMetrics run_metrics(const PreparedRun& run, RunResult& result, RunStatus status,
                       const BranchMonitor& branch) {
  const Problem& problem = *run.problem;
  if (status == RunStatus::ok && run.config.compute_reference) {
    if (run.grid_reference) {
      const SampledReference sampled = sample_reference(*run.grid_reference, result.series.t);
      result.reference = sampled.values;
      // Values read between grid times carry the interpolation's error beside the grid's own.
      if (result.record.reference) result.record.reference->accuracy += sampled.interpolation_error;
    } else {
      result.reference = reference_at_samples(problem, result.series);
    }
  }
  return {error_metrics(problem, result.series, result.reference),
          drift_of(result.series.position_residual),
          drift_of(result.series.velocity_residual),
          energy_metrics(problem, result.series),
          multiplier_metrics(problem, result.series),
          branch.summary()};
}

// Integrates from (q0, v0) with the recorder and the branch monitor as observers, and fills the
// record from the outcome.
void integrate_and_record(PreparedRun& run, const Vec& q0, const Vec& v0, RunResult& result) {
  Problem& problem = *run.problem;
  Formulation& method = run.formulation();
  auto& rec = result.record;
  Vec x(method.state_size());
  method.pack(0.0, q0, v0, x);
  SampleRecorder recorder(problem, method);
  BranchMonitor branch(problem, method);
  branch.start(0.0, x);
  LoopLimits limits = run.config.limits;
  if (branch.active())
    limits.branch_check = [&branch](double t, CVecRef state, std::string& message) {
      return branch.on_branch(t, state, message);
    };
  const auto start = std::chrono::steady_clock::now();
  const LoopOutcome outcome = integrate_run(
      run, x, [&recorder](double t, CVecRef state) { recorder(t, state); }, limits);
  const double instrumented_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.series = recorder.series();

  rec.status = outcome.status;
  rec.message = outcome.message;
  rec.t_reached = outcome.t_reached;
  rec.metrics = run_metrics(run, result, outcome.status, branch);
  rec.work = run_work(outcome.counters, method);
  rec.timing = outcome.status == RunStatus::ok
                   ? timed_repetitions(run, q0, v0, instrumented_seconds,
                                       {outcome.counters.rhs_calls, outcome.counters.steps_accepted,
                                        outcome.counters.steps_rejected},
                                       start)
                   : untimed(instrumented_seconds);
}

}  // namespace

namespace {

std::string out_of_memory_message(const PreparedRun& run, const char* while_doing) {
  std::ostringstream msg;
  msg << "ran out of memory while " << while_doing << " (an allocation failed; its "
      << run.sample_times.size() << " samples take about "
      << static_cast<double>(series_bytes(run)) / 1e6
      << " MB): --resume tries it again, with more memory if there is more";
  return msg.str();
}

}  // namespace

LoopOutcome integrate_run(PreparedRun& run, Vec& x, const SampleObserver& observer,
                          const LoopLimits& limits) {
  if (run.integrator)
    return run.integrator->integrate(run.settings, x, run.sample_times, observer, limits);
  return integrate(*run.method, *run.stepper, run.settings, x, run.sample_times, observer, limits);
}

RunResult execute_run(PreparedRun& run) {
  RunResult result;
  result.problem = run.problem.get();
  result.record = record_header(run);
  auto& rec = result.record;
  auto stop_before_start = [&](RunStatus status, const std::string& message) {
    rec.status = status;
    rec.message = message;
    rec.context = run_context();
    return result;
  };
  if (run.reference_block) rec.reference = run.reference_block;
  if (!run.reference_failure.empty())
    return stop_before_start(
        run.reference_failure_status,
        "the self-converged reference could not be computed: " + run.reference_failure);
  if (needs_grid_reference(run) && !run.grid_reference)
    throw std::logic_error("run " + run.key +
                           ": its self-converged reference was not resolved before the run");
  const Sizes sizes = run.problem->sizes();
  Vec q0(sizes.nq), v0(sizes.nq);
  try {
    rec.initial = make_initial_state(*run.problem, run.config.initial, q0, v0);
    run.formulation().bind(*run.problem);
  } catch (const NumericalFailure& failure) {
    return stop_before_start(failure.status(), failure.what());
  } catch (const InputError& error) {  // a parameter that only the problem can refuse
    return stop_before_start(RunStatus::invalid_input, error.what());
  } catch (const std::bad_alloc&) {
    return stop_before_start(RunStatus::out_of_memory, out_of_memory_message(run, "binding"));
  }
  // What a run that failed here measured is incomplete: the record keeps what was asked and how
  // it started. A numerical failure outside the stepping loop's own handling (the first
  // evaluation that packs the state, the first sample, the timing repetitions) ends the run
  // with its status like one inside it.
  auto discard_measurements = [&]() {
    result.series = SampleSeries();
    const std::optional<InitialRecord> initial = rec.initial;
    rec = record_header(run);
    rec.reference = run.reference_block;
    rec.initial = initial;
  };
  try {
    integrate_and_record(run, q0, v0, result);
  } catch (const NumericalFailure& failure) {
    discard_measurements();
    return stop_before_start(failure.status(), failure.what());
  } catch (const std::bad_alloc&) {
    discard_measurements();
    return stop_before_start(RunStatus::out_of_memory, out_of_memory_message(run, "running"));
  }
  // Parameters a formulation derives at its start (ali3p's row penalties α_i) exist only now.
  rec.method.params = run.formulation().effective_params();
  rec.context = run_context();
  return result;
}

}  // namespace cmb
