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
DEFAULT_RESULTS = os.path.join(SOURCE, "results", "default", "2026-11-28_19daaf75e3b0")


def cli(*args):
    return subprocess.run([CLI, *args], check=True, capture_output=True, text=True).stdout


def without_timing(record):
    """What two runs of one configuration share: everything but wall times, date and series (and
    the digest a record file carries of itself)."""
    return {k: v for k, v in record.items() if k not in ("timing", "context", "series", "digest")}


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


def test_every_campaign_file_of_the_repository_ships_by_name():
    for entry in os.listdir(os.path.join(SOURCE, "campaigns")):
        name = entry[:-len(".json")]
        with open(cmbench.campaign_file(name), encoding="utf-8") as shipped, \
                open(os.path.join(SOURCE, "campaigns", entry), encoding="utf-8") as committed:
            assert json.load(shipped) == json.load(committed), name
    with pytest.raises(cmbench.InputError, match=r"'nope'.*valid: .*smoke"):
        cmbench.campaign_file("nope")


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
    cheapest = ok.loc[ok.groupby("problem").time.idxmin()]
    table = cheapest[["problem", "method", "stepper", "tol", "dt", "time"]]
    # ... against the same question asked of the records directly: `time` is the CPU minimum,
    # the wall minimum where a record has no CPU time.
    best = {}
    for r in records:
        error = ((r.get("metrics") or {}).get("error") or {}).get("final_abs_max")
        if r["status"] != "ok" or error is None or error > 1e-6:
            continue
        timing = r["timing"]
        p = r["problem"]["id"]
        t = timing.get("cpu_min_s") if timing.get("cpu_min_s") is not None else timing["min_s"]
        if t is not None and (p not in best or t < best[p][1]):
            best[p] = (r["key"], t)
    assert dict(zip(table.problem, cheapest.key)) == {p: k for p, (k, _) in best.items()}
    assert all(math.isfinite(t) for t in table.time)


# Values JSON cannot carry, placed anywhere in a call's arguments: each call raises InputError
# naming where the value is as the caller wrote it (never a RuntimeError with a parser's text).
from hypothesis import given, settings as hypothesis_settings, strategies as st  # noqa: E402

UNWRITABLE = st.sampled_from([math.nan, math.inf, -math.inf, 10**400, -(10**400)])


@hypothesis_settings(max_examples=60, derandomize=True, deadline=None, database=None)
@given(value=UNWRITABLE, place=st.sampled_from(["dt", "t_end", "sample_dt", "params.alpha",
                                                 "params.problem.t_end", "describe",
                                                 "campaign.dt", "campaign.alpha", "jobs"]))
def test_a_value_json_cannot_carry_is_an_input_error_naming_it(tmp_path_factory, value, place):
    base = {"problem": "simple_pendulum", "method": "baumgarte", "stepper": "rk4", "dt": 1e-3,
            "t_end": 0.01, "repeat": 0}
    doc = {"name": "unwritable", "repeat": 0, "problems": [{"id": "simple_pendulum", "t_end": 0.01}],
           "methods": [{"id": "baumgarte", "params": {"alpha": 1.0, "beta": 1.0}}],
           "steppers": [{"id": "rk4", "dt": [1e-3]}]}
    out = tmp_path_factory.mktemp("out") / "c"
    finite = isinstance(value, float)
    with pytest.raises(cmbench.InputError) as raised:
        if place in ("dt", "t_end", "sample_dt"):
            cmbench.run(**dict(base, **{place: value}))
        elif place.startswith("params."):
            cmbench.run(**base, params={place[7:]: value})
        elif place == "describe":
            cmbench.describe("simple_pendulum", t_end=value)
        elif place == "jobs":
            cmbench.campaign(doc, jobs=value, out=out, dry_run=True)
        else:
            if place == "campaign.dt":
                doc["steppers"][0]["dt"][0] = value
            else:
                doc["methods"][0]["params"]["alpha"] = value
            cmbench.campaign(doc, out=out, dry_run=True)
    message = str(raised.value)
    if finite:  # the Python side names it; integers beyond a double are the C++ reader's
        where = {"params.alpha": "params['alpha']", "params.problem.t_end": "params['problem.t_end']",
                 "describe": "t_end", "campaign.dt": "campaign /steppers/0/dt/0",
                 "campaign.alpha": "campaign /methods/0/params/alpha"}.get(place, place)
        assert message.startswith(f"{where}={value!r}: expected a finite number"), message
    assert not out.exists()


# A counter or size of a record damaged with a generated value: cmbench.load leaves that run out
# with a warning exactly when the C++ reader (cmbench compare) refuses the file, and never raises.
SCALING = os.path.join(SOURCE, "results", "scaling", "2026-11-27_24879888e99b")
COUNT_FIELDS = [("work", "rhs_calls"), ("work", "steps_accepted"), ("work", "stepper_resets"),
                ("problem", "sizes", "nq"), ("samples",), ("timing", "repetitions")]


