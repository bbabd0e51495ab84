#!/usr/bin/env python3
"""Derives the flyball_governor problem (IFToMM A05, stiff) and writes
problems/generated/flyball_governor.inc.

Data (IFToMM A05 [IFToMM; Gonzalez2006], keys in docs/sources.md): shaft and two rods
1.0 x 0.01 x 0.01 m, slider cube 0.1 m, density 3000 kg/m^3 (rods and shaft 0.3 kg, slider 3 kg);
5 kg point masses at the free rod ends; two spring-dampers k = 8e5 N/m, c = 4e4 N s/m, rest length
0.5 m; gravity 9.81 m/s^2 along -z (the shaft axis). Interpretation documented by cmbench: the
shaft turns about z (pinned at its base, initial spin 2 pi rad/s); the rods hang from (+-0.05, 0,
1) in the shaft frame and swing in its x-z plane, at 30 degrees below the horizontal at t = 0; the
slider slides along the shaft with its centre at height s = 0.5 m; the springs join the slider's
side points (+-0.05, 0, s) to the rod midpoints — an equilateral pin/midpoint/slider-point triangle
of side 0.5 m at t = 0, so the springs start at their rest length.

Constrained formulation for the methods: q = (psi, th1, th2, s, x1, y1, z1, x2, y2, z2) — shaft
angle, rod angles from the downward vertical (outwards positive), slider height and the
Cartesian positions of the two end masses — with six holonomic rows keeping each mass at its
rod's end. Lagrange's equations with the spring potential and the damper forces
Q_damp = -c Ldot dL/dq are generated here.
Usage: /usr/bin/python3 problems/derive/flyball_governor.py [--check]
"""
import os

import sympy as sm
import sympy.physics.mechanics as me

from sympy_codegen import generate_file

# problems/: this script is in problems/derive/, its output in problems/generated/.
PROBLEMS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(PROBLEMS, "generated", "flyball_governor.inc")
RHO, SIDE, LENGTH, CUBE, TIP = 3000.0, 0.01, 1.0, 0.1, 5.0
K, C, REST, G, OFFSET = 8e5, 4e4, 0.5, 9.81, 0.05


def derive():
    q = sm.symbols("p0:10")
    v = sm.symbols("w0:10")
    psi, th1, th2, s = q[0], q[1], q[2], q[3]
    N = me.ReferenceFrame("N")
    S = N.orientnew("S", "Axis", [psi, N.z])  # shaft frame
    rod_mass = RHO * SIDE * SIDE * LENGTH
    cube_mass = RHO * CUBE**3
    T, V, Qd = 0, 0, sm.zeros(10, 1)
    qv = sm.Matrix(v)

    def velocity(point):
        return point.jacobian(q) * qv

    # Shaft: a rod about its own axis (z), centre at height 0.5.
    T += (rod_mass * 2 * SIDE**2 / 12) * v[0]**2 / 2
    V += rod_mass * G * LENGTH / 2
    # Slider: translates along z, turns with the shaft.
    T += cube_mass * v[3]**2 / 2 + (cube_mass * 2 * CUBE**2 / 12) * v[0]**2 / 2
    V += cube_mass * G * s
    Phi = []
    for side, (theta, index) in zip((1, -1), ((th1, 4), (th2, 7))):
        pin = side * OFFSET * S.x + LENGTH * N.z
        down = side * sm.sin(theta) * S.x - sm.cos(theta) * N.z  # unit vector along the rod
        centre = (pin + LENGTH / 2 * down).to_matrix(N)
        vc = velocity(centre)
        w = v[0] * N.z + side * (-v[1 if index == 4 else 2]) * S.y
        transverse = rod_mass * (LENGTH**2 + SIDE**2) / 12
        axial = rod_mass * 2 * SIDE**2 / 12
        u = down
        inertia = transverse * (me.outer(S.x, S.x) + me.outer(S.y, S.y) + me.outer(S.z, S.z)) \
            + (axial - transverse) * me.outer(u, u)
        T += rod_mass * (vc.T * vc)[0] / 2 + w.dot(inertia.dot(w)) / 2
        V += rod_mass * G * centre[2]
        # End mass in Cartesian coordinates, tied to the rod's end.
        xm = sm.Matrix(q[index:index + 3])
        vm = sm.Matrix(v[index:index + 3])
        T += TIP * (vm.T * vm)[0] / 2
        V += TIP * G * xm[2]
        end = (pin + LENGTH * down).to_matrix(N)
        Phi.extend(list(xm - end))
        # Spring-damper from the slider's side point to the rod midpoint.
        anchor = (side * OFFSET * S.x + s * N.z).to_matrix(N)
        d = centre - anchor
        L = sm.sqrt((d.T * d)[0])
        V += K * (L - REST)**2 / 2
        grad = sm.Matrix([L]).jacobian(q)
        Ldot = (grad * qv)[0]
        Qd += -C * Ldot * grad.T
    Mm = sm.Matrix([T]).jacobian(v).T.jacobian(v)
    Qf = (sm.Matrix([sm.diff(T, qi) for qi in q]) - (Mm * qv).jacobian(q) * qv
          - sm.Matrix([sm.diff(V, qi) for qi in q]) + Qd)
    Phi = sm.Matrix(Phi)
    J = Phi.jacobian(q)
    gamma = -(J * qv).jacobian(q) * qv
    return Mm, Qf, Phi, J, gamma, sm.Matrix([T + V]), q


def main():
    Mm, Qf, Phi, J, gamma, energy, q = derive()
    generate_file(__doc__, OUT, "problems/derive/flyball_governor.py",
                  "flyball_governor_generated",
                  "// p: (psi, th1, th2, s, x1, y1, z1, x2, y2, z2); w: their rates. Row-major matrices.",
                  [("flyball_mass_matrix", ["p"], Mm, "10 x 10", {}),
                   ("flyball_forces", ["p", "w"], Qf, "10", {}),
                   ("flyball_constraints", ["p"], Phi, "6", {}),
                   ("flyball_jacobian", ["p"], J, "6 x 10", {}),
                   ("flyball_gamma", ["p", "w"], gamma, "6", {}),
                   ("flyball_mechanical_energy", ["p", "w"], energy, "1", {})],
                  [("p", 10), ("w", 10)])


if __name__ == "__main__":
    main()
