// ali3p — index-3 augmented Lagrangian with mass-orthogonal projections, trapezoidal rule (ALI3-P).
//
// Equations ([BayoLedesma1996]; [CuadradoEtAl2000], the method of the IFToMM benchmark's
// reference solutions [Gonzalez2006]; keys in docs/sources.md): the equations of motion with
// penalty factor α and multiplier estimates λ*,
//   M q̈ + Jᵀ(αΦ + λ*) = Q   (α the penalty factor, below),
// discretized at t_{n+1} by the trapezoidal rule in the form
//   q̇_{n+1} = (2/h) q_{n+1} + \hat q̇_n,  \hat q̇_n = −((2/h) q_n + q̇_n),
//   q̈_{n+1} = (4/h²) q_{n+1} + \hat q̈_n,  \hat q̈_n = −((4/h²) q_n + (4/h) q̇_n + q̈_n).
// Newton on q_{n+1} from the predictor q_n + h q̇_n + (h²/2) q̈_n (λ* from the previous step) on
//   f(q) = (h²/4) (M q̈ + Jᵀ(αΦ + λ*) − Q) = 0,
//   [M + (h/2) C + (h²/4)(JᵀαJ + K)] Δq = −f,   (q, q̇, q̈) += (Δq, (2/h)Δq, (4/h²)Δq),
//   λ* ← λ* + αΦ(q)   after every iteration (the augmented-Lagrangian update),
// with K = ∂(M q̈ − Q + Jᵀw)/∂q at w = αΦ + λ* and C = −∂Q/∂q̇: the problem's own where it
// declares them (Problem::residual_tangent_entries), else forward difference quotients (2n + 1
// force evaluations, counted in rhs_calls). Newton stops when ‖Δq‖∞ ≤ tol·ℓ and every
// |Φ_i| ≤ tol·ℓ·‖J_i‖∞ (ℓ = ‖q₀‖∞, the size of the mechanism; J_i row i of J at the start, so
// that Φ_i/‖J_i‖ is in the units of q). The tangent is formed at the first iteration of each step
// and kept while each iteration shrinks the correction at least fourfold; after one that does
// not, it is formed again (at coarse steps on fast mechanisms the predictor is far off and λ*
// moves the geometric stiffness in K). Then the mass-orthogonal projections in penalty form,
// with P = M + (h²/4) JᵀαJ at q_{n+1}:
//   P q̇ = M q̇* + (h²/4) Jᵀαν        (Φ̇ = J q̇ − ν = 0; ν = −Φ_t for rheonomic rows),
//   P q̈ = M q̈* + (h²/4) Jᵀαγ        (Φ̈ = J q̈ − γ = 0, γ at the projected q̇),
// q̇*, q̈* the values from the Newton iteration. The projected q̇, q̈ start the next step; λ = λ*
// is recorded. [CuadradoEtAl2000] also project with the factorized tangent to save a
// factorization; here P is M's own penalty form, so the projections are mass-orthogonal.
// Penalty (penalty_scaling = norm, default): α = alpha_rel·(4/h²)·‖M‖∞/‖JᵀJ‖∞ at the start
// (M, J at q₀), so that the tangent's penalty term (h²/4)αJᵀJ is alpha_rel times M in size
// whatever the units and the step (αΦ is a force per unit constraint error; 4/h² is the
// trapezoidal rule's factor on M). penalty_scaling = rows: α = diag(α_i) with
// α_i = alpha_rel·(4/h²)/(J M⁻¹Jᵀ)_ii, each row's penalty alpha_rel times the inertia it acts on,
// for widely spread inertias (measured on andrews_squeezer at h = 10 µs: the same error as norm,
// J q̇ − ν 30× looser). Larger alpha_rel contracts the constraint error faster (by about
// 1/(1 + alpha_rel·σ) per iteration, σ = σ_min(J M⁻¹Jᵀ)·‖M‖∞/‖JᵀJ‖∞) and tightens the projections
// (J q̇ − ν by about the same factor), but stiffens the penalty forces, which shrinks Newton's
// region of convergence. Measured on slider_crank (150 rad/s) at h = 0.5 ms: alpha_rel = 1e2 and
// 1e3 converge in about 5 iterations per step, 10 forms 6× more tangents, 1e4 and 1e5 end
// newton_failed. The absolute factors 1e7…1e9 usual for SI models (augmented_lagrangian's
// alpha_p) are alpha_rel ≈ 2.5…250 at h = 1 ms on unit masses and lengths.
// Parameters: alpha_rel (1e3), penalty_scaling (norm | rows), alpha (one absolute α for every
// row, overrides alpha_rel and penalty_scaling; unset), tol (1e-10, relative to ℓ; keep it well
// below the accuracy wanted per step), max_iterations (50), multipliers (kkt | scheme): samples
// report q̈ and λ of the KKT system at the step's (q, q̇) (default), or the iterates q̈ and λ*,
// whose λ* carries the rounding below (α·ε·ℓ) and, measured on simple_pendulum, converges only
// at first order where the KKT values converge at second.
// Accuracy floor: α grows like 1/h², and λ* += αΦ turns the rounding of Φ (~ε·ℓ) into force
// errors of order α·ε·ℓ, so below some step the error grows again (the h⁻² rounding
// amplification of index-3 formulations; Andrews' squeezer: docs/integrators.md). Where σ is
// small the update is slow: the default alpha_rel ends newton_failed at IFToMM A02's first
// singular position (σ vanishes there) and on n_pendulum from N = 200 (σ ~ 1/N²), where
// alpha_rel = 1e6 carries A02 N = 40 through 20 s and n_pendulum to N = 1000 (docs/integrators.md).
// Redundant rows (Bricard) and singular configurations (IFToMM A02) keep P and the tangent
// positive definite (M + a positive semi-definite term): λ* is then one solution among many.
// linear_solver: dense LU, or sparse (KLU on the entries; auto: from n + m ≥ 16). The Newton stop
// leaves up to tol·ℓ per step: the paths' rounding moves results that much (docs/integrators.md).
// State: x = [q; q̇; q̈; λ*] (3n + m).
// Fails when: Newton does not meet tol within max_iterations (newton_failed, naming t); the
// tangent or P is singular (singular); the residual is not finite (diverged). Refuses
// nonholonomic and unilateral rows, more than 1000 coordinates on the dense path, and
// linear_solver = sparse on a problem without sparse entries or residual tangents (unsupported).
#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/errors.hpp"
#include "core/integrator.hpp"
#include "core/registry.hpp"
#include "integrators/base/index3_terms.hpp"
#include "integrators/base/iteration_matrix.hpp"
#include "integrators/base/newton_control.hpp"
#include "integrators/base/penalty_factors.hpp"

