"""Display names and units of the ids in figures: `index1` is drawn as "Index-1 KKT",
`dopri5` as "Dormand–Prince 5(4)", `n_four_bar(N=4)` as "N-four-bar (N = 4)".

    from cmbench import names
    names.method("udwadia_kalaba")          # 'Udwadia–Kalaba'
    names.override({"methods": {"index1": "KKT"}})      # or a flat {"index1": "KKT"}
    names.load_overrides("names.json")                  # the same, from a JSON file

An id without a display name (a method, problem or stepper added outside this table) is shown
as the id itself. Overrides replace or add names for the rest of the process, or within
`with names.overriding(dict_or_path):` (the report's `--names FILE`, `report.build(...,
display_names=...)`); `names.reset()` drops them. An override file is a JSON object, either sectioned
{"methods": {...}, "problems": {...}, "steppers": {...}, "params": {...}} or flat {id: name}
(a flat entry applies to that id in every section).

Units: the figures label their axes with the units of what they draw. A problem's outputs and
constraint rows carry units (docs/problems/*.md); OUTPUT_UNITS and CONSTRAINT_UNITS hold them
per problem id, and error_unit / drift_units turn them into axis labels ("m", "m, rad", or
"output units" for a problem not in the table).
"""
import contextlib
import os

from .files import InputFileError, read_json

METHODS = {
    "index1": "Index-1 KKT",
    "baumgarte": "Baumgarte",
    "projection": "Projection",
    "coordinate_partitioning": "Coordinate partitioning",
    "svd_null_space": "SVD null space",
    "udwadia_kalaba": "Udwadia–Kalaba",
    "gauss_qp": "Gauss QP",
    "augmented_lagrangian": "Augmented Lagrangian",
    # DAE integrators (their runs' stepper is "dae")
    "ida": "IDA (BDF)",
    "generalized_alpha": "Generalized-α",
    "ali3p": "ALI3-P",
}
# The method ids above that are DAE integrators: they step themselves (stepper "dae").
INTEGRATORS = ("ida", "generalized_alpha", "ali3p")

PROBLEMS = {
    "simple_pendulum": "Simple pendulum",
    "crank_rocker": "Crank-rocker",
    "slider_crank": "Slider-crank",
    "n_four_bar": "N-four-bar",
    "bricard": "Bricard",
    "flyball_governor": "Flyball governor",
    "andrews_squeezer": "Andrews' squeezer",
    "n_pendulum": "N-pendulum",
    "chaplygin_sleigh": "Chaplygin sleigh",
    "rolling_disk": "Rolling disk",
    "kane_pendulum": "Kane's pendulum",
    "car_axis": "Car axis",
    "spherical_pendulum": "Spherical pendulum",
}

STEPPERS = {
    "euler": "Euler",
    "rk4": "RK4",
    "rk_gill": "Runge–Kutta–Gill",
    "adams_bashforth_moulton": "Adams–Bashforth–Moulton 4",
    "cash_karp54": "Cash–Karp 5(4)",
    "dop853": "DOP853",
    "dopri5": "Dormand–Prince 5(4)",
    "dopri87": "Prince–Dormand 8(7)",
    "fehlberg78": "Fehlberg 7(8)",
    "bulirsch_stoer": "Bulirsch–Stoer",
    "rosenbrock4": "Rosenbrock 4",
    "dae": "DAE integrators",
}

# Parameters as they appear in variant and problem labels (results.variant_label already
# writes the Greek gains).
PARAMS = {"alpha": "α", "beta": "β", "omega0": "ω₀", "zeta": "ζ", "theta0_deg": "θ₀ [°]"}

SECTIONS = {"methods": METHODS, "problems": PROBLEMS, "steppers": STEPPERS, "params": PARAMS}
_overrides = {section: {} for section in SECTIONS}


def reset():
    """Drops every override."""
    for table in _overrides.values():
        table.clear()


