"""The singular-configuration table of docs/methods.md: IFToMM A02 (n_four_bar, N = 4) over
20 s, which passes its singular positions (all rockers horizontal, J loses rank) at
t ≈ 0.72, 1.24, ... s; every configuration with fehlberg78 at tolerance 1e-10 and with rk4 at
dt = 1 ms. Columns: status, time reached, max error over the samples (metrics.error.max_abs,
"–" when the run did not finish), max |E − E0| up to the end, and what detected a branch
switch (the branch indicator named in the message, or the method's Newton root guard).

Usage: python3 -m cmbench.docs.singular_table [--cmbench build/cmbench] [--write]
Prints the table (each row one `cmbench run ... --repeat 0`); --write also puts it into
docs/methods.md between its markers <!--table:singular--> and <!--/table-->.

cmbench.docs.numbers checks the whole table against the binary; its 24 runs take about 80 s
(coordinate_partitioning + fehlberg78 alone about 30 s), so the table is `slow`: only
`cmbench.docs.numbers --check --all` regenerates it, the ctest skips it.
"""
import re
import sys

from ..plot import fmt

TABLE_ID = "singular"
DOC = "docs/methods.md"
SLOW = True
HEADER = ["| method | parameters | stepper | status | t reached [s] | max error [m] "
          "| max \\|E−E0\\| [J] | branch switch detected by |",
          "|---|---|---|---|---|---|---|---|"]
KEY_COLUMNS = 3          # method, parameters, stepper: identify a row
EXEMPT = set()           # no timings: every column is checked
BASE = ["--problem", "n_four_bar", "--param", "N=4", "--t-end", "20"]
TRUNCATE = ["rank_policy=truncate", "pivot_tol=1e-10"]
CONFIGS = [
    ("index1", []),
    ("index1", TRUNCATE),
    ("baumgarte", []),
    ("baumgarte", TRUNCATE),
    ("baumgarte", ["omega0=100"] + TRUNCATE),
    ("projection", []),
    ("projection", TRUNCATE),
    ("coordinate_partitioning", []),
    ("svd_null_space", []),
    ("udwadia_kalaba", []),
    ("gauss_qp", []),
    ("augmented_lagrangian", []),
]
STEPPERS = [("fehlberg78 1e-10", ["--stepper", "fehlberg78", "--tol", "1e-10"]),
            ("rk4 1 ms", ["--stepper", "rk4", "--dt", "1e-3"])]


def rows(cmbench=None):
    """[(key cells, [cmbench run arguments])] — without --out and --repeat."""
    out = []
    for method, params in CONFIGS:
        args = BASE + ["--method", method]
        for p in params:
            args += ["--param", p]
        for label, stepper in STEPPERS:
            out.append(([method, " ".join(params) or "defaults", label], [args + stepper]))
    return out


def detector(record):
    """What ended a branch_switch run: the branch indicator named in its message, or the Newton
    root guard; "–" for other statuses."""
    if record.get("status") != "branch_switch":
        return "–"
    message = record.get("message", "")
    found = re.search(r"indicator '([^']+)'", message)
    if found:
        return found.group(1)
    if "Newton" in message or "projection moved" in message:
        return "Newton root guard"
    return "?"


def cells(key, records):
    """The row of one configuration: its key cells, then status, time reached, largest error and
    energy error, and the detector."""
    record = records[0]
    if record is None:
        return key + ["no record"] + ["–"] * 4
    error = (record.get("metrics") or {}).get("error") or {}
    energy = (record.get("metrics") or {}).get("energy") or {}
    t = record.get("t_reached")
    return key + [record["status"], "–" if t is None else format(t, ".3g"),
                  fmt(error.get("max_abs"), ".1e"), fmt(energy.get("max_abs"), ".1e"),
                  detector(record)]


if __name__ == "__main__":
    from . import run_table
    sys.exit(run_table.main(sys.modules[__name__], repeat=0))
