"""The table of declared capabilities in docs/methods.md, generated from the catalog
(`cmbench list methods --json`), so the page cannot disagree with what the methods declare.

Usage (from the repository root):
    PYTHONPATH=python python3 -m cmbench.docs.capability_table [--cmbench build/cmbench] --write
    PYTHONPATH=python python3 -m cmbench.docs.capability_table --check   (exit 1 when stale)
The table sits between <!--catalog:capabilities--> and <!--/catalog-->.
"""
import argparse
import json
import os
import subprocess
import sys

from . import ROOT
from ..files import exit_status, write_atomic

DOC = os.path.join(ROOT, "docs", "methods.md")
OPEN, CLOSE = "<!--catalog:capabilities-->", "<!--/catalog-->"
# (capability flag, column title), in the order of core/method.hpp's Capabilities.
COLUMNS = [("redundant", "redundant rows"),
           ("singular", "rank loss: the solve survives"),
           ("nonholonomic", "nonholonomic rows"),
           ("drift_free", "drift-free"),
           ("inequality", "unilateral rows")]


def table(cmbench):
    """The capability table's lines from `cmbench list methods --json`."""
    out = subprocess.run([cmbench, "list", "methods", "--json"], capture_output=True, text=True,
                         check=True).stdout
    lines = ["| method | " + " | ".join(title for _, title in COLUMNS) + " |",
             "|---|" + "---|" * len(COLUMNS)]
    for method in json.loads(out)["methods"]:
        flags = method["capabilities"]
        cells = [f"[{method['id']}](methods/{method['id']}.md)"]
        cells += ["yes" if flags[flag] else "no" for flag, _ in COLUMNS]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def split(text, open_marker=OPEN):
    """(lines before and including the open marker, the table lines, lines from CLOSE on)."""
    lines = text.split("\n")
    start = lines.index(open_marker)
    end = lines.index(CLOSE, start)
    return lines[:start + 1], [line for line in lines[start + 1:end] if line.strip()], lines[end:]


def main():
    """Command line: --write rewrites the table in docs/methods.md, --check exits 1 when it is
    stale."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cmbench", default=os.path.join(ROOT, "build", "cmbench"))
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="rewrite the table in docs/methods.md")
    mode.add_argument("--check", action="store_true", help="exit 1 when the table is stale")
    opts = parser.parse_args()
    return update(DOC, OPEN, table(opts.cmbench), opts.check,
                  "docs/methods.md: the capability table", "cmbench.docs.capability_table")


def update(doc, open_marker, wanted, check, what, module):
    """Writes the table lines `wanted` between open_marker and CLOSE in doc, or with check
    returns 1 (naming `what` and the command that rewrites it) when they differ; else 0."""
    with open(doc, encoding="utf-8") as f:
        before, current, after = split(f.read(), open_marker)
    if check:
        if current == wanted:
            return 0
        print(f"{what} differs from the catalog; run\n"
              f"  PYTHONPATH=python python3 -m {module} --write\n"
              "wanted:\n" + "\n".join(wanted), file=sys.stderr)
        return 1
    write_atomic(doc, "\n".join(before + [""] + wanted + [""] + after))
    return 0


if __name__ == "__main__":
    sys.exit(exit_status("cmbench.docs.capability_table", main))
