// baumgarte — Baumgarte stabilization of the acceleration-level constraints.
//
// Equations: Φ̈ = 0 is replaced by Φ̈ + 2αΦ̇ + β²Φ = 0, i.e. γ → γ − 2αψ − β²Φ (ψ = J v − ν on
// all rows, Φ on holonomic rows only), then the KKT system is solved as in index1. The constraint
// error becomes a damped oscillator with ω₀ = β and ζ = α/β; transfer function 1/(s² + 2αs + β²).
// Sources (keys in docs/sources.md): [Notes-DAE-cs] (Czech lecture notes, f̈ + 2αḟ + β²f = 0 in
// the KKT system) and [Notes-Baumgarte-ja] (the feedback-control reading and the three regimes
// α < β, α = β, α > β); [Baumgarte1972]; [Flores2011].
// Parameters: (alpha, beta) [1/s], or (omega0, zeta) with alpha = zeta·omega0, beta = omega0.
// Default omega0 = 10 1/s, zeta = 1 (critical damping, time constant 0.1 s, as in open-source
// peers). Tuning: for a fixed step h, α = 1/h and β = √2/h (Taylor rule) sits on explicit Euler's
// stability edge; keep h·ω₀ < 2 (Euler) or ≲ 2.78 (RK4) at ζ = 1. Large gains make the ODE stiff
// (adaptive steppers then shrink h silently); small gains leave drift in place.
// pivot_tol, rank_policy and linear_solver as in index1.
// State: x = [q; v].
// Fails when: J loses row rank → `singular`; gains too large for the step → divergence.
#include "core/registry.hpp"
#include "methods/base/schur_kkt_method.hpp"

CMB_DEFINE_METHOD(baumgarte) {
  cmb::MethodEntry entry;
  entry.id = "baumgarte";
  entry.display_name = "Baumgarte";
  entry.summary = "Baumgarte stabilization: gamma - 2*alpha*psi - beta^2*Phi, then the KKT solve";
  entry.capabilities.nonholonomic = true;
  entry.params = cmb::baumgarte_param_specs(10.0);
  for (auto& spec : cmb::schur_param_specs()) entry.params.push_back(spec);
  entry.make = [](const cmb::Params& p) {
    return std::make_unique<cmb::SchurKktMethod>(
        p, cmb::resolve_baumgarte_gains(p, "method 'baumgarte'"));
  };
  return entry;
}
