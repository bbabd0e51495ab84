// ida — SUNDIALS IDA: variable-order (1–5), variable-step BDF on the constrained equations.
//
// Equations (residual form F(t, y, y') = 0, solved by IDA's BDF with Newton iterations):
//   ggl (default; stabilized index 2 [GearGuptaLeimkuhler1985]), y = [q; v; λ; μ]:
//     q' = v − J_hᵀμ,  M v' = Q − Jᵀλ,  Φ(t, q) = 0 (mh rows),  J v = ν (all m rows)
//   μ is the multiplier that keeps q on Φ = 0 while v satisfies the velocity rows; it is zero
//   along the exact solution. Positions and velocities stay on the constraints to the
//   tolerance, with no drift.
//   index1, y = [q; v; λ]:  q' = v,  M v' = Q − Jᵀλ,  J v' = γ. Nothing holds Φ = 0 or J v = ν:
//   the drift grows like index1's (the method), within the tolerance-sized errors per step.
// Nonholonomic rows (J_nh v = c) are velocity rows of both forms, and rheonomic ones (Φ(t, q),
// ν(t, q)) enter as they are: both are handled. λ and μ are algebraic components (no y'); they
// are left out of IDA's local error test (suppress_alg) and only enter its Newton convergence
// test, with their own absolute tolerance.
// Iteration matrix ∂F/∂y + c_j ∂F/∂y' (integrators/base/ida_residual.hpp), dense: difference
// quotients of whole residuals in the n position columns only; the v columns differ Q (and γ)
// alone, and the λ, μ, y' columns are exact (J, Jᵀ, M, I), factorized by IDA's dense LU.
// jacobian = internal gives IDA's own difference quotients over all N columns instead (N = 2n + m
// + mh for ggl, 2n + m for index1). Sparse (linear_solver; problems with sparse entries and
// residual tangents, holonomic rows only): the residual from the entries, the blocks exact from
// M, J and the tangents, the constraint rows' derivatives by difference quotients with columns
// grouped by colour (base/ida_sparse_matrix.hpp), factorized by SUNDIALS' KLU [Davis2010].
// Source: IDA [Hindmarsh2005], its BDF and error control after DASSL [BrenanCampbellPetzold1996]
// (Ch. 5); GGL [GearGuptaLeimkuhler1985] (keys in docs/sources.md).
// Parameters:
//   formulation (ggl | index1) — ggl for accuracy on the constraints; index1 is the index-1 DAE.
//   suppress_alg (true) — λ, μ out of the error test. With them in it, IDA measures the
//     multipliers' BDF error, which for index-2 components is O(1/h) of the others': every
//     tolerance below 1e-4 then failed at t = 0 on andrews_squeezer (corrector convergence).
//   multiplier_atol (1) — absolute tolerance of λ, relative to the run's abs_tol (μ is left out
//     of every norm: base/ida_session.cpp); it only enters the Newton convergence test (a tight
//     value makes Newton iterate on multiplier digits the step does not need; a loose one lets bad
//     λ into v').
//   multiplier_scaling (fixed | step) — ggl's λ tolerance is multiplier_atol·abs_tol (fixed) or
//     that over the step about to be taken (step; index-2 components as RADAU5 scales them
//     [HairerWanner1996]). λ's round-off grows like c_j = 1/h, so with fixed Newton cannot
//     converge at tiny first steps (2e-12 s on n_four_bar N = 10, 2e-9 s at N = 100; 8 of 18
//     generated cases in tests/integrators/test_ida.cpp); step converges at every one, but λ
//     measured loosely at ordinary steps cost accuracy on smooth problems (docs/integrators.md).
//   h0_rel (1e-6) — first step as a fraction of t_end (a run's --dt overrides it). IDA's own
//     first step, from ‖y'‖ with y' = 0 for λ, μ, failed at t = 0 on andrews_squeezer below
//     tolerance 1e-4; a small h0 costs a few steps of order 1 only.
//   max_order (5) — BDF order limit; 2 for problems with lightly damped high frequencies (BDF of
//     order > 2 is not A-stable), 5 otherwise.
//   jacobian (structured | internal) — see above; structured needs n whole residuals per
//     matrix instead of N (dense), a few constraint-row evaluations per matrix (sparse).
//   linear_solver (auto | dense | sparse) — auto: sparse wherever the problem allows it, the
//     faster path at every size measured (docs/integrators.md, "Sparse iteration matrices").
// State: x = [y; y'] (2N doubles): q, v, λ (, μ) and their derivatives, v' = q̈ the
// accelerations; the sample recorder reads q̈ and λ from x. Samples are IDA's interpolating
// polynomial at the sample times (IDAGetDky), within the tolerance of the step's solution; the
// branch indicators are checked after every accepted step (one IDA step per call).
// Dense: problems beyond 1000 coordinates are refused (unsupported). Unilateral rows and redundant
// ones (rank-deficient J makes the iteration matrix singular) are refused on both paths.
// Measured on IFToMM A02 (n_four_bar N = 40, 20 s): BDF does not step reliably across the
// singular positions, where J loses rank — newton_failed at t = 1.27 s (tol 1e-8) and 16.4 s
// (1e-7); at 1e-6 it reaches 20 s with a max error of 0.095 m (IFToMM's threshold: 1e-3 m).
// Fails when: J loses rank on the way (singular configurations) → `singular` (the iteration
// matrix cannot be factorized) or `newton_failed` (IDA_CONV_FAIL); the error test fails
// repeatedly or at the smallest step → `step_limit`; the steps collapse (core/loop_guard.hpp)
// → `newton_failed` when Newton failures drive the collapse, else `stalled`; the residual is not
// finite → `diverged`; the KKT matrix of the start is singular → `singular`.
#include <algorithm>
#include <memory>
#include <sstream>
#include <string>

