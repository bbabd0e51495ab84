// index1 — unstabilized index-1 formulation, the baseline every comparison needs.
//
// Equations: the KKT system [M Jᵀ; J 0][q̈; λ] = [Q; γ] is solved at every RHS call and
// x = [q; v] is integrated as an ODE. Nothing pulls the state back to Φ = 0: the constraint error
// obeys Φ̈ = 0 (a double integrator), so rounding and truncation errors make the position residual
// grow like t to t². It calibrates what every other method buys.
// Solve: range-space Schur complement, M = L D Lᵀ, (J M⁻¹Jᵀ)λ = J M⁻¹Q − γ (core/schur_kkt.hpp;
// plain loops for n, m ≤ 16).
// Source: e.g. [LaulusaBauchau2008], §2 (keys in docs/sources.md).
// Parameters: pivot_tol (1e-12) — J M⁻¹Jᵀ counts as singular below this pivot ratio;
// rank_policy (fail | truncate: drop the pivots below pivot_tol·max, λ then non-unique);
// linear_solver (auto | dense | sparse) — sparse LDLᵀ of [M Jᵀ; J 0] for problems that send M
// and J as entries, cost linear in N on chains (core/sparse_kkt.hpp, docs/performance.md); auto
// picks it wherever the problem sends entries and rank_policy = fail. With sparse and truncate,
// rank loss is met by regularizing instead: [M Jᵀ; J −εI], ε = pivot_tol · largest pivot of
// J M⁻¹Jᵀ (the same 1/ε bound on every multiplier direction), exact elsewhere.
// State: x = [q; v].
// Fails when: J loses row rank (redundant constraints, singular configurations) → `singular`;
// M not positive definite → `singular`.
#include "core/registry.hpp"
#include "methods/base/schur_kkt_method.hpp"

CMB_DEFINE_METHOD(index1) {
  cmb::MethodEntry entry;
  entry.id = "index1";
  entry.display_name = "Index-1 KKT";
  entry.summary = "unstabilized index-1 KKT solve (baseline; drifts like t to t^2)";
  entry.capabilities.nonholonomic = true;
  entry.params = cmb::schur_param_specs();
  entry.make = [](const cmb::Params& p) {
    return std::make_unique<cmb::SchurKktMethod>(p, cmb::BaumgarteGains{});
  };
  return entry;
}
