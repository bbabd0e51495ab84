"""Are a campaign's timings reproducible? Compares two result sets of the same campaign (run on
the same machine, e.g. one after the other) the way a reader of the report would: the cheapest
configuration table (tables.precision_table's cells: per problem case, method and accuracy
level, the successful run of least time) and the run times themselves.

A cell counts as *separated* in a set when its two best candidates differ by more than their
own measured spread (the larger of the two runs' spread, the interquartile range of the timed
repetitions over their median); a cell whose winner changes although it was separated in both
sets is a reproducibility failure, one whose candidates were within their spread is not.

    python3 -m cmbench.stability RESULTS_A RESULTS_B [--json]
"""
import argparse
import json
import statistics
import sys

from . import results
from .figures import runs
from .tables import LEVELS


def _rows(results_dir):
    return [results.flatten(r) for r in results.load(results_dir)]


def _spread(row):
    value = row.get("time_cpu_spread")
    if value is None:
        value = row.get("time_spread")
    return value or 0.0


def _ranked(rows, case, method, level):
    """The successful runs of `method` on `case` reaching `level`, cheapest first."""
    reached = [r for r in rows if r["case_key"] == case and r["method"] == method and r["time"]
               and r["final_error"] is not None and r["final_error"] <= level]
    return sorted(reached, key=lambda r: r["time"])


def _separated(ranked):
    """True when the best candidate beats the second by more than their measured spread."""
    if len(ranked) < 2:
        return True
    best, second = ranked[0], ranked[1]
    return (second["time"] - best["time"]) / best["time"] > max(_spread(best), _spread(second))


def compare_cells(rows_a, rows_b):
    """For each cell of the cheapest-configuration table (case, method, accuracy level) present
    in set A: the winners in A and B, whether they are the same, and whether the cell is
    separated in both sets."""
    ok_a, ok_b = runs.ok(rows_a), runs.ok(rows_b)
    cells = []
    for case in results.case_labels(rows_a):
        methods = sorted({r["method"] for r in ok_a if r["case_key"] == case})
        for method in methods:
            for level in LEVELS:
                ra, rb = _ranked(ok_a, case, method, level), _ranked(ok_b, case, method, level)
                if not ra and not rb:
                    continue
                win_a = ra[0]["key"] if ra else None
                win_b = rb[0]["key"] if rb else None
                cells.append({"case": case, "method": method, "level": level,
                              "winner_a": win_a, "winner_b": win_b, "same": win_a == win_b,
                              "separated": _separated(ra) and _separated(rb)})
    return cells


def time_differences(rows_a, rows_b):
    """Relative differences |t_A − t_B| / min(t_A, t_B) of the runs timed in both sets."""
    times_b = {r["key"]: r["time"] for r in runs.ok(rows_b) if r["time"]}
    out = []
    for r in runs.ok(rows_a):
        tb = times_b.get(r["key"])
        if r["time"] and tb:
            out.append(abs(r["time"] - tb) / min(r["time"], tb))
    return out


def summary(rows_a, rows_b):
    """The comparison of two sets as a dict: cell counts by outcome (same winner, different
    within spread, different though separated) and the spread of the run times."""
    cells = compare_cells(rows_a, rows_b)
    diffs = sorted(time_differences(rows_a, rows_b))
    spreads = sorted(_spread(r) for r in runs.ok(rows_a) if r["time"])
    failures = [c for c in cells if not c["same"] and c["separated"]]
    return {
        "cells": len(cells),
        "same_winner": sum(c["same"] for c in cells),
        "different_within_spread": sum(not c["same"] and not c["separated"] for c in cells),
        "different_though_separated": failures,
        "runs_timed_in_both": len(diffs),
        "median_relative_time_difference": statistics.median(diffs) if diffs else None,
        "p90_relative_time_difference": diffs[int(0.9 * (len(diffs) - 1))] if diffs else None,
        "median_spread_within_runs": statistics.median(spreads) if spreads else None,
    }


def main(argv=None):
    """Command line (RESULTS_A RESULTS_B [--json]): prints the comparison; returns the exit
    status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("a", help="a results directory")
    parser.add_argument("b", help="another results directory of the same campaign")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    args = parser.parse_args(argv)
    try:
        s = summary(_rows(args.a), _rows(args.b))
    except results.InputFileError as error:
        print(f"stability: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(s, indent=1))
        return 0
    print(f"cheapest-configuration cells: {s['cells']}; same winner: {s['same_winner']}; "
          f"different within their spread: {s['different_within_spread']}; "
          f"different though separated: {len(s['different_though_separated'])}")
    for c in s["different_though_separated"]:
        print(f"  {c['case']} {c['method']} to {c['level']:g}: {c['winner_a']} -> {c['winner_b']}")
    if s["median_relative_time_difference"] is not None:
        print(f"run times across the sets ({s['runs_timed_in_both']} runs): median relative "
              f"difference {s['median_relative_time_difference']:.3g}, 90th percentile "
              f"{s['p90_relative_time_difference']:.3g}; median spread within a run "
              f"{s['median_spread_within_runs']:.3g}")
    return 1 if s["different_though_separated"] else 0


if __name__ == "__main__":
    sys.exit(main())