namespace cmb {
namespace {

class Ali3p : public Integrator {
 public:
  explicit Ali3p(const Params& p)
      : Integrator(p),
        penalty_(p.is_set("alpha") ? p.number("alpha") : 0.0, p.number("alpha_rel"),
                 p.choice("penalty_scaling") == "norm"),
        tol_(p.number("tol")),
        max_iterations_(static_cast<int>(p.integer("max_iterations"))),
        recover_(p.choice("multipliers") == "kkt"),
        linear_solver_(p.choice("linear_solver")) {}

  void bind(const Problem& problem) override {
    terms_.bind(problem, "ali3p", linear_solver_);
    problem_ = &problem;
    n_ = terms_.n();
    m_ = terms_.m();
    sparse_ = terms_.sparse_path();
    r_.setZero(n_);
    Phi_.setZero(m_);
    w_.setZero(m_);
    penalty_.bind(m_);
    rows_.setZero(m_);
    b_.setZero(n_);
    tangent_.bind(n_, sparse_);
    projector_.bind(n_, sparse_);
    work_.setZero(n_);
    qdd_.setZero(n_);
    lambda_.setZero(m_);
    x_work_.setZero(state_size());
    register_newton_counters(stats());
    set_step(1e-3);  // evaluate_callbacks may come before any run
  }

