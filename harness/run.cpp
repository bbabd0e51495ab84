#include "harness/run.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "catalog/catalog.hpp"
#include "harness/branch_monitor.hpp"
#include "harness/context.hpp"
#include "harness/self_converged.hpp"

namespace cmb {

namespace {

void require_positive(const char* option, const std::optional<double>& value) {
  if (value && !(std::isfinite(*value) && *value > 0.0)) {
    std::ostringstream msg;
    msg << option << " must be a finite number > 0, got " << *value;
    throw InputError(msg.str());
  }
}

// The shortest of 6..17 significant digits that reads back as the same double: 6 keeps the
// familiar keys (dt=0.001, tol=1e-08), more digits keep 1e-6 and 1.000001e-6 apart.
std::string format_number(double value) {
  char text[32];
  for (int digits = 6; digits <= 17; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, value);
    if (std::strtod(text, nullptr) == value) break;
  }
  return text;
}

// Stable key: problem/method/stepper/step-or-tolerance, with any explicitly given parameters.
std::string run_key(const RunConfig& c, const StepperSpec& stepper, const StepperSettings& s) {
  // A parameter given with its default value is the default configuration: same key.
  auto with_params = [](const std::string& id, const nlohmann::json& params,
                        const std::vector<ParamSpec>& specs) {
    std::string out = id;
    for (const auto& [k, v] : params.items()) {
      const auto spec = std::find_if(specs.begin(), specs.end(),
                                     [&k = k](const ParamSpec& s) { return s.name == k; });
      if (spec != specs.end() && spec->default_value == v) continue;
      out += "[" + k + "=" + v.dump() + "]";
    }
    return out;
  };
  std::string key = with_params(c.problem, c.problem_params, find_problem(c.problem).params) + "/" +
                    with_params(c.method, c.method_params, find_method(c.method).params) + "/" +
                    stepper.id + "/";
  if (stepper.kind == StepperKind::fixed) {
    key += "dt=" + format_number(s.dt);
  } else {
    key += "tol=" + format_number(s.rel_tol);
    if (s.abs_tol != s.rel_tol) key += ",atol=" + format_number(s.abs_tol);
  }
  if (c.t_end) key += "/t_end=" + format_number(*c.t_end);
  if (c.initial.perturbed())
    key += "/perturb=p" + format_number(c.initial.perturb_position) + ",v" +
           format_number(c.initial.perturb_velocity);
  if (c.initial.assembly != "reject") key += "/assembly=" + c.initial.assembly;
  return key;
}

StepperSettings stepper_settings(const RunConfig& c, const StepperSpec& stepper) {
  StepperSettings s;
  if (stepper.kind == StepperKind::fixed) {
    if (!c.dt)
      throw InputError("stepper '" + stepper.id + "' is fixed-step: give --dt (step size > 0)");
    if (c.abs_tol || c.rel_tol || c.max_dt)
      throw InputError("stepper '" + stepper.id +
                       "' is fixed-step: tolerances and max_dt do not apply (give --dt only)");
    s.dt = *c.dt;
    return s;
  }
  if (!c.abs_tol && !c.rel_tol)
    throw InputError("stepper '" + stepper.id + "' is adaptive: give --tol (or --abs-tol and " +
                     "--rel-tol), e.g. --tol 1e-8");
  s.rel_tol = c.rel_tol ? *c.rel_tol : *c.abs_tol;
  s.abs_tol = c.abs_tol ? *c.abs_tol : *c.rel_tol;
  if (c.dt) s.dt = *c.dt;
  if (c.max_dt) s.max_dt = *c.max_dt;
  return s;
}

[[noreturn]] void too_many_samples(double count, double sample_dt) {
  std::ostringstream msg;
  msg << "sample_dt = " << sample_dt << " asks for " << count << " samples; at most " << kMaxSamples
      << " are recorded per run (choose a larger sample_dt)";
  throw InputError(msg.str());
}

std::vector<double> make_sample_times(const PreparedRun& run, double sample_dt) {
  std::vector<double> times;
  if (run.stepper->kind == StepperKind::fixed) {
    const double dt = run.settings.dt;
    const double steps = run.t_end / dt;
    // 2^53: beyond it step counts are no longer exact doubles (and lround would overflow).
    if (!(steps <= 9007199254740992.0)) {
      std::ostringstream msg;
      msg << "t_end/dt = " << steps << " fixed steps: more than can be counted (2^53)";
      throw InputError(msg.str());
    }
    const long total = std::lround(steps);
    if (total < 1 || std::abs(total * dt - run.t_end) > 1e-9 * run.t_end) {
      std::ostringstream msg;
      msg << "t_end = " << run.t_end << " is not a whole number of fixed steps dt = " << dt
          << " (choose dt so that t_end/dt is an integer)";
      throw InputError(msg.str());
    }
    const long every = std::max(1L, std::lround(std::min(sample_dt / dt, steps)));
    if (total / every > kMaxSamples)
      too_many_samples(static_cast<double>(total / every), sample_dt);
    for (long k = every; k < total; k += every) times.push_back(k * dt);
    times.push_back(total * dt);
    return times;
  }
  const double wanted = run.t_end / sample_dt;
  if (!(wanted <= kMaxSamples + 0.5)) too_many_samples(wanted, sample_dt);
  const long count = std::max(1L, std::lround(wanted));
  for (long k = 1; k < count; ++k) times.push_back(run.t_end * k / count);
  times.push_back(run.t_end);
  return times;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

nlohmann::json stepper_json(const PreparedRun& run) {
  const auto& s = run.settings;
  const bool fixed = run.stepper->kind == StepperKind::fixed;
  return {{"id", run.stepper->id},
          {"kind", fixed ? "fixed" : "adaptive"},
          {"order", run.stepper->order},
          {"dt", number_or_null(s.dt)},
          {"abs_tol", fixed ? nlohmann::json() : nlohmann::json(s.abs_tol)},
          {"rel_tol", fixed ? nlohmann::json() : nlohmann::json(s.rel_tol)},
          {"max_dt", s.max_dt > 0 ? nlohmann::json(s.max_dt) : nlohmann::json()}};
}

nlohmann::json work_json(const LoopCounters& c, const Method& method) {
  return {{"rhs_calls", c.rhs_calls},
          {"steps_accepted", c.steps_accepted},
          {"steps_rejected", c.steps_rejected},
          {"stepper_resets", c.stepper_resets},
          {"jacobian_evaluations", c.jacobian_evaluations},
          {"method_rejections", c.method_rejections},
          {"method", method.stats().to_json()}};
}

}  // namespace

nlohmann::json record_header(const PreparedRun& run) {
  const Problem& p = *run.problem;
  const Sizes s = p.sizes();
  const ReferenceInfo ref = p.reference_info();
  return {
      {"schema", "cmbench.run/1"},
      {"key", run.key},
      {"problem",
       {{"id", p.info().id},
        {"params", p.params()},
        {"sizes", {{"nq", s.nq}, {"mh", s.mh}, {"mn", s.mn}}},
        {"tags", p.info().tags},
        {"outputs", p.output_names()}}},
      {"method", {{"id", run.config.method}, {"params", run.method->effective_params()}}},
      {"stepper", stepper_json(run)},
      {"t_end", run.t_end},
      {"samples", run.sample_times.size()},
      {"limits",
       {{"max_steps", run.config.limits.max_steps},
        {"max_rhs_calls", run.config.limits.max_rhs_calls > 0
                              ? nlohmann::json(run.config.limits.max_rhs_calls)
                              : nlohmann::json()},
        {"time_limit_s", run.config.limits.wall_time_limit > 0
                             ? nlohmann::json(run.config.limits.wall_time_limit)
                             : nlohmann::json()}}},
      {"reference",
       {{"kind", to_string(ref.kind)},
        {"provenance", ref.provenance},
        {"accuracy", number_or_null(ref.accuracy)}}},
  };
}

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Fills result.reference and the record's "reference" block.
void attach_reference(const PreparedRun& run, RunResult& result) {
  const Problem& problem = *run.problem;
  const ReferenceInfo info = problem.reference_info();
  if (run.config.reference != "self_converged" && info.kind != ReferenceKind::self_converged) {
    result.reference = reference_at_samples(problem, result.series);
    return;
  }
  auto& block = result.record["reference"];
  block["kind"] = to_string(ReferenceKind::self_converged);
  try {
    const SelfConvergedReference ref = self_converged_reference(
        problem.info().id, problem.params(), run.t_end, info.recipe, run.config.reference_cache);
    result.reference = sample_reference(ref, result.series.t);
    block["provenance"] = ref.provenance;
    block["accuracy"] = number_or_null(ref.agreement);
    block["cache_file"] = ref.cache_file;
    block["from_cache"] = ref.from_cache;
  } catch (const NumericalFailure& failure) {
    block["provenance"] = std::string("could not be computed: ") + failure.what();
    block["accuracy"] = nullptr;
  }
}

// The timing block of a run that ended early: the instrumented run only.
nlohmann::json untimed(double instrumented_seconds) {
  return {{"instrumented_s", instrumented_seconds},
          {"repetitions", 0},
          {"min_s", nullptr},
          {"median_s", nullptr}};
}

// Repeats an ok run without observer for its timing (same sample times, so the same step
// sequence). Runs longer than a few seconds are timed well enough by the instrumented run itself
// (its observer work is ~100 samples), and repeating them would dominate a campaign's wall time;
// the repetitions share the run's time limit, counted from `start`.
nlohmann::json timed_repetitions(PreparedRun& run, const Vec& q0, const Vec& v0,
                                 double instrumented_seconds,
                                 std::chrono::steady_clock::time_point start) {
  nlohmann::json timing = untimed(instrumented_seconds);
  if (run.config.repeat == 0) return timing;
  constexpr double kRepeatBelowSeconds = 2.0;
  if (instrumented_seconds > kRepeatBelowSeconds) {
    timing["note"] = "repetitions skipped: the instrumented run took longer than 2 s";
    return timing;
  }
  Method& method = *run.method;
  Vec x(method.state_size());
  std::vector<double> seconds;
  method.stats().set_enabled(false);
  const double limit = run.config.limits.wall_time_limit;
  for (int i = 0; i < run.config.repeat; ++i) {
    if (limit > 0 && seconds_since(start) > limit) {
      timing["note"] = "repetitions stopped by the time limit after " + std::to_string(i);
      break;
    }
    method.pack(0.0, q0, v0, x);
    const auto t0 = std::chrono::steady_clock::now();
    integrate(method, *run.stepper, run.settings, x, run.sample_times, nullptr, run.config.limits);
    seconds.push_back(seconds_since(t0));
  }
  method.stats().set_enabled(true);
  timing["repetitions"] = seconds.size();
  if (!seconds.empty()) {
    timing["min_s"] = *std::min_element(seconds.begin(), seconds.end());
    timing["median_s"] = median(seconds);
  }
  return timing;
}

}  // namespace

