"""cmbench from Python: the catalog, one run, a campaign, and result sets as a pandas DataFrame.

    import cmbench
    cmbench.list()["methods"]                        # the catalog as dicts (cmbench list --json)
    cmbench.describe("andrews_squeezer")             # one problem (cmbench describe --json)
    r = cmbench.run(problem="simple_pendulum", method="baumgarte", stepper="rk4", dt=1e-3,
                    params={"omega0": 20}, series=True)
    r["status"], r["metrics"]["error"]["final_abs_max"], r["series"]["t"]
    out = cmbench.campaign(cmbench.campaign_file("smoke"), jobs=2, out="/tmp/smoke")
    df = cmbench.load(out["results"])                # one row per run

run, list, describe and campaign call the compiled module cmbench._core (built with the project:
PYTHONPATH=build/python, or the installed package) and need nothing else (numpy for series=True);
load needs pandas. Bad input raises
cmbench.InputError (a ValueError) with the message the command line prints; a numerical failure
is a run status, not an exception.
"""
import builtins
import csv
import io
import json
import math
import numbers
import os
import textwrap

from . import files, settings

__all__ = ["list_catalog", "describe", "run", "campaign", "load", "version", "InputError"]


class InputError(ValueError):
    """Bad input (unknown id, parameter or value): the message names it and what is valid."""


def _core():
    try:
        from . import _core as core
    except ImportError as e:
        raise ImportError(
            "the compiled module cmbench._core is not built or not on the path: build cmbench "
            "(bash scripts/build.sh) and use PYTHONPATH=build/python, or install the package "
            f"(cmake --install build --prefix P); the pure-Python parts work without it ({e})"
        ) from None
    return core


def _call(function, *args):
    """A call into _core, its input errors as cmbench.InputError."""
    core = _core()
    try:
        return function(core)(*args)
    except core.InputError as e:
        raise InputError(str(e)) from None


def _non_finite(value, path=()):
    """The path (keys and indices) of the first NaN or infinity in value, or None."""
    if isinstance(value, numbers.Real) and not isinstance(value, numbers.Integral) and \
            not math.isfinite(value):
        return path
    items = value.items() if isinstance(value, dict) else \
        enumerate(value) if isinstance(value, (builtins.list, tuple)) else ()
    for key, item in items:
        found = _non_finite(item, path + (key,))
        if found is not None:
            return found
    return None


def _json_text(value, name_of):
    """The JSON text of a call's arguments. JSON has no NaN or infinity (nor any number beyond a
    double), so such a value is an InputError naming it, name_of(path) spelling where it is as
    the caller wrote it; numpy scalars pass as the numbers they are. The C++ side refuses what
    is left (an integer beyond a double, say) as an InputError too."""
    path = _non_finite(value)
    if path is not None:
        item = value
        for key in path:
            item = item[key]
        raise InputError(f"{name_of(path)}={item!r}: expected a finite number")
    try:
        return json.dumps(value, allow_nan=False, default=_plain_number)
    except (TypeError, ValueError, OverflowError) as e:
        raise InputError(f"arguments cannot be written as JSON: {e}") from None


def _plain_number(value):
    """A numpy scalar as the Python number it holds; anything else JSON cannot write is refused."""
    if isinstance(value, numbers.Number) and hasattr(value, "item"):
        return value.item()
    raise TypeError(f"{type(value).__name__} {value!r} is not a number, string, list or dict")


def _keyword(path):
    """params={'alpha': ...} → params['alpha'], dt → dt: a keyword argument as written."""
    return path[0] + "".join(f"[{key!r}]" for key in path[1:])


def _pointer(path):
    return "campaign /" + "/".join(str(key) for key in path)


def version():
    """cmbench's version, git sha, build type and flags, e.g.
    '0.2.0 (git 1a2b3c4d5e6f, Release, -O3 -DNDEBUG)'."""
    return _core().version()


def list_catalog(what=""):
    """The catalog: {"problems": [...], "methods": [...], "steppers": [...]} with ids, summaries,
    capabilities and parameters (what: "problems", "methods" or "steppers" for one list)."""
    return json.loads(_call(lambda c: c.catalog, what))


