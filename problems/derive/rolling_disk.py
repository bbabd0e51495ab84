#!/usr/bin/env python3
"""Derives the rolling_disk problem symbolically and writes problems/generated/rolling_disk.inc.

A thin uniform disk (mass m, radius r) rolling without slipping on the horizontal plane z = 0.
Coordinates q = (x, y, psi, theta, phi): contact point, yaw about N.z, lean about the yawed
x axis (theta = 0 upright), spin about the disk axis. Frames: Y = yaw(N), L = lean(Y) about Y.x,
R = spin(L) about L.y (the disk axis). Centre C = P + r L.z, so touching the plane is built in.
Lagrange's equations M(q) q'' = Q(q, q') - A^T lambda with the two nonholonomic rows
A(q) q' = 0 saying the disk's material contact point has zero horizontal velocity, and
gamma = -(A q')_q q'.

Steady turning: constant lean theta0, yaw rate Omega and spin rate phidot solve the reduced
equations with q'' = (x'', y'', 0, 0, 0); the lean equation fixes phidot (linear in it) given
theta0 and Omega, and the script asserts that the other equations then hold. Those values are
emitted as constants (the problem's steady state and reference).
Data (documented choice): m = 1 kg, r = 0.5 m, g = 9.81 m/s^2, theta0 = 0.3 rad, Omega = 1 rad/s.

Usage: /usr/bin/python3 problems/derive/rolling_disk.py [--check]
"""
import argparse
import os
import sys

import sympy as sm
import sympy.physics.mechanics as me

from sympy_codegen import emit, index_arrays, write_or_check

# problems/: this script is in problems/derive/, its output in problems/generated/.
PROBLEMS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(PROBLEMS, "generated", "rolling_disk.inc")
M_, R_, G_, THETA0, OMEGA = 1.0, 0.5, 9.81, 0.3, 1.0


def derive():
    m, r, g = sm.symbols("m r g", positive=True)
    q = sm.symbols("q0:5")      # x, y, psi, theta, phi
    v = sm.symbols("v0:5")      # their rates
    x, y, psi, theta, phi = q
    N = me.ReferenceFrame("N")
    Y = N.orientnew("Y", "Axis", [psi, N.z])
    L = Y.orientnew("L", "Axis", [theta, Y.x])
    # The spin frame is not needed: the disk's inertia is symmetric about its axis L.y.
    # Angular velocity in terms of the rate symbols (orientnew works with plain symbols).
    w = v[2] * N.z + v[3] * Y.x + v[4] * L.y
    rC = x * N.x + y * N.y + r * L.z
    # Velocity of C: differentiate its N components with respect to q along v.
    rC_N = rC.to_matrix(N)
    vC_N = rC_N.jacobian(q) * sm.Matrix(v)
    I_axis, I_diam = m * r**2 / 2, m * r**2 / 4
    inertia = I_diam * me.outer(L.x, L.x) + I_axis * me.outer(L.y, L.y) + I_diam * me.outer(L.z, L.z)
    T = m * (vC_N.T * vC_N)[0] / 2 + w.dot(inertia.dot(w)) / 2
    V = m * g * rC_N[2]
    Mm = sm.Matrix([T]).jacobian(v).T.jacobian(v)
    Qf = (sm.Matrix([sm.diff(T, qi) for qi in q]) - (Mm * sm.Matrix(v)).jacobian(q) * sm.Matrix(v)
          - sm.Matrix([sm.diff(V, qi) for qi in q]))
    # Material contact point velocity: v_C + w x (P - C), P - C = -r L.z; horizontal components.
    w_N = w.to_matrix(N)
    arm = (-r * L.z).to_matrix(N)
    slip = vC_N + w_N.cross(arm)
    A = sm.Matrix([slip[0], slip[1]]).jacobian(v)
    gamma = -(A * sm.Matrix(v)).jacobian(q) * sm.Matrix(v)
    energy = T + V
    data = {m: M_, r: R_, g: G_}
    return q, v, Mm, Qf, A, gamma, energy, data


def steady_turning(q, v, Mm, Qf, A, gamma, data):
    """Spin rate and contact-point velocity of steady turning at lean THETA0, yaw rate OMEGA."""
    s = sm.Symbol("s")  # spin rate
    point = {q[0]: 0, q[1]: 0, q[2]: 0, q[3]: THETA0, q[4]: 0, v[2]: OMEGA, v[3]: 0, v[4]: s}
    A0 = A.subs(data).subs(point)
    vxy = sm.solve(list(A0 * sm.Matrix([v[0], v[1], OMEGA, 0, s])), [v[0], v[1]], dict=True)[0]
    point.update(vxy)
    A0 = A0.subs(vxy)
    # Null-space basis of A: columns for (psi, theta, phi) with x', y' following.
    Nb = A0.nullspace()
    acc = sm.symbols("a0:2")
    qdd = sm.Matrix([acc[0], acc[1], 0, 0, 0])
    cons = A0 * qdd - gamma.subs(data).subs(point)
    sol_acc = sm.solve(list(cons), acc, dict=True)[0]
    residual = (Mm.subs(data).subs(point) * qdd.subs(sol_acc) - Qf.subs(data).subs(point))
    reduced = [sm.simplify((n.T * residual)[0]) for n in Nb]
    candidates = set()
    for eq in reduced:
        for root in sm.solve(eq, s):
            candidates.add(float(root))
    for spin in sorted(candidates):
        values = [abs(float(eq.subs(s, spin))) for eq in reduced]
        if max(values) < 1e-12:
            return spin, float(vxy[v[0]].subs(s, spin)), float(vxy[v[1]].subs(s, spin))
    sys.exit(f"no steady turning found: candidates {candidates}")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true")
    opts = parser.parse_args()
    q, v, Mm, Qf, A, gamma, energy, data = derive()
    spin, vx, vy = steady_turning(q, v, Mm, Qf, A, gamma, data)
    sub = {**{qi: sm.Symbol(f"p{i}") for i, qi in enumerate(q)},
           **{vi: sm.Symbol(f"w{i}") for i, vi in enumerate(v)}}
    ap = lambda e: e.subs(sub)  # noqa: E731
    parts = [
        "// Generated by problems/derive/rolling_disk.py (sympy " + sm.__version__ + "); do not edit.\n"
        "// p: (x, y, psi, theta, phi); w: their rates. Matrices are written row-major.\n"
        "namespace rolling_disk_generated {",
        f"constexpr double kSteadyLean = {THETA0!r};\n"
        f"constexpr double kSteadyYawRate = {OMEGA!r};\n"
        f"constexpr double kSteadySpinRate = {spin!r};\n"
        f"constexpr double kSteadyVx = {vx!r};\n"
        f"constexpr double kSteadyVy = {vy!r};",
        emit("disk_mass_matrix", ["p"], ap(Mm), "5 x 5", data),
        emit("disk_forces", ["p", "w"], ap(Qf), "5", data),
        emit("disk_constraint_matrix", ["p"], ap(A), "2 x 5", data),
        emit("disk_gamma", ["p", "w"], ap(gamma), "2", data),
        emit("disk_energy", ["p", "w"], sm.Matrix([ap(energy)]), "1", data),
        "}  // namespace rolling_disk_generated",
    ]
    text = index_arrays("\n\n".join(parts) + "\n", [("p", 5), ("w", 5)])
    write_or_check(OUT, text, opts.check, "problems/derive/rolling_disk.py")


if __name__ == "__main__":
    main()
