#!/usr/bin/env python3
"""Prints the drift table of docs/methods.md: every method on the pendulum (100 s) and the
crank-rocker (10 s) with dopri5 at tolerance 1e-8, default parameters.
Usage: /usr/bin/python3 scripts/drift_table.py [--cmbench build/cmbench]"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cmbload import flatten  # noqa: E402
from cmbplot import fmt  # noqa: E402

CASES = [("simple_pendulum", 100), ("crank_rocker", 10)]


def methods(cmbench):
    out = subprocess.run([cmbench, "list", "methods"], capture_output=True, text=True).stdout
    return [line.split()[0] for line in out.splitlines() if line.startswith("  ") and " — " in line]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cmbench", default="build/cmbench")
    opts = parser.parse_args()
    print("| problem | method | status | max \\|Φ\\| | max \\|ψ\\| | max error | max \\|E−E0\\| "
          "| RHS calls | min time [s] |")
    print("|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        record_path = os.path.join(tmp, "run.json")
        for problem, t_end in CASES:
            for method in methods(opts.cmbench):
                subprocess.run([opts.cmbench, "run", "--problem", problem, "--t-end", str(t_end),
                                "--method", method, "--stepper", "dopri5", "--tol", "1e-8",
                                "--repeat", "3", "--out", record_path], capture_output=True)
                if not os.path.exists(record_path):  # bad input: cmbench wrote nothing
                    print(f"| {problem} ({t_end} s) | {method} | no record |" + " |" * 6)
                    continue
                with open(record_path) as f:
                    r = flatten(json.load(f))
                print(f"| {problem} ({t_end} s) | {method} | {r['status']} | "
                      f"{fmt(r['drift_position_max'], '.1e')} | "
                      f"{fmt(r['drift_velocity_max'], '.1e')} | {fmt(r['max_error'], '.1e')} | "
                      f"{fmt(r['energy_max_abs'], '.1e')} | "
                      f"{'–' if r['rhs_calls'] is None else r['rhs_calls']} | "
                      f"{fmt(r['time_min'], '.4f')} |")
                os.remove(record_path)


if __name__ == "__main__":
    main()
