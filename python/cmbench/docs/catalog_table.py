"""The README's table of what is inside (methods, DAE integrators, problems, steppers), generated
from the catalog (`cmbench list --json`), so a new entry appears by running this command.

Usage (from the repository root):
    PYTHONPATH=python python3 -m cmbench.docs.catalog_table [--cmbench build/cmbench] --write
    PYTHONPATH=python python3 -m cmbench.docs.catalog_table --check   (exit 1 when stale)
The table sits between <!--catalog:inside--> and <!--/catalog--> in README.md.
"""
import argparse
import json
import os
import subprocess
import sys

from . import ROOT
from .capability_table import update
from ..files import exit_status

DOC = os.path.join(ROOT, "README.md")
OPEN = "<!--catalog:inside-->"
# (catalog key, row title, folder of the entries' pages under docs/ or None)
ROWS = [("methods", "Methods", "methods"),
        ("integrators", "DAE integrators", "integrators"),
        ("problems", "Problems", "problems"),
        ("steppers", "ODE steppers", None)]


def _cell(entry_id, folder):
    page = f"docs/{folder}/{entry_id}.md" if folder else None
    if page and os.path.exists(os.path.join(ROOT, page)):
        return f"[`{entry_id}`]({page})"
    return f"`{entry_id}`"


def table(cmbench):
    """The table's lines for the catalog of the given cmbench executable."""
    out = subprocess.run([cmbench, "list", "--json"], capture_output=True, text=True,
                         check=True).stdout
    catalog = json.loads(out)
    lines = ["| kind | ids |", "|---|---|"]
    for key, title, folder in ROWS:
        ids = sorted(entry["id"] for entry in catalog[key])
        lines.append(f"| {title} ({len(ids)}) | " + ", ".join(_cell(i, folder) for i in ids)
                     + " |")
    return lines


def main(argv=None):
    """--write rewrites the README's table; --check exits 1 when it differs from the catalog."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cmbench", default=os.path.join(ROOT, "build", "cmbench"))
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="rewrite the table in README.md")
    mode.add_argument("--check", action="store_true", help="exit 1 when the table is stale")
    opts = parser.parse_args(argv)
    return update(DOC, OPEN, table(opts.cmbench), opts.check,
                  "README.md: the table of what is inside", "cmbench.docs.catalog_table")


if __name__ == "__main__":
    sys.exit(exit_status("cmbench.docs.catalog_table", main))
