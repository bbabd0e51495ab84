#!/usr/bin/env python3
"""Fails unless every test of a build directory has exactly one tier: one of the ctest labels
unit, process, slow, python, docs, cluster (docs/build.md, "Test tiers"). Reads ctest's own
listing of the tests with their properties, so GoogleTest's discovered cases count too.
Usage: check_tiers.py BUILD_DIR
"""
import json
import subprocess
import sys

TIERS = {"unit", "process", "slow", "python", "docs", "cluster"}


def tests_and_labels(build_dir):
    """[(name, [labels])] of every test ctest knows in build_dir."""
    listing = subprocess.run(["ctest", "--test-dir", build_dir, "--show-only=json-v1"],
                             check=True, capture_output=True, text=True).stdout
    found = []
    for test in json.loads(listing)["tests"]:
        labels = []
        for prop in test.get("properties", []):
            if prop["name"] == "LABELS":
                labels = prop["value"]
        found.append((test["name"], labels))
    return found


def main():
    tests = tests_and_labels(sys.argv[1])
    wrong = [(name, labels) for name, labels in tests
             if len([label for label in labels if label in TIERS]) != 1]
    for name, labels in wrong:
        print(f"{name}: labels {labels or 'none'}; give it exactly one tier of "
              f"{', '.join(sorted(TIERS))} (tests/CMakeLists.txt)")
    counts = {}
    for _, labels in tests:
        for label in labels:
            counts[label] = counts.get(label, 0) + 1
    print(f"{len(tests)} tests: " + ", ".join(f"{counts.get(t, 0)} {t}" for t in sorted(TIERS)))
    return 1 if wrong or not tests else 0


if __name__ == "__main__":
    sys.exit(main())