#include "core/integrator.hpp"
#include "core/loop_guard.hpp"
#include "core/registry.hpp"
#include "integrators/base/ida_session.hpp"
#include "integrators/base/linear_solver_choice.hpp"

namespace cmb {
namespace {

class Ida : public Integrator {
 public:
  explicit Ida(const Params& p) : Integrator(p) {
    formulation_ = p.choice("formulation") == "ggl" ? IdaFormulation::ggl : IdaFormulation::index1;
    own_jacobian_ = p.choice("jacobian") == "structured";
    linear_solver_ = p.choice("linear_solver");
    suppress_alg_ = p.flag("suppress_alg");
    multiplier_atol_ = p.number("multiplier_atol");
    multiplier_per_step_ = p.choice("multiplier_scaling") == "step";
    h0_rel_ = p.number("h0_rel");
    max_order_ = static_cast<int>(p.integer("max_order"));
  }

  void bind(const Problem& problem) override {
    const Sizes s = problem.sizes();
    if (s.mu > 0)
      throw NumericalFailure(RunStatus::unsupported,
                             "ida: unilateral rows are not equations of the DAE it integrates");
    for (const auto& tag : problem.info().tags)
      if (tag == "redundant")
        throw NumericalFailure(RunStatus::unsupported,
                               "ida: redundant rows make J rank-deficient, and with it IDA's "
                               "iteration matrix singular");
    const int unknowns = 2 * s.nq + s.m() + (formulation_ == IdaFormulation::ggl ? s.mh : 0);
    const bool sparse =
        choose_sparse_path("ida", linear_solver_, sparse_path_missing(problem), unknowns, 0);
    if (!sparse) refuse_beyond_dense_size("ida", s.nq);
    system_.bind(problem, formulation_, sparse);
    size_ = system_.size();
    x_work_.setZero(2 * size_);
    sample_x_.setZero(2 * size_);
    qdd_.setZero(s.nq);
    lambda_.setZero(s.m());
    session_ = std::make_unique<IdaSession>();
    session_->create(system_, x_work_.data(), x_work_.data() + size_, own_jacobian_);
  }
  int state_size() const override { return 2 * size_; }
  void pack(double t, CVecRef q, CVecRef v, VecRef x) override {
    system_.consistent_start(t, q, v, x.head(size_), x.tail(size_));
  }
  void unpack(double, CVecRef x, VecRef q, VecRef v) override {
    q = x.head(system_.n());
    v = x.segment(system_.n(), system_.n());
  }
  void evaluate_at(double, CVecRef x) override {
    qdd_ = x.segment(size_ + system_.n(), system_.n());
    lambda_ = x.segment(2 * system_.n(), system_.m());
  }
  const Vec& accelerations() const override { return qdd_; }
  const Vec& multipliers() const override { return lambda_; }