  int state_size() const override { return 3 * n_ + m_; }

  void pack(double t, CVecRef q, CVecRef v, VecRef x) override {
    x.head(n_) = q;
    x.segment(n_, n_) = v;
    terms_.set_scale(q);
    start_failure_ = terms_.kkt_start(t, q, v, x.segment(2 * n_, n_), x.tail(m_), unique_);
    penalty_.start(terms_.start_norms(t, q, penalty_.needs_row_inertia()));
    set_step(h_);
  }

  void unpack(double, CVecRef x, VecRef q, VecRef v) override {
    q = x.head(n_);
    v = x.segment(n_, n_);
  }

  void evaluate_at(double t, CVecRef x) override {
    terms_.sample_values(t, x.head(n_), x.segment(n_, n_), x.segment(2 * n_, n_), x.tail(m_),
                         recover_, qdd_, lambda_, sample_unique_);
  }

  const Vec& accelerations() const override { return qdd_; }
  const Vec& multipliers() const override { return lambda_; }
  bool multipliers_unique() const override { return unique_ && sample_unique_; }

  nlohmann::json effective_params() const override {
    nlohmann::json out = params().values();
    out["alpha_min"] = m_ ? penalty_.alpha().minCoeff() : 0.0;  // the row penalties α_i in use
    out["alpha_max"] = m_ ? penalty_.alpha().maxCoeff() : 0.0;
    return out;
  }

  LoopOutcome integrate(const StepperSettings& settings, Vec& x,
                        const std::vector<double>& sample_times, const SampleObserver& observer,
                        const LoopLimits& limits) override {
    set_step(settings.dt);
    return run_fixed_steps(settings.dt, x, sample_times, observer, limits,
                           [this](double t, double h, Vec& state, LoopCounters& counters) {
                             step(t, h, state, counters);
                           });
  }

  void evaluate_callbacks(double t, CVecRef x) override {
    x_work_ = x;
    LoopCounters counters;
    problem_->constraints(t, x_work_.head(n_), Phi_);
    evaluate_residual(t, x_work_);
    form_tangent(t, x_work_, counters);
  }

 private:
  void set_step(double h) {
    h_ = h;
    penalty_.set_step(h);
  }

  void step(double t, double h, Vec& x, LoopCounters& counters) {
    if (!start_failure_.empty())
      throw NumericalFailure(RunStatus::singular, "ali3p: " + start_failure_);
    auto q = x.head(n_);
    auto v = x.segment(n_, n_);
    auto qdd = x.segment(2 * n_, n_);
    // Predictor q_n + h q̇_n + (h²/2) q̈_n; the trapezoidal rule then gives q̇ and q̈ there.
    b_ = h * v + (0.5 * h * h) * qdd;
    q += b_;
    qdd = (4.0 / (h * h)) * b_ - (4.0 / h) * v - qdd;
    v = (2.0 / h) * b_ - v;
    newton(t + h, x, counters);
    project(t + h, x);
  }

  // r = M q̈ − Q + Jᵀ(αΦ + λ*) with Φ_ already at q.
  void evaluate_residual(double t, CVecRef x) {
    w_ = x.tail(m_) + penalty_.alpha().cwiseProduct(Phi_);
    terms_.residual(t, x.head(n_), x.segment(n_, n_), x.segment(2 * n_, n_), w_, r_);
    require_finite(r_.allFinite() && Phi_.allFinite(), "ali3p: the residual", t);
  }

