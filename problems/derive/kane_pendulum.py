#!/usr/bin/env python3
"""Derives the kane_pendulum problem ([Notes-Kane-en]: double-rod pendulum with a sliding particle)
symbolically with sympy.physics.mechanics and writes problems/generated/kane_pendulum.inc.

Two independent formulations of the same system:
  * the reference: Kane's equations in the minimal coordinates q = (q1, q2, q3) with
    generalized speeds u = q' (KanesMethod: generalized active and inertia forces), M_k u' = F_k;
  * the constrained model for the methods: redundant coordinates p = (q1, q2, xQ, yQ, zQ)
    (rod angles and the particle's Cartesian position), Lagrange's equations M(p) p'' = Q(p, p')
    and two holonomic rows keeping Q on rod B's axis, (Q - Bo).B.x = 0 and (Q - Bo).B.z = 0,
    with their Jacobian and gamma = -(J p')_p p'.

Usage: /usr/bin/python3 problems/derive/kane_pendulum.py          (rewrites the .inc file)
       /usr/bin/python3 problems/derive/kane_pendulum.py --check  (exit 1 if it is not current)
       /usr/bin/python3 problems/derive/kane_pendulum.py --source-listing-energy
           (the energy the source listing's sign of u' gains over 2 s, against Kane's)
Data ([Notes-Kane-en] in docs/sources.md): m = 1 kg, g = 9.81 m/s^2 along N.x, kt = 0.01 N m/rad, kl = 2 N/m, l = 0.6 m.
"""
import argparse
import os

import sympy as sm
import sympy.physics.mechanics as me

from sympy_codegen import emit, index_arrays, write_or_check

# problems/: this script is in problems/derive/, its output in problems/generated/.
PROBLEMS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(PROBLEMS, "generated", "kane_pendulum.inc")
DATA = {"m": 1.0, "g": 9.81, "kt": 0.01, "kl": 2.0, "l": 0.6}


def model():
    m, g, kt, kl, l = sm.symbols("m g k_t k_l l")
    q1, q2, q3 = me.dynamicsymbols("q1 q2 q3")
    u1, u2, u3 = me.dynamicsymbols("u1 u2 u3")
    N, A, B = me.ReferenceFrame("N"), me.ReferenceFrame("A"), me.ReferenceFrame("B")
    A.orient_axis(N, q1, N.z)
    B.orient_axis(A, q2, A.x)
    A.set_ang_vel(N, u1 * N.z)
    B.set_ang_vel(A, u2 * A.x)
    O, Ao, Bo, Q = me.Point("O"), me.Point("Ao"), me.Point("Bo"), me.Point("Q")
    Ao.set_pos(O, l / 2 * A.x)
    Bo.set_pos(O, l * A.x)
    Q.set_pos(Bo, q3 * B.y)
    O.set_vel(N, 0)
    Ao.v2pt_theory(O, N, A)
    Bo.v2pt_theory(O, N, A)
    Q.set_vel(B, u3 * B.y)
    Q.v1pt_theory(Bo, N, B)
    I = m * l**2 / 12
    rod_A = me.RigidBody("rod_A", Ao, A, m, (I * me.outer(A.y, A.y) + I * me.outer(A.z, A.z), Ao))
    rod_B = me.RigidBody("rod_B", Bo, B, m, (I * me.outer(B.x, B.x) + I * me.outer(B.z, B.z), Bo))
    particle = me.Particle("particle", Q, m)
    loads = [(Ao, m * g * N.x), (Bo, m * g * N.x + kl * q3 * B.y), (Q, m * g * N.x - kl * q3 * B.y),
             (A, -kt * q1 * N.z + kt * q2 * A.x), (B, -kt * q2 * A.x)]
    return locals()


def kane_equations(s):
    t = me.dynamicsymbols._t
    q, u = [s["q1"], s["q2"], s["q3"]], [s["u1"], s["u2"], s["u3"]]
    kane = me.KanesMethod(s["N"], q_ind=q, u_ind=u, kd_eqs=[qi.diff(t) - ui for qi, ui in zip(q, u)])
    kane.kanes_equations([s["rod_A"], s["rod_B"], s["particle"]], s["loads"])
    Qpos = s["Q"].pos_from(s["O"]).to_matrix(s["N"])
    return kane.mass_matrix, kane.forcing, Qpos, s["Q"].vel(s["N"]).to_matrix(s["N"])