PreparedRun prepare_run(const RunConfig& config) {
  PreparedRun run;
  run.config = config;
  run.problem = make_problem(config.problem, config.problem_params);
  run.method = make_method(config.method, config.method_params);
  run.stepper = &find_stepper(config.stepper);
  require_positive("dt", config.dt);
  require_positive("abs_tol", config.abs_tol);
  require_positive("rel_tol", config.rel_tol);
  require_positive("max_dt", config.max_dt);
  require_positive("t_end", config.t_end);
  require_positive("sample_dt", config.sample_dt);
  if (config.reference != "problem" && config.reference != "self_converged")
    throw InputError("reference must be 'problem' or 'self_converged', got '" + config.reference +
                     "'");
  validate(config.initial);
  // Two different horizons (a run setting and the problem's t_end parameter) are a conflict.
  const auto t_end_param = config.problem_params.find("t_end");
  if (config.t_end && t_end_param != config.problem_params.end() &&
      *t_end_param != nlohmann::json(*config.t_end))
    throw InputError("two horizons are given: t_end = " + format_number(*config.t_end) +
                     " as a run setting and " + t_end_param->dump() +
                     " as a parameter of problem '" + config.problem + "': give one");
  if (config.initial.perturb_position != 0.0 && run.problem->sizes().mh == 0)
    throw InputError("a position perturbation needs holonomic constraint rows, and problem '" +
                     config.problem + "' has none (perturb the velocity instead)");
  if (config.repeat < 0 || config.repeat > kMaxRepeat)
    throw InputError("repeat must be from 0 to " + std::to_string(kMaxRepeat) + ", got " +
                     std::to_string(config.repeat));
  run.settings = stepper_settings(config, *run.stepper);
  run.t_end = config.t_end ? *config.t_end : run.problem->t_end();
  const double sample_dt = config.sample_dt ? *config.sample_dt : run.t_end / 100;
  if (!(sample_dt > 0.0))
    throw InputError("t_end = " + format_number(run.t_end) +
                     " is too short to sample (t_end/100 underflows to 0)");
  run.sample_times = make_sample_times(run, sample_dt);
  run.key = run_key(config, *run.stepper, run.settings);
  return run;
}

