#!/usr/bin/env python3
"""Fails when a C++ file includes a header from a layer above its own.

The folders are the layers, bottom to top: core (interfaces and numerics); methods, problems,
integrators and steppers (beside each other, each on core); catalog (the tables of every entry);
records (the files: run records, result sets, reference caches, merge, compare, the atomic
writer; on core only); harness/run (one run) and above it harness/campaign (campaigns); cli (the
command line). A file may include headers of its own layer and of the layers below it; tests,
benchmarks and fuzz targets sit on top of everything. A file directly in harness/ has no layer:
it is reported too.
Usage: check_layers.py SOURCE_DIR
"""
import pathlib
import re
import sys

ENTRIES = {"core", "methods", "problems", "integrators", "steppers"}
BELOW = {
    "core": {"core"},
    "methods": {"core", "methods"},
    "problems": {"core", "problems"},
    "integrators": {"core", "integrators"},
    "steppers": {"core", "steppers"},
    "catalog": ENTRIES | {"catalog"},
    "records": {"core", "records"},
    "harness/run": ENTRIES | {"catalog", "records", "harness/run"},
    "harness/campaign": ENTRIES | {"catalog", "records", "harness/run", "harness/campaign"},
    "cli": ENTRIES | {"catalog", "records", "harness/run", "harness/campaign", "cli"},
}


def layer_of(relative):
    """The layer of a path relative to the source root ("harness/run/run.hpp" -> "harness/run");
    None outside the layers (tests, fuzz, ...)."""
    parts = pathlib.PurePosixPath(relative).parts
    if len(parts) < 2:
        return None
    if parts[0] == "harness":
        return "/".join(parts[:2]) if len(parts) > 2 else "harness"
    return parts[0] if parts[0] in BELOW else None
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)


def upward_edges(root):
    for top in sorted({layer.split("/")[0] for layer in BELOW}):
        for path in sorted((root / top).rglob("*")):
            if path.suffix not in {".cpp", ".hpp", ".def", ".h"}:
                continue
            relative = path.relative_to(root).as_posix()
            layer = layer_of(relative)
            if layer not in BELOW:
                yield f"{relative} is in no layer (harness/ holds run/ and campaign/)"
                continue
            for target in INCLUDE.findall(path.read_text(encoding="utf-8")):
                above = layer_of(target)
                if above is None and target.split("/", 1)[0] == "harness":
                    above = "harness"
                if above is not None and above not in BELOW[layer]:
                    yield f"{relative} includes {target} ({above} is above {layer})"


def main():
    root = pathlib.Path(sys.argv[1])
    edges = list(upward_edges(root))
    for edge in edges:
        print(edge)
    print(f"{len(edges)} upward include(s)")
    return 1 if edges else 0


if __name__ == "__main__":
    sys.exit(main())
