"""Reads a model file in the declared form (see the package docstring) and checks it: every key
known, sizes coherent, every symbol declared, each expression using only what it may depend on.
The model's symbols are replaced by the generator's own (t; q[i], v[i] coordinates and speeds;
k[i] parameters), which print as the C++ arguments of the generated functions."""
import importlib.util
import math
import os
import re
from dataclasses import dataclass, field

import sympy as sm
from sympy.core.function import AppliedUndef

from ..files import InputFileError, read_text

# Whole strings (fullmatch: "$" alone would let a trailing newline through into the generated
# C++, where names appear in comments and identifiers).
ID_PATTERN = re.compile(r"[a-z][a-z0-9_]*")
NAME_PATTERN = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
MODEL_KEYS = {"id", "title", "display_name", "summary", "source", "tags", "units", "t_end",
              "coordinates", "speeds",
              "kinetic", "potential", "forces", "mass_matrix", "holonomic", "nonholonomic",
              "parameters", "constants", "time", "initial", "outputs", "energy", "reference"}
REFERENCE_KEYS = {"coordinates", "speeds", "kinetic", "potential", "forces", "mass_matrix",
                  "forcing", "initial", "outputs", "provenance", "accuracy", "tolerance"}
ANALYTIC_KEYS = {"outputs", "provenance", "accuracy"}
UNITS_KEYS = {"outputs", "holonomic", "nonholonomic"}
REQUIRED = ["id", "title", "display_name", "summary", "source", "units", "t_end", "coordinates",
            "speeds", "initial", "outputs"]
DOC_WIDTH = 97  # header lines become "// " + line within the 100-column limit

# The generator's symbols: what the generated C++ functions call their arguments.
T = sm.Symbol("t")


def arrays(name, count):
    """Symbols name[0] ... name[count − 1], as the generated C++ indexes its arrays."""
    return [sm.Symbol(f"{name}[{i}]") for i in range(count)]


class ModelError(Exception):
    """A model file that does not follow the declared form; the message says what to fix."""


@dataclass
class Parameter:
    """A declared parameter of a model: name, default, description and accepted range."""
    name: str
    default: float
    description: str
    minimum: float = float("-inf")
    maximum: float = float("inf")
    min_exclusive: bool = False


@dataclass
class Dynamics:
    """One set of equations of motion in the generator's symbols: either a Lagrangian (kinetic,
    potential, forces) or a mass matrix with its whole right-hand side (mass_matrix, forces)."""
    n: int
    kinetic: object = None
    potential: object = None
    forces: object = None      # sm.Matrix (n x 1) or None
    mass_matrix: object = None
    initial: list = field(default_factory=list)  # 2n expressions of the parameters
    outputs: object = None     # sm.Matrix, one row per output


@dataclass
class Model:
    """A model file read and checked (read_model): what the derivation and the code generator
    need."""
    path: str
    doc: str
    id: str
    title: str
    summary: str
    source: str
    tags: list
    t_end: float
    dynamics: Dynamics
    holonomic: object          # sm.Matrix (mh x 1)
    nonholonomic: object       # sm.Matrix (mn x 1)
    parameters: list
    constants: dict            # generator symbol -> value (substituted at emission)
    output_names: list
    energy: object             # sm.Expr or None
    display_name: str = ""     # how figures name the problem
    units: dict = None         # {"outputs": [(name, unit)], "holonomic": [...], "nonholonomic": [...]}
    coordinate_names: list = field(default_factory=list)
    reference: object = None   # Reference, Analytic or None


@dataclass
class Reference:
    """A model's reduced reference: its dynamics in minimal coordinates, provenance, accuracy
    and integration tolerance."""
    dynamics: Dynamics
    provenance: str
    accuracy: float
    tolerance: float
    coordinate_names: list


@dataclass
class Analytic:
    """A model's closed-form reference: its outputs as expressions of t and the parameters,
    provenance and accuracy."""
    outputs: object            # sm.Matrix, one row per output, in the model's order
    provenance: str
    accuracy: float