def describe(id, **params):
    """A problem as `cmbench describe --json` shows it, built with the given parameters; a
    method, DAE integrator or stepper id gives its catalog entry, and "run-settings" the run
    settings (`cmbench describe run-settings --json`)."""
    if id == "run-settings":
        return settings.table()
    catalog = list_catalog()
    for kind in ("methods", "integrators", "steppers"):
        for entry in catalog[kind]:
            if entry["id"] == id:
                return entry
    return json.loads(_call(lambda c: c.describe, id, _json_text(params, _keyword)))


def _series_from_csv(text):
    """{column: numpy array} of a series CSV text (empty cells NaN)."""
    import numpy as np
    rows = builtins.list(csv.reader(io.StringIO(text)))
    if not rows:
        return {}
    header, body = rows[0], [r for r in rows[1:] if r]
    columns = np.full((len(body), len(header)), math.nan)
    for i, row in enumerate(body):
        for j, cell in enumerate(row):
            if cell:
                columns[i, j] = float(cell)
    return {name: columns[:, j] for j, name in enumerate(header)}


def run(problem, method=None, stepper=None, *, integrator=None, dt=None, tol=None, abs_tol=None,
        rel_tol=None, max_dt=None, params=None, t_end=None, sample_dt=None, repeat=0,
        series=False, **settings):
    """One run, as `cmbench run` does it; returns its record (docs/json_schema.md) as a dict, with
    "series" ({column: numpy array}, the CSV of --series) when series=True. A method with an
    odeint stepper, or integrator= a DAE integrator (which steps itself).

    params: {key: value} with keys as --param takes them (problem.KEY, method.KEY, or a key only
    one of them declares). repeat defaults to 0 here (timing is the command line's and the
    campaigns' business; give 3 to time like them). A bad value raises InputError naming it as
    written here (max_steps=0: ...).
    """
    request = {"problem": problem, "method": method, "stepper": stepper, "integrator": integrator,
               "dt": dt, "tol": tol,
               "abs_tol": abs_tol, "rel_tol": rel_tol, "max_dt": max_dt, "t_end": t_end,
               "sample_dt": sample_dt, "repeat": repeat, "params": params or {}}
    request.update(settings)
    record_text, series_text = _call(lambda c: c.run, _json_text(request, _keyword), bool(series))
    record = json.loads(record_text)
    if series:
        record["series"] = _series_from_csv(series_text)
    return record


run.__doc__ += "\n" + textwrap.indent(settings.keyword_help(), "    ") + "\n"


def _campaign_dirs():
    """Where the campaign files that ship with cmbench are: the installed package's copy, else
    the checkout's campaigns/ (the package used from python/ or build/python)."""
    here = os.path.dirname(os.path.abspath(__file__))
    source = os.path.dirname(os.path.realpath(__file__))  # python/cmbench in a checkout
    return [os.path.join(here, "campaigns"),
            os.path.join(os.path.dirname(os.path.dirname(source)), "campaigns")]


def campaign_file(name):
    """The path of a campaign file that ships with cmbench, by name ("smoke", "default", ...; the
    files of campaigns/ in the repository), for campaign() or `cmbench campaign`, from any
    working directory: cmbench.campaign(cmbench.campaign_file("smoke"), out="/tmp/smoke").
    InputError naming the ones there are for another name."""
    for folder in _campaign_dirs():
        path = os.path.join(folder, f"{name}.json")
        if os.path.isfile(path):
            return path
    names = sorted({entry[:-5] for folder in _campaign_dirs() if os.path.isdir(folder)
                    for entry in os.listdir(folder) if entry.endswith(".json")})
    raise InputError(f"no campaign file named {name!r} ships with cmbench "
                     f"(valid: {', '.join(names) or 'none found'})")


