// generalized_alpha — index-3 generalized-α scheme for constrained mechanical systems (fixed step).
//
// Equations ([ArnoldBruls2007], the parameters of [ChungHulbert1993]; keys in docs/sources.md):
// from the spectral radius at infinity ρ∞,
//   α_m = (2ρ∞ − 1)/(ρ∞ + 1),  α_f = ρ∞/(ρ∞ + 1),  γ = 1/2 + α_f − α_m,  β = (γ + 1/2)²/4,
// a step of size h from (q_n, v_n, q̈_n, a_n, λ_n) solves at t_{n+1}
//   M(q_{n+1}) q̈_{n+1} + J(q_{n+1})ᵀλ_{n+1} − Q(t_{n+1}, q_{n+1}, v_{n+1}) = 0,
//   Φ(t_{n+1}, q_{n+1}) = 0   (rheonomic rows: Φ at t_{n+1}),
//   (1 − α_m) a_{n+1} + α_m a_n = (1 − α_f) q̈_{n+1} + α_f q̈_n,
//   q_{n+1} = q_n + h v_n + h²(1/2 − β) a_n + h²β a_{n+1},
//   v_{n+1} = v_n + h(1 − γ) a_n + hγ a_{n+1},
// a the pseudo-acceleration, an approximation of q̈(t + Δ_α h), Δ_α = α_m − α_f. Newton on
// (q_{n+1}, λ_{n+1}) from the predictor q̈_{n+1} = q̈_n, λ_{n+1} = λ_n:
//   [M β' + C_t γ' + K_t, Jᵀ; J, 0] [Δq; Δλ] = −[r; Φ],
//   β' = (1 − α_m)/(βh²(1 − α_f)),  γ' = γ/(βh),  (q, v, q̈, a) += (Δq, γ'Δq, β'Δq, Δq/(βh²)),
// r = M q̈ − Q + Jᵀλ, K_t = ∂r/∂q and C_t = −∂Q/∂v: the problem's own where it declares them
// (Problem::residual_tangent_entries), else forward difference quotients (2n + 1 force
// evaluations per matrix, counted in rhs_calls). Scaling: dynamic rows times s = 1/β',
// constraint rows times κ = ‖M‖∞/‖J‖∞ (at the start), λ = (κ/s)μ: the matrix
// [M + sγ'C_t + sK_t, κJᵀ; κJ, 0] has blocks the size of M for every h (unscaled, the dynamic
// block grows like h⁻²), and Δq and Δμ are both in the units of q. Newton stops when
// max(‖Δq‖∞, ‖Δμ‖∞) ≤ tol·ℓ, ℓ = ‖q₀‖∞ the size of the mechanism. The matrix is formed at the
// first iteration of each step and kept (simplified Newton) while each iteration shrinks the
// correction at least fourfold; after one that does not, it is formed again
// (integrators/base/newton_control.hpp; iteration_matrix = kept also carries it over between
// steps). linear_solver: dense LU with partial pivoting, or sparse: assembled from the
// problem's entries of M, J and the tangents and factorized by KLU; auto (default) is sparse
// where the problem sends all three, from 16 rows (docs/integrators.md).
// Start: q̈_0, λ_0 of the KKT system at (q_0, v_0); start = shifted (default) then takes the
// perturbed starting value of [ArnoldBruls2007], a_0 = q̈(Δ_α h): the KKT accelerations at the
// Taylor-predicted state (q_0 + Δ_α h v_0 + ½(Δ_α h)² q̈_0, v_0 + Δ_α h q̈_0); start = consistent
// takes a_0 = q̈_0. Measured on spherical_pendulum (λ at each of the first 8 steps against
// index1 + rk4 at h/200): both give λ errors of order h², the consistent start's up to 2× larger
// at ρ∞ = 0 and 1.5× at 0.9.
// Projections (default none, the scheme of [ArnoldBruls2007], which meets Φ = 0 exactly but
// J v = ν only to O(h²)): velocity — after each step v ← v + Δv, [M Jᵀ; J 0][Δv; μ] =
// [0; ν − J v] at (t_{n+1}, q_{n+1}), the mass-orthogonal projection onto J v = ν;
// velocity_acceleration — then also (q̈, λ) ← the KKT solve at the projected state, the
// mass-orthogonal projection of q̈ onto J q̈ = γ (M q̈ + Jᵀλ = Q holds after Newton). a keeps its
// Newton value (it serves the position update).
// Parameters: rho_inf (0.9; smaller damps high frequencies and the multipliers' oscillations
// from step to step more, at some accuracy; 1 leaves them undamped: measured on
// spherical_pendulum, the largest error of the scheme's λ over 1 s stays at 1e-4…7e-4 for h = 2,
// 1, 0.5 ms while q still converges at order 2 — keep it below 1), tol
// (1e-10, relative to ℓ; keep it well below the accuracy wanted per step), max_iterations (20),
// projections (none | velocity | velocity_acceleration), start (shifted | consistent), pivot_tol
// (1e-13: the matrix counts as singular when its smallest LU pivot is below pivot_tol times its
// largest), multipliers (kkt | scheme, below).
// Multipliers: Newton fixes q_{n+1} through Φ = 0, so the rounding of q (ε·ℓ) reaches q̈ and λ
// amplified by β' = O(1/h²) — the scaling above conditions the matrix, not this sensitivity of
// index-3 formulations [HairerWanner1996, VII]. Measured on a bead on a rotating rod, the
// scheme's λ error grew from 8.7e-7 at h = 1e-4 to 4.8e-5 at 1e-5. Samples therefore report by
// default (multipliers = kkt) the q̈ and λ of the KKT system at the step's (q, v): second order
// like q and v, and free of the amplification; multipliers = scheme reports the iterates.
// State: x = [q; v; q̈; a; λ] (4n + m).
// Measured on IFToMM A02 (n_four_bar N = 40, 20 s, every singular position): on the branch at
// h = 1 ms and 0.5 ms, max error 2.1e-3 and 5.1e-4 m (IFToMM's threshold 1e-3), in 1.3 and
// 1.6 s on the sparse path (292 and 955 s dense with difference quotients).
// Fails when: Newton does not meet tol within max_iterations (newton_failed, naming t); the
// iteration matrix is singular — redundant rows (Bricard) or a step landing on a singular
// configuration (singular); the residual is not finite (diverged). Refuses nonholonomic and
// unilateral rows, more than 1000 coordinates on the dense path, and linear_solver = sparse on a
// problem without sparse entries or residual tangents (unsupported).
#include <cmath>
#include <sstream>