def load_model(path):
    """The Model declared by the file at `path` (ModelError when it does not follow the form)."""
    path = os.path.abspath(path)
    try:  # a FIFO or a device would make the import wait or read without end
        read_text(path, "model file")
    except InputFileError as error:
        raise ModelError(str(error)) from None
    name = "cmbench_model_" + re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0])
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None:
        raise ModelError(f"{path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    declared = getattr(module, "MODEL", None)
    if not isinstance(declared, dict):
        raise ModelError("the model file must define MODEL, a dict "
                         "(the declared form: python3 -m cmbench.derive -h)")
    return read_model(path, module.__doc__, declared)


def _check_keys(where, given, known, required):
    unknown = sorted(set(given) - known)
    if unknown:
        raise ModelError(f"{where}: unknown key(s) {', '.join(unknown)}; "
                         f"known: {', '.join(sorted(known))}")
    missing = [k for k in required if k not in given]
    if missing:
        raise ModelError(f"{where}: missing key(s) {', '.join(missing)}")


def _parse_range(text, name):
    """'> 0', '>= 0', '> 0, <= 3.14' -> (minimum, maximum, min_exclusive)."""
    minimum, maximum, exclusive = float("-inf"), float("inf"), False
    for part in text.split(","):
        match = re.fullmatch(r"\s*(>=|>|<=)\s*([-+0-9.eE]+)\s*", part)
        if not match:
            raise ModelError(f"parameter {name}: range '{text}' is not like '> 0', '>= 0', "
                             "'> 0, <= 1'")
        value = float(match.group(2))
        if match.group(1) == "<=":
            maximum = value
        else:
            minimum, exclusive = value, match.group(1) == ">"
    return minimum, maximum, exclusive


def _parameters(declared):
    params = []
    for symbol, spec in declared.items():
        name = str(symbol)
        if not isinstance(symbol, sm.Symbol) or not NAME_PATTERN.fullmatch(name) or name == "t_end":
            raise ModelError(f"parameter {name}: the key must be a sympy Symbol named like an "
                             "identifier (not t_end)")
        if not isinstance(spec, tuple) or len(spec) not in (2, 3):
            raise ModelError(f"parameter {name}: give (default, description) or "
                             "(default, description, range)")
        param = Parameter(name, float(spec[0]), _text(f"parameter {name} description", spec[1]))
        if not math.isfinite(param.default):
            raise ModelError(f"parameter {name}: default {param.default} is not a finite number")
        if len(spec) == 3:
            param.minimum, param.maximum, param.min_exclusive = _parse_range(spec[2], name)
        above = param.default > param.minimum or (param.default == param.minimum
                                                  and not param.min_exclusive)
        if not above or param.default > param.maximum:
            raise ModelError(f"parameter {name}: default {param.default} outside its range")
        params.append(param)
    return params


class Symbols:
    """Maps the model's symbols to the generator's and checks what each expression uses."""

    def __init__(self, time, parameters, constants):
        self.time = time
        self.base = {}
        if time is not None:
            if not isinstance(time, sm.Symbol):
                raise ModelError("time must be a sympy Symbol")
            self.base[time] = T
        self.k = arrays("k", len(parameters))
        self.base.update(dict(zip(parameters, self.k)))
        self.constants = {}
        for symbol, value in constants.items():
            if not isinstance(symbol, sm.Symbol):
                raise ModelError(f"constant {symbol}: the key must be a sympy Symbol")
            if symbol in self.base:
                raise ModelError(f"{symbol} is declared twice (constant, and parameter or time)")
            self.constants[symbol] = float(value)
        if time is not None and time in parameters:
            raise ModelError(f"{time} is declared twice (time and parameter)")

    def frame(self, coordinates, speeds):
        """A Frame converting expressions of these coordinates and speeds."""
        return Frame(self, coordinates, speeds)


class Frame:
    """The coordinates and speeds of a model with the mapping from the model's symbols to the
    generator's (t, q[i], v[i], k[i]); converts and checks the model's expressions."""
    def __init__(self, symbols, coordinates, speeds):
        coordinates, speeds = list(coordinates), list(speeds)
        if len(coordinates) != len(speeds) or not coordinates:
            raise ModelError("coordinates and speeds must be lists of the same, nonzero length")
        for s in coordinates + speeds:
            if not isinstance(s, (sm.Symbol, AppliedUndef)):
                raise ModelError(f"{s}: coordinates and speeds must be symbols or "
                                 "dynamicsymbols")
        for s in coordinates + speeds:  # their names go into the generated file's comments
            name = s.func.__name__ if isinstance(s, AppliedUndef) else str(s)
            if not NAME_PATTERN.fullmatch(name):
                raise ModelError(f"coordinate or speed {name!r}: a name like an identifier "
                                 "(letters, digits, underscores; a letter first)")
        if len(set(coordinates + speeds)) != 2 * len(coordinates):
            raise ModelError("coordinates and speeds must be distinct symbols")
        twice = [str(s) for s in coordinates + speeds
                 if s in symbols.base or s in symbols.constants]
        if twice:
            raise ModelError(f"{', '.join(twice)}: declared as coordinates or speeds and as "
                             "parameters, constants or time")
        self.n = len(coordinates)
        self.q, self.v = arrays("q", self.n), arrays("v", self.n)
        # Time derivatives of dynamicsymbol coordinates are the speeds.
        self.derivatives = {}
        for c, s in zip(coordinates, speeds):
            if isinstance(c, AppliedUndef):
                self.derivatives[c.diff(c.args[0])] = s
        self.mapping = dict(symbols.base)
        self.mapping.update(dict(zip(coordinates, self.q)))
        self.mapping.update(dict(zip(speeds, self.v)))
        self.constants = symbols.constants
        self.k = symbols.k
        self.coordinates, self.speeds = coordinates, speeds
        self.names = [c.func.__name__ if isinstance(c, AppliedUndef) else str(c)
                      for c in coordinates]

    def convert(self, expr, where, allowed):
        """expr in the generator's symbols; `allowed` names what it may use among 't', 'q', 'v',
        'k' (parameters; constants are always allowed)."""
        try:
            expr = sm.sympify(expr)
        except (sm.SympifyError, TypeError) as error:
            raise ModelError(f"{where}: not a sympy expression ({error})")
        if self.derivatives:
            expr = expr.subs(self.derivatives)
        if expr.atoms(sm.Derivative):
            raise ModelError(f"{where}: time derivatives other than q̇ = speeds "
                             f"({expr.atoms(sm.Derivative)})")
        expr = expr.xreplace(self.mapping)
        known = self.generator_symbols()
        leftover = [s for s in expr.free_symbols if s not in self.constants and s not in known]
        functions = expr.atoms(AppliedUndef)
        if leftover or functions:
            names = sorted(str(s) for s in list(leftover) + list(functions))
            raise ModelError(f"{where}: undeclared symbol(s) {', '.join(names)} (declare them as "
                             "coordinates, speeds, parameters, constants or time)")
        groups = {"t": ("time", [T]), "q": ("the coordinates", self.q),
                  "v": ("the speeds", self.v), "k": ("the parameters", self.k)}
        for key, (what, members) in groups.items():
            if key not in allowed and expr.has(*members):
                raise ModelError(f"{where}: may not depend on {what}")
        return expr

    def generator_symbols(self):
        """The generator's free symbols: t, q[i], v[i] and the parameters k[i]."""
        return set([T] + self.q + self.v + self.k)

    def matrix(self, exprs, where, allowed, rows=None):
        """The expressions as a column in the generator's symbols (see convert), checked to have
        `rows` entries when given; ModelError naming `where` otherwise."""
        if isinstance(exprs, sm.MatrixBase):
            exprs = list(exprs)
        exprs = list(exprs)
        if rows is not None and len(exprs) != rows:
            raise ModelError(f"{where}: {len(exprs)} entries, expected {rows}")
        converted = [self.convert(e, f"{where}[{i}]", allowed) for i, e in enumerate(exprs)]
        return sm.Matrix(len(converted), 1, converted)

    def initial(self, declared, where):
        """The initial state q(0), v(0) from a dict coordinate or speed -> value (parameters
        allowed); ModelError naming `where` when one is missing or not a constant expression."""
        if not isinstance(declared, dict):
            raise ModelError(f"{where}: a dict coordinate or speed -> value")
        values = []
        for s in self.coordinates + self.speeds:
            if s not in declared:
                raise ModelError(f"{where}: no value for {s}")
            values.append(self.convert(declared[s], f"{where}[{s}]", "k"))
        extra = [str(s) for s in declared if s not in self.coordinates + self.speeds]
        if extra:
            raise ModelError(f"{where}: {', '.join(extra)} are not coordinates or speeds")
        return values


def _dynamics(frame, declared, where, force_key):
    """The equations of motion of `declared` (MODEL or its reference) in frame's symbols."""
    n = frame.n
    lagrangian = "kinetic" in declared
    direct = "mass_matrix" in declared
    if lagrangian == direct:
        raise ModelError(f"{where}: give either kinetic (and optionally potential) or mass_matrix")
    dyn = Dynamics(n)
    if lagrangian:
        if force_key == "forcing" and "forcing" in declared:
            raise ModelError(f"{where}: forcing goes with mass_matrix; with kinetic, use forces")
        dyn.kinetic = frame.convert(declared["kinetic"], f"{where} kinetic", "tqvk")
        dyn.potential = frame.convert(declared.get("potential", 0), f"{where} potential", "tqk")
        if declared.get("forces") is not None:
            dyn.forces = frame.matrix(declared["forces"], f"{where} forces", "tqvk", n)
    else:
        rows = declared["mass_matrix"]
        matrix = sm.Matrix(rows)
        if matrix.shape != (n, n):
            raise ModelError(f"{where} mass_matrix: shape {matrix.shape}, expected ({n}, {n})")
        dyn.mass_matrix = frame.matrix(list(matrix), f"{where} mass_matrix", "tqk").reshape(n, n)
        if force_key not in declared:
            raise ModelError(f"{where}: mass_matrix needs {force_key}, the whole right-hand side")
        dyn.forces = frame.matrix(declared[force_key], f"{where} {force_key}", "tqvk", n)
        if force_key == "forcing" and "forces" in declared:
            raise ModelError(f"{where}: with mass_matrix the right-hand side is forcing, "
                             "not forces")
    dyn.initial = frame.initial(declared["initial"], f"{where} initial")
    return dyn


def _doc(doc, model_id):
    if not doc or not doc.strip():
        raise ModelError("the model file needs a docstring: the problem's header block")
    lines = doc.strip("\n").splitlines()
    if not lines[0].startswith(model_id + " — "):
        raise ModelError(f"the docstring's first line must read '{model_id} — <one-line summary>'")
    for number, line in enumerate(lines, 1):
        if len(line.rstrip()) > DOC_WIDTH:
            raise ModelError(f"docstring line {number} is longer than {DOC_WIDTH} characters")
    return "\n".join(line.rstrip() for line in lines)


def read_model(path, doc, declared):
    """The Model of a model file: `declared` is its MODEL dict, `doc` its docstring, `path` the
    file; every key, symbol and expression checked (ModelError saying what to fix)."""
    _check_keys("MODEL", declared, MODEL_KEYS, REQUIRED)
    model_id = declared["id"]
    if not isinstance(model_id, str) or not ID_PATTERN.fullmatch(model_id):
        raise ModelError(f"id {model_id!r}: lower-case letters, digits and underscores, starting "
                         "with a letter")
    params = _parameters(declared.get("parameters", {}))
    symbols = Symbols(declared.get("time"), list(declared.get("parameters", {})),
                      declared.get("constants", {}))
    frame = symbols.frame(declared["coordinates"], declared["speeds"])
    dynamics = _dynamics(frame, declared, "MODEL", "forces")
    holonomic = frame.matrix(declared.get("holonomic", []), "holonomic", "tqk")
    nonholonomic = frame.matrix(declared.get("nonholonomic", []), "nonholonomic", "tqvk")
    if holonomic.rows + nonholonomic.rows == 0:
        raise ModelError("a model needs at least one holonomic or nonholonomic row")
    outputs = declared["outputs"]
    if not isinstance(outputs, dict) or not outputs:
        raise ModelError("outputs: a dict name -> expression, at least one")
    for name in outputs:
        if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
            raise ModelError(f"output {name!r}: a name like an identifier")
    dynamics.outputs = frame.matrix(list(outputs.values()), "outputs", "tqvk")
    energy = declared.get("energy")
    if energy is not None:
        energy = frame.convert(energy, "energy", "tqvk")
    display_name = declared["display_name"]
    if not isinstance(display_name, str) or not display_name.strip():
        raise ModelError("display_name: a non-empty string (how figures name the problem)")
    _text("display_name", display_name)
    units = _units(declared["units"], list(outputs), holonomic.rows, nonholonomic.rows)
    texts = {key: _text(key, declared[key]) for key in ("title", "summary", "source")}
    t_end = float(declared["t_end"])
    if not math.isfinite(t_end) or t_end <= 0:
        raise ModelError(f"t_end {t_end}: a finite, positive time")
    model = Model(path=path, doc=_doc(doc, model_id), id=model_id, title=texts["title"],
                  summary=texts["summary"], source=texts["source"],
                  tags=[_text("tags", tag) for tag in declared.get("tags", [])],
                  t_end=t_end, dynamics=dynamics, holonomic=holonomic,
                  nonholonomic=nonholonomic, parameters=params, constants=symbols.constants,
                  output_names=list(outputs), energy=energy, display_name=display_name,
                  units=units, coordinate_names=frame.names)
    if declared.get("reference") is not None:
        model.reference = _reference(symbols, frame, declared["reference"], model.output_names)
    return model


def _text(key, value):
    """A text of the model (title, summary, ...) as the generated C++ holds it: any characters
    but NUL (a C++ string literal would end there) and lone surrogates (not UTF-8)."""
    text = str(value)
    if "\0" in text:
        raise ModelError(f"{key}: contains a NUL character")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise ModelError(f"{key}: character {error.start} is not Unicode text (a lone "
                         "surrogate)") from None
    return text


def _unit_list(declared, key, rows):
    """The units of a kind of constraint row: a non-empty list of non-empty strings exactly when
    the model has such rows."""
    units = declared.get(key, [])
    if not isinstance(units, (list, tuple)) or not all(isinstance(u, str) and u for u in units):
        raise ModelError(f"units {key}: a list of unit strings, e.g. [\"m\"] or [\"m\", \"rad\"]")
    if rows and not units:
        raise ModelError(f"units {key}: the model has {rows} {key} row(s); give their units")
    for unit in units:
        _text(f"units {key}", unit)
    if units and not rows:
        raise ModelError(f"units {key}: the model has no {key} rows; leave it out")
    return list(units)


def _units(declared, output_names, mh, mn):
    """The units figures label the problem's axes with: one per output, and those of its
    holonomic and nonholonomic rows."""
    if not isinstance(declared, dict):
        raise ModelError("units: a dict with outputs (name -> unit) and, for its rows, holonomic "
                         "and nonholonomic (lists of units)")
    _check_keys("units", declared, UNITS_KEYS, ["outputs"])
    outputs = declared["outputs"]
    if not isinstance(outputs, dict) or set(outputs) != set(output_names):
        given = sorted(outputs) if isinstance(outputs, dict) else outputs
        raise ModelError(f"units outputs: a dict with a unit for each output {output_names}, "
                         f"not {given}")
    bad = [name for name, unit in outputs.items() if not isinstance(unit, str) or not unit]
    if bad:
        raise ModelError(f"units outputs: {', '.join(bad)}: a unit is a non-empty string "
                         "(\"1\" for a number)")
    for unit in outputs.values():
        _text("units outputs", unit)
    return {"outputs": [(name, outputs[name]) for name in output_names],
            "holonomic": _unit_list(declared, "holonomic", mh),
            "nonholonomic": _unit_list(declared, "nonholonomic", mn)}


def _analytic(frame, declared, output_names):
    if not isinstance(declared, dict):
        raise ModelError("reference analytic: a dict with outputs, provenance and accuracy")
    _check_keys("reference analytic", declared, ANALYTIC_KEYS, sorted(ANALYTIC_KEYS))
    outputs = declared["outputs"]
    if not isinstance(outputs, dict) or list(outputs) != output_names:
        raise ModelError("reference analytic outputs: a dict with the model's output names in "
                         f"order, {output_names}")
    matrix = frame.matrix(list(outputs.values()), "reference analytic outputs", "tk")
    return Analytic(matrix, str(declared["provenance"]), float(declared["accuracy"]))


def _reference(symbols, model_frame, declared, output_names):
    if not isinstance(declared, dict):
        raise ModelError("reference: a dict (or omit it for a self-converged reference)")
    if "analytic" in declared:
        if len(declared) != 1:
            raise ModelError("reference: analytic stands alone (a closed form needs no reduced "
                             f"model); remove {', '.join(sorted(set(declared) - {'analytic'}))}")
        return _analytic(model_frame, declared["analytic"], output_names)
    _check_keys("reference", declared, REFERENCE_KEYS,
                ["coordinates", "speeds", "initial", "outputs", "provenance", "accuracy"])
    frame = symbols.frame(declared["coordinates"], declared["speeds"])
    dynamics = _dynamics(frame, declared, "reference", "forcing")
    outputs = declared["outputs"]
    if not isinstance(outputs, dict) or list(outputs) != output_names:
        raise ModelError("reference outputs: a dict with the model's output names in order, "
                         f"{output_names}")
    dynamics.outputs = frame.matrix(list(outputs.values()), "reference outputs", "tqvk")
    return Reference(dynamics, str(declared["provenance"]), float(declared["accuracy"]),
                     float(declared.get("tolerance", 1e-13)), frame.names)
