"""The drift table of docs/methods.md: every method on the pendulum (100 s) and the crank-rocker
(10 s) with dopri5 at tolerance 1e-8, default parameters.

Usage: python3 -m cmbench.docs.drift_table [--cmbench build/cmbench] [--write]
Prints the table (each row one `cmbench run ... --repeat 3`; the last column is the minimum of
the 3 timed repetitions); --write also puts it into docs/methods.md between its markers
<!--table:drift--> and <!--/table-->.

cmbench.docs.numbers checks every column but the timing one against the binary (ctest
docs_numbers_are_current) through rows(), cells() and EXEMPT below.
"""
import json
import subprocess
import sys

from ..results import flatten
from ..plot import fmt

TABLE_ID = "drift"
DOC = "docs/methods.md"
SLOW = False
HEADER = ["| problem | method | status | max \\|Φ\\| | max \\|ψ\\| | max error | max \\|E−E0\\| "
          "| RHS calls | min time [s] |",
          "|---|---|---|---|---|---|---|---|---|"]
KEY_COLUMNS = 2          # problem, method: identify a row
EXEMPT = {8}             # min time: noisy, not checked (numbers keeps the committed value)
CASES = [("simple_pendulum", 100), ("crank_rocker", 10)]


def methods(cmbench):
    """The method ids of the catalog, in its order (`cmbench list methods --json`; the text
    listing is for people and may change)."""
    out = subprocess.run([cmbench, "list", "methods", "--json"], capture_output=True, text=True,
                         check=True).stdout
    return [method["id"] for method in json.loads(out)["methods"]]


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


if __name__ == "__main__":
    from . import run_table
    sys.exit(run_table.main(sys.modules[__name__], repeat=3))
