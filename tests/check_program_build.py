#!/usr/bin/env python3
"""Checks that a program built with cmbench_add_executable records the build it was made with.

Given the build directory of a project on the installed package (examples/out_of_tree, configured
with CMAKE_EXPORT_COMPILE_COMMANDS=ON) and the build type it should have, it checks that
- the project's build type is that one (find_package(cmbench) gives Release to a project that
  sets none),
- the compile command of the program's own method file has an optimization flag other than -O0,
- a run record's context names the program, that build type, and flags every word of which is in
  that compile command (what the record says is what compiled the user's code), beside the
  cmbench libraries' build (cmbench_build),
- `PROGRAM --version` prints the same build type and flags.
Usage: check_program_build.py BUILD_DIR BUILD_TYPE [PROGRAM [SOURCE [PROBLEM]]]
(defaults: mybench, example_kkt_lu.cpp, example_incline — the example's)
"""
import json
import pathlib
import re
import shlex
import subprocess
import sys
import tempfile


def fail(message):
    sys.exit(f"check_program_build: {message}")


def cached_build_type(build_dir):
    for line in (build_dir / "CMakeCache.txt").read_text().splitlines():
        if line.startswith("CMAKE_BUILD_TYPE:"):
            return line.split("=", 1)[1]
    fail("CMakeCache.txt has no CMAKE_BUILD_TYPE")


def compile_words(build_dir, program, source):
    """The words of the command that compiles SOURCE into PROGRAM."""
    for entry in json.loads((build_dir / "compile_commands.json").read_text()):
        words = entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])
        # The object file names the target ("output" is not written by every CMake version).
        output = entry.get("output") or (words[words.index("-o") + 1] if "-o" in words else "")
        if entry["file"].endswith("/" + source) and f"{program}.dir/" in output:
            return words
    fail(f"no compile command of {source} for {program} in compile_commands.json")


def recorded_context(binary, problem, method):
    with tempfile.TemporaryDirectory() as scratch:
        out = pathlib.Path(scratch) / "record.json"
        subprocess.run([str(binary), "run", "--problem", problem, "--method", method, "--stepper",
                        "rk4", "--dt", "0.01", "--repeat", "0", "--out", str(out)],
                       check=True, stdout=subprocess.DEVNULL)
        return json.loads(out.read_text())["context"]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    build_dir, build_type = pathlib.Path(sys.argv[1]), sys.argv[2]
    program = sys.argv[3] if len(sys.argv) > 3 else "mybench"
    source = sys.argv[4] if len(sys.argv) > 4 else "example_kkt_lu.cpp"
    problem = sys.argv[5] if len(sys.argv) > 5 else "example_incline"
    if cached_build_type(build_dir) != build_type:
        fail(f"build type '{cached_build_type(build_dir)}', expected '{build_type}'")
    words = compile_words(build_dir, program, source)
    levels = [w for w in words if re.fullmatch(r"-O.*", w)]
    if not levels or levels[-1] == "-O0":
        fail(f"{source} is compiled without optimization: {' '.join(words)}")
    method = pathlib.Path(source).stem
    context = recorded_context(build_dir / program, problem, method)
    if context.get("program") != program or context.get("build_type") != build_type:
        fail(f"the record names {context.get('program')!r}, {context.get('build_type')!r}")
    flags = context.get("flags", "")
    if levels[-1] not in flags.split():
        fail(f"recorded flags '{flags}' lack the compile command's {levels[-1]}")
    missing = [w for w in flags.split() if w not in words]
    if missing:
        fail(f"recorded flags {missing} are not in the compile command {' '.join(words)}")
    library = context.get("cmbench_build") or {}
    if not all(isinstance(library.get(k), str) for k in ("build_type", "flags", "compiler")):
        fail(f"the record's cmbench_build is incomplete: {library}")
    version = subprocess.run([str(build_dir / program), "--version"], check=True,
                             capture_output=True, text=True).stdout.strip()
    if not version.startswith(f"{program} ({build_type}, {flags}, ") or " on cmbench " not in version:
        fail(f"--version says '{version}', expected the build {build_type}, {flags}")
    print(f"check_program_build: {program} is {build_type} ({flags}), as its record and --version "
          f"say; cmbench libraries: {library['build_type']} ({library['flags']})")


if __name__ == "__main__":
    main()
