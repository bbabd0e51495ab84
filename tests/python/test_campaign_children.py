"""cmbench.campaign waits for its own workers only: a child the caller started before or during
the campaign keeps its exit status for the caller's own wait (a campaign that waited for any
child took it, the caller then read exit 0 or nothing, and the campaign failed on a pid it did not
know). One campaign runs at a time in a process: one started from another's progress callback is
refused by name and the first keeps its runs for resume=True. Run by ctest
(tests/python/tests.cmake) with PYTHONPATH=build/python."""
import os
import subprocess
import sys

import pytest
from hypothesis import given, settings as hypothesis_settings, strategies as st

import cmbench

# Six runs of well under a second each.
QUICK = {"name": "children", "repeat": 0,
         "problems": [{"id": "simple_pendulum", "t_end": 0.5}],
         "methods": [{"id": "baumgarte"}, {"id": "index1"}, {"id": "projection"}],
         "steppers": [{"id": "rk4", "dt": [0.01, 0.005]}]}
RUNS = 6


def foreign_child(code, delay_s):
    """A child of this process that is not the campaign's: it sleeps, then exits with `code`."""
    return subprocess.Popen([sys.executable, "-c",
                             f"import sys, time; time.sleep({delay_s}); sys.exit({code})"])


@hypothesis_settings(max_examples=12, derandomize=True, deadline=None, database=None)
@given(codes=st.lists(st.integers(min_value=1, max_value=120), min_size=1, max_size=3),
       delays=st.lists(st.sampled_from([0.0, 0.05, 0.2, 0.6]), min_size=3, max_size=3),
       jobs=st.integers(min_value=1, max_value=3))
def test_the_callers_children_keep_their_exit_status(tmp_path_factory, codes, delays, jobs):
    out = str(tmp_path_factory.mktemp("children") / "out")
    before = [foreign_child(code, delays[i]) for i, code in enumerate(codes)]
    during = []

    def start_one_more(done, total, eta_s, info):  # a child started while the campaign waits
        if info["phase"] == "runs" and done == 1:
            during.append((codes[0], foreign_child(codes[0], delays[-1])))

    summary = cmbench.campaign(QUICK, jobs=jobs, out=out, progress=start_one_more)
    assert summary["statuses"] == {"ok": RUNS}, summary
    for code, child in list(zip(codes, before)) + during:
        assert child.wait(timeout=30) == code, (code, codes, delays, jobs)


def test_a_campaign_started_from_a_progress_callback_is_refused(tmp_path):
    outer, inner = str(tmp_path / "outer"), str(tmp_path / "inner")

    def nested(done, total, eta_s, info):
        if info["phase"] == "runs" and done == 1:
            cmbench.campaign(QUICK, jobs=1, out=inner, progress=False)

    with pytest.raises(cmbench.InputError, match="already running in this process"):
        cmbench.campaign(QUICK, jobs=2, out=outer, progress=nested)
    assert not os.path.exists(inner), "the refused campaign wrote its directory"
    summary = cmbench.campaign(QUICK, jobs=2, out=outer, resume=True, progress=False)
    assert summary["statuses"] == {"ok": RUNS}, summary