def constrained_equations(s):
    """Lagrange's equations in p = (q1, q2, x, y, z) with Q's position free and two constraints."""
    N, B, O = s["N"], s["B"], s["O"]
    q1, q2 = s["q1"], s["q2"]
    x, y, z = sm.symbols("x y z")
    w1, w2, vx, vy, vz = sm.symbols("w1 w2 vx vy vz")  # p'
    pd = [w1, w2, vx, vy, vz]
    speeds = {s["u1"]: w1, s["u2"]: w2}
    m, g, kt, kl = s["m"], s["g"], s["kt"], s["kl"]
    T = 0
    for body in (s["rod_A"], s["rod_B"]):
        v = body.masscenter.vel(N).subs(speeds)
        w = body.frame.ang_vel_in(N).subs(speeds)
        T += m * v.dot(v) / 2 + w.dot(body.central_inertia.dot(w)) / 2
    T += m * (vx**2 + vy**2 + vz**2) / 2
    rQ = x * N.x + y * N.y + z * N.z
    rBo = s["Bo"].pos_from(O)
    along = (rQ - rBo).dot(B.y)
    V = (-m * g * s["Ao"].pos_from(O).dot(N.x) - m * g * rBo.dot(N.x) - m * g * x
         + kt * q1**2 / 2 + kt * q2**2 / 2 + kl * along**2 / 2)
    # Functions of time become plain symbols so that partial derivatives are ordinary ones.
    c1, c2 = sm.symbols("c1 c2")
    plain = {q1: c1, q2: c2}
    T, V = T.subs(plain), V.subs(plain)
    P = [c1, c2, x, y, z]
    Tm = sm.Matrix([T])
    M = Tm.jacobian(pd).T.jacobian(pd)
    # Q_i = dT/dp_i − (dM/dt p')_i − dV/dp_i, dM/dt p' = (M p')_p p'.
    Mp = M * sm.Matrix(pd)
    Qf = (sm.Matrix([sm.diff(T, pi) for pi in P]) - Mp.jacobian(P) * sm.Matrix(pd)
          - sm.Matrix([sm.diff(V, pi) for pi in P]))
    Phi = sm.Matrix([(rQ - rBo).dot(B.x), (rQ - rBo).dot(B.z)]).subs(plain)
    J = Phi.jacobian(P)
    gamma = -(J * sm.Matrix(pd)).jacobian(P) * sm.Matrix(pd)
    energy = (T + V)
    return P, pd, M, Qf, Phi, J, gamma, energy, along.subs(plain)


def generate():
    s = model()
    data = {s[k]: v for k, v in DATA.items()}
    Mk, Fk, Qpos, Qvel = kane_equations(s)
    q = [s["q1"], s["q2"], s["q3"]]
    u = [s["u1"], s["u2"], s["u3"]]
    kq, ku = sm.symbols("kq0:3"), sm.symbols("ku0:3")
    t = me.dynamicsymbols._t
    to_plain = {**{qi.diff(t): ui for qi, ui in zip(q, u)}}
    to_plain.update({ui: kui for ui, kui in zip(u, ku)})
    to_plain.update({qi: kqi for qi, kqi in zip(q, kq)})
    plain = lambda e: e.subs(to_plain)  # noqa: E731
    P, pd, M, Qf, Phi, J, gamma, energy, along = constrained_equations(s)
    pq, pv = sm.symbols("p0:5"), sm.symbols("v0:5")
    sub_p = dict(zip(P, pq))
    sub_p.update(dict(zip(pd, pv)))
    csub = lambda e: e.subs(sub_p)  # noqa: E731
    parts = [
        "// Generated by problems/derive/kane_pendulum.py (sympy " + sm.__version__ + "); do not edit.\n"
        "// kq/ku: Kane coordinates and speeds (q1, q2, q3); p/v: constrained coordinates\n"
        "// (q1, q2, xQ, yQ, zQ) and their rates. Matrices are written row-major.\n"
        "namespace kane_pendulum_generated {",
        emit("kane_mass_matrix", ["kq"], plain(Mk), "3 x 3", data),
        emit("kane_forcing", ["kq", "ku"], plain(Fk), "3", data),
        emit("kane_particle_position", ["kq"], plain(Qpos), "3", data),
        emit("kane_particle_velocity", ["kq", "ku"], plain(Qvel), "3", data),
        emit("constrained_mass_matrix", ["p"], csub(M), "5 x 5", data),
        emit("constrained_forces", ["p", "v"], csub(Qf), "5", data),
        emit("constrained_constraints", ["p"], csub(Phi), "2", data),
        emit("constrained_jacobian", ["p"], csub(J), "2 x 5", data),
        emit("constrained_gamma", ["p", "v"], csub(gamma), "2", data),
        emit("constrained_energy", ["p", "v"], sm.Matrix([csub(energy)]), "1", data),
        "}  // namespace kane_pendulum_generated",
    ]
    return "\n\n".join(parts) + "\n"


