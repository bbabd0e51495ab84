"""Loading cmbench result sets: run records, flat rows and sampled series.

    from cmbench import results
    records = results.load("results/default/2026-11-22_71d8b2b2d77d")
    rows = [results.flatten(r) for r in records]        # or results.frame(records)
    data = results.series(results_dir, records[0])      # {"t": array, "position_residual": ...}
    lines = results.group_series(rows)                  # runs differing only in dt or tol

A results directory holds results.json (schema cmbench.results/1), runs/<stem>.json (the same
records, one per file) and series/<stem>.csv per run; a run's series is found through the stem of
its record in runs/ (or, without runs/, the stem the runner derives from the run key). A
campaign's or merge's directory also holds the store these were exported from (results.db,
cmbench.store): results.json is then read only when the store says it is its complete export,
and series are read from the store, each checked against its digest.

What is read is checked against that contract (docs/json_schema.md) as it is loaded: a results
directory that cannot be used at all raises InputFileError ('PATH: what is wrong'; BadInput is
its older name here); a part that can be left out — a run record, a series CSV, the context
block — is left out with a BadInputWarning naming it, so that the rest can still be reported.
Files are read by cmbench.files, within its bounds (size; JSON depth, no duplicate keys).
"""
import csv
import io
import json
import math
import os
import statistics
import warnings

import numpy as np

from . import store
from .files import InputFileError, parse_json, read_json, read_text

__all__ = ["load", "load_doc", "flatten", "frame", "series", "series_path", "identity",
           "sweep_key", "case_key", "variant_label", "readable", "param_text", "key_number",
           "group_series", "case_labels", "read_series", "parse_series", "record_problem",
           "InputFileError", "BadInput", "BadInputWarning"]


# --- checking what is read --------------------------------------------------------------------

# The name this module gave the error before every reader shared cmbench.files' one.
BadInput = InputFileError


class BadInputWarning(UserWarning):
    """A part of a results directory left out (str(): 'PATH: what is wrong; what was done')."""


_WARNED = set()


def _warn(message):
    """A BadInputWarning, once per message (several figures may read the same series)."""
    if message not in _WARNED:
        _WARNED.add(message)
        warnings.warn(message, BadInputWarning, stacklevel=2)


NUMBER, STRING, OBJECT, LIST = "a number", "a string", "an object", "a list"
# Counters and sizes: what the C++ reader takes (a whole number a 64-bit counter holds).
COUNT = "an integer from 0 to 2^63-1"
SIZE = "an integer from 1 to 2^63-1"  # a model has at least one coordinate


