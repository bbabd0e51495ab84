"""Fails when cmbench cites a document that is not in the repository.

Every source cmbench relies on has a key in docs/sources.md ([Baumgarte1972], [IVPTestSet], ...),
and comments, docs and problem metadata cite those keys. This check scans the source folders, the
docs and the README for paths and names of the working documents the project was started from
(they sit outside the repository and are not distributed with it), and, with --cmbench, the
output of a fresh single run record, of `cmbench list` and of `cmbench describe` for every
problem. The committed result sets under results/ are historical and not scanned: records made
before docs/sources.md existed carry the old citations.

Usage: python3 -m cmbench.docs.check_sources [--cmbench build/cmbench]   (PYTHONPATH=python)
Exit 0 when clean, 1 listing every offending line.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

from . import ROOT
from ..files import exit_status, parse_json, read_text

SCANNED = ["core", "catalog", "methods", "problems", "harness", "cli", "scripts", "python", "docs",
           "campaigns", "README.md", "LICENSE"]
SUFFIXES = (".cpp", ".hpp", ".h", ".inc", ".def", ".py", ".sh", ".md", ".json", ".txt", ".cmake")
SELF = os.path.relpath(os.path.abspath(__file__), ROOT)

# What points outside the repository: the folder of design notes beside it, its seed documents
# (by folder or by number, as "seed 002", "seed-002" or "Seed 002"), and the notes by file name
# (upper case: docs/methods.md and docs/problems.md are the repository's own pages).
PATTERNS = [
    re.compile(r"\.\./shared\b"),
    re.compile(r"(?<![\w.-])shared/"),
    re.compile(r"(?<![\w.-])seeds/"),
    re.compile(r"\b(?:PROBLEMS|METHODS|DESIGN)\.md\b"),
    re.compile(r"\bseed[ _-]?0\d\d\b", re.IGNORECASE),
]

# Lines allowed to match for now, as (file or output, exact text on the offending line): none.
PENDING = []


def offending_lines(name, text):
    """(name, line number, line) for every line of text that matches a pattern."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        if any(p.search(line) for p in PATTERNS):
            found.append((name, number, line.strip()))
    return found


def scanned_files():
    """The repository-relative paths of every file the check reads."""
    for entry in SCANNED:
        path = os.path.join(ROOT, entry)
        if os.path.isfile(path):
            yield entry
        for folder, dirs, files in os.walk(path):
            dirs[:] = sorted(d for d in dirs if d not in ("__pycache__", "corpus"))
            for f in sorted(files):
                if f.endswith(SUFFIXES) or f == "CMakeLists.txt":
                    rel = os.path.relpath(os.path.join(folder, f), ROOT)
                    if rel != SELF:
                        yield rel


def scan_tree():
    """(file, line number, line) of every offending line in the scanned files."""
    found = []
    for rel in scanned_files():
        with open(os.path.join(ROOT, rel), encoding="utf-8", errors="replace") as f:
            found += offending_lines(rel, f.read())
    return found


def problem_ids():
    """The problem ids listed in problems/problems.def."""
    with open(os.path.join(ROOT, "problems", "problems.def")) as f:
        return re.findall(r"CMB_PROBLEM\((\w+)\)", f.read())


def scan_output(cmbench):
    """A fresh run record and the catalog as the command line prints it."""
    def run(args):
        done = subprocess.run([cmbench] + args, capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"{' '.join(['cmbench'] + args)} exited {done.returncode}: {done.stderr}")
        return done.stdout

    found = []
    with tempfile.TemporaryDirectory() as tmp:
        record = os.path.join(tmp, "run.json")
        run(["run", "--problem", "crank_rocker", "--method", "index1", "--stepper", "rk4",
             "--dt", "0.01", "--t-end", "0.1", "--repeat", "0", "--out", record])
        text = read_text(record, "run record")
        parse_json(text, record, "run record")  # a record, not an error message
        found += offending_lines("run record (crank_rocker)", text)
    found += offending_lines("cmbench list", run(["list"]))
    for pid in problem_ids():
        found += offending_lines(f"cmbench describe {pid}", run(["describe", pid]))
    return found


def main():
    """Command line: scans the tree (and with --cmbench the binary's output) and exits 1 listing
    every citation of a document outside the repository."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cmbench", help="also check the output of this binary")
    opts = parser.parse_args()
    found = scan_tree()
    if opts.cmbench:
        found += scan_output(opts.cmbench)
    pending = [(n, i, l) for n, i, l in found if any(n == pn and t in l for pn, t in PENDING)]
    failures = [x for x in found if x not in pending]
    for name, number, line in pending:
        print(f"pending (see PENDING): {name}:{number}: {line}")
    for name, number, line in failures:
        print(f"{name}:{number}: {line}")
    if failures:
        print(f"{len(failures)} line(s) cite a document outside the repository: cite its key in "
              "docs/sources.md instead")
        return 1
    print("no citation of a document outside the repository"
          + (" (sources, docs, a fresh run record, list and describe)" if opts.cmbench else ""))
    return 0


if __name__ == "__main__":
    sys.exit(exit_status("cmbench.docs.check_sources", main))
