"""Display names and units of the ids in figures: `index1` is drawn as "Index-1 KKT",
`dopri5` as "Dormand–Prince 5(4)", `n_four_bar(N=4)` as "N-four-bar (N = 4)".

    from cmbench import names
    names.method("udwadia_kalaba")          # 'Udwadia–Kalaba'
    names.override({"methods": {"index1": "KKT"}})      # or a flat {"index1": "KKT"}
    names.load_overrides("names.json")                  # the same, from a JSON file

The names and units are those each entry declares in its own file (MethodEntry::display_name,
ProblemEntry::units, ...), read from python/cmbench/entries.json, which
`python3 -m cmbench.docs.entry_names --write` (scripts/regenerate_docs.sh) writes from
`cmbench list --json`. An id the file does not know (an entry of a program built outside the
tree) is shown as the id itself.

Overrides replace or add names for the rest of the process, or within
`with names.overriding(dict_or_path):` (the report's `--names FILE`, `report.build(...,
display_names=...)`); `names.reset()` drops them. An override file is a JSON object, either
sectioned {"methods": {...}, "problems": {...}, "steppers": {...}, "params": {...}} or flat
{id: name} (a flat entry applies to that id in every section), or what `cmbench list --json`
prints: a program built outside the tree lists its own entries with their display names.

Units: the figures label their axes with the units of what they draw. A problem's outputs and
constraint rows carry units (its entry's `units`); OUTPUT_UNITS and CONSTRAINT_UNITS hold them
per problem id, and error_unit / drift_units turn them into axis labels ("m", "m, rad", or
"output units" for a problem not in the file).
"""
import contextlib
import os

from .files import InputFileError, read_json


def _entries():
    """python/cmbench/entries.json: what the catalog entries declare (cmbench.docs.entry_names)."""
    return read_json(os.path.join(os.path.dirname(os.path.abspath(__file__)), "entries.json"),
                     "the catalog's display names and units")


_ENTRIES = _entries()
METHODS = {**_ENTRIES["methods"], **_ENTRIES["integrators"]}
# The method ids above that are DAE integrators: they step themselves (stepper "dae").
INTEGRATORS = tuple(sorted(_ENTRIES["integrators"]))
PROBLEMS = dict(_ENTRIES["problems"])
STEPPERS = {**_ENTRIES["steppers"], "dae": "DAE integrators"}

# Parameters as they appear in variant and problem labels (results.variant_label already
# writes the Greek gains).
PARAMS = {"alpha": "α", "beta": "β", "omega0": "ω₀", "zeta": "ζ", "theta0_deg": "θ₀ [°]"}

SECTIONS = {"methods": METHODS, "problems": PROBLEMS, "steppers": STEPPERS, "params": PARAMS}
_overrides = {section: {} for section in SECTIONS}
# Units of problems a catalog override brought (a program built outside the tree): id -> units.
_unit_overrides = {}


def reset():
    """Drops every override."""
    for table in _overrides.values():
        table.clear()
    _unit_overrides.clear()


def override(mapping):
    """Adds display names: a sectioned {"methods": {id: name}, ...}, a flat {id: name} (applies
    in every section) or a catalog as `cmbench list --json` prints it (its entries' display
    names). Raises ValueError on anything else, naming the entry."""
    if not isinstance(mapping, dict):
        raise ValueError(f"names must be a JSON object, not {type(mapping).__name__}")
    if mapping.get("schema") == CATALOG_SCHEMA:
        catalog, mapping = mapping, catalog_names(mapping)  # raises before anything changes
        _unit_overrides.update(_catalog_units(catalog))
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


CATALOG_SCHEMA = "cmbench.catalog/1"