#include "core/errors.hpp"
#include "core/integrator.hpp"
#include "core/registry.hpp"
#include "integrators/base/index3_terms.hpp"
#include "integrators/base/iteration_matrix.hpp"
#include "integrators/base/kkt_projection.hpp"
#include "integrators/base/newton_control.hpp"

namespace cmb {
namespace {

class GeneralizedAlpha : public Integrator {
 public:
  explicit GeneralizedAlpha(const Params& p)
      : Integrator(p),
        rho_(p.number("rho_inf")),
        tol_(p.number("tol")),
        max_iterations_(static_cast<int>(p.integer("max_iterations"))),
        pivot_tol_(p.number("pivot_tol")),
        project_velocity_(p.choice("projections") != "none"),
        project_acceleration_(p.choice("projections") == "velocity_acceleration"),
        shifted_start_(p.choice("start") == "shifted"),
        recover_(p.choice("multipliers") == "kkt"),
        linear_solver_(p.choice("linear_solver")),
        keep_matrix_(p.choice("iteration_matrix") == "kept") {
    alpha_m_ = (2.0 * rho_ - 1.0) / (rho_ + 1.0);
    alpha_f_ = rho_ / (rho_ + 1.0);
    gamma_ = 0.5 + alpha_f_ - alpha_m_;
    beta_ = 0.25 * (gamma_ + 0.5) * (gamma_ + 0.5);
  }

  void bind(const Problem& problem) override {
    terms_.bind(problem, "generalized_alpha", linear_solver_);
    problem_ = &problem;
    n_ = terms_.n();
    m_ = terms_.m();
    sparse_ = terms_.sparse_path();
    r_.setZero(n_);
    Phi_.setZero(m_);
    matrix_.bind(n_ + m_, sparse_);
    b_.setZero(n_ + m_);
    a_next_.setZero(n_);
    qdd_.setZero(n_);
    lambda_.setZero(m_);
    x_work_.setZero(state_size());
    if (project_velocity_) projection_.bind(n_, m_, sparse_);
    register_newton_counters(stats());
    set_step(1e-3);  // evaluate_callbacks may come before any run
  }

  int state_size() const override { return 4 * n_ + m_; }

