#!/usr/bin/env python3
"""Derives the bricard problem (IFToMM A04) symbolically and writes problems/generated/bricard.inc.

Bricard's mechanism: five moving rods (1 m, 1 kg, square section 0.1 m) and six revolute joints,
the sixth closing the loop to the ground; g = 9.81 m/s^2 along -y. Joint points
(0,0,0) -> (1,0,0) -> (1,-1,0) -> (1,-1,1) -> (0,-1,1) -> (0,0,1) -> back to (0,0,0) (ground);
axes: J1 || y, J2 || z, J3 || x, J4 || y, J5 || z, J6 || x (IFToMM A04).
Formulation (chosen for cmbench): the open chain ground-J1-rod1-...-J5-rod5 in its five joint
angles q = (a1..a5) (relative rotations about each joint's axis), closed at J6 by five rows:
the chain end coincides with the ground point (0,0,1) (3 rows) and rod 5's J6 axis stays parallel
to the ground's x axis (2 rows). Grubler's count gives 5 - 5 = 0 degrees of freedom, but the
rows are dependent everywhere (rank 4): the real mobility is 1.
Lagrange's equations M(q) q'' = Q(q, q') - J^T lambda, the rows, J and gamma = -(J q')_q q' are
generated here. Usage: /usr/bin/python3 problems/derive/bricard.py [--check]
"""
import os

import sympy as sm
import sympy.physics.mechanics as me

from sympy_codegen import generate_file

# problems/: this script is in problems/derive/, its output in problems/generated/.
PROBLEMS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(PROBLEMS, "generated", "bricard.inc")
MASS, LENGTH, SIDE, G = 1.0, 1.0, 0.1, 9.81


def derive():
    q = sm.symbols("p0:5")
    v = sm.symbols("w0:5")
    N = me.ReferenceFrame("N")
    axes_in_parent = ["y", "z", "x", "y", "z"]
    rod_direction = [(1, 0, 0), (0, -1, 0), (0, 0, 1), (-1, 0, 0), (0, 1, 0)]  # local, at q = 0
    frames, omegas = [], []
    parent, omega = N, 0 * N.x
    for k in range(5):
        axis = getattr(parent, axes_in_parent[k])
        frame = parent.orientnew(f"F{k + 1}", "Axis", [q[k], axis])
        omega = omega + v[k] * axis
        frames.append(frame)
        omegas.append(omega)
        parent = frame
    # Joint positions and rod centres.
    joint = 0 * N.x
    centres, ends = [], []
    for k, frame in enumerate(frames):
        d = rod_direction[k]
        rod = LENGTH * (d[0] * frame.x + d[1] * frame.y + d[2] * frame.z)
        centres.append(joint + rod / 2)
        joint = joint + rod
        ends.append(joint)
    axial = MASS * (SIDE**2 + SIDE**2) / 12
    transverse = MASS * (LENGTH**2 + SIDE**2) / 12
    T, V = 0, 0
    for k, frame in enumerate(frames):
        d = rod_direction[k]
        u = d[0] * frame.x + d[1] * frame.y + d[2] * frame.z  # unit rod axis
        inertia = transverse * (me.outer(frame.x, frame.x) + me.outer(frame.y, frame.y)
                                + me.outer(frame.z, frame.z)) + (axial - transverse) * me.outer(u, u)
        r = centres[k].to_matrix(N)
        vc = r.jacobian(q) * sm.Matrix(v)
        w = omegas[k]
        T += MASS * (vc.T * vc)[0] / 2 + w.dot(inertia.dot(w)) / 2
        V += MASS * G * r[1]
    Mm = sm.Matrix([T]).jacobian(v).T.jacobian(v)
    Qf = (sm.Matrix([sm.diff(T, qi) for qi in q]) - (Mm * sm.Matrix(v)).jacobian(q) * sm.Matrix(v)
          - sm.Matrix([sm.diff(V, qi) for qi in q]))
    end = ends[-1].to_matrix(N)
    axis6 = frames[-1].x.to_matrix(N)  # J6's axis in rod 5 (x at q = 0)
    Phi = sm.Matrix([end[0] - 0, end[1] - 0, end[2] - 1, axis6[1], axis6[2]])
    J = Phi.jacobian(q)
    gamma = -(J * sm.Matrix(v)).jacobian(q) * sm.Matrix(v)
    j3 = ends[1].to_matrix(N)  # joint J3, the scored point
    return Mm, Qf, Phi, J, gamma, sm.Matrix([T + V]), j3


def main():
    Mm, Qf, Phi, J, gamma, energy, j3 = derive()
    generate_file(__doc__, OUT, "problems/derive/bricard.py", "bricard_generated",
                  "// p: joint angles (a1..a5); w: their rates. Matrices are written row-major.",
                  [("bricard_mass_matrix", ["p"], Mm, "5 x 5", {}),
                   ("bricard_forces", ["p", "w"], Qf, "5", {}),
                   ("bricard_constraints", ["p"], Phi, "5", {}),
                   ("bricard_jacobian", ["p"], J, "5 x 5", {}),
                   ("bricard_gamma", ["p", "w"], gamma, "5", {}),
                   ("bricard_energy", ["p", "w"], energy, "1", {}),
                   ("bricard_joint3", ["p"], j3, "3", {})],
                  [("p", 5), ("w", 5)])


if __name__ == "__main__":
    main()