def campaign(file_or_dict, *, jobs=None, out=None, filter=None, resume=False, force=False,
             shard=None, dry_run=False, progress="auto"):
    """Runs a campaign (a campaign file's path, or the same document as a dict) in worker
    processes, as `cmbench campaign` does, and returns {"runs", "statuses" (count by status),
    "results" (path of results.json), "summary" (the command line's last line)}. Ctrl-C stops it
    like the command line (cmbench._core.CampaignStopped, a KeyboardInterrupt; --resume, here
    resume=True, completes it).

    progress: "auto" (default) shows a progress bar in a Jupyter notebook and nothing elsewhere;
    True a bar anywhere (tqdm's, when tqdm is installed; else a line now and then on standard
    output); False or None nothing; a callable is called as progress(done, total, eta_s, info)
    from the calling thread, at most five times a second but always at the start and for the
    first and the last run of each pass: done of total runs of the pass info["phase"] ("runs",
    then "timing" when the ok runs are timed one at a time after them), eta_s the whole
    campaign's remaining seconds (an estimate from the runs finished so far; None before the
    first), info a dict with "phase", "key" and "status" of the run just finished, "seconds"
    (its time), "elapsed_s", "not_ok" and "unsupported" (counts so far). An exception raised by
    the callback stops the campaign as Ctrl-C does (the finished runs are kept; resume=True
    completes them) and is raised again here."""
    if isinstance(file_or_dict, dict):
        text, origin = _json_text(file_or_dict, _pointer), "campaign (dict)"
    else:
        origin = os.fspath(file_or_dict)
        try:  # the text only: the C++ reader parses it, within the same depth limit
            text = files.read_text(origin, "campaign file")
        except files.InputFileError as e:
            raise InputError(str(e)) from None
    # As given: the C++ reader checks each (None: the default).
    options = {"jobs": jobs, "out": os.fspath(out) if isinstance(out, os.PathLike) else out,
               "filter": filter, "resume": resume, "force": force, "shard": shard,
               "dry_run": dry_run}
    callback = _progress_callback(progress)
    if dry_run:  # only lists the runs
        callback = None
    try:
        return json.loads(_call(lambda c: c.campaign, text, origin,
                                _json_text(options, _keyword), callback))
    finally:
        if isinstance(callback, _ProgressDisplay):
            callback.close()


