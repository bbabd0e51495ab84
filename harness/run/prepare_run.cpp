// Preparing a run: everything a user can get wrong is validated here (InputError, nothing
// written), and the stepper settings, sample times and run key are fixed before it executes.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <sstream>

#include "catalog/catalog.hpp"
#include "catalog/stepping.hpp"
#include "harness/run/metrics.hpp"
#include "harness/run/run.hpp"
#include "harness/run/run_settings.hpp"

namespace cmb {

namespace {

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
  auto with_params = [](const std::string& id, const nlohmann::json& params,
                        const std::vector<ParamSpec>& specs) {
    std::string out = id;
    for (const auto& name : given_params(params, specs)) {
      const nlohmann::json& value = params[name];
      out += "[" + name + "=" +
             (value.is_number_float() ? format_number(value.get<double>()) : value.dump()) + "]";
    }
    return out;
  };
  std::string key =
      with_params(c.problem, c.problem_params, find_problem(c.problem).params) + "/" +
      with_params(c.formulation_id(), c.method_params, method_params_of(c.formulation_id())) + "/" +
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
  const std::string name =
      c.steps_itself() ? "integrator '" + c.integrator + "'" : "stepper '" + stepper.id + "'";
  const std::string dt = spelled("dt", c.surface);
  if (stepper.kind == StepperKind::fixed) {
    if (!c.dt) throw InputError(name + " is fixed-step: give " + dt + " (step size > 0)");
    if (c.abs_tol || c.rel_tol || c.max_dt)
      throw InputError(name + " is fixed-step: tolerances and " + spelled("max_dt", c.surface) +
                       " do not apply (give " + dt + " only)");
    s.dt = *c.dt;
    return s;
  }
  if (!c.abs_tol && !c.rel_tol)
    throw InputError(name + " is adaptive: give " + spelled("tol", c.surface) + " (or " +
                     spelled("abs_tol", c.surface) + " and " + spelled("rel_tol", c.surface) + ")");
  s.rel_tol = c.rel_tol ? *c.rel_tol : *c.abs_tol;
  s.abs_tol = c.abs_tol ? *c.abs_tol : *c.rel_tol;
  if (c.dt) s.dt = *c.dt;
  if (c.max_dt) s.max_dt = *c.max_dt;
  return s;
}

[[noreturn]] void too_many_samples(double count, double sample_dt, SettingSurface surface) {
  std::ostringstream msg;
  msg << written("sample_dt", sample_dt, surface) << " asks for " << count << " samples; at most "
      << kMaxSamples << " are recorded per run (choose a larger sample_dt)";
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
      too_many_samples(static_cast<double>(total / every), sample_dt, run.config.surface);
    for (long k = every; k < total; k += every) times.push_back(k * dt);
    times.push_back(total * dt);
    return times;
  }
  const double wanted = run.t_end / sample_dt;
  if (!(wanted <= kMaxSamples + 0.5)) too_many_samples(wanted, sample_dt, run.config.surface);
  const long count = std::max(1L, std::lround(wanted));
  for (long k = 1; k < count; ++k) times.push_back(run.t_end * k / count);
  times.push_back(run.t_end);
  return times;
}

std::string rounded(double value) {
  std::ostringstream text;
  text << std::setprecision(3) << value;
  return text.str();
}

// A run that must pass its step limit is refused before it starts instead of run up to it (18
// minutes at the default limit): fixed steps are t_end/dt, adaptive ones at least t_end/max_dt.
void check_step_count(const PreparedRun& run) {
  const bool fixed = run.stepper->kind == StepperKind::fixed;
  const double step = fixed ? run.settings.dt : run.settings.max_dt;
  if (!(step > 0.0)) return;  // no max_dt
  // Fixed steps as the sample times count them (t_end is a whole number of them); the loop
  // stops once the steps taken reach max_steps, so a run needing exactly that many is refused.
  const double steps = fixed ? std::round(run.t_end / step) : run.t_end / step;
  const long limit = run.config.limits.max_steps;
  if (!(steps >= static_cast<double>(limit))) return;
  const SettingSurface surface = run.config.surface;
  throw InputError(written(fixed ? "dt" : "max_dt", step, surface) + " needs " +
                   (fixed ? "" : "at least ") + "t_end/" + (fixed ? "dt" : "max_dt") + " = " +
                   rounded(steps) + " steps, as many as the step limit or more (" +
                   written("max_steps", limit, surface) + "): choose a larger " +
                   spelled(fixed ? "dt" : "max_dt", surface) + " or raise " +
                   spelled("max_steps", surface));
}

// A series beyond kMaxSeriesBytes is refused before the run, naming the sample interval to ask
// for instead.
void check_series_bytes(const PreparedRun& run) {
  const double bytes = static_cast<double>(series_bytes(run));
  if (bytes <= kMaxSeriesBytes) return;
  const double samples = static_cast<double>(run.sample_times.size());
  const double per_sample = bytes / (samples + 1);
  // The interval of the most samples that fit (two spare), on the fixed-step grid when the steps
  // are fixed, so that the suggestion is accepted as it is written.
  const double fitting = std::floor(kMaxSeriesBytes / per_sample) - 2;
  double interval = run.t_end / std::max(1.0, fitting);
  if (run.stepper->kind == StepperKind::fixed)
    interval = std::ceil(interval / run.settings.dt * (1 + 1e-9)) * run.settings.dt;
  char suggestion[32];
  std::snprintf(suggestion, sizeof suggestion, "%.3g", interval * (1 + 2e-3));
  const SettingSurface surface = run.config.surface;
  throw InputError(std::to_string(run.sample_times.size()) + " samples of problem '" +
                   run.problem->info().id + "' (about " + rounded(per_sample) +
                   " bytes each) need about " + rounded(bytes / 1e9) + " GB, more than the " +
                   rounded(kMaxSeriesBytes / 1e9) + " GB a run may record: choose " +
                   written("sample_dt", std::strtod(suggestion, nullptr), surface) + " or larger");
}

}  // namespace

