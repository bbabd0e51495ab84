"""pytest (ctest long_horizon_growth_rates, tests/figures/tests.cmake): the long-horizon figure's
growth rate (cmbench.figures.long_horizon) over generated energy-error series, and the figure on
a synthetic result set.

- Rates: for an error a·t^s·u(t) with u in [1, 1 + d] (s ≥ 0), the running maximum lies between
  a·t^s and (1 + d)·a·t^s, so its logarithm deviates from a line of slope s within a band of
  width ln(1 + d) (plus the offset of reading it at the sample before each fit time); the
  least-squares slope is then off by at most half that width times Σ|x − x̄| / Σ(x − x̄)² over
  the fit's log times x. Checked over
  hypothesis-generated s, a, d, noise and sample counts; with s = 0 and that bound below
  BOUNDED_SLOPE the run reads "bounded".
- A failed run's NaN tail adds nothing to the envelope; a series shorter than the fit window has
  no rate.
- The figure draws only cases sampled over at least LONG_HORIZON_SAMPLES intervals and reports
  each run's rate in its table.

Run: PYTHONPATH=python /usr/bin/python3 -m pytest tests/figures/test_long_horizon.py
"""
import json
import math
import os

import numpy as np
from hypothesis import given, settings, strategies as st

from cmbench import results, style
from cmbench.figures import long_horizon
from cmbench.plot import Skipped


def fit_times(t_last):
    return np.geomspace(t_last * 10.0 ** -long_horizon.FIT_DECADES, t_last,
                        long_horizon.FIT_POINTS)


def slope_error_bound(t, s, d):
    """The largest slope error the deviation argument of the module docstring allows."""
    times = fit_times(t[-1])
    spacing = np.max(np.diff(t))
    offset = s * math.log(times[0] / (times[0] - spacing))  # the sample before the first time
    # The deviations lie in an interval this wide; a constant shift does not move the slope, so
    # each counts at most half of it.
    width = math.log1p(d) + offset
    centred = np.log(times) - np.log(times).mean()
    return 0.5 * width * np.sum(np.abs(centred)) / np.sum(centred ** 2)


@settings(max_examples=200, derandomize=True, deadline=None, database=None)
@given(s=st.floats(0.0, 2.0), log_a=st.floats(-14.0, 0.0), d=st.floats(0.0, 0.5),
       samples=st.integers(1001, 4000), seed=st.integers(0, 2**31 - 1),
       t_end=st.floats(10.0, 1e5))
def test_rate_of_a_noisy_power_law(s, log_a, d, samples, seed, t_end):
    t = np.linspace(0.0, t_end, samples + 1)
    u = 1.0 + d * np.random.default_rng(seed).random(len(t))
    error = 10.0 ** log_a * t ** s * u
    slope = long_horizon.growth_slope(t, error)
    bound = slope_error_bound(t, s, d)
    assert slope is not None
    assert abs(slope - s) <= bound + 1e-9, (slope, s, bound)
    if s == 0.0 and bound < long_horizon.BOUNDED_SLOPE:
        assert long_horizon.growth_text(slope) == "bounded"


@settings(max_examples=50, derandomize=True, deadline=None, database=None)
@given(s=st.floats(0.2, 2.0), stop=st.floats(0.5, 0.99))
def test_a_failed_runs_nan_tail_adds_nothing(s, stop):
    t = np.linspace(0.0, 1000.0, 2001)
    error = t ** s
    cut = int(stop * len(t))
    error[cut:] = np.nan
    env = long_horizon.envelope(error)
    assert np.all(np.isfinite(env)) and env[-1] == error[cut - 1]


def test_no_rate_without_the_fit_window():
    t = np.linspace(50.0, 100.0, 2001)  # starts after t_last / 100
    assert long_horizon.growth_slope(t, t) is None
    assert long_horizon.growth_text(None) == "–"


