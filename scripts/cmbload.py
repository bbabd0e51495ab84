"""Loading cmbench result sets: run records, flat rows and sampled series.

    import cmbload
    records = cmbload.load("results/default/2026-11-22_71d8b2b2d77d")
    rows = [cmbload.flatten(r) for r in records]          # or cmbload.frame(records)
    data = cmbload.series(results_dir, records[0])         # {"t": array, "position_residual": ...}

A results directory holds results.json (schema cmbench.results/1), runs/<stem>.json (the same
records, one per file) and series/<stem>.csv per run; a run's series is found through the stem of
its record in runs/ (or, without runs/, the stem the runner derives from the run key).
"""
import csv
import json
import math
import os

import numpy as np

__all__ = ["load", "load_doc", "flatten", "frame", "series", "series_path", "series_stem",
           "split_key"]


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
    return {
        "key": record["key"],
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