def source_listing_energy_gain(h=1e-4, t_end=2.0):
    """Energy change over t_end of u' = sign·M_k⁻¹F_k from the source's initial state (classical RK4,
    step h), for Kane's sign (+1) and for the source listing's (−1: it solves with M = ∂F*/∂u', which
    is minus the mass matrix). Returns {sign: E(t_end) − E(0)}."""
    import numpy as np
    s = model()
    data = {s[k]: v for k, v in DATA.items()}
    Mk, Fk, _, _ = kane_equations(s)
    q, u = [s["q1"], s["q2"], s["q3"]], [s["u1"], s["u2"], s["u3"]]
    N, O, m, g = s["N"], s["O"], s["m"], s["g"]
    T = sum(b.kinetic_energy(N) for b in (s["rod_A"], s["rod_B"], s["particle"]))
    V = (-m * g * sum(s[p].pos_from(O).dot(N.x) for p in ("Ao", "Bo", "Q"))
         + s["kt"] * (q[0]**2 + q[1]**2) / 2 + s["kl"] * q[2]**2 / 2)
    speeds = {qi.diff(me.dynamicsymbols._t): ui for qi, ui in zip(q, u)}
    energy = sm.lambdify((q, u), (T + V).subs(speeds).subs(data))
    mass = sm.lambdify((q, u), Mk.subs(data))
    forcing = sm.lambdify((q, u), Fk.subs(data))

    def rhs(x, sign):
        ud = np.linalg.solve(np.array(mass(x[:3], x[3:]), float),
                             np.array(forcing(x[:3], x[3:]), float).ravel())
        return np.concatenate([x[3:], sign * ud])

    x0 = np.array([np.deg2rad(5.0), np.deg2rad(5.0), 0.1, 0.1, 0.2, 0.3])
    gains = {}
    for sign in (1, -1):
        x = x0.copy()
        for _ in range(round(t_end / h)):
            k1 = rhs(x, sign)
            k2 = rhs(x + h / 2 * k1, sign)
            k3 = rhs(x + h / 2 * k2, sign)
            k4 = rhs(x + h * k3, sign)
            x = x + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        gains[sign] = energy(x[:3], x[3:]) - energy(x0[:3], x0[3:])
    return gains


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="fail if the committed file is not current")
    parser.add_argument("--source-listing-energy", action="store_true",
                        help="print the energy change over 2 s with Kane's sign and with the sign "
                             "of the listing in [Notes-Kane-en]")
    opts = parser.parse_args()
    if opts.source_listing_energy:
        gains = source_listing_energy_gain()
        print(f"Kane's equations: E(2) - E(0) = {gains[1]:.2e} J")
        print(f"source listing:   E(2) - E(0) = {gains[-1]:.2e} J")
        return
    write_or_check(OUT, index_arrays(generate(), [("kq", 3), ("ku", 3), ("p", 5), ("v", 5)]),
                   opts.check, "problems/derive/kane_pendulum.py")


if __name__ == "__main__":
    main()
