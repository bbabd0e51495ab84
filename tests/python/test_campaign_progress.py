"""cmbench.campaign(progress=...): a callable gets (done, total, eta_s, info) for each pass with
done rising to total; an exception it raises ends the call with that exception and leaves a
directory that resume=True completes; progress=True draws tqdm bars, "auto" outside a notebook
and False draw nothing. Run by ctest (tests/python/tests.cmake) with PYTHONPATH=build/python."""
import os

import pytest

import cmbench

# 12 quick runs, all ok, timed one at a time afterwards (one repetition, 10 ms of timed work).
CAMPAIGN = {"name": "progress", "repeat": 1, "timing_min_s": 0.01,
            "problems": [{"id": "simple_pendulum", "t_end": 0.5}],
            "methods": [{"id": "baumgarte"}, {"id": "index1"}, {"id": "projection"}],
            "steppers": [{"id": "rk4", "dt": [0.01, 0.005]}, {"id": "dopri5", "tol": [1e-5, 1e-7]}]}
RUNS = 12
# 9 runs of 0.1 to 0.5 s each: long enough for a rate-limited call before the last run.
SLOW = {"name": "slow", "repeat": 1, "timing_min_s": 0.01,
        "problems": [{"id": "simple_pendulum", "t_end": 100}],
        "methods": [{"id": "baumgarte"}, {"id": "index1"}, {"id": "projection"}],
        "steppers": [{"id": "rk4", "dt": [0.0005, 0.0002, 0.0001]}]}
SLOW_RUNS = 9


class Stop(Exception):
    """What the test's callback raises."""


def record_files(out):
    return sorted(p for p in os.listdir(os.path.join(out, "runs")) if p.endswith(".json"))


def test_the_callback_sees_each_pass_rise_to_its_total(tmp_path):
    calls = []
    summary = cmbench.campaign(CAMPAIGN, jobs=2, out=str(tmp_path / "out"),
                               progress=lambda *args: calls.append(args))
    assert summary["runs"] == RUNS and summary["statuses"] == {"ok": RUNS}
    phases = [info["phase"] for _, _, _, info in calls]
    assert phases == sorted(phases, key=["runs", "timing"].index), phases
    for phase in ("runs", "timing"):
        done = [d for d, _, _, info in calls if info["phase"] == phase]
        totals = {t for _, t, _, info in calls if info["phase"] == phase}
        assert totals == {RUNS}, (phase, totals)
        assert done == sorted(done) and done[-1] == RUNS, (phase, done)
    assert calls[0][:3] == (0, RUNS, None)  # the start: nothing to estimate from yet
    for done, total, eta_s, info in calls[1:]:
        assert eta_s is not None and eta_s >= 0, (done, eta_s)
        assert info["key"] and info["seconds"] > 0 and info["not_ok"] == 0
    assert calls[-1][2] == 0.0  # nothing left
    # At most one call per 0.2 s but the first and last of a pass.
    for (d0, t0, _, a), (d1, t1, _, b) in zip(calls, calls[1:]):
        if a["phase"] == b["phase"] and d1 not in (1, t1) and d0 != 0:
            assert b["elapsed_s"] - a["elapsed_s"] >= 0.19, (a, b)


@pytest.mark.parametrize("phase,exception", [("runs", Stop), ("runs", KeyboardInterrupt),
                                             ("timing", Stop)])
def test_an_exception_in_the_callback_stops_the_campaign_resumably(tmp_path, phase, exception):
    out = str(tmp_path / "out")
    seen = []

    def stop_at_the_first(done, total, eta_s, info):
        seen.append((info["phase"], done))
        if info["phase"] == phase and done >= 1:
            raise exception("stop here")

    with pytest.raises(exception, match="stop here"):
        cmbench.campaign(SLOW, jobs=2, out=out, progress=stop_at_the_first)
    assert seen[-1][0] == phase
    assert os.path.exists(os.path.join(out, "campaign.json"))
    assert not os.path.exists(os.path.join(out, "results.json"))
    left = [p for sub in ("runs", "series") for p in os.listdir(os.path.join(out, sub))
            if p.startswith(".cmb-")]
    assert left == [], "temporaries of stopped workers remain"
    if phase == "runs":
        assert 1 <= len(record_files(out)) < SLOW_RUNS
    calls = []
    summary = cmbench.campaign(SLOW, jobs=2, out=out, resume=True,
                               progress=lambda *args: calls.append(args))
    assert summary["runs"] == SLOW_RUNS and summary["statuses"] == {"ok": SLOW_RUNS}
    assert len(record_files(out)) == SLOW_RUNS
    timing = [(d, t) for d, t, _, info in calls if info["phase"] == "timing"]
    assert timing and timing[-1][0] == timing[-1][1]
    records = cmbench.results.load(out)
    assert all(not r["timing"].get("pending") for r in records), "a run was left untimed"


def test_true_draws_bars_and_false_or_auto_outside_a_notebook_nothing(tmp_path, capfd):
    pytest.importorskip("tqdm")
    cmbench.campaign(CAMPAIGN, jobs=2, out=str(tmp_path / "bar"), progress=True)
    captured = capfd.readouterr()
    assert "runs: 100%" in captured.err and "timing: 100%" in captured.err, captured.err
    assert "12/12" in captured.err and "ETA" in captured.err
    for progress, out in ((False, "off"), (None, "none"), ("auto", "auto")):
        cmbench.campaign(CAMPAIGN, jobs=2, out=str(tmp_path / out), progress=progress)
        captured = capfd.readouterr()
        assert captured.out == "" and captured.err == "", (progress, captured)


def test_a_progress_that_is_no_option_is_an_input_error(tmp_path):
    with pytest.raises(cmbench.InputError, match="progress='yes'"):
        cmbench.campaign(CAMPAIGN, out=str(tmp_path / "out"), progress="yes")
    assert not os.path.exists(tmp_path / "out")


def test_auto_draws_the_bars_in_a_notebook(tmp_path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("tqdm")
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(
        f"import cmbench\ncmbench.campaign({CAMPAIGN!r}, jobs=2, out={str(tmp_path / 'nb')!r})")]
    nbclient.NotebookClient(notebook, timeout=120, kernel_name="python3").execute()
    shown = "".join(o.get("text", "") for o in notebook.cells[0].outputs)
    assert "runs: 100%" in shown and "timing: 100%" in shown, shown
