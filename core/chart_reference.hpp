/// \file
/// Reference solutions for one-degree-of-freedom mechanisms from an independent minimal-coordinate
/// ODE. The problem supplies closed-form kinematics q(φ) written with Jet2 (its "chart"); with
/// v = q'φ̇ and q̈ = q'φ̈ + q''φ̇², projecting M q̈ = Q − Jᵀλ on q' (which J annihilates) gives
///   (q'ᵀ M q') φ̈ = q'ᵀ (Q(t, q, q'φ̇) − M q'' φ̇²),
/// Lagrange's equation in φ. It uses neither J, γ nor any KKT solve, so it checks the methods
/// independently. Integrated with Bulirsch–Stoer at tight tolerance.
#pragma once

#include <functional>
#include <vector>

#include "core/jet.hpp"
#include "core/problem.hpp"

namespace cmb {

/// Fills q(φ) (size nq) from the coordinate φ; all entries depend on φ through Jet2 arithmetic.
using Chart = std::function<void(const Jet2& phi, std::vector<Jet2>& q)>;

/// The physical state on the chart: q = q(φ), v = q'(φ) φ̇.
void chart_state(const Chart& chart, int nq, double phi, double phidot, VecRef q, VecRef v);

/// φ and φ̇ at the given increasing times, one row [φ, φ̇] per time.
Mat integrate_chart(const Problem& problem, const Chart& chart, double phi0, double phidot0,
                    const std::vector<double>& times, double tol);

/// The problem's outputs along that solution, one row per time.
Mat chart_reference_outputs(const Problem& problem, const Chart& chart, double phi0, double phidot0,
                            const std::vector<double>& times, double tol);

}  // namespace cmb