def override(mapping):
    """Adds display names: a sectioned {"methods": {id: name}, ...} or a flat {id: name}
    (applies in every section). Raises ValueError on anything else, naming the entry."""
    if not isinstance(mapping, dict):
        raise ValueError(f"names must be a JSON object, not {type(mapping).__name__}")
    for key, value in mapping.items():
        if key in SECTIONS and isinstance(value, dict):
            for id_, name in value.items():
                if not isinstance(name, str):
                    raise ValueError(f"{key}.{id_}: a name must be a string")
                _overrides[key][str(id_)] = name
        elif isinstance(value, str):
            for table in _overrides.values():
                table[str(key)] = value
        else:
            raise ValueError(f"{key}: expected a string (a flat name) or, for one of "
                             f"{', '.join(SECTIONS)}, an object of names")


@contextlib.contextmanager
def overriding(names_or_path):
    """Overrides (a dict as override() takes, or the path of a JSON file) for the duration of
    a with block; the previous names are restored after it."""
    saved = {section: dict(table) for section, table in _overrides.items()}
    try:
        if isinstance(names_or_path, (str, os.PathLike)):
            load_overrides(names_or_path)
        elif names_or_path is not None:
            override(names_or_path)
        yield
    finally:
        for section, table in _overrides.items():
            table.clear()
            table.update(saved[section])


def load_overrides(path):
    """override() with the JSON object in file `path`, read by cmbench.files.read_json
    (InputFileError, a ValueError: 'PATH: what is wrong')."""
    mapping = read_json(path, "display names")
    try:
        override(mapping)
    except ValueError as error:
        raise InputFileError(path, str(error), "display names") from None


def _name(section, id_):
    if id_ is None:
        return "–"
    return _overrides[section].get(id_) or SECTIONS[section].get(id_) or str(id_)


def method(id_):
    """The display name of a method id (the id itself when unknown)."""
    return _name("methods", id_)


def problem(id_):
    """The display name of a problem id (the id itself when unknown)."""
    return _name("problems", id_)


def stepper(id_):
    """The display name of a stepper id (the id itself when unknown)."""
    return _name("steppers", id_)


def param(name):
    """The display name of a parameter (α for alpha; the name itself when unknown)."""
    return _name("params", name)


def _params_text(inner):
    """'N=4, theta0_deg=30' (a readable label's parentheses) -> 'N = 4, θ₀ [°] = 30'."""
    out = []
    for item in inner.split(", "):
        key, eq, value = item.partition("=")
        out.append(f"{param(key)} = {value.strip(chr(34))}" if eq else item)
    return ", ".join(out)


def problem_label(label):
    """A problem label of results.flatten ('n_four_bar(N=4)', 'crank_rocker') for display:
    'N-four-bar (N = 4)', 'Crank-rocker'."""
    head, paren, rest = label.partition("(")
    if not paren:
        return problem(label)
    return f"{problem(head)} ({_params_text(rest.rstrip(')'))})"


def case_label(case_label_text, problem_label_text):
    """A case label of results.case_labels (the problem label, then what tells the problem's
    cases apart: 'crank_rocker, perturbed p=0.001') with the problem's display name."""
    if case_label_text.startswith(problem_label_text):
        return problem_label(problem_label_text) + case_label_text[len(problem_label_text):]
    return case_label_text


def variant(variant_label, method_id):
    """A variant label of results.variant_label ('baumgarte α=10 β=20') with the method's
    display name ('Baumgarte α=10 β=20')."""
    if variant_label == method_id or variant_label.startswith(method_id + " "):
        return method(method_id) + variant_label[len(method_id):]
    return variant_label


def setting(row):
    """'RK4 dt=0.001' / 'Dormand–Prince 5(4) tol=1e-08': a run's stepper and its setting."""
    return f"{stepper(row['stepper'])} {row['setting']}".strip()