RunResult execute_run(PreparedRun& run) {
  RunResult result;
  result.problem = run.problem.get();
  result.record = record_header(run);
  auto& rec = result.record;
  Problem& problem = *run.problem;
  Method& method = *run.method;
  const Sizes sizes = problem.sizes();
  Vec q0(sizes.nq), v0(sizes.nq);

  auto stop_before_start = [&](const char* status, const char* message) {
    rec["status"] = status;
    rec["message"] = message;
    rec["context"] = run_context();
    return result;
  };
  try {
    rec["initial"] = make_initial_state(problem, run.config.initial, q0, v0);
    method.bind(problem);
  } catch (const NumericalFailure& failure) {
    return stop_before_start(to_string(failure.status()), failure.what());
  } catch (const InputError& error) {  // a parameter that only the problem can refuse
    return stop_before_start(to_string(RunStatus::invalid_input), error.what());
  }

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
  const LoopOutcome outcome = integrate(
      method, *run.stepper, run.settings, x, run.sample_times,
      [&recorder](double t, CVecRef state) { recorder(t, state); }, limits);
  const double instrumented_seconds = seconds_since(start);
  result.series = recorder.series();

  rec["status"] = to_string(outcome.status);
  rec["message"] = outcome.message;
  rec["t_reached"] = outcome.t_reached;
  nlohmann::json metrics;
  // Errors compare against the reference only when the run reached the horizon.
  if (outcome.status == RunStatus::ok && run.config.compute_reference)
    attach_reference(run, result);
  metrics["error"] = error_metrics(problem, result.series, result.reference);
  metrics["drift"] = drift_metrics(result.series);
  metrics["energy"] = energy_metrics(problem, result.series);
  metrics["multipliers"] = multiplier_metrics(problem, result.series);
  metrics["branch"] = branch.summary();
  rec["metrics"] = metrics;
  rec["work"] = work_json(outcome.counters, method);

  rec["timing"] = outcome.status == RunStatus::ok
                      ? timed_repetitions(run, q0, v0, instrumented_seconds, start)
                      : untimed(instrumented_seconds);
  rec["context"] = run_context();
  return result;
}

}  // namespace cmb
