"""The symbolic derivation: from a checked Model (model.py) to every function the generated
problem needs — M, Q, Φ, J, ν, γ, E, the outputs and the initial state, and the reduced
reference's M_r, F_r, outputs and initial state — in the generator's symbols (t, q[i], v[i],
k[i]); then a numerical check of the result at the default parameters."""
from dataclasses import dataclass

import numpy as np
import sympy as sm

from .model import T, Analytic, ModelError, arrays


@dataclass
class Reduced:
    """The reduced reference of a one-degree-of-freedom model: M_r and F_r of its
    minimal-coordinate ODE, its outputs and initial state, where it comes from, its accuracy and
    the tolerance it is integrated to."""
    mass_matrix: object
    forcing: object
    outputs: object
    initial: object
    provenance: str
    accuracy: float
    tolerance: float


@dataclass
class Equations:
    """Everything the generated problem needs, in the generator's symbols: M, Q, Φ, J, ν, γ, the
    energy, the outputs, the initial state, the tags and the reduced reference (or None)."""
    model: object
    mass_matrix: object
    forces: object
    constraints: object   # mh x 1 (Φ)
    jacobian: object      # m x n (holonomic rows, then nonholonomic)
    velocity_rhs: object  # m x 1 (ν), None when identically zero
    gamma: object         # m x 1
    energy: object        # 1 x 1 or None
    outputs: object
    initial: object       # 2n x 1: q(0), then v(0)
    tags: list
    reference: object = None  # Reduced, model.Analytic or None

    @property
    def sizes(self):
        """(nq, mh, mn): coordinates, holonomic rows and nonholonomic rows."""
        mh = self.constraints.rows
        return self.mass_matrix.rows, mh, self.jacobian.rows - mh


def column(exprs):
    """A sympy column vector of the given expressions."""
    exprs = list(exprs)
    return sm.Matrix(len(exprs), 1, exprs)


def lagrange(dyn, q, v, where):
    """(M, Q) of M v̇ = Q: Lagrange's equations of T − V with the extra forces, or the declared
    mass matrix and right-hand side."""
    if dyn.mass_matrix is not None:
        return dyn.mass_matrix, dyn.forces
    Tv = column(sm.diff(dyn.kinetic, vi) for vi in v)
    M = Tv.jacobian(v)
    if M.has(*v):
        raise ModelError(f"{where}: the kinetic energy must be quadratic in the speeds")
    grad = column(sm.diff(dyn.kinetic - dyn.potential, qi) for qi in q)
    Q = grad - Tv.jacobian(q) * column(v) - Tv.diff(T)
    if dyn.forces is not None:
        Q += dyn.forces
    return M, Q


def constraint_rows(holonomic, nonholonomic, q, v):
    """J, ν and γ of the rows Φ(t, q) = 0 and g(t, q, v) = A v − c = 0. Each row's velocity form
    ġ(t, q, v) = 0 (J_h v + Φ_t, or g itself) differentiates to J q̈ = γ = −(ġ_q v + ġ_t)."""
    vv = column(v)
    Jh = holonomic.jacobian(q) if holonomic.rows else sm.zeros(0, len(q))
    Phi_t = holonomic.diff(T)
    A = nonholonomic.jacobian(v) if nonholonomic.rows else sm.zeros(0, len(q))
    if A.has(*v):
        raise ModelError("nonholonomic rows must be affine in the speeds (A(t, q) v − c(t, q))")
    c = -nonholonomic.xreplace({vi: 0 for vi in v})
    velocity_form = (Jh * vv + Phi_t).col_join(nonholonomic)
    gamma = -velocity_form.jacobian(q) * vv - velocity_form.diff(T)
    return Jh.col_join(A), (-Phi_t).col_join(c), gamma


