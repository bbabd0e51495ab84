"""Writes docs/api/python.md, the Python API reference of the documentation site, from the
package itself: every module of cmbench, its docstring, and each public name with its signature
and docstring (inspect), so that the page and the code never disagree. Run after changing a
public function, class or docstring (from the repository root):
    PYTHONPATH=python python3 -m cmbench.docs.api_page --write   (rewrites the page)
    PYTHONPATH=python python3 -m cmbench.docs.api_page --check   (exit 1 when it is stale)

Public names of a module: those in its __all__ when it has one, else the functions and classes
defined in it whose names do not start with "_"; of a public class, the methods and properties
defined in its body whose names do not start with "_". undocumented() lists the ones without a
docstring of their own (tests/test_docstrings.py fails on any).
"""
import argparse
import dataclasses
import importlib
import inspect
import os
import pkgutil
import re
import sys

from . import ROOT
from ..files import write_atomic

PAGE = os.path.join(ROOT, "docs", "api", "python.md")
PACKAGE = "cmbench"


def module_names(package_name=PACKAGE):
    """Every module of the package, sorted, the package itself first (__main__ modules, which
    run on import, are left out)."""
    package = importlib.import_module(package_name)
    names = [info.name for info in pkgutil.walk_packages(package.__path__, package_name + ".")]
    # Private modules (cmbench._core, present or not depending on how the package was built)
    # are not part of the documented interface.
    public = (n for n in names
              if not n.endswith(".__main__") and not n.rsplit(".", 1)[-1].startswith("_"))
    return [package_name] + sorted(public)


def _defined_in(obj, module):
    return getattr(obj, "__module__", None) == module.__name__


def public_names(module):
    """(name, object) of the module's public functions, classes and submodules, in __all__ order
    or else in the order they are defined. Constants and other values are left out: they have no
    docstring of their own."""
    if hasattr(module, "__all__"):
        names = list(module.__all__)
    else:
        names = [name for name, obj in vars(module).items()
                 if not name.startswith("_") and (inspect.isfunction(obj) or inspect.isclass(obj))
                 and _defined_in(obj, module)]
    out = []
    for name in names:
        obj = getattr(module, name)
        if inspect.isfunction(obj) or inspect.isclass(obj) or inspect.ismodule(obj) \
                or callable(obj):
            out.append((name, obj))
    return out


def public_members(cls):
    """(name, function or property) of the public methods and properties defined in the class's
    own body (inherited ones are documented where they are defined)."""
    out = []
    for name, member in vars(cls).items():
        if name.startswith("_"):
            continue
        if isinstance(member, (staticmethod, classmethod)):
            member = member.__func__
        if inspect.isfunction(member) or isinstance(member, property):
            out.append((name, member))
    return out


def own_doc(obj):
    """The object's own docstring, or None: a class's docstring inherited from a base class and the
    one dataclasses makes up from the fields do not count."""
    if isinstance(obj, property):
        obj = obj.fget
    doc = obj.__dict__.get("__doc__") if inspect.isclass(obj) else getattr(obj, "__doc__", None)
    if inspect.isclass(obj) and dataclasses.is_dataclass(obj) and doc is not None:
        try:
            generated = obj.__name__ + str(inspect.signature(obj)).replace(" -> None", "")
        except (TypeError, ValueError):
            generated = None
        if doc == generated:
            return None
    return doc.strip() if doc and doc.strip() else None


def undocumented(package_name=PACKAGE):
    """Qualified names of every public module, name and member without a docstring of its own
    (a module that cannot be imported is listed with the reason: it cannot be checked)."""
    missing = []
    for module_name in module_names(package_name):
        try:
            module = importlib.import_module(module_name)
            names = public_names(module)
        except Exception as error:  # reported, whatever it is
            missing.append(f"{module_name} (not importable: {type(error).__name__}: {error})")
            continue
        if not own_doc(module):
            missing.append(module_name)
        for name, obj in names:
            if inspect.ismodule(obj):
                continue  # a submodule: checked as a module of its own
            if not own_doc(obj):
                missing.append(f"{module_name}.{name}")
            if inspect.isclass(obj) and _defined_in(obj, module):
                for member_name, member in public_members(obj):
                    if not own_doc(member) and not inspect.getdoc(getattr(obj, member_name)):
                        missing.append(f"{module_name}.{name}.{member_name}")
    return missing


def signature(name, obj):
    """`name(args)` as inspect gives it, or the bare name when it has none (some builtins)."""
    target = obj.fget if isinstance(obj, property) else obj
    try:
        text = str(inspect.signature(target))
    except (TypeError, ValueError):
        return name
    if isinstance(obj, property):
        return name
    return name + text


def _doc_block(obj):
    doc = inspect.getdoc(obj.fget if isinstance(obj, property) else obj)
    if not doc:
        return ["*(no docstring)*", ""]
    # Docstrings are plain text with aligned usage lines: shown as written.
    return ["```text", doc, "```", ""]


def _anchor(heading):
    """The fragment GitHub (and the site, whose toc uses the same rule) gives a heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def render():
    """The page's lines."""
    lines = ["# Python API reference", "",
             "Every module of the `cmbench` package with its public names: signature and "
             "docstring, generated by `PYTHONPATH=python python3 -m cmbench.docs.api_page "
             "--write` (the ctest `docs_python_api_page_is_current` checks that it is current, "
             "and `python_public_names_have_docstrings` that every public name has a "
             "docstring). The guide to the package is [cmbench from Python](../python.md).",
             "", "Modules:", ""]
    modules = [importlib.import_module(name) for name in module_names()]
    for module in modules:
        first = (inspect.getdoc(module) or "").split("\n")[0]
        lines.append(f"- [`{module.__name__}`](#{_anchor(module.__name__)}): {first}")
    lines.append("")
    for module in modules:
        lines += [f"## {module.__name__}", ""] + _doc_block(module)
        for name, obj in public_names(module):
            if inspect.ismodule(obj):
                lines += [f"### `{module.__name__}.{name}`", "",
                          f"The module [`{obj.__name__}`](#{_anchor(obj.__name__)}).", ""]
                continue
            kind = "class" if inspect.isclass(obj) else "function"
            lines += [f"### `{module.__name__}.{name}`", "",
                      f"{kind} `{signature(name, obj)}`", ""] + _doc_block(obj)
            if inspect.isclass(obj) and _defined_in(obj, module):
                for member_name, member in public_members(obj):
                    what = "property" if isinstance(member, property) else "method"
                    lines += [f"#### `{name}.{member_name}`", "",
                              f"{what} `{signature(member_name, member)}`", ""]
                    lines += _doc_block(member)
    while lines and lines[-1] == "":
        lines.pop()
    return lines


def main(argv=None):
    """Prints the page, or with --write rewrites it, or with --check exits 1 when it is stale."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="rewrite docs/api/python.md")
    mode.add_argument("--check", action="store_true", help="exit 1 when the page is stale")
    opts = parser.parse_args(argv)
    text = "\n".join(render()) + "\n"
    if opts.write:
        write_atomic(PAGE, text)
        print(f"api_page: wrote {os.path.relpath(PAGE, ROOT)}")
        return 0
    if opts.check:
        current = open(PAGE, encoding="utf-8").read() if os.path.exists(PAGE) else ""
        if current != text:
            print(f"api_page: {os.path.relpath(PAGE, ROOT)} is stale; regenerate it with\n"
                  "  PYTHONPATH=python python3 -m cmbench.docs.api_page --write")
            return 1
        print(f"api_page: {os.path.relpath(PAGE, ROOT)} is current")
        return 0
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