# --- units ------------------------------------------------------------------------------------
# Per problem id: the unit of each scored output (metrics.error.outputs), from the problem pages
# (docs/problems/*.md, "Outputs: ..."), and of its constraint rows Φ (holonomic; the velocity
# residual ψ = J v − ν then has that unit per second) or, without holonomic rows, of its
# nonholonomic rows (ψ, a velocity). car_axis is stated in the test set's scaled units.
# spherical_pendulum's units are those of its source header (problems/spherical_pendulum.cpp).
OUTPUT_UNITS = {
    "simple_pendulum": {"x": "m", "y": "m", "vx": "m/s", "vy": "m/s"},
    "crank_rocker": {"crank_angle": "rad", "C_x": "m", "C_y": "m"},
    "slider_crank": {"crank_angle": "rad", "slider_x": "m"},
    "andrews_squeezer": {k: "rad" for k in ("beta", "Theta", "gamma", "Phi", "delta", "Omega",
                                            "epsilon")},
    "car_axis": {k: "scaled length" for k in ("xl", "yl", "xr", "yr")},
    "n_four_bar": {"B0_x": "m", "B0_y": "m", "B0_vx": "m/s", "B0_vy": "m/s"},
    "kane_pendulum": {"q1": "rad", "q2": "rad", "xQ": "m", "yQ": "m", "zQ": "m"},
    "chaplygin_sleigh": {"u": "m/s", "omega": "rad/s", "theta": "rad"},
    "bricard": {"J3_x": "m", "J3_y": "m", "J3_z": "m", "a1": "rad"},
    "n_pendulum": {k: "m" for k in ("tip_x", "tip_y", "first_x", "first_y")},
    "rolling_disk": {"lean": "rad", "yaw_rate": "rad/s", "spin_rate": "rad/s"},
    "flyball_governor": {"s": "m", "theta1": "rad"},
    "spherical_pendulum": {"x": "m", "y": "m", "z": "m", "lz": "kg·m²/s"},
}
# The units of the constraint rows: holonomic Φ ("phi") or, on problems without holonomic rows,
# nonholonomic ψ ("psi"). Sources: docs/problems/*.md. simple_pendulum and n_pendulum write
# Φ = |r|² − L² (m²; spherical_pendulum half of it); slider_crank holds the slider at θ = 0 (a
# row in rad beside its pins in m); bricard closes its chain by a point (m) and an axis
# direction (dimensionless, "1").
CONSTRAINT_UNITS = {
    "simple_pendulum": {"phi": ["m²"]},
    "n_pendulum": {"phi": ["m²"]},
    "spherical_pendulum": {"phi": ["m²"]},
    "crank_rocker": {"phi": ["m"]},
    "slider_crank": {"phi": ["m", "rad"]},
    "n_four_bar": {"phi": ["m"]},
    "andrews_squeezer": {"phi": ["m"]},
    "car_axis": {"phi": ["scaled length²"]},
    "kane_pendulum": {"phi": ["m"]},
    "bricard": {"phi": ["m", "1"]},
    "flyball_governor": {"phi": ["m"]},
    "chaplygin_sleigh": {"psi": ["m/s"]},
    "rolling_disk": {"psi": ["m/s"]},
}


def _join(units):
    return ", ".join(dict.fromkeys(units))


def _per_second(unit):
    return "1/s" if unit == "1" else f"{unit}/s"


def error_unit(problem_id, outputs=None):
    """The unit of a run's error (the max abs over its scored outputs): 'm', or the units
    listed ('m, m/s') when the outputs mix them; 'output units' for a problem not in
    OUTPUT_UNITS. `outputs` (names) narrows the table to the outputs a record scores."""
    table = OUTPUT_UNITS.get(problem_id)
    if not table:
        return "output units"
    names = [o for o in (outputs or table) if o in table] or list(table)
    return _join(table[o] for o in names)


def drift_units(problem_id):
    """(unit of max |Φ_i|, unit of max |ψ_i|) of a problem; 'constraint units' where unknown."""
    entry = CONSTRAINT_UNITS.get(problem_id)
    if not entry:
        return "constraint units", "constraint units/s"
    if "phi" in entry:
        return _join(entry["phi"]), _join(_per_second(u) for u in entry["phi"])
    return None, _join(entry["psi"])


def bracket(unit):
    """' [m]' (or '' without a unit) for an axis label."""
    return f" [{unit}]" if unit else ""