def derive(model):
    """The Equations of a Model (ModelError when they cannot be formed)."""
    n = model.dynamics.n
    q, v = arrays("q", n), arrays("v", n)
    M, Q = lagrange(model.dynamics, q, v, "MODEL")
    J, nu, gamma = constraint_rows(model.holonomic, model.nonholonomic, q, v)
    tags = list(model.tags)
    if model.nonholonomic.rows and "nonholonomic" not in tags:
        tags.append("nonholonomic")
    if (model.holonomic.has(T) or model.nonholonomic.has(T)) and "rheonomic" not in tags:
        tags.append("rheonomic")
    equations = Equations(
        model=model, mass_matrix=M, forces=Q, constraints=model.holonomic, jacobian=J,
        velocity_rhs=None if nu.is_zero_matrix else nu, gamma=gamma,
        energy=None if model.energy is None else sm.Matrix([model.energy]),
        outputs=model.dynamics.outputs, initial=column(model.dynamics.initial), tags=tags)
    ref = model.reference
    if isinstance(ref, Analytic):
        equations.reference = ref
    elif ref is not None:
        r = ref.dynamics.n
        Mr, Fr = lagrange(ref.dynamics, arrays("q", r), arrays("v", r), "reference")
        equations.reference = Reduced(Mr, Fr, ref.dynamics.outputs, column(ref.dynamics.initial),
                                      ref.provenance, ref.accuracy, ref.tolerance)
    check_numerically(equations)
    return equations


def evaluate(matrix, values):
    """A sympy matrix at numeric values of its symbols, as a float array of its shape."""
    numeric = matrix.xreplace(values).evalf(17)
    try:
        return np.array(numeric.tolist(), dtype=float).reshape(matrix.shape)
    except TypeError:
        raise ModelError(f"could not evaluate {matrix} numerically at the default parameters")


def check_numerically(eq):
    """At the default parameters and t = 0: the initial state satisfies Φ = 0 and J v = ν (to
    1e-12, what the conformance suite demands), M is symmetric positive definite there, and a
    reduced or closed-form reference starts where the model starts (outputs within 1e-10
    relative)."""
    model = eq.model
    values = dict(model.constants)
    values.update({sm.Symbol(f"k[{i}]"): p.default for i, p in enumerate(model.parameters)})
    values[T] = 0.0
    n, mh, _ = eq.sizes
    state = evaluate(eq.initial, values).ravel()
    values.update(zip(arrays("q", n), state[:n]))
    values.update(zip(arrays("v", n), state[n:]))
    phi = evaluate(eq.constraints, values).ravel() if mh else np.zeros(0)
    velocity = evaluate(eq.jacobian, values) @ state[n:]
    if eq.velocity_rhs is not None:
        velocity -= evaluate(eq.velocity_rhs, values).ravel()
    worst = max(np.abs(phi).max(initial=0.0), np.abs(velocity).max(initial=0.0))
    if worst > 1e-12:
        raise ModelError("the initial state violates the constraints: "
                         f"|Φ| = {np.abs(phi).max(initial=0):.3g}, "
                         f"|J v − ν| = {np.abs(velocity).max(initial=0):.3g} (limit 1e-12)")
    M = evaluate(eq.mass_matrix, values)
    if np.abs(M - M.T).max() > 1e-14 * np.abs(M).max() or np.linalg.eigvalsh(M).min() <= 0:
        raise ModelError("the mass matrix is not symmetric positive definite at the initial state")
    if eq.reference is None:
        return
    outputs = evaluate(eq.outputs, values).ravel()
    ref_values = {key: value for key, value in values.items() if not str(key)[:2] in ("q[", "v[")}
    if not isinstance(eq.reference, Analytic):
        r = eq.reference.mass_matrix.rows
        ref_state = evaluate(eq.reference.initial, ref_values).ravel()
        ref_values.update(zip(arrays("q", r), ref_state[:r]))
        ref_values.update(zip(arrays("v", r), ref_state[r:]))
    ref_outputs = evaluate(eq.reference.outputs, ref_values).ravel()
    gap = np.abs(outputs - ref_outputs).max() / max(1.0, np.abs(outputs).max())
    if gap > 1e-10:
        raise ModelError(f"the reference does not start where the model starts: outputs {outputs} "
                         f"against {ref_outputs}")
