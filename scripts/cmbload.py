"""Loading cmbench result sets: run records, flat rows and sampled series.

    import cmbload
    records = cmbload.load("results/default/2026-11-22_71d8b2b2d77d")
    rows = [cmbload.flatten(r) for r in records]          # or cmbload.frame(records)
    data = cmbload.series(results_dir, records[0])         # {"t": array, "position_residual": ...}
    lines = cmbload.group_series(rows)                     # runs differing only in dt or tol

A results directory holds results.json (schema cmbench.results/1), runs/<stem>.json (the same
records, one per file) and series/<stem>.csv per run; a run's series is found through the stem of
its record in runs/ (or, without runs/, the stem the runner derives from the run key).
"""
import csv
import json
import math
import os
import statistics

import numpy as np

__all__ = ["load", "load_doc", "flatten", "frame", "series", "series_path", "series_stem",
           "split_key", "key_parts", "sweep_key", "case_key", "variant_label", "group_series",
           "case_labels"]


def load_doc(results_dir):
    """The results document: {"campaign", "context", "runs", ...}. Without results.json (an
    interrupted campaign), the records of runs/*.json in key order."""
    path = os.path.join(results_dir, "results.json")
    if os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    runs_dir = os.path.join(results_dir, "runs")
    if not os.path.isdir(runs_dir):
        raise FileNotFoundError(f"{results_dir}: neither results.json nor runs/")
    records = []
    for name in sorted(os.listdir(runs_dir)):
        if name.endswith(".json"):
            with open(os.path.join(runs_dir, name)) as f:
                records.append(json.load(f))
    context = records[0].get("context", {}) if records else {}
    return {"campaign": os.path.basename(os.path.normpath(results_dir)), "context": context,
            "runs": records}


def load(results_dir):
    """The run records of a results directory, in campaign order."""
    return load_doc(results_dir)["runs"]


def split_key(key):
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


SETTING_PREFIXES = ("dt=", "tol=")


def key_parts(key):
    """The parts of a run key as harness/run.cpp (run_key) builds it,
    problem[p]/method[a=1]/stepper/dt=…|tol=…[,atol=…][/t_end=…][/perturb=p…,v…][/assembly=…]:
    {"problem", "method", "stepper", "swept" ('dt=0.001' or 'tol=1e-06'), "held" (the rest of
    the setting segment: ',atol=…' or ''), "extras" (the segments after it)}."""
    segments = split_key(key)
    at = next((i for i, s in enumerate(segments) if s.startswith(SETTING_PREFIXES)),
              len(segments))
    head = (segments[:at] + ["", "", ""])[:3]
    swept, _, held = (segments[at] if at < len(segments) else "").partition(",")
    return {"problem": head[0], "method": head[1], "stepper": head[2], "swept": swept,
            "held": "," + held if held else "", "extras": segments[at + 1:]}


def sweep_key(key):
    """The run key with its swept value (dt of a fixed-step stepper, tol of an adaptive one)
    replaced by '*': the identity of the series the run belongs to. Everything else — problem
    and method with their parameters, stepper, a fixed atol, t_end, perturbation, assembly —
    stays, so two runs share a series only when they differ in dt or tol alone."""
    p = key_parts(key)
    swept = p["swept"].partition("=")[0] + "=*" if p["swept"] else ""
    return "/".join([p["problem"], p["method"], p["stepper"], swept + p["held"]] + p["extras"])


def case_key(key):
    """What a panel holds fixed: the problem instance and the initial condition and horizon
    of its runs (problem[params] plus the t_end, perturb and assembly segments)."""
    p = key_parts(key)
    return "/".join([p["problem"]] + p["extras"])


GREEK = {"alpha": "α", "beta": "β", "omega0": "ω₀", "zeta": "ζ"}


def variant_label(key):
    """'baumgarte[alpha=10][beta=20]' -> 'baumgarte α=10 β=20': the method with its given
    parameters (string values without their JSON quotes)."""
    method = key_parts(key)["method"]
    head, _, rest = method.partition("[")
    params = [p.split("=", 1) for p in rest.rstrip("]").split("][")] if rest else []
    return " ".join([head] + [f"{GREEK.get(k, k)}={v.strip(chr(34))}" for k, v in params])


def _extra_kind(segment):
    return segment.partition("=")[0]


def _describe_perturbation(segment):
    """'perturb=p0.001,v0' -> 'perturbed p=0.001' (w for a velocity perturbation, as in
    docs/report.md)."""
    position, _, velocity = segment.partition("=")[2].partition(",")
    parts = [f"{name}={v[1:]}" for name, v in (("p", position), ("w", velocity))
             if v[1:] not in ("", "0")]
    return "perturbed " + ", ".join(parts)