std::size_t series_bytes(const PreparedRun& run) {
  const Sizes sizes = run.problem->sizes();
  const std::size_t outputs = run.problem->output_names().size();
  const std::size_t multipliers = static_cast<std::size_t>(sizes.m() + sizes.mu);
  const std::size_t signed_rows =
      sizes.mh <= kSignedRowsMax ? 2 * static_cast<std::size_t>(sizes.mh) : 0;
  constexpr std::size_t kVector = 48;  // a Vec in a growing vector: 16 B, doubled, + malloc's 16
  constexpr std::size_t kDouble = sizeof(double);
  // The metrics read the series through copies (errors, drift, sorted values) and the allocator
  // rounds every block up: a run's memory grows by about 1.8 times what its samples hold
  // (measured by tests/test_budgets.cpp), which 3 times covers.
  constexpr std::size_t kCopies = 3;
  const std::size_t per_sample =
      kCopies *
      (2 * 4 * kDouble                                                // t, residuals, energy
       + outputs * kDouble + kVector                                  // outputs
       + multipliers * kDouble + kVector + 1                          // λ and whether unique
       + (signed_rows > 0 ? signed_rows * kDouble + 2 * kVector : 0)  // signed Φ and ψ rows
       + outputs * kDouble);                                          // the reference's outputs
  return (run.sample_times.size() + 1) * per_sample;
}

bool needs_grid_reference(const PreparedRun& run) {
  return run.config.compute_reference &&
         (run.config.reference == "self_converged" ||
          run.problem->reference_info().kind == ReferenceKind::self_converged);
}

// The method and its ODE stepper, or the DAE integrator and the record block of its own stepping.
void make_formulation(const RunConfig& c, PreparedRun& run) {
  if (c.steps_itself()) {
    if (!c.method.empty() || !c.stepper.empty())
      throw InputError("a run has a method and a stepper, or an integrator ('" + c.integrator +
                       "', which steps itself), not both");
    run.integrator = make_integrator(c.integrator, c.method_params);
    run.stepper = &integrator_stepper(c.integrator);
    return;
  }
  if (is_integrator(c.method))
    throw InputError("'" + c.method + "' is a DAE integrator: it steps itself (" +
                     spelled_with("integrator", c.method, c.surface) + "), not with stepper '" +
                     c.stepper + "'");
  run.method = make_method(c.method, c.method_params);
  run.stepper = &find_stepper(c.stepper);
}

std::vector<std::string> given_params(const nlohmann::json& params,
                                      const std::vector<ParamSpec>& specs) {
  std::vector<std::string> names;
  for (const auto& [name, value] : params.items()) {
    const ParamSpec* spec = find_param(specs, name);
    if (!spec || spec->default_value != value) names.push_back(name);
  }
  return names;
}

const StepperSpec& stepper_of(const RunConfig& config) {
  return config.steps_itself() ? integrator_stepper(config.integrator)
                               : find_stepper(config.stepper);
}

PreparedRun prepare_run(const RunConfig& given) {
  PreparedRun run;
  run.problem = make_problem(given.problem, given.problem_params);
  make_formulation(given, run);
  // Former parameter names (aliases) become the current ones and values get their one spelling
  // (10 and 10.0, "2,1" and "1, 2" are one value), so that a run has one key however written.
  run.config = given;
  run.config.problem_params = canonical_params(
      "problem '" + given.problem + "'", given.problem_params, find_problem(given.problem).params);
  const std::string& formulation = given.formulation_id();
  run.config.method_params =
      canonical_params((given.steps_itself() ? "integrator '" : "method '") + formulation + "'",
                       given.method_params, method_params_of(formulation));
  const RunConfig& config = run.config;
  check_run_settings(config);
  // Two different horizons (a run setting and the problem's t_end parameter) are a conflict.
  const auto t_end_param = config.problem_params.find("t_end");
  if (config.t_end && t_end_param != config.problem_params.end() &&
      *t_end_param != nlohmann::json(*config.t_end))
    throw InputError("two horizons are given: " + written("t_end", *config.t_end, config.surface) +
                     " as a run setting and " + format_number(t_end_param->get<double>()) +
                     " as a parameter of problem '" + config.problem + "': give one");
  if (config.initial.perturb_position != 0.0 && run.problem->sizes().mh == 0)
    throw InputError("a position perturbation needs holonomic constraint rows, and problem '" +
                     config.problem + "' has none (perturb the velocity instead)");
  run.settings = stepper_settings(config, *run.stepper);
  run.t_end = config.t_end ? *config.t_end : run.problem->t_end();
  const double sample_dt = config.sample_dt ? *config.sample_dt : run.t_end / 100;
  if (!(sample_dt > 0.0))
    throw InputError("t_end = " + format_number(run.t_end) +
                     " is too short to sample (t_end/100 underflows to 0)");
  run.sample_times = make_sample_times(run, sample_dt);
  check_step_count(run);
  check_series_bytes(run);
  run.key = run_key(config, *run.stepper, run.settings);
  run.problem_given = given_params(config.problem_params, find_problem(config.problem).params);
  run.method_given = given_params(config.method_params, method_params_of(formulation));
  return run;
}

}  // namespace cmb
