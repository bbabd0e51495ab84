#!/usr/bin/env python3
"""Fails when a C++ file includes a header from a layer above its own.

The folders are the layers, bottom to top: core (interfaces and numerics), methods, problems and
integrators (beside each other, each on core), catalog (the tables of every entry), harness
(runs, campaigns, result sets), cli (the command line). A file may include headers of its own
layer and of the layers below it; tests, benchmarks and fuzz targets sit on top of everything.
Usage: check_layers.py SOURCE_DIR
"""
import pathlib
import re
import sys

BELOW = {
    "core": {"core"},
    "methods": {"core", "methods"},
    "problems": {"core", "problems"},
    "integrators": {"core", "integrators"},
    "catalog": {"core", "methods", "problems", "integrators", "catalog"},
    "harness": {"core", "catalog", "harness"},
    "cli": {"core", "catalog", "harness", "cli"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)


def upward_edges(root):
    for layer, allowed in BELOW.items():
        for path in sorted((root / layer).rglob("*")):
            if path.suffix not in {".cpp", ".hpp", ".def", ".h"}:
                continue
            for target in INCLUDE.findall(path.read_text(encoding="utf-8")):
                top = target.split("/", 1)[0]
                if "/" in target and top in BELOW and top not in allowed:
                    yield f"{path.relative_to(root)} includes {target} ({top} is above {layer})"


def main():
    root = pathlib.Path(sys.argv[1])
    edges = list(upward_edges(root))
    for edge in edges:
        print(edge)
    print(f"{len(edges)} upward include(s)")
    return 1 if edges else 0


if __name__ == "__main__":
    sys.exit(main())
