"""Series CSVs of a result set read from a re-run of the same campaign.

Committed result sets keep results.json but not their per-run files (runs/ and series/ are not
versioned), so the figures that draw time series (drift, energy, impulse response) have
nothing to draw when such a set is reported again. `attach(results_dir, other_dir, records)`
lets those figures read each run's series from `other_dir`, a re-run of the same campaign (by
any later build), for the runs whose re-run is the same computation: matched by run key, or
by what defines a run (problem, method and stepper with their effective parameters, horizon,
samples, initial state: later builds leave default values out of keys), or by that with the
method's parameter values regardless of their names (a renamed parameter), and used only when its
status, metrics and work counts are identical to the record's (exactly, as `cmbench compare`
with its default tolerance 0) — the metrics are computed from the samples the series holds. A run's own series
file, when its results directory has one, always comes first. The report's `--series-from DIR`.
"""
import json
import os

from . import results

COMPUTATION_FIELDS = ("problem", "method", "stepper", "t_end", "samples", "initial")
COMPARED_FIELDS = ("status", "metrics", "work")

_sources = {}


def computation(record):
    """What a run computes: every field that defines it, with effective parameter values.
    Not results.identity, which names the given parameters as the key does: later builds leave
    default values out of keys, and defaults change."""
    return json.dumps({k: record.get(k) for k in COMPUTATION_FIELDS}, sort_keys=True)


def loose_computation(record):
    """computation() with the method's parameters as a multiset of values: a parameter renamed
    by a later build (augmented_lagrangian's omega, now omega0) still matches."""
    method = record.get("method") if isinstance(record.get("method"), dict) else {}
    params = method.get("params") if isinstance(method.get("params"), dict) else {}
    values = sorted(json.dumps(v, sort_keys=True) for v in params.values())
    fields = {k: record.get(k) for k in COMPUTATION_FIELDS if k != "method"}
    return json.dumps([fields, method.get("id"), values], sort_keys=True)


def attach(results_dir, other_dir, records):
    """Reads other_dir (results.InputFileError when it cannot be read) and registers, for each of
    `records` (run records of results_dir) with an identical re-run there, that re-run's
    series. Returns {"matched", "total", "git_sha" (of the re-run's build)}."""
    doc = results.load_doc(other_dir)
    tiers = [(lambda r: r["key"], {}), (computation, {}), (loose_computation, {})]
    for other in doc["runs"]:
        for key, table in tiers:
            table.setdefault(key(other), other)
    matched = {}
    for record in records:
        other = next((table[key(record)] for key, table in tiers if key(record) in table), None)
        if other is not None and all(other.get(f) == record.get(f) for f in COMPARED_FIELDS):
            matched[record["key"]] = other
    context = doc.get("context") if isinstance(doc.get("context"), dict) else {}
    info = {"matched": len(matched), "total": len(records), "git_sha": context.get("git_sha")}
    _sources[os.path.abspath(results_dir)] = dict(info, dir=other_dir, runs=matched)
    return info


def detach(results_dir):
    """Forgets the re-run registered for results_dir by attach."""
    _sources.pop(os.path.abspath(results_dir), None)


def series(results_dir, row):
    """results.series of a run (a record or a flatten() row), from its own results directory
    when that holds it, else from the attached re-run when the run has an identical one
    there; {} otherwise."""
    source = _sources.get(os.path.abspath(results_dir))
    if source is None or results.series_path(results_dir, row) is not None:
        return results.series(results_dir, row)
    other = source["runs"].get(row["key"])
    return results.series(source["dir"], other) if other is not None else {}
