#!/usr/bin/env python3
"""The drift table of docs/methods.md: every method on the pendulum (100 s) and the crank-rocker
(10 s) with dopri5 at tolerance 1e-8, default parameters.

Usage: /usr/bin/python3 scripts/drift_table.py [--cmbench build/cmbench] [--write]
Prints the table (each row one `cmbench run ... --repeat 3`; the last column is the minimum of
the 3 timed repetitions); --write also puts it into docs/methods.md between its markers
<!--table:drift--> and <!--/table-->.

scripts/doc_numbers.py checks every column but the timing one against the binary (ctest
docs_numbers_are_current) through rows(), cells() and EXEMPT below.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cmbload import flatten  # noqa: E402
from cmbplot import fmt  # noqa: E402

TABLE_ID = "drift"
DOC = "docs/methods.md"
SLOW = False
HEADER = ["| problem | method | status | max \\|Φ\\| | max \\|ψ\\| | max error | max \\|E−E0\\| "
          "| RHS calls | min time [s] |",
          "|---|---|---|---|---|---|---|---|---|"]
KEY_COLUMNS = 2          # problem, method: identify a row
EXEMPT = {8}             # min time: noisy, not checked (doc_numbers keeps the committed value)
CASES = [("simple_pendulum", 100), ("crank_rocker", 10)]


def methods(cmbench):
    out = subprocess.run([cmbench, "list", "methods"], capture_output=True, text=True).stdout
    return [line.split()[0] for line in out.splitlines() if line.startswith("  ") and " — " in line]


def rows(cmbench):
    """[(key cells, [cmbench run arguments])] — without --out and --repeat."""
    out = []
    for problem, t_end in CASES:
        for method in methods(cmbench):
            out.append(([f"{problem} ({t_end} s)", method],
                        [["--problem", problem, "--t-end", str(t_end), "--method", method,
                          "--stepper", "dopri5", "--tol", "1e-8"]]))
    return out


def cells(key, records):
    """The whole row (key cells first) from the row's run record (None: no record)."""
    record = records[0]
    if record is None:  # bad input: cmbench wrote nothing
        return key + ["no record"] + ["–"] * 6
    r = flatten(record)
    return key + [r["status"], fmt(r["drift_position_max"], ".1e"),
                  fmt(r["drift_velocity_max"], ".1e"), fmt(r["max_error"], ".1e"),
                  fmt(r["energy_max_abs"], ".1e"),
                  "–" if r["rhs_calls"] is None else str(r["rhs_calls"]),
                  fmt(r["time_min"], ".4f")]


def line(row):
    return "| " + " | ".join(row) + " |"


def table(cmbench, repeat=3):
    lines = list(HEADER)
    with tempfile.TemporaryDirectory() as tmp:
        record_path = os.path.join(tmp, "run.json")
        for key, runs in rows(cmbench):
            subprocess.run([cmbench, "run", *runs[0], "--repeat", str(repeat), "--out", record_path],
                           capture_output=True, cwd=tmp)
            record = None
            if os.path.exists(record_path):
                with open(record_path) as f:
                    record = json.load(f)
                os.remove(record_path)
            lines.append(line(cells(key, [record])))
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cmbench", default="build/cmbench")
    parser.add_argument("--write", action="store_true",
                        help="replace the table in docs/methods.md (timings included)")
    opts = parser.parse_args()
    lines = table(os.path.abspath(opts.cmbench))
    print("\n".join(lines))
    if opts.write:
        import doc_numbers
        doc_numbers.replace_table(DOC, TABLE_ID, lines)


if __name__ == "__main__":
    main()
