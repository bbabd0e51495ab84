"""Generates problems from sympy model files (the declared form: python3 -m cmbench.derive -h, or
the docstring of python/cmbench/derive/__init__.py; the walk-through is docs/derive.md).

    PYTHONPATH=python python3 -m cmbench.derive problems/derive/MODEL.py           (writes)
    PYTHONPATH=python python3 -m cmbench.derive problems/derive/MODEL.py --check   (exit 1 if stale)

writes problems/generated/<id>.inc and problems/<id>.cpp (or both into --out DIR). Exit codes:
0 done (or current), 1 --check found a stale or missing file, 2 the model is not in the declared
form (the message says what to fix).
"""
import argparse
import os
import re
import sys

from . import __doc__ as FORM
from .cxx import clang_format, cpp_text, inc_text
from .equations import derive
from .model import ModelError, load_model

# The repository: this package is python/cmbench/derive/.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def relative(path, root):
    return os.path.relpath(path, root).replace(os.sep, "/")


def generate(model_path, root, out=None):
    """[(path, text, formatted)] of the files the model at `model_path` generates; formatted is
    False for a .cpp that clang-format-14 could not format."""
    model = load_model(model_path)
    eq = derive(model)
    command = f"python3 -m cmbench.derive {relative(model.path, root)}"
    if out is not None:
        command += f" --out {relative(out, root)}"
    inc_path = os.path.join(out or os.path.join(root, "problems", "generated"), model.id + ".inc")
    cpp_path = os.path.join(out or os.path.join(root, "problems"), model.id + ".cpp")
    reference_names = ", ".join(model.reference.coordinate_names) if model.reference else ""
    inc = inc_text(eq, command, ", ".join(model.coordinate_names), reference_names)
    cpp = cpp_text(eq, command, relative(inc_path, root))
    formatted = clang_format(cpp, root)
    return model, [(inc_path, inc, True), (cpp_path, formatted or cpp, formatted is not None)]


def same(current, text, exact):
    """Without clang-format the .cpp is compared with its whitespace removed: the generator's own
    layout differs from clang-format's only in spaces and line breaks (its string literals and
    comment lines already fit in 100 columns, so nothing is split or reflowed)."""
    if exact:
        return current == text
    return re.sub(r"\s+", "", current) == re.sub(r"\s+", "", text)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m cmbench.derive", description=__doc__,
                                     epilog=FORM,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("models", nargs="+", metavar="MODEL.py",
                        help="model files in the declared form")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 naming each generated file that is missing "
                             "or stale")
    parser.add_argument("--out", metavar="DIR",
                        help="write both files into DIR (default: problems/generated/ and "
                             "problems/)")
    parser.add_argument("--root", metavar="DIR", default=ROOT,
                        help="the repository the paths are relative to (default: this cmbench "
                             "checkout)")
    opts = parser.parse_args(argv)
    root = os.path.abspath(opts.root)
    out = os.path.abspath(opts.out) if opts.out else None
    stale = []
    for path in opts.models:
        try:
            model, files = generate(path, root, out)
        except ModelError as error:
            print(f"{path}: {error}", file=sys.stderr)
            return 2
        for target, text, formatted in files:
            name = relative(target, root)
            if not formatted:
                print(f"{name}: clang-format-14 not found; the file is not formatted "
                      "(set CLANG_FORMAT to a clang-format 14)", file=sys.stderr)
            if opts.check:
                current = open(target).read() if os.path.exists(target) else None
                if current is None or not same(current, text, formatted):
                    stale.append(name)
                continue
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "w") as f:
                f.write(text)
            print(f"wrote {name}")
        if not opts.check and out is None:
            hint_registration(model.id, root)
    if stale:
        print("not current (run python3 -m cmbench.derive on the model): " + ", ".join(stale),
              file=sys.stderr)
        return 1
    return 0


def hint_registration(model_id, root):
    definitions = os.path.join(root, "problems", "problems.def")
    listed = os.path.exists(definitions) and f"CMB_PROBLEM({model_id})" in open(definitions).read()
    if not listed:
        print(f"next: add CMB_PROBLEM({model_id}) to problems/problems.def (sorted), build, and "
              "write its page with PYTHONPATH=python python3 -m cmbench.docs.pages")


if __name__ == "__main__":
    sys.exit(main())