@hypothesis_settings(max_examples=40, derandomize=True, deadline=None, database=None)
@given(field=st.sampled_from(COUNT_FIELDS),
       value=st.one_of(st.sampled_from([1e30, -1, 1.5, 2**63, 2**63 - 1, 0, 7.0, True, "3"]),
                       st.integers(-10, 10**20), st.floats(allow_nan=False, allow_infinity=False)))
def test_load_and_the_cpp_reader_agree_on_counts(tmp_path_factory, field, value):
    import shutil
    import warnings
    copy = tmp_path_factory.mktemp("set") / "s"
    shutil.copytree(SCALING, copy, ignore=shutil.ignore_patterns("series", "runs", "*.png", "*.pdf"))
    doc = json.loads((copy / "results.json").read_text())
    parent = doc["runs"][0]
    for key in field[:-1]:
        parent = parent[key]
    parent[field[-1]] = value
    (copy / "results.json").write_text(json.dumps(doc))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame = cmbench.load(copy)
    left_out = len(frame) == len(doc["runs"]) - 1
    assert left_out or len(frame) == len(doc["runs"])
    assert left_out == any("run left out" in str(w.message) for w in caught)
    refused = subprocess.run([CLI, "compare", copy, copy], capture_output=True, text=True)
    assert (refused.returncode == 2) == left_out, (field, value, refused.stderr)


# Runs of every kind load_series meets: fixed-step and adaptive, a DAE integrator, runs that
# fail midway (RK4 at 10 ms on Andrews' squeezer) and one that never samples (generalized-α
# takes no nonholonomic rows, so it is unsupported on the Chaplygin sleigh). A results set of the repository
# would not do: series/ is not committed, so a fresh clone has none.
SERIES_CAMPAIGN = {
    "name": "series", "repeat": 0,
    "problems": [{"id": "simple_pendulum", "t_end": 1}, {"id": "andrews_squeezer"},
                 {"id": "chaplygin_sleigh", "t_end": 1}],
    "methods": [{"id": "index1"}, {"id": "projection"}],
    "steppers": [{"id": "rk4", "dt": [0.01, 0.002]}, {"id": "dopri5", "tol": [1e-8]}],
    "integrators": [{"id": "generalized_alpha", "dt": [1e-3]}]}


@pytest.fixture(scope="module")
def series_set(tmp_path_factory):
    out = tmp_path_factory.mktemp("series") / "out"
    summary = cmbench.campaign(SERIES_CAMPAIGN, jobs=2, out=out)
    assert summary["statuses"].get("ok", 0) >= 10 and len(summary["statuses"]) >= 2, summary
    return out, cmbench.load(out)


@hypothesis_settings(max_examples=25, derandomize=True, deadline=None, database=None)
@given(rows=st.lists(st.integers(0, 20), min_size=1, max_size=8, unique=True),
       columns=st.sampled_from([None, ("t", "position_residual", "no_such_column")]))
def test_load_series_gives_each_run_its_own_samples(series_set, rows, columns):
    """Any subset of runs, in any order: every run's rows are its own series, which the C++ run
    record summarised independently — t = 0 and at most one row per sample time it requested
    after it (exactly one for a fixed-step run that ended ok; an adaptive step may pass two
    sample times at once), the last at t_reached (before it when the run failed), and the
    largest |Φ| its drift metric holds (the same samples, so equal, not close). A run without
    samples has no rows."""
    out, whole = series_set
    frame = whole.iloc[[i for i in rows if i < len(whole)]]
    series = cmbench.load_series(out, frame, columns=columns)
    for run in frame.to_dict("records"):
        mine = series[series.key == run["key"]]
        if mine.empty:  # no file, or a header only: a run that stopped before its first sample
            path = cmbench.results.series_path(str(out), {"key": run["key"]})
            assert path is None or len(cmbench.results.read_series(path)["t"]) == 0
            assert run["status"] != "ok"
            continue
        if run["status"] == "ok" and run["kind"] == "fixed":
            assert len(mine) == run["samples"] + 1, run["key"]
        assert len(mine) <= run["samples"] + 1, run["key"]
        assert (mine.t.iloc[-1] == run["t_reached"] if run["status"] == "ok"
                else mine.t.iloc[-1] <= run["t_reached"])
        assert mine.position_residual.max() == run["drift_position_max"]
        assert (mine.method_label == run["method_label"]).all()
        if columns is None:
            assert "velocity_residual" in mine and "energy_error" in mine
        else:
            assert list(mine.columns[-3:]) == list(columns) and mine.no_such_column.isna().all()
    assert set(series.key) <= set(frame.key)


def test_the_series_set_has_every_kind_of_run(series_set):
    """What the property above draws from: runs that failed midway, a run without samples and
    both stepper kinds — else it would check less than it claims."""
    out, whole = series_set
    assert len(whole) == 21
    failed = set(whole.status) - {"ok"}
    assert "unsupported" in failed and len(failed) >= 2, set(whole.status)
    assert {"fixed", "adaptive"} <= set(whole.kind)
    assert len(cmbench.load_series(out, whole)) > 0
