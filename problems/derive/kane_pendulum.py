"""kane_pendulum — double-rod pendulum with a sliding particle, Kane's method ([Notes-Kane-en]).

System ([Notes-Kane-en]): rod A turns about N.z by q1 (pinned at O, length l, centre at l/2 along
A.x); rod B turns about A.x by q2, centred at l·A.x and lying along B.y; particle Q slides
along B.y at distance q3 from B's centre. Each body and the particle have mass m; rod inertias
m l²/12 about the two axes across the rod. Gravity m g along N.x; torsional springs kt on q1
and q2; a linear spring kl on q3 (equal and opposite on Q and B's centre).
Data: m = 1 kg, g = 9.81 m/s², kt = 0.01 N·m/rad, kl = 2 N/m, l = 0.6 m; q(0) = (5°, 5°,
0.1 m), u(0) = (0.1 rad/s, 0.2 rad/s, 0.3 m/s); horizon 2 s.
Constrained formulation for the methods: p = (q1, q2, xQ, yQ, zQ) — the rod angles and the
particle's Cartesian position — with Lagrange's equations M(p) p̈ = Q(p, ṗ) − Jᵀλ and two
holonomic rows keeping Q on B's axis: (Q − B_o)·B.x = 0, (Q − B_o)·B.z = 0. nq = 5, mh = 2.
Reference: Kane's equations in the minimal coordinates (q1, q2, q3) — generalized active and
inertia forces, sympy's KanesMethod — integrated by Bulirsch–Stoer at tolerance 1e-13. Both
formulations are derived by problems/derive/kane_pendulum.py into
problems/generated/kane_pendulum.inc (a test checks that file is current).
Energy (kinetic + gravity + springs) is conserved. Outputs: q1, q2 [rad], xQ, yQ, zQ [m].
Departure from the source: its listing forms M = ∂F*/∂u̇ and F = F*|u̇=0 + Fr from the
generalized inertia forces F* and integrates u̇ = M⁻¹F. Since F* = −M_k u̇ + …, that M is minus
the mass matrix and Kane's equations Fr + F* = 0 read u̇ = −M⁻¹F: the listing's sign makes the
system gain energy (18.2 J in 2 s from the source's initial state, RK4 with h = 1e-4, against
1e-13 J with Kane's sign: problems/derive/kane_pendulum.py --source-listing-energy). The
reference here solves sympy's KanesMethod equations M_k u̇ = F_k, with the right sign.
"""
# The model of problems/kane_pendulum.cpp in the declared form of cmbench.derive: the constrained
# formulation (MODEL's coordinates, Lagrangian and rows) and Kane's minimal-coordinate equations
# (MODEL["reference"], from sympy's KanesMethod). Usage:
#   PYTHONPATH=python python3 -m cmbench.derive problems/derive/kane_pendulum.py [--check]
#   /usr/bin/python3 problems/derive/kane_pendulum.py [--check]     (the same, run as a script:
#       the ctest kane_pendulum_generated_code_is_current does so)
#   /usr/bin/python3 problems/derive/kane_pendulum.py --source-listing-energy
#       (the energy the source listing's sign of u' gains over 2 s, against Kane's)
import argparse
import os
import subprocess
import sys

import sympy as sm
import sympy.physics.mechanics as me

m, g, kt, kl, l = sm.symbols("m g k_t k_l l")
DATA = {m: 1.0, g: 9.81, kt: 0.01, kl: 2.0, l: 0.6}
# The source's initial state, as the committed problem computed it (degrees to radians in double).
Q0 = [5.0 * 3.141592653589793 / 180.0, 5.0 * 3.141592653589793 / 180.0, 0.1]
U0 = [0.1, 0.2, 0.3]


def mechanics():
    """The system of [Notes-Kane-en] in sympy.physics.mechanics: frames, points, bodies, loads."""
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
    """Kane's equations M_k u' = F_k in q = (q1, q2, q3), u = q'."""
    t = me.dynamicsymbols._t
    q, u = [s["q1"], s["q2"], s["q3"]], [s["u1"], s["u2"], s["u3"]]
    kane = me.KanesMethod(s["N"], q_ind=q, u_ind=u, kd_eqs=[qi.diff(t) - ui for qi, ui in zip(q, u)])
    kane.kanes_equations([s["rod_A"], s["rod_B"], s["particle"]], s["loads"])
    return kane.mass_matrix, kane.forcing


S = mechanics()
MK, FK = kane_equations(S)
N, B, O = S["N"], S["B"], S["O"]
q1, q2, q3, u1, u2, u3 = (S[name] for name in ("q1", "q2", "q3", "u1", "u2", "u3"))
# Constrained formulation: p = (q1, q2, x, y, z) with Q's position free, rates (u1, u2, vx, vy, vz).
x, y, z = sm.symbols("x y z")
vx, vy, vz = sm.symbols("vx vy vz")
r_Q = x * N.x + y * N.y + z * N.z
r_Bo = S["Bo"].pos_from(O)
along = (r_Q - r_Bo).dot(B.y)  # the slider's extension, q3 in Kane's coordinates
kinetic = m * (vx**2 + vy**2 + vz**2) / 2
for body in (S["rod_A"], S["rod_B"]):
    v_c, w = body.masscenter.vel(N), body.frame.ang_vel_in(N)
    kinetic += m * v_c.dot(v_c) / 2 + w.dot(body.central_inertia.dot(w)) / 2
