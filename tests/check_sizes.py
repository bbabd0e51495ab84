#!/usr/bin/env python3
"""Fails when a C++ file is longer than 350 lines or a function in harness/, records/, steppers/
or cli/ longer than 60 lines (the limits of the layout, docs/extending.md). Files whose length the physics or a
generator dictates are listed in EXEMPT_FILES with the reason.

Functions are found in clang-formatted code: a definition starts at column 0 and its body ends
at the next line that is a lone '}' (class members and lambdas are indented and counted inside
the function that holds them). Prints the longest functions in those folders.
Usage: check_sizes.py SOURCE_DIR
"""
import pathlib
import re
import sys

MAX_FILE_LINES = 350
MAX_FUNCTION_LINES = 60
FUNCTION_FOLDERS = ("harness", "records", "steppers", "cli")
SKIP_DIRS = {"build", ".git"}
EXEMPT_FILES = {}
NOT_A_FUNCTION = re.compile(r"^(#|//|namespace|class |struct |enum |union |template|using |\}|extern \"C\" \{)")


def sources(root):
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if rel.parts[0] in SKIP_DIRS or rel.parts[0].startswith("build"):
            continue
        if path.suffix in {".cpp", ".hpp", ".h"}:
            yield rel, path.read_text(encoding="utf-8").split("\n")


def functions(lines):
    """[(first line number, length, signature)] of the functions defined at column 0."""
    found, i = [], 0
    while i < len(lines):
        line = lines[i]
        if not line or line[0].isspace() or NOT_A_FUNCTION.match(line):
            i += 1
            continue
        j = i
        while j < len(lines) and not lines[j].rstrip().endswith(("{", ";")) and j - i < 8:
            j += 1
        signature = " ".join(lines[i:j + 1])
        if j < len(lines) and lines[j].rstrip().endswith("{") and "(" in signature \
                and not lines[j].rstrip().endswith("= {"):
            end = j + 1
            while end < len(lines) and lines[end] != "}":
                end += 1
            found.append((i + 1, end - i + 1, signature.split("(")[0].split()[-1]))
            i = end + 1
        else:
            i = j + 1
    return found


def main():
    root = pathlib.Path(sys.argv[1])
    problems, longest = [], []
    for rel, lines in sources(root):
        count = len(lines) - (1 if lines[-1] == "" else 0)
        if count > MAX_FILE_LINES and str(rel) not in EXEMPT_FILES:
            problems.append(f"{rel}: {count} lines (limit {MAX_FILE_LINES})")
        if rel.parts[0] in FUNCTION_FOLDERS:
            for line, length, name in functions(lines):
                longest.append((length, f"{rel}:{line} {name}"))
                if length > MAX_FUNCTION_LINES:
                    problems.append(f"{rel}:{line}: function {name} has {length} lines "
                                    f"(limit {MAX_FUNCTION_LINES})")
    print("longest functions in harness/, records/, steppers/ and cli/:")
    for length, where in sorted(longest, reverse=True)[:5]:
        print(f"  {length:3d}  {where}")
    for problem in problems:
        print(problem)
    print(f"{len(problems)} size problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