  LoopOutcome integrate(const StepperSettings& settings, Vec& x,
                        const std::vector<double>& sample_times, const SampleObserver& observer,
                        const LoopLimits& limits) override;

  void evaluate_callbacks(double t, CVecRef x) override {
    session_->evaluate_callbacks(t, x.data(), x.data() + size_, 1e3);
  }

 private:
  // What the sparse path needs that the problem or the parameters do not give ("" if nothing).
  std::string sparse_path_missing(const Problem& problem) const {
    const std::string needs =
        "the problem's sparse entries of M and J, its residual tangents, holonomic rows only and "
        "jacobian = structured";
    if (!problem.has_sparse_evaluation()) return needs + " (it has no sparse evaluation)";
    if (!problem.has_residual_tangents()) return needs + " (it has no residual tangents)";
    if (problem.sizes().mn > 0)
      return needs + " (it has " + std::to_string(problem.sizes().mn) + " nonholonomic rows)";
    if (!own_jacobian_) return needs + " (jacobian = internal is IDA's dense difference quotients)";
    return "";
  }

  IdaOptions options(const StepperSettings& settings, double t_end) const {
    IdaOptions o;
    o.rel_tol = settings.rel_tol;
    o.abs_tol = settings.abs_tol;
    o.multiplier_tol = multiplier_atol_ * settings.abs_tol;
    o.multiplier_tol_per_step = formulation_ == IdaFormulation::ggl && multiplier_per_step_;
    o.suppress_alg = suppress_alg_;
    o.h0 = std::isfinite(settings.dt) ? settings.dt : h0_rel_ * t_end;
    o.max_step = settings.max_dt;
    o.max_order = max_order_;
    o.t_stop = t_end;
    return o;
  }
  void count_work(LoopCounters& counters, long residuals_before) const {
    const IdaWork w = session_->work();
    counters.steps_accepted = w.steps;
    counters.steps_rejected = w.error_test_failures + w.convergence_failures;
    counters.newton_failures = w.convergence_failures;
    counters.jacobian_evaluations = w.jacobians;
    counters.rhs_calls = system_.residual_evaluations() - residuals_before;
  }
  void add_stats(long partials_before) {
    const IdaWork w = session_->work();
    stats().add("newton_iterations", w.newton_iterations);
    stats().add("linear_solves", w.newton_iterations);  // one per iteration, factors reused
    stats().add("matrix_factorizations", w.setups);
    stats().add("error_test_failures", w.error_test_failures);
    stats().add("convergence_failures", w.convergence_failures);
    stats().add("force_evaluations", system_.partial_evaluations() - partials_before);
  }