potential = (-m * g * S["Ao"].pos_from(O).dot(N.x) - m * g * r_Bo.dot(N.x) - m * g * x
             + kt * q1**2 / 2 + kt * q2**2 / 2 + kl * along**2 / 2)
# Kane's particle position and velocity give the constrained state at t = 0.
r_Q_kane = S["Q"].pos_from(O).to_matrix(N)
v_Q_kane = S["Q"].vel(N).to_matrix(N)
kane_start = dict(zip([q1, q2, q3, u1, u2, u3], [sm.Float(value) for value in Q0 + U0]))
position0 = r_Q_kane.xreplace(kane_start).xreplace(DATA)
velocity0 = v_Q_kane.xreplace(kane_start).xreplace(DATA)

MODEL = dict(
    id="kane_pendulum",
    title="Double-rod pendulum with a sliding particle (Kane's method)",
    display_name="Kane's pendulum",
    units=dict(outputs={"q1": "rad", "q2": "rad", "xQ": "m", "yQ": "m", "zQ": "m"},
               holonomic=["m"]),
    summary="double-rod pendulum with sliding particle (Kane's method); Kane's equations as reference",
    source="Kane's-method chapter [Notes-Kane-en], sympy.physics.mechanics [SymPyMechanics]; "
           "reference: Kane's minimal-coordinate equations",
    tags=["closed_loop", "spatial"],
    t_end=2.0,
    coordinates=[q1, q2, x, y, z],
    speeds=[u1, u2, vx, vy, vz],
    kinetic=kinetic,
    potential=potential,
    holonomic=[(r_Q - r_Bo).dot(B.x), (r_Q - r_Bo).dot(B.z)],
    constants=DATA,
    initial={q1: Q0[0], q2: Q0[1], x: position0[0], y: position0[1], z: position0[2],
             u1: U0[0], u2: U0[1], vx: velocity0[0], vy: velocity0[1], vz: velocity0[2]},
    outputs={"q1": q1, "q2": q2, "xQ": x, "yQ": y, "zQ": z},
    energy=kinetic + potential,
    reference=dict(
        coordinates=[q1, q2, q3],
        speeds=[u1, u2, u3],
        mass_matrix=MK,
        forcing=FK,
        initial=kane_start,
        outputs={"q1": q1, "q2": q2, "xQ": r_Q_kane[0], "yQ": r_Q_kane[1], "zQ": r_Q_kane[2]},
        provenance="Kane's equations in the minimal coordinates (q1, q2, q3), sympy KanesMethod, "
                   "Bulirsch-Stoer at tolerance 1e-13",
        accuracy=1e-10,
    ),
)


def source_listing_energy_gain(h=1e-4, t_end=2.0):
    """Energy change over t_end of u' = sign·M_k⁻¹F_k from the source's initial state (classical RK4,
    step h), for Kane's sign (+1) and for the source listing's (−1: it solves with M = ∂F*/∂u', which
    is minus the mass matrix). Returns {sign: E(t_end) − E(0)}."""
    import numpy as np
    q, u = [q1, q2, q3], [u1, u2, u3]
    T = sum(b.kinetic_energy(N) for b in (S["rod_A"], S["rod_B"], S["particle"]))
    V = (-m * g * sum(S[p].pos_from(O).dot(N.x) for p in ("Ao", "Bo", "Q"))
         + kt * (q[0]**2 + q[1]**2) / 2 + kl * q[2]**2 / 2)
    speeds = {qi.diff(me.dynamicsymbols._t): ui for qi, ui in zip(q, u)}
    energy = sm.lambdify((q, u), (T + V).subs(speeds).subs(DATA))
    mass = sm.lambdify((q, u), MK.subs(DATA))
    forcing = sm.lambdify((q, u), FK.subs(DATA))

    def rhs(state, sign):
        ud = np.linalg.solve(np.array(mass(state[:3], state[3:]), float),
                             np.array(forcing(state[:3], state[3:]), float).ravel())
        return np.concatenate([state[3:], sign * ud])

    x0 = np.array([np.deg2rad(5.0), np.deg2rad(5.0), 0.1, 0.1, 0.2, 0.3])
    gains = {}
    for sign in (1, -1):
        state = x0.copy()
        for _ in range(round(t_end / h)):
            k1 = rhs(state, sign)
            k2 = rhs(state + h / 2 * k1, sign)
            k3 = rhs(state + h / 2 * k2, sign)
            k4 = rhs(state + h * k3, sign)
            state = state + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        gains[sign] = energy(state[:3], state[3:]) - energy(x0[:3], x0[3:])
    return gains


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if the generated files are not current")
    parser.add_argument("--source-listing-energy", action="store_true",
                        help="print the energy change over 2 s with Kane's sign and with the sign "
                             "of the listing in [Notes-Kane-en]")
    opts = parser.parse_args()
    if opts.source_listing_energy:
        gains = source_listing_energy_gain()
        print(f"Kane's equations: E(2) - E(0) = {gains[1]:.2e} J")
        print(f"source listing:   E(2) - E(0) = {gains[-1]:.2e} J")
        return 0
    # The generator, run as its users run it (python/ on the module path), on this file.
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    path = os.path.join(root, "python") + os.pathsep + os.environ.get("PYTHONPATH", "")
    command = [sys.executable, "-m", "cmbench.derive", os.path.abspath(__file__)]
    return subprocess.call(command + (["--check"] if opts.check else []),
                           env=dict(os.environ, PYTHONPATH=path))


if __name__ == "__main__":
    sys.exit(main())