def _kind(value):
    """The JSON kind of a parsed value, as the messages name it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return NUMBER
    return {str: STRING, dict: OBJECT, list: LIST}.get(type(value), type(value).__name__)


class Required:
    """A field that must be present and not null (other fields may be missing or null)."""

    def __init__(self, shape):
        self.shape = shape


class Each:
    """An object whose every value has `shape` (e.g. metrics.error.outputs by output name)."""

    def __init__(self, shape):
        self.shape = shape


def _numbers(*names):
    return {name: NUMBER for name in names}


def _counts(*names):
    return {name: COUNT for name in names}


def _is_count(value, least=0):
    """An integer as JSON writes one (7, not 7.0 or 7e0), as the C++ reader wants it."""
    return isinstance(value, int) and not isinstance(value, bool) and least <= value < 2**63


# What flatten() and the figures read from a run record (docs/json_schema.md): a shape is a kind,
# a dict of fields, Each or Required. Fields not listed are not read and not checked. A run that
# stopped before integrating (unsupported, invalid_input) has no metrics, work or timing.
RUN_RECORD = {
    "key": Required(STRING),
    "status": Required(STRING),
    "message": STRING,
    "t_end": NUMBER,
    "t_reached": NUMBER,
    "problem": Required({"id": Required(STRING), "params": OBJECT,
                         "sizes": {"nq": SIZE, **_counts("mh", "mn")}}),
    "method": Required({"id": Required(STRING),
                        "params": _numbers("alpha", "beta", "omega0", "zeta", "baumgarte_alpha",
                                           "baumgarte_beta")}),
    "stepper": Required({"id": Required(STRING), "kind": Required(STRING),
                         **_numbers("order", "dt", "abs_tol", "rel_tol", "max_dt")}),
    "reference": {"kind": STRING, "accuracy": NUMBER},
    "initial": {"assembly": STRING, "perturbation": _numbers("position", "velocity")},
    "metrics": {
        "error": {**_numbers("final_abs_max", "final_rel_max", "max_abs", "scd"),
                  "outputs": Each(_numbers("final_reference"))},
        "drift": {"position": _numbers("max", "final"), "velocity": _numbers("max", "final")},
        "energy": _numbers("E0", "max_abs", "max_rel")},
    "samples": COUNT,
    "work": _counts("rhs_calls", "steps_accepted", "steps_rejected", "jacobian_evaluations",
                    "stepper_resets", "method_rejections"),
    "timing": {"repetitions": COUNT,
               **_numbers("min_s", "median_s", "instrumented_s", "max_s", "cpu_min_s",
                          "cpu_median_s", "cpu_max_s", "spread", "cpu_spread", "total_s")},
}

# The optional parts of results.json the report shows: a malformed one is ignored.
DOC_PARTS = {"context": {"libraries": OBJECT}, "shard": _numbers("index", "count")}


def _shape_problem(value, shape, name):
    """What is wrong with `value`, the field `name`, against `shape`; None when nothing."""
    if isinstance(shape, (dict, Each)) and not isinstance(value, dict):
        return f"'{name}' must be an object, not {_kind(value)}"
    if isinstance(shape, dict):
        return next(filter(None, (_field_problem(value, field, sub, f"{name}.{field}")
                                  for field, sub in shape.items())), None)
    if isinstance(shape, Each):
        return next(filter(None, (_shape_problem(v, shape.shape, f"{name}.{k}")
                                  for k, v in value.items() if v is not None)), None)
    if shape in (COUNT, SIZE):
        ok = _is_count(value, 1 if shape == SIZE else 0)
        return None if ok else f"'{name}' must be {shape}, not {value!r}"
    return None if _kind(value) == shape else f"'{name}' must be {shape}, not {_kind(value)}"


def _field_problem(parent, field, shape, name):
    """What is wrong with parent[field] (missing or null allowed unless Required); None when
    nothing."""
    required = isinstance(shape, Required)
    shape = shape.shape if required else shape
    value = parent.get(field)
    if value is None:
        return (f"'{name}' is {'null' if field in parent else 'missing'}") if required else None
    return _shape_problem(value, shape, name)


def record_problem(record):
    """What makes a run record unusable (the first problem found), or None."""
    if not isinstance(record, dict):
        return f"a run must be an object, not {_kind(record)}"
    problem = next(filter(None, (_field_problem(record, field, shape, field)
                                 for field, shape in RUN_RECORD.items())), None)
    if problem is None and record["status"] == "ok" and record.get("metrics") is None:
        problem = "an ok run without 'metrics'"
    return problem


def _run_label(record):
    key = record.get("key") if isinstance(record, dict) else None
    return f" ({key})" if isinstance(key, str) else ""


def _usable_runs(labelled):
    """The records of [(label, record)] that record_problem accepts; the others are left out
    with a warning naming them."""
    good = []
    for label, record in labelled:
        problem = record_problem(record)
        if problem:
            _warn(f"{label}{_run_label(record)}: {problem}; run left out")
        else:
            good.append(record)
    return good


def _check_doc(doc, path):
    """results.json: an object whose 'runs' is a list (else InputFileError); a malformed optional
    part (DOC_PARTS) is set to None with a warning."""
    if not isinstance(doc, dict):
        raise InputFileError(path, f"must be a JSON object, not {_kind(doc)}")
    if not isinstance(doc.get("runs"), list):
        raise InputFileError(path, "'runs' must be a list" + (
            f", not {_kind(doc['runs'])}" if "runs" in doc else " (missing)"))
    for part, shape in DOC_PARTS.items():
        problem = _field_problem(doc, part, shape, part)
        if problem:
            _warn(f"{path}: {problem}; ignored")
            doc[part] = None


_RUN_FILES = {}


def run_files(results_dir):
    """[(path, record)] of the runs/*.json of a results directory that parse as JSON, in name
    order (read once per directory; an unreadable file is left out with a warning)."""
    runs_dir = os.path.join(results_dir, "runs")
    if os.path.abspath(runs_dir) not in _RUN_FILES:
        out, names = [], []
        try:
            names = sorted(os.listdir(runs_dir)) if os.path.isdir(runs_dir) else []
        except OSError as e:
            _warn(f"{runs_dir}: cannot list: {e.strerror}; ignored")
        for name in names:
            if name.endswith(".json"):
                path = os.path.join(runs_dir, name)
                try:
                    out.append((path, read_json(path, "run record")))
                except InputFileError as bad:
                    _warn(f"{bad}; file ignored")
        _RUN_FILES[os.path.abspath(runs_dir)] = out
    return _RUN_FILES[os.path.abspath(runs_dir)]


def _doc_from_runs(results_dir):
    """The document of a directory of run files without results.json: the records of
    runs/*.json."""
    records = _usable_runs(run_files(results_dir))
    if not records:
        raise InputFileError(os.path.join(results_dir, "runs"), "no usable run record, and no "
                       "results.json")
    return {"campaign": os.path.basename(os.path.normpath(results_dir)),
            "context": records[0].get("context"), "runs": records}


def load_doc(results_dir):
    """The results document: {"campaign", "context", "runs", ...}, its runs those record_problem
    accepts (the others are left out with a warning). Beside a store (results.db), results.json
    is read only as the store's complete export (cmbench.store.check_set). Without results.json,
    a directory without a store (run files alone) gives the records of runs/*.json in key order,
    and a stored set is unfinished. InputFileError when there is nothing to report: no such
    directory, no results.json nor runs/, an unfinished, edited or damaged stored set, a
    results.json that is not JSON or whose 'runs' is not a list, or not one usable run among
    some."""
    if not os.path.isdir(results_dir):
        raise InputFileError(results_dir, "not a directory" if os.path.exists(results_dir)
                             else "no such directory")
    path = os.path.join(results_dir, "results.json")
    if os.path.exists(path):
        text = read_text(path, "result set")
        store.check_set(results_dir, text)  # beside its store, only the store's complete export
        doc = parse_json(text, path, "result set")
        _check_doc(doc, path)
        runs = doc["runs"]
        doc["runs"] = _usable_runs((f"{path}: runs[{i}]", r) for i, r in enumerate(runs))
        if runs and not doc["runs"]:
            raise InputFileError(path, f"none of its {len(runs)} runs is usable")
        return doc
    if store.has_store(results_dir):
        store.check_set(results_dir, "")  # a stored set without its export: unfinished
    if not os.path.isdir(os.path.join(results_dir, "runs")):
        raise InputFileError(results_dir,
                             "neither results.json nor runs/ (not a results directory)")
    doc = _doc_from_runs(results_dir)
    _check_doc(doc, os.path.join(results_dir, "runs"))
    return doc


def load(results_dir):
    """The run records of a results directory, in campaign order."""
    return load_doc(results_dir)["runs"]


# --- what a run is --------------------------------------------------------------------------

def identity(record):
    """What a run is, read from its record's fields (docs/json_schema.md); every grouping and
    label of a run (sweep_key, case_key, variant_label, the labels of flatten) is made from it:

      problem, method, stepper      ids
      problem_params, method_params the parameters the run was given with a value other than
                                    the default ({name: value as the record holds it})
      kind, sweep, value            'fixed', 'dt', the step | 'adaptive', 'tol', rel_tol
      abs_tol                       an adaptive run's absolute tolerance where it is not tol
                                    (else None)
      t_end                         the horizon where it is not the problem's own (else None)
      perturbation                  {"position", "velocity"} of the initial state, or None
      assembly                      'reject' or 'project'

    The run key is read (_identity_from_key) only for what a record leaves out: which
    parameters were given where the record has no `given` list (records made before it, crash
    records), a crash record's stepper settings, horizon and initial state, and the initial
    state of a run stopped before it was checked. A record that holds all of these is read
    without its key."""
    key = _KeyReader(record)
    problem, method = record.get("problem") or {}, record.get("method") or {}
    stepper = record.get("stepper") or {}
    ident = {"problem": problem.get("id"),
             "problem_params": _given_params(problem, "problem_params", key),
             "method": method.get("id"),
             "method_params": _given_params(method, "method_params", key),
             "stepper": stepper.get("id")}
    setting = _setting(stepper)
    ident.update(setting if setting else {k: key.part(k) for k in _SETTING_FIELDS})
    horizon = _horizon(record, problem)
    ident["t_end"] = key.part("t_end") if horizon is _UNKNOWN else horizon
    initial = _initial_state(record)
    ident.update(initial if initial else {k: key.part(k) for k in ("perturbation", "assembly")})
    return ident


class _KeyReader:
    """The parts of a record's identity that its run key spells, parsed on first use only."""

    def __init__(self, record):
        self._record = record
        self._parts = None

    def part(self, name):
        if self._parts is None:
            self._parts = _identity_from_key(self._record)
        return self._parts[name]

    def names_this_run(self):
        """Whether the key names this record's problem, method and stepper (a key that does
        not — damaged, or not cmbench's — says nothing about its parameters either)."""
        record = self._record
        return (self.part("problem"), self.part("method"), self.part("stepper")) == tuple(
            (record.get(block) or {}).get("id") for block in ("problem", "method", "stepper"))


def _given_params(block, field, key):
    """{name: value} of the parameters a problem or method block was given: the names its
    `given` list holds, else those its key names (_given)."""
    params = block.get("params") if isinstance(block.get("params"), dict) else {}
    names = block.get("given")
    if isinstance(names, list):
        return {name: params.get(name) for name in names}
    return _given(params, key.part(field) if key.names_this_run() else None)


_UNKNOWN = object()  # a part of the identity the record does not hold
_SETTING_FIELDS = ("kind", "sweep", "value", "abs_tol")


def _given(params, named):
    """The parameters a run was given, with the values its record holds (what ran, typed: 1.0
    where the campaign gave 1), for a record without a `given` list: its params hold the given
    and the defaulted values alike, and the defaults are those of the build that wrote it
    (udwadia_kalaba's variant was 'eig' by default, now 'cholesky'), so the names are the
    key's (`named`). Without a key that names the run (None) every parameter counts: its
    labels get long, but distinct runs never share a series."""
    params = params if isinstance(params, dict) else {}
    if named is None:
        return dict(params)
    return {name: params[name] if name in params else value for name, value in named.items()}


def _setting(stepper):
    """kind, sweep, value and abs_tol from the stepper's fields; None without a kind (a crash
    record names the stepper only)."""
    kind = stepper.get("kind")
    if kind == "fixed":
        return {"kind": kind, "sweep": "dt", "value": stepper.get("dt"), "abs_tol": None}
    if kind == "adaptive":
        rel, absolute = stepper.get("rel_tol"), stepper.get("abs_tol")
        return {"kind": kind, "sweep": "tol", "value": rel,
                "abs_tol": absolute if absolute != rel else None}
    return None


def _horizon(record, problem):
    """The run's horizon where it is not the problem's own t_end parameter (None there: the
    problem's case; a key spells a horizon given equal to it, the fields cannot); _UNKNOWN
    without one (a crash record)."""
    t_end = record.get("t_end")
    if t_end is None:
        return _UNKNOWN
    params = problem.get("params")
    own = params.get("t_end") if isinstance(params, dict) else None
    return None if t_end == own else t_end


def _initial_state(record):
    """perturbation and assembly from the record's initial block; None without one (the run
    stopped before its initial state was checked, or crashed)."""
    initial = record.get("initial")
    if not isinstance(initial, dict) or initial.get("assembly") is None:
        return None
    offset = initial.get("perturbation")
    perturbation = ({"position": offset.get("position"), "velocity": offset.get("velocity")}
                    if isinstance(offset, dict) else None)
    return {"perturbation": perturbation, "assembly": initial["assembly"]}


# --- the run key: only for what the fields cannot tell ----------------------------------------

def _identity_from_key(record):
    """The identity (as identity() returns it) that the record's run key spells — the key as
    harness/run/prepare_run.cpp (run_key) builds it, problem[p=1]/method[a=1]/stepper/dt=…|tol=…
    [,atol=…][/t_end=…][/perturb=p…,v…][/assembly=…] (no '/' inside the brackets splits).
    The only reader of run keys: identity() falls back on it for what a record does not hold,
    and the tests check that the two agree on every committed run."""
    parts = _key_parts(record.get("key") or "")
    problem, problem_params = _parse_segment(parts["problem"])
    method, method_params = _parse_segment(parts["method"])
    sweep, _, value = parts["swept"].partition("=")
    extras = dict(e.partition("=")[::2] for e in parts["extras"])
    return {"problem": problem, "problem_params": problem_params,
            "method": method, "method_params": method_params, "stepper": parts["stepper"],
            "kind": {"dt": "fixed", "tol": "adaptive"}.get(sweep), "sweep": sweep or None,
            "value": _key_float(value), "abs_tol": _key_float(parts["held"].partition("atol=")[2]),
            "t_end": _key_float(extras.get("t_end")),
            "perturbation": _key_perturbation(extras.get("perturb")),
            "assembly": extras.get("assembly", "reject")}


def _split_key(key):
    """'problem[p]/method[a=1]/stepper/dt=0.001/t_end=2' -> its '/'-separated segments
    (a '/' inside brackets does not split)."""
    parts, depth, current = [], 0, []
    for ch in key:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth = max(0, depth - 1)
        if ch == "/" and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    parts.append("".join(current))
    return parts


_SETTING_PREFIXES = ("dt=", "tol=")


def _key_parts(key):
    """{"problem", "method", "stepper" (segments), "swept" ('dt=0.001' or 'tol=1e-06'), "held"
    (the rest of the setting segment: ',atol=…' or ''), "extras" (the segments after it)}."""
    segments = _split_key(key)
    at = next((i for i, s in enumerate(segments) if s.startswith(_SETTING_PREFIXES)),
              len(segments))
    head = (segments[:at] + ["", "", ""])[:3]
    swept, _, held = (segments[at] if at < len(segments) else "").partition(",")
    return {"problem": head[0], "method": head[1], "stepper": head[2], "swept": swept,
            "held": "," + held if held else "", "extras": segments[at + 1:]}


def _parse_segment(segment):
    """'baumgarte[alpha=10][variant="eig"]' -> ('baumgarte', {'alpha': 10, 'variant': 'eig'})
    (values are JSON; one that is not stays text)."""
    head, _, rest = segment.partition("[")
    params = {}
    for item in rest[:-1].split("][") if rest.endswith("]") else []:
        name, _, text = item.partition("=")
        try:
            params[name] = json.loads(text)
        except ValueError:
            params[name] = text
    return head, params


def _key_float(text):
    try:
        return float(text) if text else None
    except ValueError:
        return None


def _key_perturbation(text):
    """'p0.001,v0' -> {'position': 0.001, 'velocity': 0.0}; None without the segment."""
    if text is None:
        return None
    position, _, velocity = text.partition(",")
    return {"position": _key_float(position[1:]), "velocity": _key_float(velocity[1:])}


# --- names made from an identity ----------------------------------------------------------------

def key_number(value):
    """A number as run keys spell dt, tol, t_end and perturbations (format_number in
    harness/run/prepare_run.cpp): the shortest of 6..17 significant digits that reads back as the
    same double."""
    for digits in range(6, 18):
        text = f"{value:.{digits}g}"
        if float(text) == value:
            break
    return text


def param_text(value):
    """A parameter value as a label shows it: JSON, an integral number without '.0' (records
    hold 10.0 where a campaign gave 10, which its key spells '10'), a string without quotes."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e16:
        return str(int(value))
    return json.dumps(value, ensure_ascii=False).strip('"')


def _param_json(value):
    """param_text with a string's JSON quotes (as in keys: variant="eig")."""
    return json.dumps(value, ensure_ascii=False) if isinstance(value, str) else param_text(value)


def _segment(name, params):
    """'baumgarte[alpha=10][beta=20]': the id with its given parameters, by name as in keys."""
    return name + "".join(f"[{k}={_param_json(v)}]" for k, v in sorted(params.items()))


def readable(name, params):
    """'baumgarte(alpha=10, beta=20)' for baumgarte with those given parameters; the id alone
    without any."""
    if not params:
        return name
    return f"{name}({', '.join(f'{k}={_param_json(v)}' for k, v in sorted(params.items()))})"


def _extras(ident):
    """What a case adds to its problem, as key segments: ['t_end=2', 'perturb=p0.001,v0',
    'assembly=project'], each where it departs from the problem's own."""
    out = []
    if ident["t_end"] is not None:
        out.append(f"t_end={key_number(ident['t_end'])}")
    if ident["perturbation"] is not None:
        p = ident["perturbation"]
        out.append(f"perturb=p{key_number(p['position'])},v{key_number(p['velocity'])}")
    if ident["assembly"] not in (None, "reject"):
        out.append(f"assembly={ident['assembly']}")
    return out


def sweep_key(ident):
    """The identity of the series a run (its identity()) belongs to, spelled as its run key
    with the swept value (dt of a fixed-step stepper, tol of an adaptive one) replaced by '*'.
    Everything else — problem and method with their given parameters, stepper, a fixed atol,
    t_end, perturbation, assembly — stays, so two runs share a series only when they differ in
    dt or tol alone."""
    swept = f"{ident['sweep']}=*" if ident["sweep"] else ""
    held = f",atol={key_number(ident['abs_tol'])}" if ident["abs_tol"] is not None else ""
    return "/".join([_segment(ident["problem"], ident["problem_params"]),
                     _segment(ident["method"], ident["method_params"]), ident["stepper"] or "",
                     swept + held] + _extras(ident))


def case_key(ident):
    """What a panel holds fixed: the problem instance and the initial condition and horizon
    of its runs (problem[params] plus the t_end, perturb and assembly segments of its key)."""
    return "/".join([_segment(ident["problem"], ident["problem_params"])] + _extras(ident))


GREEK = {"alpha": "α", "beta": "β", "omega0": "ω₀", "zeta": "ζ"}


def variant_label(ident):
    """'baumgarte α=10 β=20': the method with its given parameters."""
    return " ".join([ident["method"]] + [f"{GREEK.get(k, k)}={param_text(v)}"
                                         for k, v in sorted(ident["method_params"].items())])


def _describe_perturbation(perturbation):
    """'perturbed p=0.001' (w for a velocity perturbation, as in docs/report.md)."""
    parts = [f"{name}={text}" for name, text in
             (("p", key_number(perturbation["position"])),
              ("w", key_number(perturbation["velocity"]))) if text != "0"]
    return "perturbed " + ", ".join(parts)


def _describe_case(row, kind):
    """How a case differs from its siblings in `kind` (t_end, perturb or assembly); the record
    supplies the values its identity leaves out (the problem's default horizon, assembly
    'reject')."""
    ident = row["identity"]
    if kind == "t_end":
        t_end = row["t_end"] if row["t_end"] is not None else ident["t_end"]
        return f"t_end={t_end:g}" if t_end is not None else "the problem's t_end"
    if kind == "assembly":
        return f"assembly={row['assembly'] or ident['assembly']}"
    perturbation = ident["perturbation"]
    return _describe_perturbation(perturbation) if perturbation else "unperturbed"


def case_labels(rows):
    """{case key: label} in campaign order. A label is the problem label plus whatever tells
    the problem's cases apart (the t_end, perturbation or assembly that differ among them,
    'unperturbed' for the case without a perturbation); a problem with one case keeps its
    plain label."""
    cases = {}
    for r in rows:
        extras = {e.partition("=")[0]: e for e in _extras(r["identity"])}
        cases.setdefault(r["case_key"], (r, extras))
    siblings = {}
    for r, extras in cases.values():
        siblings.setdefault(r["problem_label"], []).append(extras)
    labels = {}
    for case, (r, extras) in cases.items():
        mine = siblings[r["problem_label"]]
        varying = [k for k in ("t_end", "perturb", "assembly")
                   if len({e.get(k) for e in mine}) > 1]
        labels[case] = ", ".join([r["problem_label"]] + [_describe_case(r, k) for k in varying])
    return labels


def _swept_value(row):
    value = row["dt"] if row["kind"] == "fixed" else row["tol"]
    return math.inf if value is None else value


def group_series(rows):
    """The series of a result set: runs that differ only in the swept dt (fixed-step) or tol
    (adaptive), i.e. that share sweep_key. [{"key", "case", "case_label", "variant" (method
    with its parameters), "method", "stepper", "kind", "order", "runs" (every status, by
    increasing dt or tol)}] in campaign order. Every figure and table that draws or fits a
    series takes it from here, so parameter variants, perturbed and unperturbed runs, other
    horizons or assembly options never merge into one line."""
    labels = case_labels(rows)
    groups = {}
    for r in rows:
        groups.setdefault(r["series_key"], []).append(r)
    out = []
    for key, runs in groups.items():
        first = runs[0]
        out.append({"key": key, "case": first["case_key"], "case_label": labels[first["case_key"]],
                    "variant": first["variant_label"], "method": first["method"],
                    "stepper": first["stepper"], "kind": first["kind"], "order": first["order"],
                    "runs": sorted(runs, key=_swept_value)})
    return out


def _stems_from_runs(results_dir):
    """key -> stem from the records in runs/ (run_files)."""
    return {record["key"]: os.path.basename(path)[:-5] for path, record in run_files(results_dir)
            if isinstance(record, dict) and isinstance(record.get("key"), str)}


def series_path(results_dir, record):
    """Path of a run's series CSV, or None when the results set has none. The campaign runner
    writes the run's file names into its record ("files"); result sets written before it did are
    matched through the stem of the run's record in runs/. `record` may be a run record or a row
    of flatten()."""
    stem_path = (record.get("files") or {}).get("series")
    if not stem_path:
        stem = _stems_from_runs(results_dir).get(record["key"])
        stem_path = stem and os.path.join("series", stem + ".csv")
    if stem_path:
        path = os.path.join(results_dir, stem_path)
        if os.path.exists(path):
            return path
    return None


def series(results_dir, record):
    """The sampled series of a run as {column: numpy array} (empty cells are NaN); {} when the
    results set holds no series for the run, or only an unreadable one (left out with a
    warning)."""
    try:
        # A stored set's series come from its store, each checked against its digest.
        text = store.stored_series(results_dir, record["key"])
        if text is not None:
            return parse_series(text, store.store_path(results_dir))
        if store.has_store(results_dir):
            return {}
    except InputFileError as bad:
        _warn(f"{bad}; series left out")
        return {}
    path = series_path(results_dir, record)
    if path is None:
        return {}
    try:
        return read_series(path)
    except InputFileError as bad:
        _warn(f"{bad}; series left out")
        return {}


def _cell(text, path, line):
    try:
        return float(text) if text != "" else math.nan
    except ValueError:
        raise InputFileError(path, f"line {line}: {text!r} is not a number") from None


def read_series(path):
    """{column: numpy array} of a series CSV (empty cells are NaN); InputFileError when the file
    cannot be read (cmbench.files.read_text's bounds), is empty, or a row is not one number (or
    empty cell) per header column — a truncated or damaged file."""
    return parse_series(read_text(path, "series CSV"), path)


def parse_series(text, path):
    """{column: numpy array} of a series CSV's text (read from path), checked as read_series
    checks a file."""
    try:
        lines = list(csv.reader(io.StringIO(text, newline="")))
    except csv.Error as e:
        raise InputFileError(path, f"cannot read: {e}") from None
    if not lines:
        raise InputFileError(path, "empty file (truncated?)")
    header, rows = lines[0], []
    for line, row in enumerate(lines[1:], start=2):
        if not row:
            continue
        if len(row) != len(header):
            raise InputFileError(path, f"line {line}: {len(row)} cells, the header has "
                                       f"{len(header)} (truncated?)")
        rows.append([_cell(text, path, line) for text in row])
    values = np.array(rows, dtype=float).reshape(len(rows), len(header))
    return {name: values[:, i].copy() for i, name in enumerate(header)}


def _get(d, *path):
    for p in path:
        if not isinstance(d, dict):
            return None
        d = d.get(p)
    return d


def flatten(record):
    """One flat dict per run record (None where the record has no value); "identity" is the
    run's identity() (sweep_key, case_key and the labels are made from it)."""
    ident = identity(record)
    problem = record.get("problem", {})
    method = record.get("method", {})
    stepper = record.get("stepper", {})
    metrics = record.get("metrics") or {}
    work = record.get("work") or {}
    timing = record.get("timing") or {}
    sizes = problem.get("sizes", {})
    kind = stepper.get("kind")
    tol = stepper.get("rel_tol") if stepper.get("rel_tol") is not None else stepper.get("abs_tol")
    if kind == "fixed":
        setting = f"dt={stepper.get('dt'):g}" if stepper.get("dt") is not None else ""
    else:
        setting = f"tol={tol:g}" if tol is not None else ""
    t_min, t_med, t_inst = timing.get("min_s"), timing.get("median_s"), timing.get("instrumented_s")
    t_cpu = timing.get("cpu_min_s")
    # The time a figure or table compares: the thread's CPU time where the record has it (wall
    # time counts whatever else ran), else the wall minimum, else the instrumented run.
    time, clock = ((t_cpu, "cpu") if t_cpu is not None else (t_min, "wall") if t_min is not None
                   else (t_inst, "instrumented"))
    rhs = work.get("rhs_calls")
    initial = record.get("initial") or {}
    perturbation = initial.get("perturbation") or {}
    energy = metrics.get("energy") or {}
    outputs = _get(metrics, "error", "outputs") or {}
    references = [abs(o["final_reference"]) for o in outputs.values()
                  if isinstance(o, dict) and o.get("final_reference") is not None]
    # The median, not the largest: an accumulated angle (18 rad of a crank turning at 150 rad/s)
    # would otherwise set the scale of every output.
    scale = statistics.median(references) if references else None
    return {
        "key": record["key"],
        "files": record.get("files"),
        "identity": ident,
        "series_key": sweep_key(ident),
        "case_key": case_key(ident),
        "variant_label": variant_label(ident),
        "status": record.get("status"),
        "message": record.get("message", ""),
        "problem": problem.get("id"),
        "problem_params": dict(problem.get("params") or {}),
        "problem_label": readable(ident["problem"], ident["problem_params"]),
        "nq": sizes.get("nq"),
        "mh": sizes.get("mh"),
        "mn": sizes.get("mn"),
        "method": method.get("id"),
        "method_params": dict(method.get("params") or {}),
        "method_label": readable(ident["method"], ident["method_params"]),
        "stepper": stepper.get("id"),
        "kind": kind,
        "order": stepper.get("order"),
        "dt": stepper.get("dt"),
        "tol": tol,
        "max_dt": stepper.get("max_dt"),
        "setting": setting,
        "t_end": record.get("t_end"),
        "t_reached": record.get("t_reached"),
        "reference_kind": _get(record, "reference", "kind"),
        "reference_accuracy": _get(record, "reference", "accuracy"),
        "final_error": _get(metrics, "error", "final_abs_max"),
        "final_rel_error": _get(metrics, "error", "final_rel_max"),
        "max_error": _get(metrics, "error", "max_abs"),
        "scd": _get(metrics, "error", "scd"),
        "output_scale": scale or None,
        "drift_position_max": _get(metrics, "drift", "position", "max"),
        "drift_position_final": _get(metrics, "drift", "position", "final"),
        "drift_velocity_max": _get(metrics, "drift", "velocity", "max"),
        "drift_velocity_final": _get(metrics, "drift", "velocity", "final"),
        "has_energy": bool(energy) and energy.get("E0") is not None,
        "energy_E0": energy.get("E0"),
        "energy_max_abs": energy.get("max_abs"),
        "energy_max_rel": energy.get("max_rel"),
        "rhs_calls": rhs,
        "steps_accepted": work.get("steps_accepted"),
        "steps_rejected": work.get("steps_rejected"),
        "jacobian_evaluations": work.get("jacobian_evaluations"),
        "time_min": t_min,
        "time_median": t_med,
        "time_instrumented": t_inst,
        "time": time,
        "time_clock": clock,
        "time_cpu_min": t_cpu,
        "time_cpu_median": timing.get("cpu_median_s"),
        "time_spread": timing.get("spread"),
        "time_cpu_spread": timing.get("cpu_spread"),
        "time_one_at_a_time": bool(timing.get("one_at_a_time")),
        "cost_per_rhs": time / rhs if time is not None and rhs else None,
        "assembly": initial.get("assembly"),
        "perturbation_position": perturbation.get("position"),
        "perturbation_velocity": perturbation.get("velocity"),
    }


def frame(records):
    """A pandas DataFrame of flatten(record) rows when pandas is installed, else the list of
    rows."""
    rows = [flatten(r) for r in records]
    try:
        import pandas
    except ImportError:
        return rows
    return pandas.DataFrame(rows)
