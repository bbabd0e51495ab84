"""sympy models in, C++ problems out: `python3 -m cmbench.derive MODEL.py` reads a model written
in sympy in the declared form below, derives everything else symbolically and writes
problems/generated/<id>.inc (the model functions) and problems/<id>.cpp (the problem: data,
parameters, initial state, outputs, reference, registration entry). One line
`CMB_PROBLEM(<id>)` in problems/problems.def then registers it. docs/derive.md walks through the
whole path, from the model file to a campaign.

The declared form. A model file is a Python module that imports sympy (and whatever it likes,
e.g. sympy.physics.mechanics) and defines

    __doc__   the problem's header block, copied into problems/<id>.cpp as its opening comment
              (first line "<id> — one-line summary"; then equations, source, parameters, state,
              reference, fails when: docs/problems/<id>.md is generated from it)
    MODEL     a dict with the keys

    id            snake_case problem id (the file names and the .def line)
    title, summary, source
                  ProblemInfo.title, the one-line summary of `cmbench list`, and the citation
                  (keys of docs/sources.md)
    display_name  how figures and tables name the problem ("Spherical pendulum")
    units         dict: outputs {output name: unit} for every output, and the units of the
                  constraint rows the figures' drift axes use: holonomic [units of Φ] when it
                  has holonomic rows, nonholonomic [units of A v − c] when it has those
                  ("1" for a dimensionless quantity)
    tags          optional list; "nonholonomic" and "rheonomic" are added when they apply
    t_end         default horizon [s]
    coordinates   list of n symbols q (plain symbols, or sympy.physics.mechanics dynamicsymbols
                  whose time derivatives are replaced by the speeds)
    speeds        list of n symbols v = q̇, in the same order
    kinetic       kinetic energy T(t, q, v), quadratic in v (M = ∂²T/∂v²), and optionally
    potential     V(t, q): Lagrange's equations M v̇ = ∂T/∂q − (∂T/∂v)_q v − (∂T/∂v)_t − ∂V/∂q + F
    forces        optional list of n generalized forces F(t, q, v) not derived from V
                  (damping, drives) — or, instead of kinetic/potential:
    mass_matrix   n × n M(t, q), with forces the whole right-hand side Q(t, q, v)
    holonomic     list of rows Φ(t, q) = 0
    nonholonomic  list of rows g(t, q, v) = 0, affine in v (g = A v − c)
    parameters    dict symbol -> (default, description) or (default, description, range):
                  run-time problem parameters (`--param name=value`), passed to the generated
                  functions; range is e.g. "> 0", ">= 0", "> 0, <= 3.14"
    constants     optional dict symbol -> number, substituted at generation (not parameters)
    time          the time symbol, when t appears explicitly (rheonomic rows, drives)
    initial       dict coordinate or speed -> expression of the parameters: the state at t = 0,
                  which must satisfy Φ = 0 and J v = ν at the default parameters
    outputs       dict name -> expression of (t, q, v): the scored quantities
    energy        optional conserved energy E(t, q, v) (omit it when nothing is conserved)
    reference     optional; omitted, the harness computes a self-converged reference. A dict
                  describing an independent minimal-coordinate model instead (reduced ODE,
                  integrated by Bulirsch–Stoer with q̇ = u): coordinates, speeds, either
                  kinetic/potential/forces or mass_matrix/forcing (M_r u̇ = F_r), initial, outputs
                  (the same names as MODEL's), provenance (text), accuracy (estimated absolute
                  error of its outputs) and optionally tolerance (default 1e-13). Or, for a
                  closed-form solution, dict(analytic=dict(outputs={name: expression of t and
                  the parameters}, provenance, accuracy)): the reference is then
                  ReferenceKind::analytic, those expressions evaluated at the sample times

Derived by the generator, never written by the user: M and Q from T and V, the Jacobian
J = [∂Φ/∂q; ∂g/∂v], ν = [−Φ_t; c], and γ = −(ġ_q v + ġ_t) row by row, where ġ = J_h v + Φ_t for
the holonomic rows and ġ = g for the nonholonomic ones — so γ carries −J̇v and, for rheonomic
rows, the time-derivative terms −2 J_t v − Φ_tt (and c_t). Not supported: sizes that change with a
parameter, unilateral rows, branch indicators, sparse evaluation, velocity-dependent potentials.

Modules: model (read and check a model file), equations (the symbolic derivation), cxx (the C++
text), __main__ (the command line).
"""
from ..requirements import require

require("cmbench.derive", "numpy", "sympy")

from .equations import derive  # noqa: E402  (after the check that names what is missing)
from .model import ModelError, load_model  # noqa: E402

__all__ = ["ModelError", "derive", "load_model"]
