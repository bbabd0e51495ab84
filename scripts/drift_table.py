#!/usr/bin/env python3
"""Prints the drift table of docs/methods.md: every method on the pendulum (100 s) and the
crank-rocker (10 s) with dopri5 at tolerance 1e-8, default parameters.
Usage: /usr/bin/python3 scripts/drift_table.py [--cmbench build/cmbench]"""
import argparse
import json
import subprocess
import tempfile

CASES = [("simple_pendulum", 100), ("crank_rocker", 10)]


def methods(cmbench):
    out = subprocess.run([cmbench, "list", "methods"], capture_output=True, text=True).stdout
    return [line.split()[0] for line in out.splitlines() if line.startswith("  ") and " — " in line]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cmbench", default="build/cmbench")
    opts = parser.parse_args()
    print("| problem | method | status | max \\|Φ\\| | max \\|ψ\\| | max error | max \\|E−E0\\| | RHS calls | min time [s] |")
    print("|---|---|---|---|---|---|---|---|---|")
    with tempfile.NamedTemporaryFile(suffix=".json") as tmp:
        for problem, t_end in CASES:
            for method in methods(opts.cmbench):
                subprocess.run([opts.cmbench, "run", "--problem", problem, "--t-end", str(t_end),
                                "--method", method, "--stepper", "dopri5", "--tol", "1e-8",
                                "--repeat", "3", "--out", tmp.name], capture_output=True)
                r = json.load(open(tmp.name))
                m = r["metrics"]
                print(f"| {problem} ({t_end} s) | {method} | {r['status']} | "
                      f"{m['drift']['position']['max']:.1e} | {m['drift']['velocity']['max']:.1e} | "
                      f"{m['error']['max_abs']:.1e} | {m['energy']['max_abs']:.1e} | "
                      f"{r['work']['rhs_calls']} | {r['timing']['min_s']:.4f} |")


if __name__ == "__main__":
    main()
