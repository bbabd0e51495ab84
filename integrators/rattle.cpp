// rattle — RATTLE: the symplectic, time-reversible constrained Störmer–Verlet scheme (fixed step).
//
// Equations ([Andersen1983]; [HairerLubichWanner2006] VII.1.4; keys in docs/sources.md): for
// M q̈ = Q(t, q) − Jᵀλ with a constant M (a separable H = ½ vᵀM v + U, forces of any origin that
// do not depend on v), a step of size h from (q_n, v_n) is
//   v̂ = v_n + (h/2) M⁻¹(Q(t_n, q_n) − J(q_n)ᵀλ),   q_{n+1} = q_n + h v̂,   Φ(t_{n+1}, q_{n+1}) = 0,
//   v_{n+1} = v̂ + (h/2) M⁻¹(Q(t_{n+1}, q_{n+1}) − J(q_{n+1})ᵀμ),   J(q_{n+1}) v_{n+1} = ν(t_{n+1}),
// with two multipliers per step: λ (the position half, SHAKE) and μ (the velocity half). The
// position half is m nonlinear equations in Λ = (h²/2)λ: with W = M⁻¹J(q_n)ᵀ and
// q* = q_n + h v_n + (h²/2) M⁻¹Q_n, q_{n+1} = q* − W Λ; Newton on Φ(t_{n+1}, q* − WΛ) = 0 with
// the m × m matrix J(q_k) W (formed at the first iteration, kept while each iteration shrinks the
// correction at least fourfold: integrators/base/newton_control.hpp), stopping when
// ‖W ΔΛ‖∞ ≤ tol·ℓ, ℓ = ‖q₀‖∞. The velocity half is linear: J M⁻¹Jᵀ at q_{n+1}, factorized by
// Cholesky. One force evaluation per step (Q at q_{n+1} serves the next step's first half); M is
// factorized once per run.
// Properties: second order; for scleronomic rows and forces −∇U(q) it is symplectic on the
// constraint manifold, so the energy error stays bounded over long times (no drift) instead of
// growing, and Φ = 0, J v = 0 hold at every step to the Newton tolerance and to rounding. A
// bounded energy error does not bound the phase: a body spinning at ω loses it like T·ω³h²,
// so h must follow the fastest rotation (docs/integrators.md, "when a step is loose").
// Rheonomic rows are handled (Φ and ν at t_{n+1}); so are time-dependent forces Q(t, q). Energy is
// then not conserved, and the scheme is no longer symplectic.
// Multipliers: by default (multipliers = kkt) samples report the q̈ and λ of the KKT system at the
// step's (q, v), second order like q and v; multipliers = scheme reports μ of the step and q̈ from
// it (measured on simple_pendulum: first order, tests/integrators/test_rattle.cpp).
// Linear algebra (integrators/base/rattle_matrices.hpp): dense, or sparse from J's entries for a
// problem that sends them with a diagonal M (cost linear in the bodies: docs/integrators.md).
// Parameters: tol (1e-10, relative to ℓ), max_iterations (20), pivot_tol (1e-13: J W or
// J M⁻¹Jᵀ counts as singular below that pivot ratio), multipliers (kkt | scheme), linear_solver
// (auto | dense | sparse; auto: sparse where allowed from 16 rows).
// State: x = [q; v; q̈; λ] (3n + m), q̈ and λ the scheme's (what multipliers = scheme reports).
// Fails when: Newton does not meet tol within max_iterations (newton_failed, naming t); J W or
// J M⁻¹Jᵀ is singular (a configuration where J loses rank: singular); a value is not finite
// (diverged). Refuses (unsupported) nonholonomic and unilateral rows, a mass matrix that depends
// on q or t, and forces that depend on v (the splitting above needs a constant M and Q(t, q)): the
// refusal names which, as found by evaluating the problem near its initial state at bind.
#include <cmath>
#include <sstream>

#include "core/errors.hpp"
#include "core/integrator.hpp"
#include "core/registry.hpp"
#include "integrators/base/index3_terms.hpp"
#include "integrators/base/newton_control.hpp"
#include "integrators/base/rattle_matrices.hpp"
#include "integrators/base/separable_check.hpp"

namespace cmb {
namespace {

class Rattle : public Integrator {
 public:
  explicit Rattle(const Params& p)
      : Integrator(p),
        tol_(p.number("tol")),
        max_iterations_(static_cast<int>(p.integer("max_iterations"))),
        pivot_tol_(p.number("pivot_tol")),
        recover_(p.choice("multipliers") == "kkt"),
        linear_solver_(p.choice("linear_solver")) {}

