"""A FIFO, a device, a socket or a directory where a result set, a series, a run record or a
model belongs is refused by name by every reader and writer, and nothing waits on it: opening a
FIFO waits for its other end, and a device can stream without end, so a reader that opened one
hung (cmbench.load, the report, derive) and a writer that wrote into one hung or lost the data (a
campaign's worker rewriting a series, merge --force). Every consumer meets every kind of file in
its place; each command runs in a child process with a time limit, so a hang fails the test
instead of stopping it. Run by ctest (tests/python/tests.cmake) with PYTHONPATH=build/python and
CMBENCH=build/cmbench."""
import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys

import pytest

import cmbench

PACKAGE_PATH = os.path.dirname(os.path.dirname(os.path.abspath(cmbench.__file__)))
CLI = os.environ["CMBENCH"]
SOURCE = os.environ["CMB_SOURCE_DIR"]
MODEL = os.path.join(SOURCE, "tests", "derive", "models", "driven_knife_edge.py")
CAMPAIGN = {"name": "non_regular", "repeat": 0,
            "problems": [{"id": "simple_pendulum", "t_end": 0.5}],
            "methods": [{"id": "index1"}, {"id": "baumgarte"}],
            "steppers": [{"id": "rk4", "dt": [0.01]}]}
LIMIT_S = 120  # far beyond what any of these takes; only a hang reaches it


def put_in_place(path, kind):
    """Replaces whatever is at path with a file of `kind`."""
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    elif os.path.lexists(path):
        os.unlink(path)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        os.symlink("/dev/zero", path)  # reads without end
    elif kind == "socket":  # bound from its directory: a socket's path has at most 107 bytes
        here = os.getcwd()
        os.chdir(os.path.dirname(path))
        try:
            with socket.socket(socket.AF_UNIX) as s:
                s.bind(os.path.basename(path))
        finally:
            os.chdir(here)
    else:
        os.mkdir(path)


def run(args, cwd):
    python = [sys.executable, "-c"]
    return subprocess.run(python + [args[1]] if args[0] == "python" else args, cwd=cwd,
                          capture_output=True, text=True, timeout=LIMIT_S,
                          env={**os.environ, "MPLBACKEND": "Agg", "PYTHONPATH": PACKAGE_PATH})


@pytest.fixture(scope="module")
def result_set(tmp_path_factory):
    """A finished campaign (two runs) and a merge of it, to copy for each case."""
    root = tmp_path_factory.mktemp("non_regular")
    (root / "c.json").write_text(json.dumps(CAMPAIGN))
    assert subprocess.run([CLI, "campaign", "c.json", "--out", "set", "--jobs", "2"],
                          cwd=root, capture_output=True).returncode == 0
    assert subprocess.run([CLI, "merge", "set", "--out", "merged"], cwd=root,
                          capture_output=True).returncode == 0
    return root


def a_run_file(directory, sub):
    return sorted(os.listdir(os.path.join(directory, sub)))[0]


# consumer: (what is replaced, relative to the case's directory; the command; whether the
# consumer may go on without the file, saying so by name, instead of failing).
def cases(work):
    record = "set/runs/" + a_run_file(work / "set", "runs")
    series = "set/series/" + a_run_file(work / "set", "series")

    def py(call):  # the call's refusal printed as a caller would, exit 2
        return ["python", f"import cmbench\ntry:\n    {call}\nexcept ValueError as e:\n"
                          "    print(e)\n    raise SystemExit(2)"]
    return {
        "cmbench.load": ("set/results.json", py("cmbench.load('set')"), False),
        # Of the exported files alone (a set copied without its store, whose series it reads).
        "cmbench.load_series": (series, py("cmbench.load_series('set')"), True),
        "report": ("set/results.json",
                   ["python", "import sys; from cmbench.report import main; "
                              "sys.exit(main(['set', '--out', 'report', '--quiet']))"], False),
        "worker rewriting a series": (series, [CLI, "campaign", "c.json", "--out", "set",
                                               "--resume"], False),
        # Resume exports every record again from the store.
        "resume rewriting a record": (record, [CLI, "campaign", "c.json", "--out", "set",
                                               "--resume"], False),
        "merge --force over a merge": ("merged/results.json",
                                       [CLI, "merge", "set", "--out", "merged", "--force"],
                                       False),
        "merge copying a record": (record, [CLI, "merge", "set", "--out", "merged2"], False),
        "compare": ("set/results.json", [CLI, "compare", "set", "merged"], False),
        "derive reading the model": ("model/driven_knife_edge.py",
                                     [sys.executable, "-m", "cmbench.derive",
                                      "model/driven_knife_edge.py", "--out", "model"], False),
        "derive writing its file": ("model/driven_knife_edge.inc",
                                    [sys.executable, "-m", "cmbench.derive",
                                     "model/driven_knife_edge.py", "--out", "model"], False),
    }


CONSUMERS = ["cmbench.load", "cmbench.load_series", "report", "worker rewriting a series",
             "resume rewriting a record", "merge --force over a merge", "merge copying a record",
             "compare", "derive reading the model", "derive writing its file"]


# Writers of a set's exported files: a symbolic link in a file's place (the "device" here is a
# link to /dev/zero) is replaced by the file, never followed; anything else is refused.
EXPORTERS = {"worker rewriting a series", "resume rewriting a record"}


@pytest.mark.parametrize("kind", ["fifo", "device", "socket", "directory"])
@pytest.mark.parametrize("consumer", CONSUMERS)
def test_a_file_that_is_not_regular_is_refused_by_name(result_set, tmp_path, consumer, kind):
    work = tmp_path / "work"
    shutil.copytree(result_set, work, symlinks=True)
    os.mkdir(work / "model")
    shutil.copy(MODEL, work / "model")
    place, command, may_go_on = cases(work)[consumer]
    if consumer == "worker rewriting a series":  # the run is to do again, its series in the way
        stem = os.path.basename(place)[:-4]
        connection = sqlite3.connect(work / "set" / "results.db")
        with connection:
            connection.execute("DELETE FROM runs WHERE file = ?", (stem,))
        connection.close()
    if consumer == "cmbench.load_series":
        os.unlink(work / "set" / "results.db")
    put_in_place(work / place, kind)
    result = run(command, work)
    said = result.stdout + result.stderr
    if kind == "device" and consumer in EXPORTERS:  # a link in the set's place: replaced
        assert result.returncode == 0, f"{consumer}, {kind}: exit {result.returncode}\n{said}"
        assert os.path.isfile(work / place) and not os.path.islink(work / place)
        return
    assert os.path.basename(place) in said, f"{consumer}, {kind}: exit {result.returncode}\n{said}"
    if not may_go_on:
        assert result.returncode != 0, f"{consumer}, {kind}: exit 0\n{said}"
    assert "Traceback" not in said and "internal error" not in said, said