  // The tangent, dense or assembled from the problem's entries (sparse path), factorized.
  void form_tangent(double t, CVecRef x, LoopCounters& counters) {
    const auto q = x.head(n_);
    const auto v = x.segment(n_, n_);
    const auto qdd = x.segment(2 * n_, n_);
    if (sparse_) {
      SparseLu& entries = tangent_.begin_entries();
      terms_.add_mass(t, q, 1.0, entries);
      terms_.add_tangents(t, q, v, qdd, w_, 0.25 * h_ * h_, 0.5 * h_, entries);
      terms_.add_weighted_gram(t, q, penalty_.weights(), entries);
    } else {
      terms_.matrices(t, q);
      counters.rhs_calls += terms_.tangents(t, q, v, qdd, w_, r_);
      Mat& T = tangent_.dense();
      T = terms_.M() + (0.5 * h_) * terms_.C() + (0.25 * h_ * h_) * terms_.K();
      terms_.add_weighted_jtj(penalty_.weights(), T);
    }
    ++counters.jacobian_evaluations;
    const double ratio = tangent_.factorize();
    require_regular(ratio, kSingularRatio, t, "ali3p: tangent M + (h/2)C + (h²/4)(JᵀαJ + K)");
    newton_.formed(ratio);
  }

  void newton(double t, Vec& x, LoopCounters& counters) {
    auto q = x.head(n_);
    auto v = x.segment(n_, n_);
    auto qdd = x.segment(2 * n_, n_);
    auto lambda = x.tail(m_);
    const double bound = tol_ * terms_.scale();
    problem_->constraints(t, q, Phi_);
    newton_.start(bound, terms_.scale(), false);
    for (int k = 0; k < max_iterations_; ++k) {
      evaluate_residual(t, x);
      ++counters.rhs_calls;
      if (newton_.refresh()) {
        if (k > 0) stats().add("matrix_refreshes");
        form_tangent(t, x, counters);
      }
      b_ = (-0.25 * h_ * h_) * r_;
      tangent_.solve_in_place(b_);
      stats().add("linear_solves");
      stats().add("newton_iterations");
      q += b_;
      v += (2.0 / h_) * b_;
      qdd += (4.0 / (h_ * h_)) * b_;
      problem_->constraints(t, q, Phi_);
      lambda += penalty_.alpha().cwiseProduct(Phi_);
      const double size = b_.lpNorm<Eigen::Infinity>();
      require_finite(std::isfinite(size), "ali3p: the Newton correction", t);
      // A small correction with Φ still large is not convergence: both are judged.
      const NewtonControl::Verdict verdict =
          newton_.judge(std::max(size, penalty_.constraint_error(Phi_)));
      if (verdict == NewtonControl::Verdict::stalled) stats().add("stagnations");
      if (verdict != NewtonControl::Verdict::go_on) return;
    }
    stats().add("convergence_failures");
    std::ostringstream msg;
    msg << "ali3p: Newton did not reach tol " << tol_ << " within " << max_iterations_
        << " iterations at t = " << t << " (last correction " << newton_.last_correction()
        << ", bound " << bound << ", contraction " << newton_.last_contraction()
        << " per iteration; max |Phi| " << Phi_.lpNorm<Eigen::Infinity>() << ")";
    if (newton_.last_contraction() > kSlowContraction && newton_.last_contraction() < 1.0)
      msg << "; the multiplier update contracts slowly here: a larger alpha_rel contracts faster";
    throw NumericalFailure(RunStatus::newton_failed, msg.str());
  }

  // P q̇ = M q̇* + (h²/4)Jᵀαν, then P q̈ = M q̈* + (h²/4)Jᵀαγ, P = M + (h²/4)JᵀαJ at q_{n+1}.
  void project(double t, Vec& x) {
    const auto q = x.head(n_);
    auto v = x.segment(n_, n_);
    auto qdd = x.segment(2 * n_, n_);
    form_projector(t, q);
    problem_->velocity_rhs(t, q, rows_);
    project_onto_rows(t, q, v);
    problem_->acceleration_rhs(t, q, v, rows_);
    project_onto_rows(t, q, qdd);
    stats().add("projections");
  }

