"""The Python module against the command line it mirrors: the same catalog, the same record for
the same run, bad input as cmbench.InputError, campaigns and tidy result sets. Run by ctest
(tests/python/tests.cmake) with PYTHONPATH=build/python and CMBENCH=build/cmbench."""
import json
import math
import os
import subprocess

import pytest

import cmbench

CLI = os.environ["CMBENCH"]
SOURCE = os.environ["CMB_SOURCE_DIR"]
DEFAULT_RESULTS = os.path.join(SOURCE, "results", "default", "2026-11-27_24879888e99b")


def cli(*args):
    return subprocess.run([CLI, *args], check=True, capture_output=True, text=True).stdout


def without_timing(record):
    """What two runs of one configuration share: everything but wall times, date and series."""
    return {k: v for k, v in record.items() if k not in ("timing", "context", "series")}


def test_version_and_catalog_are_the_command_lines():
    assert cli("--version").strip() == "cmbench " + cmbench.version()
    assert cmbench.list() == json.loads(cli("list", "--json"))
    assert [m["id"] for m in cmbench.list("methods")["methods"]][:1] == ["augmented_lagrangian"]


def test_describe_gives_problems_methods_and_steppers():
    # Andrews' squeezer: 7 coordinates and 6 holonomic rows (the IVP test set's formulation).
    squeezer = cmbench.describe("andrews_squeezer")
    assert squeezer["sizes"] == {"nq": 7, "mh": 6, "mn": 0, "mu": 0}
    assert squeezer == json.loads(cli("describe", "andrews_squeezer", "--json"))
    assert cmbench.describe("n_four_bar", N=3)["values"]["N"] == 3
    assert cmbench.describe("index1")["id"] == "index1"
    assert cmbench.describe("rk4")["order"] == 4


def test_a_run_gives_the_record_and_series_the_command_line_writes(tmp_path):
    args = ["run", "--problem", "simple_pendulum", "--method", "baumgarte", "--stepper", "rk4",
            "--dt", "1e-3", "--param", "omega0=20", "--repeat", "0",
            "--out", str(tmp_path / "r.json"), "--series", str(tmp_path / "s.csv")]
    subprocess.run([CLI, *args], check=True, capture_output=True)
    expected = json.loads((tmp_path / "r.json").read_text())
    got = cmbench.run(problem="simple_pendulum", method="baumgarte", stepper="rk4", dt=1e-3,
                      params={"omega0": 20}, series=True)
    assert without_timing(got) == without_timing(expected)
    csv_series = cmbench.results.read_series(str(tmp_path / "s.csv"))
    assert sorted(got["series"]) == sorted(csv_series)
    for column, values in csv_series.items():
        assert got["series"][column] == pytest.approx(values, nan_ok=True, rel=0, abs=0)
    assert got["series"]["t"][-1] == got["t_end"]


def test_bad_input_is_an_input_error_naming_what_is_valid():
    with pytest.raises(cmbench.InputError, match="valid: .*simple_pendulum"):
        cmbench.run(problem="pendulum", method="index1", stepper="rk4", dt=1e-3)
    with pytest.raises(cmbench.InputError, match="unknown parameter 'alpah'"):
        cmbench.run(problem="simple_pendulum", method="baumgarte", stepper="rk4", dt=1e-3,
                    params={"alpah": 1})
    with pytest.raises(cmbench.InputError, match="is adaptive: give tol= "):
        cmbench.run(problem="simple_pendulum", method="index1", stepper="dopri5")
    with pytest.raises(cmbench.InputError, match="unknown run setting 'tolerance'"):
        cmbench.run(problem="simple_pendulum", method="index1", stepper="dopri5", tolerance=1e-6)


def test_a_numerical_failure_is_a_status_not_an_exception():
    # Explicit RK4 at 10 ms on Andrews' squeezer leaves the stability region (|λ h| ≫ 2.8).
    record = cmbench.run(problem="andrews_squeezer", method="index1", stepper="rk_gill", dt=0.01)
    assert record["status"] == "diverged"


def test_campaign_from_a_dict_and_its_tidy_frame(tmp_path):
    doc = {"name": "py", "repeat": 1,
           "problems": [{"id": "simple_pendulum", "t_end": 1},
                        {"id": "n_pendulum", "params": {"N": 3}, "t_end": 0.5}],
           "methods": [{"id": "index1"}, {"id": "baumgarte", "params": {"omega0": 30}}],
           "steppers": [{"id": "rk4", "dt": [2e-3, 1e-3]}, {"id": "dopri5", "tol": [1e-8]}]}
    summary = cmbench.campaign(doc, jobs=2, out=tmp_path / "out")
    assert summary["runs"] == 12 and summary["statuses"] == {"ok": 12}
    frame = cmbench.load(tmp_path / "out")
    assert len(frame) == 12 and frame["key"].is_unique
    assert str(frame["rhs_calls"].dtype) == "Int64" and str(frame["steps_accepted"].dtype) == "Int64"
    # Every parameter value the records carry is a column, defaults included.
    assert set(frame.loc[frame.problem == "n_pendulum", "problem.N"]) == {3}
    assert set(frame.loc[frame.method == "baumgarte", "method.omega0"]) == {30}
    # error.<output>: each scored output's largest error over the samples; max_error is the
    # largest of them.
    outputs = [c for c in frame.columns if c.startswith("error.")]
    assert outputs and (frame[outputs].max(axis=1) == frame.max_error).all()
    # RK4: 4 RHS calls per step, t_end/dt steps.
    rk4 = frame[frame.stepper == "rk4"]
    assert (rk4.rhs_calls == 4 * (rk4.t_end / rk4["stepper.dt"]).round().astype(int)).all()


def test_load_of_the_committed_default_results_and_the_cheapest_configuration():
    frame = cmbench.load(DEFAULT_RESULTS)
    records = json.load(open(os.path.join(DEFAULT_RESULTS, "results.json")))["runs"]
    assert len(frame) == len(records) == 795  # 8 × 9 × 10 − 6 method runs, 3 × 3 × 9 integrator runs
    # The three lines of docs/python.md ...
    ok = frame[(frame.status == "ok") & (frame.final_error <= 1e-6)]
    cheapest = ok.loc[ok.groupby("problem").time_min.idxmin()]
    table = cheapest[["problem", "method", "stepper", "tol", "dt", "time_min"]]
    # ... against the same question asked of the records directly.
    best = {}
    for r in records:
        error = ((r.get("metrics") or {}).get("error") or {}).get("final_abs_max")
        if r["status"] != "ok" or error is None or error > 1e-6:
            continue
        p, t = r["problem"]["id"], r["timing"]["min_s"]
        if t is not None and (p not in best or t < best[p][1]):
            best[p] = (r["key"], t)
    assert dict(zip(table.problem, cheapest.key)) == {p: k for p, (k, _) in best.items()}
    assert all(math.isfinite(t) for t in table.time_min)
