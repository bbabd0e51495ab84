"""cmbench.stability on a committed result set against itself and against copies whose timings
were changed on purpose: a set is reproducible against itself; a winner that changes although
it beat the runner-up by more than both runs' spreads is reported (exit 1); one that changes
within the spread is not a failure.

    python3 tests/test_stability.py SOURCE_DIR
"""
import copy
import os
import sys

from cmbench import results, stability
from cmbench.figures import runs


def main(source):
    rows = [results.flatten(r) for r in
            results.load(os.path.join(source, "results", "default", "2026-11-28_19daaf75e3b0"))]
    same = stability.summary(rows, rows)
    assert same["cells"] > 100 and same["same_winner"] == same["cells"], same
    assert same["median_relative_time_difference"] == 0.0, same

    # A separated cell: make its runner-up 10× cheaper than the winner was.
    case, method, level = None, None, None
    for cell in stability.compare_cells(rows, rows):
        ranked = stability._ranked(runs.ok(rows), cell["case"], cell["method"], cell["level"])
        if len(ranked) >= 2 and stability._separated(ranked):
            case, method, level = cell["case"], cell["method"], cell["level"]
            winner, runner_up = ranked[0]["key"], ranked[1]["key"]
            break
    assert case is not None
    swapped = copy.deepcopy(rows)
    for r in swapped:
        if r["key"] == runner_up:
            r["time"] = [x for x in rows if x["key"] == winner][0]["time"] / 10.0
            r["time_cpu_spread"] = 0.0
    changed = stability.summary(rows, swapped)
    failures = changed["different_though_separated"]
    assert [(c["case"], c["method"], c["level"]) for c in failures] == [(case, method, level)], \
        failures

    # The same swap within a large spread is not a failure.
    for r in swapped:
        if r["key"] in (winner, runner_up):
            r["time_cpu_spread"] = 100.0
    within = stability.summary(rows, swapped)
    assert not within["different_though_separated"] and within["different_within_spread"] == 1, \
        within
    print("stability: ok")


if __name__ == "__main__":
    main(sys.argv[1])