  void form_projector(double t, CVecRef q) {
    if (sparse_) {
      SparseLu& entries = projector_.begin_entries();
      terms_.add_mass(t, q, 1.0, entries);
      terms_.add_weighted_gram(t, q, penalty_.weights(), entries);
    } else {
      terms_.matrices(t, q);
      Mat& P = projector_.dense();
      P = terms_.M();
      terms_.add_weighted_jtj(penalty_.weights(), P);
    }
    require_regular(projector_.factorize(), kSingularRatio, t,
                    "ali3p: projection matrix M + (h²/4)JᵀαJ");
  }

  // y ← P⁻¹(M y + Jᵀ diag((h²/4)α) rows_), rows_ the right-hand side of J y = rows_.
  void project_onto_rows(double t, CVecRef q, VecRef y) {
    rows_ = rows_.cwiseProduct(penalty_.weights());
    if (sparse_) {
      work_ = y;
      terms_.mass_times(t, q, work_, b_);
      terms_.add_jacobian_transpose_times(t, q, rows_, b_);
    } else {
      b_.noalias() = terms_.M() * y;
      b_.noalias() += terms_.J().transpose() * rows_;
    }
    projector_.solve_in_place(b_);
    y = b_;
  }

  // M plus positive semi-definite terms: only an exactly vanishing pivot (or round-off at that
  // level) means a singular matrix.
  static constexpr double kSingularRatio = 1e-15;
  static constexpr double kSlowContraction = 0.9;  // slower: the update's 1/(1 + alpha_rel·σ)

  const Problem* problem_ = nullptr;
  Index3Terms terms_;
  PenaltyFactors penalty_;
  double tol_;
  int max_iterations_;
  bool recover_;
  std::string linear_solver_;
  bool sparse_ = false;
  double h_ = 1e-3;
  int n_ = 0, m_ = 0;
  bool unique_ = true, sample_unique_ = true;
  std::string start_failure_;
  IterationMatrix tangent_, projector_;
  NewtonControl newton_;
  Vec r_, Phi_, w_, rows_, b_, qdd_, lambda_, x_work_, work_;
};

}  // namespace
}  // namespace cmb

CMB_DEFINE_INTEGRATOR(ali3p) {
  cmb::IntegratorEntry entry;
  entry.id = "ali3p";
  entry.display_name = "ALI3-P";
  entry.summary =
      "index-3 augmented Lagrangian + mass-orthogonal projections (ALI3-P), trapezoidal rule";
  entry.kind = cmb::StepperKind::fixed;
  entry.order = 2;
  entry.capabilities.redundant = true;
  entry.capabilities.singular = true;
  cmb::ParamSpec alpha = cmb::positive_number(
      "alpha", 1.0, "absolute penalty factor α of every row (overrides alpha_rel)");
  alpha.default_value = nullptr;
  cmb::ParamSpec tol =
      cmb::positive_number("tol", 1e-10, "Newton stops when max|Δq| <= tol·‖q0‖∞ (and Φ alike)");
  tol.max = 1.0;
  entry.params = {
      cmb::positive_number("alpha_rel", 1e3, "α = alpha_rel·(4/h²)·‖M‖∞/‖JᵀJ‖∞ (norm scaling)"),
      alpha,
      cmb::choice_param("penalty_scaling", {"norm", "rows"},
                        "one α from ‖M‖∞/‖JᵀJ‖∞, or α_i from each row's (J M⁻¹Jᵀ)_ii"),
      tol,
      cmb::integer_param("max_iterations", 50, 1, 1000, "Newton iterations allowed per step"),
      cmb::multipliers_param(),
      cmb::linear_solver_param(),
  };
  entry.make = [](const cmb::Params& p) { return std::make_unique<cmb::Ali3p>(p); };
  return entry;
}