def catalog_names(catalog):
    """The sectioned names of a `cmbench list --json` document (a program built outside the tree
    lists its own entries with theirs): {"methods": {id: display_name}, "problems": ...,
    "steppers": ...}. ValueError names an entry without an id or display name."""
    sections = {"methods": ("methods", "integrators"), "problems": ("problems",),
                "steppers": ("steppers",)}
    out = {section: {} for section in sections}
    for section, kinds in sections.items():
        for kind in kinds:
            for i, entry in enumerate(catalog.get(kind) or []):
                if not (isinstance(entry, dict) and isinstance(entry.get("id"), str)
                        and isinstance(entry.get("display_name"), str)):
                    raise ValueError(f"{kind}[{i}]: a catalog entry needs a string id and "
                                     "display_name")
                out[section][entry["id"]] = entry["display_name"]
    return out


def _catalog_units(catalog):
    """{problem id: {"outputs", "holonomic", "nonholonomic"}} of a catalog's problems."""
    out = {}
    for entry in catalog.get("problems") or []:
        units = entry.get("units") if isinstance(entry, dict) else None
        if isinstance(units, dict) and isinstance(units.get("outputs"), dict):
            out[entry.get("id")] = {"outputs": units["outputs"],
                                    "holonomic": list(units.get("holonomic") or []),
                                    "nonholonomic": list(units.get("nonholonomic") or [])}
    return out


@contextlib.contextmanager
def overriding(names_or_path):
    """Overrides (a dict as override() takes, or the path of a JSON file) for the duration of
    a with block; the previous names are restored after it."""
    saved = {section: dict(table) for section, table in _overrides.items()}
    saved_units = dict(_unit_overrides)
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
        _unit_overrides.clear()
        _unit_overrides.update(saved_units)


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
# Per problem id, as its entry declares them (ProblemEntry::units): the unit of each scored output
# (metrics.error.outputs), and of its constraint rows, holonomic Φ ("phi"; the velocity residual
# ψ = J v − ν then has that unit per second) or, without holonomic rows, nonholonomic ψ ("psi").
OUTPUT_UNITS = {id_: dict(units["outputs"]) for id_, units in _ENTRIES["units"].items()}
CONSTRAINT_UNITS = {
    id_: {"phi": list(units["holonomic"])} if units["holonomic"]
    else {"psi": list(units["nonholonomic"])}
    for id_, units in _ENTRIES["units"].items()
    if units["holonomic"] or units["nonholonomic"]}


def output_units(problem_id):
    """{output name: unit} of a problem (a catalog override's first), or None when unknown."""
    if problem_id in _unit_overrides:
        return _unit_overrides[problem_id]["outputs"]
    return OUTPUT_UNITS.get(problem_id)


def _constraint_units(problem_id):
    units = _unit_overrides.get(problem_id)
    if units is None:
        return CONSTRAINT_UNITS.get(problem_id)
    if units["holonomic"]:
        return {"phi": units["holonomic"]}
    return {"psi": units["nonholonomic"]} if units["nonholonomic"] else None


def _join(units):
    return ", ".join(dict.fromkeys(units))


def _per_second(unit):
    return "1/s" if unit == "1" else f"{unit}/s"


def error_unit(problem_id, outputs=None):
    """The unit of a run's error (the max abs over its scored outputs): 'm', or the units
    listed ('m, m/s') when the outputs mix them; 'output units' for a problem not in
    OUTPUT_UNITS. `outputs` (names) narrows the table to the outputs a record scores."""
    table = output_units(problem_id)
    if not table:
        return "output units"
    names = [o for o in (outputs or table) if o in table] or list(table)
    return _join(table[o] for o in names)


def drift_units(problem_id):
    """(unit of max |Φ_i|, unit of max |ψ_i|) of a problem; 'constraint units' where unknown."""
    entry = _constraint_units(problem_id)
    if not entry:
        return "constraint units", "constraint units/s"
    if "phi" in entry:
        return _join(entry["phi"]), _join(_per_second(u) for u in entry["phi"])
    return None, _join(entry["psi"])


def bracket(unit):
    """' [m]' (or '' without a unit) for an axis label."""
    return f" [{unit}]" if unit else ""