def _in_notebook():
    """Whether this Python runs in a Jupyter kernel (IPython's ZMQ shell)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and type(shell).__name__ == "ZMQInteractiveShell"


def _progress_callback(progress):
    """The callable campaign() passes to _core for its progress= (None: silent)."""
    if callable(progress):
        return progress
    if progress is None or progress is False:
        return None
    if isinstance(progress, str) and progress == "auto":
        return _ProgressDisplay() if _in_notebook() else None
    if progress is True:
        return _ProgressDisplay()
    raise InputError(f"progress={progress!r} (neither a callable nor 'auto'): expected true or "
                     "false")


def _duration(seconds):
    """12 s, 4 min 10 s, 1 h 2 min; ? when unknown (as the command line's progress lines)."""
    if seconds is None or seconds != seconds:
        return "?"
    seconds = max(0.0, seconds)
    if seconds >= 3600:
        return f"{int(seconds // 3600)} h {int(seconds % 3600 // 60)} min"
    if seconds >= 120:
        return f"{int(seconds // 60)} min {int(seconds % 60)} s"
    return f"{seconds:.0f} s"


def _bar_class():
    """tqdm's notebook bar in a notebook with ipywidgets, its text bar elsewhere; None without
    tqdm."""
    import importlib.util
    if importlib.util.find_spec("tqdm") is None:
        return None
    if _in_notebook() and importlib.util.find_spec("ipywidgets") is not None:
        from tqdm.notebook import tqdm
        return tqdm
    from tqdm import tqdm
    return tqdm


class _ProgressDisplay:
    """campaign(progress=True): a tqdm bar per pass (the runs, then their timing) with the
    campaign's ETA beside it, or without tqdm a line on standard output every few seconds."""

    def __init__(self):
        self._bar_class, self._bar, self._phase, self._printed = _bar_class(), None, None, 0.0

    def __call__(self, done, total, eta_s, info):
        status = f"ETA {_duration(eta_s)}, not ok {info['not_ok']}"
        if self._bar_class is None:
            import time
            if done in (0, total) or time.monotonic() - self._printed >= 5:
                self._printed = time.monotonic()
                print(f"campaign {info['phase']}: {done}/{total} ({status})", flush=True)
            return
        if info["phase"] != self._phase:
            self.close()
            self._phase = info["phase"]
            self._bar = self._bar_class(
                total=total, desc="runs" if self._phase == "runs" else "timing", unit="run",
                bar_format="{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} "
                           "[{elapsed}{postfix}]")
        self._bar.set_postfix_str(status, refresh=False)
        self._bar.update(done - self._bar.n)

    def close(self):
        """Ends the bar of the current pass."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None


# Counters that are whole numbers in every record: integer columns (nullable where missing).
_COUNT_COLUMNS = ["rhs_calls", "steps_accepted", "steps_rejected", "jacobian_evaluations",
                  "stepper_resets", "method_rejections", "samples", "nq", "mh", "mn",
                  "timing_repetitions", "order"]
# Columns of results.flatten that hold dicts (the identity spelled out by series_key, case_key and
# the labels) or repeat what the expansion below spells out.
_NESTED = {"files", "identity", "problem_params", "method_params"}


def tidy_rows(records):
    """One flat dict per record: the report's row fields (results.flatten) without nested values,
    plus problem.<param> and method.<param> for every parameter value the record carries,
    stepper.<field> for the stepper's settings, work.<counter> for the method's counters and
    error.<output>, the largest absolute error of each scored output over the samples."""
    from . import results
    rows = []
    for record in records:
        row = {k: v for k, v in results.flatten(record).items() if k not in _NESTED}
        for kind in ("problem", "method"):
            for name, value in ((record.get(kind) or {}).get("params") or {}).items():
                row[f"{kind}.{name}"] = value
        for name, value in (record.get("stepper") or {}).items():
            if name != "id":
                row[f"stepper.{name}"] = value
        work = record.get("work") or {}
        for name in ("stepper_resets", "method_rejections"):
            row[name] = work.get(name)
        for name, value in (work.get("method") or {}).items():
            row[f"work.{name}"] = value
        outputs = (((record.get("metrics") or {}).get("error") or {}).get("outputs")) or {}
        for name, value in outputs.items():
            row[f"error.{name}"] = value.get("max_abs") if isinstance(value, dict) else None
        row["samples"] = record.get("samples")
        row["timing_repetitions"] = (record.get("timing") or {}).get("repetitions")
        rows.append(row)
    return rows


def load(results_dir):
    """A result set (a campaign's output directory) as a tidy pandas DataFrame: one row per run,
    the columns of tidy_rows (docs/python.md lists them), counts as integers (pandas' nullable
    Int64, <NA> where a run has none)."""
    from .requirements import require
    require("cmbench.load", "pandas")
    import pandas

    from . import results
    frame = pandas.DataFrame(tidy_rows(results.load(os.fspath(results_dir))))
    for column in frame.columns:
        # work.* also holds measured extremes (min_partition_quality, max_alpha_p): only counters,
        # whole numbers in every run that has them, become integers.
        if column in _COUNT_COLUMNS or column.startswith("work."):
            values = [None if v is None or v != v else v for v in frame[column]]
            # (within int64: a measured extreme may be a huge whole number, kept as a float)
            if all(v is None or (float(v).is_integer() and abs(v) < 2**63) for v in values):
                frame[column] = pandas.array(
                    [None if v is None else int(v) for v in values], dtype="Int64")
    return frame


# What load_series keeps of each run by default: time, drift and energy error.
SERIES_COLUMNS = ("t", "position_residual", "velocity_residual", "energy_error")
# The columns of load()'s frame that name a run in load_series' rows.
_SERIES_IDENTITY = ("key", "problem_label", "method_label", "variant_label", "stepper", "setting")


def load_series(results_dir, frame=None, columns=SERIES_COLUMNS):
    """The sampled series of a result set's runs (drift, energy error, outputs over time) as one
    long pandas DataFrame: a row per sample of every run of `frame` (a DataFrame of load(), e.g.
    filtered; default: the whole set), with the run's key, problem_label, method_label,
    variant_label, stepper and setting, then `columns` of its series CSV (None: all of them; a
    column a run lacks is NaN). Runs without samples (no series file, or one that stopped before
    its first sample) have no rows."""
    from .requirements import require
    require("cmbench.load_series", "pandas")
    import pandas

    from . import results
    results_dir = os.fspath(results_dir)
    if frame is None:
        frame = load(results_dir)
    parts = []
    for row in frame.to_dict("records"):
        data = results.series(results_dir, {"key": row["key"]})
        if not data:
            continue
        wanted = list(data) if columns is None else list(columns)
        n = len(next(iter(data.values())))
        part = {name: [row.get(name)] * n for name in _SERIES_IDENTITY}
        part.update({name: data.get(name, [float("nan")] * n) for name in wanted})
        parts.append(pandas.DataFrame(part))
    if not parts:
        return pandas.DataFrame(columns=list(_SERIES_IDENTITY) + list(columns or ()))
    return pandas.concat(parts, ignore_index=True)