def run_record(key, method, samples, series_file):
    """A minimal run record (docs/json_schema.md) of simple_pendulum with an energy metric."""
    return {
        "schema": "cmbench.run/1", "key": key, "status": "ok", "message": "",
        "t_reached": 1000.0, "t_end": 1000.0, "samples": samples,
        "files": {"series": series_file},
        "problem": {"id": "simple_pendulum", "params": {"t_end": 1000.0}, "given": ["t_end"],
                    "sizes": {"nq": 2, "mh": 1, "mn": 0}, "tags": [], "outputs": ["x", "y"]},
        "method": {"id": method, "params": {}, "given": []},
        "stepper": {"id": "dae", "kind": "fixed", "order": 2, "dt": 0.01, "abs_tol": None,
                    "rel_tol": None, "max_dt": None},
        "initial": {"assembly": "reject", "perturbation": None},
        "reference": {"kind": "analytic", "provenance": "synthetic", "accuracy": 1e-15},
        "metrics": {"error": None, "drift": {"position": {"max": 1e-12, "final": 1e-12},
                                             "velocity": {"max": 1e-12, "final": 1e-12}},
                    "energy": {"E0": 0.0, "max_abs": 1.0, "max_rel": None, "final_abs": 1.0,
                               "final_rel": None},
                    "multipliers": {"final": [], "unique": True}},
        "work": {"rhs_calls": 100000, "steps_accepted": 100000, "steps_rejected": 0,
                 "stepper_resets": 0, "jacobian_evaluations": 0, "method": {}},
        "timing": {"instrumented_s": 1.0, "repetitions": 0, "min_s": None, "median_s": None,
                   "cpu_min_s": None, "cpu_median_s": None},
        "context": {}}


def synthetic_set(directory, samples):
    """Two runs: a linear drift (rattle's style, by name only) and a bounded oscillation."""
    os.makedirs(os.path.join(directory, "series"), exist_ok=True)
    t = np.linspace(0.0, 1000.0, samples + 1)
    shapes = {"generalized_alpha": 1e-6 * t, "rattle": 1e-3 * np.abs(np.sin(t))}
    runs = []
    for method, error in shapes.items():
        name = f"series/{method}.csv"
        with open(os.path.join(directory, name), "w") as f:
            f.write("t,energy_error\n")
            f.writelines(f"{a!r},{b!r}\n" for a, b in zip(t, error))
        runs.append(run_record(f"simple_pendulum/{method}/dae/dt=0.01", method, samples, name))
    with open(os.path.join(directory, "results.json"), "w") as f:
        json.dump({"schema": "cmbench.results/1", "campaign": "synthetic", "runs": runs}, f)
    return [results.flatten(r) for r in results.load(directory)]


def test_the_figure_reports_each_runs_rate(tmp_path):
    rows = synthetic_set(str(tmp_path), 2000)
    with style.using("single"):
        drawn = long_horizon.energy_growth(rows, str(tmp_path))
    rates = {key.split("/")[1]: slope for key, slope in drawn["data"].items()}
    t = np.linspace(0.0, 1000.0, 2001)
    assert abs(rates["generalized_alpha"] - 1.0) <= slope_error_bound(t, 1.0, 0.0) + 1e-12
    assert rates["rattle"] < long_horizon.BOUNDED_SLOPE
    table = (tmp_path / "energy_growth_table.md").read_text()
    assert "grows ~ t^1.00" in table and "bounded" in table
    assert all(os.path.getsize(f) > 0 for f in drawn["files"] if os.path.exists(f))


def test_short_runs_skip_the_figure(tmp_path):
    rows = synthetic_set(str(tmp_path), long_horizon.LONG_HORIZON_SAMPLES - 1)
    try:
        long_horizon.energy_growth(rows, str(tmp_path))
    except Skipped:
        return
    raise AssertionError("a run with fewer than LONG_HORIZON_SAMPLES intervals drew the figure")