  void pack(double t, CVecRef q, CVecRef v, VecRef x) override {
    x.head(n_) = q;
    x.segment(n_, n_) = v;
    terms_.set_scale(q);
    newton_.invalidate();
    start_failure_ = terms_.kkt_start(t, q, v, x.segment(2 * n_, n_), x.tail(m_), unique_);
    x.segment(3 * n_, n_) = x.segment(2 * n_, n_);  // a_0 = q̈_0 until a run knows h
    const StartNorms norms = terms_.start_norms(t, q, false);
    kappa_ = norms.jacobian > 0.0 ? norms.mass / norms.jacobian : 1.0;
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

  nlohmann::json effective_params() const override {
    nlohmann::json out = params().values();
    out["alpha_m"] = alpha_m_;
    out["alpha_f"] = alpha_f_;
    out["gamma"] = gamma_;
    out["beta"] = beta_;
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
    evaluate_residual(t, x_work_);
    form_matrix(t, x_work_, counters);
  }

 private:
  void set_step(double h) {
    if (h != h_) newton_.invalidate();
    h_ = h;
    s_ = beta_ * h * h * (1.0 - alpha_f_) / (1.0 - alpha_m_);  // 1/β'
    gamma_prime_ = gamma_ / (beta_ * h);
  }

  void step(double t, double h, Vec& x, LoopCounters& counters) {
    if (fresh_) start(t, h, x);
    auto q = x.head(n_);
    auto v = x.segment(n_, n_);
    auto qdd = x.segment(2 * n_, n_);
    auto a = x.segment(3 * n_, n_);
    // Predictor q̈_{n+1} = q̈_n (and λ_{n+1} = λ_n): the recurrences give a_{n+1}, q, v.
    a_next_ = (qdd - alpha_m_ * a) / (1.0 - alpha_m_);
    q += h * v + (h * h) * ((0.5 - beta_) * a + beta_ * a_next_);
    v += h * ((1.0 - gamma_) * a + gamma_ * a_next_);
    a = a_next_;
    newton(t + h, x, counters);
    if (project_velocity_) project(t + h, x);
  }

  // Before the first step: the start pack could not build is reported now, and with the shifted
  // start a_0 becomes the KKT accelerations at t_0 + Δ_α h.
  void start(double t, double h, Vec& x) {
    fresh_ = false;
    if (!start_failure_.empty())
      throw NumericalFailure(RunStatus::singular, "generalized_alpha: " + start_failure_);
    if (!shifted_start_) return;
    const double d = (alpha_m_ - alpha_f_) * h;
    Vec q = x.head(n_) + d * x.segment(n_, n_) + (0.5 * d * d) * x.segment(2 * n_, n_);
    Vec v = x.segment(n_, n_) + d * x.segment(2 * n_, n_);
    Vec lambda(m_);
    bool unique = true;
    const std::string failure =
        terms_.kkt_start(t + d, q, v, x.segment(3 * n_, n_), lambda, unique);
    if (!failure.empty())
      throw NumericalFailure(RunStatus::singular, "generalized_alpha (shifted start): " + failure);
  }

  void evaluate_residual(double t, CVecRef x) {
    const auto q = x.head(n_);
    terms_.residual(t, q, x.segment(n_, n_), x.segment(2 * n_, n_), x.tail(m_), r_);
    problem_->constraints(t, q, Phi_);
    require_finite(r_.allFinite() && Phi_.allFinite(), "generalized_alpha: the residual", t);
  }

  void form_matrix(double t, CVecRef x, LoopCounters& counters) {
    if (sparse_) return form_sparse_matrix(t, x, counters);
    const auto q = x.head(n_);
    terms_.matrices(t, q);
    counters.rhs_calls +=
        terms_.tangents(t, q, x.segment(n_, n_), x.segment(2 * n_, n_), x.tail(m_), r_);
    Mat& A = matrix_.dense();
    A.topLeftCorner(n_, n_) = terms_.M() + (s_ * gamma_prime_) * terms_.C() + s_ * terms_.K();
    fill_constraint_blocks(A, terms_.J(), kappa_);
    ++counters.jacobian_evaluations;
    const double ratio = matrix_.factorize();
    require_regular(ratio, pivot_tol_, t,
                    "generalized_alpha: iteration matrix [M β' + C_t γ' + K_t, Jᵀ; J, 0]");
    newton_.formed(ratio);
  }

  // The same matrix assembled from the problem's entries and factorized by KLU.
  void form_sparse_matrix(double t, CVecRef x, LoopCounters& counters) {
    const auto q = x.head(n_);
    SparseLu& entries = matrix_.begin_entries();
    terms_.add_mass(t, q, 1.0, entries);
    terms_.add_tangents(t, q, x.segment(n_, n_), x.segment(2 * n_, n_), x.tail(m_), s_,
                        s_ * gamma_prime_, entries);
    terms_.add_jacobian(t, q, kappa_, n_, entries);
    ++counters.jacobian_evaluations;
    const double ratio = matrix_.factorize();
    require_regular(ratio, pivot_tol_, t,
                    "generalized_alpha: iteration matrix [M β' + C_t γ' + K_t, Jᵀ; J, 0]");
    newton_.formed(ratio);
  }

  void newton(double t, Vec& x, LoopCounters& counters) {
    auto q = x.head(n_);
    auto v = x.segment(n_, n_);
    auto qdd = x.segment(2 * n_, n_);
    auto a = x.segment(3 * n_, n_);
    auto lambda = x.tail(m_);
    const double beta_prime = 1.0 / s_;
    const double a_rate = 1.0 / (beta_ * h_ * h_);
    newton_.start(tol_ * terms_.scale(), terms_.scale(), keep_matrix_);
    for (int k = 0; k < max_iterations_; ++k) {
      evaluate_residual(t, x);
      ++counters.rhs_calls;
      if (newton_.refresh()) {
        if (k > 0) stats().add("matrix_refreshes");
        form_matrix(t, x, counters);
      }
      b_.head(n_) = -s_ * r_;
      b_.tail(m_) = -kappa_ * Phi_;
      matrix_.solve_in_place(b_);
      stats().add("linear_solves");
      stats().add("newton_iterations");
      const auto dq = b_.head(n_);
      q += dq;
      v += gamma_prime_ * dq;
      qdd += beta_prime * dq;
      a += a_rate * dq;
      lambda += (kappa_ / s_) * b_.tail(m_);
      const double size = b_.lpNorm<Eigen::Infinity>();
      require_finite(std::isfinite(size), "generalized_alpha: the Newton correction", t);
      const NewtonControl::Verdict verdict = newton_.judge(size);
      if (verdict == NewtonControl::Verdict::stalled) stats().add("stagnations");
      if (verdict != NewtonControl::Verdict::go_on) return;
    }
    stats().add("convergence_failures");
    std::ostringstream msg;
    msg << "generalized_alpha: Newton did not reach tol " << tol_ << " within " << max_iterations_
        << " iterations at t = " << t << " (last correction " << newton_.last_correction()
        << ", bound " << tol_ * terms_.scale() << ")";
    throw NumericalFailure(RunStatus::newton_failed, msg.str());
  }

  void project(double t, Vec& x) {
    projection_.project(terms_, t, x.head(n_), x.segment(n_, n_), x.segment(2 * n_, n_), x.tail(m_),
                        project_acceleration_, kappa_, pivot_tol_);
    stats().add("projections");
  }

  const Problem* problem_ = nullptr;
  Index3Terms terms_;
  double rho_, tol_;
  int max_iterations_;
  double pivot_tol_;
  bool project_velocity_, project_acceleration_, shifted_start_, recover_;
  std::string linear_solver_;
  bool keep_matrix_;
  bool sparse_ = false;
  double alpha_m_ = 0.0, alpha_f_ = 0.0, gamma_ = 0.0, beta_ = 0.0;
  double h_ = 0.0, s_ = 0.0, gamma_prime_ = 0.0, kappa_ = 1.0;
  int n_ = 0, m_ = 0;
  bool unique_ = true, sample_unique_ = true, fresh_ = true;
  std::string start_failure_;
  IterationMatrix matrix_;
  KktProjection projection_;
  NewtonControl newton_;
  Vec r_, Phi_, b_, a_next_, qdd_, lambda_, x_work_;
};

}  // namespace
}  // namespace cmb

CMB_DEFINE_INTEGRATOR(generalized_alpha) {
  cmb::IntegratorEntry entry;
  entry.id = "generalized_alpha";
  entry.display_name = "Generalized-α";
  entry.summary = "index-3 generalized-alpha (Arnold & Bruls), Newton on (q, lambda), fixed step";
  entry.kind = cmb::StepperKind::fixed;
  entry.order = 2;
  cmb::ParamSpec rho = cmb::nonnegative_number("rho_inf", 0.9, "spectral radius at infinity");
  rho.max = 1.0;
  cmb::ParamSpec tol =
      cmb::positive_number("tol", 1e-10, "Newton stops when max|Δq|, max|Δμ| <= tol·‖q0‖∞");
  tol.max = 1.0;
  cmb::ParamSpec pivot = cmb::positive_number(
      "pivot_tol", 1e-13, "iteration matrix singular below this LU pivot ratio");
  pivot.max = 1.0;
  entry.params = {
      rho,
      tol,
      cmb::integer_param("max_iterations", 20, 1, 1000, "Newton iterations allowed per step"),
      cmb::choice_param("projections", {"none", "velocity", "velocity_acceleration"},
                        "mass-orthogonal projections after each step"),
      cmb::choice_param("start", {"shifted", "consistent"},
                        "a_0 = q̈(Δ_α h) (second order in q̈, λ) or a_0 = q̈_0"),
      pivot,
      cmb::multipliers_param(),
      cmb::linear_solver_param(),
      cmb::choice_param("iteration_matrix", {"per_step", "kept"}, cmb::iteration_matrix_help()),
  };
  entry.make = [](const cmb::Params& p) { return std::make_unique<cmb::GeneralizedAlpha>(p); };
  return entry;
}