def _describe_case(row, kind, segment):
    """How a case differs from its siblings in `kind` (t_end, perturb or assembly); the record
    supplies the values a key leaves out (the problem's default horizon, assembly 'reject')."""
    if kind == "t_end":
        return f"t_end={row['t_end']:g}"
    if kind == "assembly":
        return f"assembly={row['assembly']}"
    return _describe_perturbation(segment) if segment else "unperturbed"


def case_labels(rows):
    """{case key: label} in campaign order. A label is the problem label plus whatever tells
    the problem's cases apart (the t_end, perturbation or assembly that differ among them,
    'unperturbed' for the case without a perturbation); a problem with one case keeps its
    plain label."""
    cases = {}
    for r in rows:
        extras = {_extra_kind(e): e for e in key_parts(r["key"])["extras"]}
        cases.setdefault(r["case_key"], (r, extras))
    siblings = {}
    for r, extras in cases.values():
        siblings.setdefault(r["problem_label"], []).append(extras)
    labels = {}
    for case, (r, extras) in cases.items():
        mine = siblings[r["problem_label"]]
        varying = [k for k in ("t_end", "perturb", "assembly")
                   if len({e.get(k) for e in mine}) > 1]
        labels[case] = ", ".join([r["problem_label"]] +
                                 [_describe_case(r, k, extras.get(k)) for k in varying])
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


def readable(segment):
    """'baumgarte[alpha=10][beta=20]' -> 'baumgarte(alpha=10, beta=20)'; 'index1' unchanged."""
    if "[" not in segment:
        return segment
    head, _, rest = segment.partition("[")
    return f"{head}({rest[:-1].replace('][', ', ')})"


def series_stem(record):
    """The file stem of a run as the campaign runner derives it from the run key:
    problem__method__stepper__<FNV-1a 64 of the key, hex>. Only a fallback: series_path() first
    takes the stem of the run's record in runs/ (the runner may hash a differently spelled key).
    `record` may be a run record or a row of flatten()."""
    h = 0xCBF29CE484222325
    for byte in record["key"].encode("utf-8"):
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    ids = [record[part]["id"] if isinstance(record[part], dict) else record[part]
           for part in ("problem", "method", "stepper")]
    return "__".join(ids) + f"__{h:x}"


_STEMS_BY_KEY = {}


def _stems_from_runs(results_dir):
    """key -> stem from runs/*.json (read once per directory)."""
    results_dir = os.path.abspath(results_dir)
    if results_dir not in _STEMS_BY_KEY:
        stems = {}
        runs_dir = os.path.join(results_dir, "runs")
        if os.path.isdir(runs_dir):
            for name in os.listdir(runs_dir):
                if name.endswith(".json"):
                    with open(os.path.join(runs_dir, name)) as f:
                        stems[json.load(f).get("key")] = name[:-5]
        _STEMS_BY_KEY[results_dir] = stems
    return _STEMS_BY_KEY[results_dir]


def series_path(results_dir, record):
    """Path of a run's series CSV (series/<stem of its runs/ record>.csv, else the stem derived
    from the key), or None when the results set has none. `record` may be a run record or a row
    of flatten()."""
    stems = [_stems_from_runs(results_dir).get(record["key"])]
    if all(record.get(part) for part in ("problem", "method", "stepper")):
        stems.append(series_stem(record))
    for stem in stems:
        if stem:
            path = os.path.join(results_dir, "series", stem + ".csv")
            if os.path.exists(path):
                return path
    return None


def series(results_dir, record):
    """The sampled series of a run as {column: numpy array} (empty cells are NaN); {} when the
    results set holds no series for the run."""
    path = series_path(results_dir, record)
    if path is None:
        return {}
    with open(path, newline="") as f:
        reader = csv.reader(f)
        header = next(reader, None)
        if header is None:
            return {}
        rows = [row for row in reader if row]
    out = {}
    for i, name in enumerate(header):
        out[name] = np.array([float(row[i]) if i < len(row) and row[i] != "" else math.nan
                              for row in rows])
    return out


def _get(d, *path):
    for p in path:
        if not isinstance(d, dict):
            return None
        d = d.get(p)
    return d


def flatten(record):
    """One flat dict per run record (None where the record has no value)."""
    segments = split_key(record["key"])
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
    time = t_min if t_min is not None else t_inst
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
        "series_key": sweep_key(record["key"]),
        "case_key": case_key(record["key"]),
        "variant_label": variant_label(record["key"]),
        "status": record.get("status"),
        "message": record.get("message", ""),
        "problem": problem.get("id"),
        "problem_params": dict(problem.get("params") or {}),
        "problem_label": readable(segments[0]),
        "nq": sizes.get("nq"),
        "mh": sizes.get("mh"),
        "mn": sizes.get("mn"),
        "method": method.get("id"),
        "method_params": dict(method.get("params") or {}),
        "method_label": readable(segments[1]) if len(segments) > 1 else method.get("id"),
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