  IdaFormulation formulation_ = IdaFormulation::ggl;
  bool own_jacobian_ = true, suppress_alg_ = true, multiplier_per_step_ = false;
  std::string linear_solver_ = "auto";
  double multiplier_atol_ = 1.0, h0_rel_ = 1e-6;
  int max_order_ = 5;
  IdaResidual system_;
  std::unique_ptr<IdaSession> session_;
  int size_ = 0;
  Vec x_work_, sample_x_, qdd_, lambda_;
};

LoopOutcome Ida::integrate(const StepperSettings& settings, Vec& x,
                           const std::vector<double>& sample_times, const SampleObserver& observer,
                           const LoopLimits& limits) {
  LoopOutcome out;
  LoopGuard guard(limits, out);
  if (!x.allFinite()) {  // pack found no consistent start
    guard.fail(RunStatus::singular, "ida: the KKT matrix of the initial state is singular", 0.0);
    return out;
  }
  if (formulation_ == IdaFormulation::ggl) {
    // GGL holds Φ = 0 and J v = ν as equations: from a start that violates them (a perturbed
    // one) IDA's error test fails at t = 0, which would read as a step limit. A start the harness
    // calls consistent (initial_tol, 1e-10 by default) passes at any tolerance: 1e-9 is the floor.
    const double violation = system_.constraint_violation(0.0, x.head(size_));
    const double allowed = std::max(settings.abs_tol, 1e-9);
    if (!(violation <= allowed)) {
      std::ostringstream msg;
      msg << "ida (formulation ggl) cannot start: the initial state violates its constraint "
             "equations by "
          << violation << " (more than " << allowed
          << ", the larger of abs_tol and 1e-9); start from a consistent state, or use "
             "formulation index1, which holds only the accelerations";
      guard.fail(RunStatus::unsupported, msg.str(), 0.0);
      return out;
    }
  }
  if (observer) observer(0.0, x);
  const double t_end = sample_times.back();
  guard.watch_pace(t_end);
  const long residuals_before = system_.residual_evaluations();
  const long partials_before = system_.partial_evaluations();
  x_work_ = x;
  std::size_t next_sample = 0;
  while (next_sample < sample_times.size() && sample_times[next_sample] <= 0.0) ++next_sample;
  try {
    session_->start(options(settings, t_end));
    double t = 0.0;
    while (true) {
      const int flag = session_->step(t);
      count_work(out.counters, residuals_before);
      if (flag < 0) {
        const NumericalFailure failure = session_->failure(flag, t);
        guard.fail(failure.status(), failure.what(), t);
        break;
      }
      if (!guard.ok(t, x_work_) || !guard.on_branch(t, x_work_)) break;
      for (; next_sample < sample_times.size() && sample_times[next_sample] <= t; ++next_sample) {
        if (!observer) continue;
        session_->interpolate(sample_times[next_sample], sample_x_.data(),
                              sample_x_.data() + size_);
        observer(sample_times[next_sample], sample_x_);
      }
      if (IdaSession::stop_reached(flag)) break;
    }
  } catch (const NumericalFailure& failure) {
    out.status = failure.status();
    out.message = failure.what();
  }
  x = x_work_;
  add_stats(partials_before);
  return out;
}

}  // namespace
}  // namespace cmb

CMB_DEFINE_INTEGRATOR(ida) {
  using cmb::ParamSpec;
  cmb::IntegratorEntry entry;
  entry.id = "ida";
  entry.display_name = "IDA (BDF)";
  entry.summary =
      "SUNDIALS IDA: variable-order variable-step BDF on the GGL (index 2) or "
      "index-1 equations";
  entry.kind = cmb::StepperKind::adaptive;
  entry.order = 0;
  entry.capabilities.nonholonomic = true;
  entry.capabilities.drift_free = false;
  ParamSpec suppress;
  suppress.name = "suppress_alg";
  suppress.type = cmb::ParamType::boolean;
  suppress.default_value = true;
  suppress.description = "leave the multipliers λ, μ out of IDA's local error test";
  entry.params = {
      cmb::choice_param("formulation", {"ggl", "index1"},
                        "ggl: stabilized index 2 (Φ = 0 and J v = ν held); index1: J v' = γ"),
      suppress,
      cmb::positive_number("multiplier_atol", 1.0,
                           "absolute tolerance of λ relative to abs_tol (Newton test)"),
      cmb::choice_param("multiplier_scaling", {"fixed", "step"},
                        "ggl's λ tolerance: multiplier_atol·abs_tol (fixed) or that over the "
                        "step (step, as RADAU5 scales index-2 components)"),
      cmb::nonnegative_number("h0_rel", 1e-6,
                              "first step as a fraction of t_end (--dt overrides); 0: IDA's own"),
      cmb::integer_param("max_order", 5, 1, 5, "largest BDF order"),
      cmb::choice_param("jacobian", {"structured", "internal"},
                        "iteration matrix: differences of n position columns (structured) or "
                        "IDA's of all N columns (internal)"),
      cmb::linear_solver_param()};
  entry.make = [](const cmb::Params& p) { return std::make_unique<cmb::Ida>(p); };
  return entry;
}
