"""Writes docs/bad_input.md: every bad-input case of tests/bad_inputs.json with the message and
exit code cmbench gives it (measured by running the binary).

Usage: python3 -m cmbench.docs.bad_input_table CMBENCH [--check]   (PYTHONPATH=python)
With --check, fails (exit 1) when the committed table differs from what the binary prints now.
"""
import json
import os
import shlex
import subprocess
import sys
import tempfile

from . import ROOT
from ..files import exit_status, read_json, write_atomic

CASES = os.path.join(ROOT, "tests", "bad_inputs.json")
TABLE = os.path.join(ROOT, "docs", "bad_input.md")

HEADER = """# Bad input: what cmbench says

Every case below is a test (`tests/test_bad_input.cpp` reads the same list,
`tests/bad_inputs.json`): the command exits with code 2, its message contains the expected text,
and nothing is written where it was told to write. The messages were produced by the binary;
regenerate with `PYTHONPATH=python python3 -m cmbench.docs.bad_input_table build/cmbench` (a
ctest checks the table is current). Campaign cases run `cmbench campaign campaign.json` on the
file shown. Numerical failures during a run are not input errors: they are recorded run
statuses (docs/json_schema.md).

| # | case | command | exit | message |
|---|---|---|---|---|
"""


def make_shards(binary, case, work):
    """The result directories a merge case starts from: shards of a committed campaign."""
    shards = case["shards"]
    for i in shards["keep"]:
        subprocess.run([binary, "campaign", os.path.join(ROOT, "campaigns", shards["campaign"] + ".json"),
                        "--shard", f"{i}/{shards['of']}", "--out", f"shard-{i}"],
                       cwd=work, capture_output=True, check=True)


def run_case(binary, case):
    """Runs one bad-input case in a scratch directory (its campaign file and shards written
    first); returns (exit code, the message cmbench printed)."""
    with tempfile.TemporaryDirectory() as work:
        if "shards" in case:
            make_shards(binary, case, work)
        if "campaign" in case:
            text = case["campaign"] if isinstance(case["campaign"], str) else json.dumps(case["campaign"])
            write_atomic(os.path.join(work, "campaign.json"), text)
        done = subprocess.run([binary] + shlex.split(case["args"]), cwd=work,
                              capture_output=True, text=True)
        lines = (done.stdout + done.stderr).strip().splitlines()
        return done.returncode, lines[0] if lines else ""


def cell(text):
    """Text for a Markdown table cell (| escaped)."""
    return text.replace("|", "\\|")


def table(binary):
    """The whole table of docs/bad_input.md: every case run with `binary`, one row each."""
    rows = [HEADER]
    for i, case in enumerate(read_json(CASES, "bad-input cases")):
        code, message = run_case(binary, case)
        command = "`cmbench " + cell(case["args"]) + "`"
        if "campaign" in case:
            shown = case["campaign"] if isinstance(case["campaign"], str) else json.dumps(case["campaign"])
            command += " with `" + cell(shown) + "`"
        if "shards" in case:
            shards = case["shards"]
            command += (f" after `cmbench campaign campaigns/{shards['campaign']}.json --shard "
                        f"I/{shards['of']} --out shard-I` for I = "
                        + ", ".join(str(i) for i in shards["keep"]))
        rows.append("| {} | {} | {} | {} | {} |\n".format(i + 1, cell(case["case"]), command, code,
                                                        cell(message)))
    return "".join(rows)


def main():
    """Command line (CMBENCH [--check]): prints the table, or with --check exits with a message
    when docs/bad_input.md is stale."""
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    text = table(os.path.abspath(sys.argv[1]))
    if "--check" in sys.argv[2:]:
        current = open(TABLE).read() if os.path.exists(TABLE) else ""
        if current != text:
            sys.exit("docs/bad_input.md is out of date: run PYTHONPATH=python python3 -m "
                     "cmbench.docs.bad_input_table " + sys.argv[1])
        return
    write_atomic(TABLE, text)


if __name__ == "__main__":
    sys.exit(exit_status("cmbench.docs.bad_input_table", main))