  void bind(const Problem& problem) override {
    // The starting state's and the samples' KKT solves take the path the step's matrices take,
    // so the sparse path has no dense n × n solve and no dense size limit.
    matrices_.bind(problem, linear_solver_, pivot_tol_);
    terms_.bind(problem, "rattle", matrices_.sparse() ? "sparse" : "dense", false);
    refuse_unless_separable(problem, "rattle");
    problem_ = &problem;
    n_ = terms_.n();
    m_ = terms_.m();
    zero_velocity_.setZero(n_);
    Q_.setZero(n_);
    Phi_.setZero(m_);
    nu_.setZero(m_);
    q_star_.setZero(n_);
    step_q_.setZero(n_);
    b_.setZero(m_);
    qdd_.setZero(n_);
    lambda_.setZero(m_);
    register_newton_counters(stats());
  }

  int state_size() const override { return 3 * n_ + m_; }

  void pack(double t, CVecRef q, CVecRef v, VecRef x) override {
    x.head(n_) = q;
    x.segment(n_, n_) = v;
    terms_.set_scale(q);
    start_failure_ = terms_.kkt_start(t, q, v, x.segment(2 * n_, n_), x.tail(m_), unique_);
    const std::string mass_failure = matrices_.set_mass(t, q);
    if (!mass_failure.empty() && start_failure_.empty())
      start_failure_ = mass_failure + " at the start";
    fresh_ = true;
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

  LoopOutcome integrate(const StepperSettings& settings, Vec& x,
                        const std::vector<double>& sample_times, const SampleObserver& observer,
                        const LoopLimits& limits) override {
    return run_fixed_steps(settings.dt, x, sample_times, observer, limits,
                           [this](double t, double h, Vec& state, LoopCounters& counters) {
                             step(t, h, state, counters);
                           });
  }

  void evaluate_callbacks(double t, CVecRef x) override {
    LoopCounters counters;
    const auto q = x.head(n_);
    end_of_step(t, q, counters);
    form_newton_matrix(t, q, counters);
  }

 private:
  void step(double t, double h, Vec& x, LoopCounters& counters) {
    auto q = x.head(n_);
    auto v = x.segment(n_, n_);
    if (fresh_) start(t, q, counters);
    // Position half: q* = q + h v + (h²/2) M⁻¹Q, then Newton for Λ.
    step_q_ = Q_;
    matrices_.solve_with_mass(step_q_);
    q_star_ = q + h * v + (0.5 * h * h) * step_q_;
    shake(t + h, counters);  // with W = M⁻¹J(q_n)ᵀ from the end of the previous step
    v = (q_star_ - q) / h;   // v̂
    q = q_star_;
    // Velocity half at t_{n+1}: v̂ + (h/2) M⁻¹Q_{n+1}, then the multiplier μ of J v = ν.
    end_of_step(t + h, q, counters);
    step_q_ = Q_;
    matrices_.solve_with_mass(step_q_);
    v += (0.5 * h) * step_q_;
    problem_->velocity_rhs(t + h, q, nu_);
    matrices_.multiply_j(v, b_);
    b_ -= nu_;
    matrices_.solve_velocity(b_);  // (h/2) μ
    matrices_.subtract_w(b_, v);
    stats().add("linear_solves");
    require_finite(v.allFinite(), "rattle: the velocities", t + h);
    // The scheme's q̈ and λ at t_{n+1}: M q̈ = Q − Jᵀμ.
    x.tail(m_) = (2.0 / h) * b_;
    x.segment(2 * n_, n_) = step_q_;
    auto qdd = x.segment(2 * n_, n_);
    matrices_.subtract_w(x.tail(m_), qdd);
  }

  // The first step's Q_0, J_0 and W_0 (later steps take them from the previous one's end).
  void start(double t, CVecRef q, LoopCounters& counters) {
    fresh_ = false;
    if (!start_failure_.empty())
      throw NumericalFailure(RunStatus::singular, "rattle: " + start_failure_);
    newton_.invalidate();
    end_of_step(t, q, counters);
  }

  // At (t, q): Q, J, W = M⁻¹Jᵀ and the factorized J W (the velocity half's matrix).
  void end_of_step(double t, CVecRef q, LoopCounters& counters) {
    problem_->forces(t, q, zero_velocity_, Q_);  // Q(t, q): bind refused forces that need v
    ++counters.rhs_calls;
    require_finite(Q_.allFinite(), "rattle: Q", t);
    ++counters.jacobian_evaluations;
    matrices_.end_of_step(t, q);
  }

  // Newton on Φ(t, q* − WΛ) = 0, updating q* in place to q_{n+1}.
  void shake(double t, LoopCounters& counters) {
    newton_.start(tol_ * terms_.scale(), terms_.scale(), false);
    for (int k = 0; k < max_iterations_; ++k) {
      problem_->constraints(t, q_star_, Phi_);
      require_finite(Phi_.allFinite(), "rattle: Φ", t);
      if (newton_.refresh()) {
        if (k > 0) stats().add("matrix_refreshes");
        form_newton_matrix(t, q_star_, counters);
      }
      b_ = Phi_;
      matrices_.solve_newton(b_);
      stats().add("linear_solves");
      stats().add("newton_iterations");
      step_q_.setZero();
      matrices_.subtract_w(b_, step_q_);
      q_star_ += step_q_;                                     // step_q_ = −W ΔΛ
      const double size = step_q_.lpNorm<Eigen::Infinity>();  // ‖W ΔΛ‖∞
      require_finite(std::isfinite(size), "rattle: the Newton correction", t);
      const NewtonControl::Verdict verdict = newton_.judge(size);
      if (verdict == NewtonControl::Verdict::stalled) stats().add("stagnations");
      if (verdict != NewtonControl::Verdict::go_on) return;
    }
    stats().add("convergence_failures");
    std::ostringstream msg;
    msg << "rattle: Newton on the position constraints did not reach tol " << tol_ << " within "
        << max_iterations_ << " iterations at t = " << t << " (last correction "
        << newton_.last_correction() << ", bound " << tol_ * terms_.scale() << ")";
    throw NumericalFailure(RunStatus::newton_failed, msg.str());
  }

  // ∂Φ/∂Λ up to sign: J(q) W at the iterate q, factorized.
  void form_newton_matrix(double t, CVecRef q, LoopCounters& counters) {
    ++counters.jacobian_evaluations;
    const double ratio = matrices_.form_newton(t, q);
    require_regular(ratio, pivot_tol_, t, "rattle: Newton matrix J(q) M⁻¹J(q_n)ᵀ");
    newton_.formed(ratio);
  }

  const Problem* problem_ = nullptr;
  Index3Terms terms_;
  double tol_;
  int max_iterations_;
  double pivot_tol_;
  bool recover_;
  std::string linear_solver_;
  int n_ = 0, m_ = 0;
  bool unique_ = true, sample_unique_ = true, fresh_ = true;
  std::string start_failure_;
  RattleMatrices matrices_;
  NewtonControl newton_;
  Vec Q_, Phi_, nu_, q_star_, step_q_, b_, qdd_, lambda_, zero_velocity_;
};

}  // namespace
}  // namespace cmb

CMB_DEFINE_INTEGRATOR(rattle) {
  cmb::IntegratorEntry entry;
  entry.id = "rattle";
  entry.display_name = "RATTLE";
  entry.summary =
      "RATTLE (constrained Störmer-Verlet): symplectic, Newton on the position rows, "
      "fixed step; constant M and forces Q(t, q) only";
  entry.kind = cmb::StepperKind::fixed;
  entry.order = 2;
  entry.capabilities.separable_only = true;
  cmb::ParamSpec tol = cmb::positive_number(
      "tol", 1e-10, "Newton on the position rows stops when max|Δq| <= tol·‖q0‖∞");
  tol.max = 1.0;
  cmb::ParamSpec pivot =
      cmb::positive_number("pivot_tol", 1e-13, "J M⁻¹Jᵀ singular below this pivot ratio");
  pivot.max = 1.0;
  entry.params = {
      tol,
      cmb::integer_param("max_iterations", 20, 1, 1000, "Newton iterations allowed per step"),
      pivot,
      cmb::multipliers_param(),
      cmb::choice_param("linear_solver", {"auto", "dense", "sparse"},
                        "dense: M⁻¹Jᵀ and J M⁻¹Jᵀ as dense matrices; sparse: from J's entries, "
                        "factorized by KLU (needs the problem's sparse entries and a diagonal M); "
                        "auto: sparse where the problem allows it, from 16 rows"),
  };
  entry.make = [](const cmb::Params& p) { return std::make_unique<cmb::Rattle>(p); };
  return entry;
}
