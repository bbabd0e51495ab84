"""What the regenerated tables of the docs share (drift_table, singular_table): a table
module declares TABLE_ID, DOC, SLOW, HEADER, KEY_COLUMNS, EXEMPT, rows(cmbench) and
cells(key, records); this module runs its rows, renders it and gives it its command line.
cmbench.docs.numbers checks such tables cell by cell (EXEMPT columns, e.g. timings, are not
checked).
"""
import argparse
import os
import subprocess
import tempfile

from ..files import exit_status, read_json


def line(row):
    """A Markdown table row of the given cells."""
    return "| " + " | ".join(row) + " |"


def build(module, cmbench, repeat=0):
    """The table's lines: HEADER, then one row per rows() entry, each from its own run."""
    lines = list(module.HEADER)
    with tempfile.TemporaryDirectory() as tmp:
        record_path = os.path.join(tmp, "run.json")
        for key, runs in module.rows(cmbench):
            subprocess.run([cmbench, "run", *runs[0], "--repeat", str(repeat), "--out",
                            record_path], capture_output=True, cwd=tmp)
            record = None
            if os.path.exists(record_path):  # bad input: cmbench wrote nothing
                record = read_json(record_path, "run record")
                os.remove(record_path)
            lines.append(line(module.cells(key, [record])))
    return lines


def main(module, repeat=0):
    """Prints the table; --write also replaces it in module.DOC between its markers. Returns
    the exit status (cmbench.files.exit_status)."""
    parser = argparse.ArgumentParser(description=module.__doc__.splitlines()[0])
    parser.add_argument("--cmbench", default="build/cmbench")
    parser.add_argument("--write", action="store_true", help=f"replace the table in {module.DOC}")
    opts = parser.parse_args()
    return exit_status(module.__name__, _print_and_write, module, opts, repeat)


def _print_and_write(module, opts, repeat):
    lines = build(module, os.path.abspath(opts.cmbench), repeat)
    print("\n".join(lines))
    if opts.write:
        from . import numbers
        numbers.replace_table(module.DOC, module.TABLE_ID, lines)
