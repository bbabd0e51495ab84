"""cmbench.files.read_json (issue #26 item 3): every JSON file the Python package reads is read
within bounds, and what it refuses it names by file and place. Generated documents (hypothesis,
derandomized: the same cases on every run) for the classes of input; then the failures as
reported: a result set nested 200 000 levels deep and a run with "status" twice, given to
cmbench.load and to the report.
Run by ctest (tests/files/tests.cmake) with PYTHONPATH=python."""
import json
import os
import subprocess
import sys

import pytest
from hypothesis import example, given, settings, strategies as st

import cmbench
from cmbench import files, results
from cmbench.files import InputFileError, MAX_JSON_DEPTH, parse_json, read_json

PROPERTIES = settings(max_examples=80, derandomize=True, deadline=None, database=None)
PACKAGE_PATH = os.path.dirname(os.path.dirname(os.path.abspath(cmbench.__file__)))

# --- generated documents ------------------------------------------------------------------------

# What strings may hold that a reader could trip on: JSON's structural characters, quotes and
# backslashes, '/' (the path separator), control characters, characters of 2, 3 and 4 UTF-8 bytes.
CHARACTERS = st.sampled_from('aZ0 /"\\[]{}:,\n\t\x00\x1féΩ€\u2028😀')
KEYS = st.text(CHARACTERS, max_size=4)
SCALARS = (st.none() | st.booleans() | st.integers(-10**300, 10**300)
           | st.floats(allow_nan=False, allow_infinity=False) | st.text(CHARACTERS, max_size=8))
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(KEYS, inner, max_size=4), max_leaves=16)
CONTAINERS = st.lists(VALUES, max_size=4) | st.dictionaries(KEYS, VALUES, max_size=4)

HOLE = object()  # where a generated document gets the text under test


def _in_list(siblings, at, inner):
    return siblings[:at % (len(siblings) + 1)] + [inner] + siblings[at % (len(siblings) + 1):]


def _in_object(siblings, key, inner):
    return {**{k: v for k, v in siblings.items() if k != key}, key: inner}


# A document with exactly one HOLE, at any depth and position.
WITH_HOLE = st.recursive(
    st.just(HOLE),
    lambda inner: st.builds(_in_list, st.lists(VALUES, max_size=3), st.integers(0, 3), inner)
    | st.builds(_in_object, st.dictionaries(KEYS, VALUES, max_size=3), KEYS, inner),
    max_leaves=6)


def dumps(value, hole_text):
    """JSON text of a generated document with hole_text where its HOLE is."""
    if value is HOLE:
        return hole_text
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)}: {dumps(v, hole_text)}"
                               for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(dumps(v, hole_text) for v in value) + "]"
    return json.dumps(value)


def hole_path(value, path=""):
    """The JSON path of the HOLE, as the reader names paths ('/' for the whole document)."""
    if value is HOLE:
        return path or "/"
    children = (value.items() if isinstance(value, dict)
                else enumerate(value) if isinstance(value, list) else ())
    for key, child in children:
        found = hole_path(child, f"{path}/{key}")
        if found:
            return found
    return None


def refusal(text):
    """The message parse_json gives `text` (read from 'doc.json' as a 'test')."""
    with pytest.raises(InputFileError) as caught:
        parse_json(text, "doc.json", "test")
    return str(caught.value)


# --- nesting ------------------------------------------------------------------------------------

# An opening that nests one level: (text, its step in the path, its closing text).
OPENINGS = {"[": ("0", "]"), '{"a": ': ("a", "}"), "[1, ": ("1", "]"),
            '{"x\\"[/": ': ('x"[/', "}")}


def nested(depth, pattern):
    openings = [pattern[i % len(pattern)] for i in range(depth)]
    return openings, "".join(openings) + "0" + "".join(OPENINGS[o][1] for o in reversed(openings))


@PROPERTIES
@given(depth=st.integers(MAX_JSON_DEPTH + 1, 300_000),
       pattern=st.lists(st.sampled_from(sorted(OPENINGS)), min_size=1, max_size=4))
@example(depth=200_000, pattern=["["])
@example(depth=10**6, pattern=['{"a": '])
@example(depth=MAX_JSON_DEPTH + 1, pattern=["[", '{"x\\"[/": '])
def test_any_nesting_deeper_than_the_limit_is_refused_naming_its_path(depth, pattern):
    """The refusal comes from the scan before parsing: never a RecursionError, whatever the
    depth; the path is that of the first container too deep, brackets inside keys skipped."""
    openings, text = nested(depth, pattern)
    path = "/" + "/".join(OPENINGS[o][0] for o in openings[:MAX_JSON_DEPTH])
    assert refusal(text) == f"doc.json: nested deeper than 64 levels at {path} (test)"


@PROPERTIES
@given(depth=st.integers(1, MAX_JSON_DEPTH),
       pattern=st.lists(st.sampled_from(sorted(OPENINGS)), min_size=1, max_size=4))
def test_nesting_up_to_the_limit_reads_as_json_loads(depth, pattern):
    _, text = nested(depth, pattern)
    assert parse_json(text, "doc.json", "test") == json.loads(text)


def test_the_limit_is_the_cpp_readers():
    with open(os.path.join(PACKAGE_PATH, "..", "core", "json_input.hpp")) as f:
        assert f"constexpr int kMaxJsonDepth = {MAX_JSON_DEPTH};" in f.read()


# --- what JSON leaves to the reader, and what it does not allow ----------------------------------

@PROPERTIES
@given(document=WITH_HOLE, members=st.dictionaries(KEYS, VALUES, min_size=1, max_size=4),
       data=st.data())
def test_a_key_twice_in_any_object_is_refused_naming_the_object(document, members, data):
    key = data.draw(st.sampled_from(sorted(members)))
    pairs = list(members.items())
    pairs.insert(data.draw(st.integers(0, len(pairs))), (key, data.draw(VALUES)))
    duplicated = "{" + ", ".join(f"{json.dumps(k)}: {dumps(v, '')}" for k, v in pairs) + "}"
    assert refusal(dumps(document, duplicated)) == (
        f"doc.json: key {json.dumps(key)} appears twice in the object at "
        f"{hole_path(document)} (test)")


@PROPERTIES
@given(document=WITH_HOLE, literal=st.sampled_from(["NaN", "Infinity", "-Infinity"]))
def test_nan_and_infinity_are_refused_naming_their_path(document, literal):
    assert refusal(dumps(document, literal)) == (
        f"doc.json: {literal} is not a JSON number at {hole_path(document)} (test)")


@PROPERTIES
@given(document=WITH_HOLE,
       number=st.sampled_from(["1e400", "-2.5E+309", "1" + "0" * 400, "-" + "9" * 5000]))
def test_numbers_beyond_double_range_are_refused_naming_their_path(document, number):
    message = refusal(dumps(document, number))
    assert message.startswith("doc.json: ")
    assert message.endswith(f" is beyond double range at {hole_path(document)} (test)")


# --- documents within the bounds, and damaged ones ------------------------------------------------

@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    return tmp_path_factory.mktemp("read_json")


@PROPERTIES
@given(value=VALUES, ascii_only=st.booleans(), indent=st.sampled_from([None, 0, 2]))
def test_any_document_within_the_bounds_reads_as_json_loads(scratch, value, ascii_only, indent):
    text = json.dumps(value, ensure_ascii=ascii_only, indent=indent)
    path = scratch / "doc.json"
    path.write_bytes(text.encode("utf-8"))
    assert read_json(path, "test") == json.loads(text)


@PROPERTIES
@given(value=CONTAINERS, data=st.data())
def test_a_truncated_document_is_refused_with_its_position(value, data):
    text = json.dumps(value)
    cut = data.draw(st.integers(0, len(text) - 1))
    message = refusal(text[:cut])
    assert message.startswith("doc.json: not valid JSON (truncated?): ")
    assert message.endswith(" (test)") and ": line 1 column " in message


@PROPERTIES
@given(value=VALUES, bad=st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80"]), data=st.data())
def test_bytes_that_are_not_utf8_are_refused_naming_their_offset(scratch, value, bad, data):
    """A byte that starts no character, a sequence cut short, an encoded surrogate: at any
    character boundary of a document, refused at that byte."""
    text = json.dumps(value, ensure_ascii=False)
    at = data.draw(st.integers(0, len(text)))
    path = scratch / "bytes.json"
    path.write_bytes(text[:at].encode("utf-8") + bad + text[at:].encode("utf-8"))
    with pytest.raises(InputFileError) as caught:
        read_json(path, "test")
    assert str(caught.value) == (f"{path}: not UTF-8 text (byte {len(text[:at].encode())}) "
                                 "(test)")


def test_a_file_over_the_size_limit_is_refused_unread(tmp_path):
    path = tmp_path / "big.json"
    with open(path, "wb") as f:
        f.truncate(files.MAX_FILE_BYTES + 1)  # sparse: no disk space, and never read
    with pytest.raises(InputFileError, match=r"big\.json: larger than 256 MiB \(268435457 "):
        read_json(path, "test")


def test_the_size_limit_holds_at_its_boundary_and_for_files_without_a_size(tmp_path,
                                                                             monkeypatch):
    monkeypatch.setattr(files, "MAX_FILE_BYTES", 64)
    path = tmp_path / "doc.json"
    path.write_text(json.dumps("a" * 62))  # 64 bytes
    assert read_json(path, "test") == "a" * 62
    path.write_text(json.dumps("a" * 63))
    with pytest.raises(InputFileError, match="larger than"):
        read_json(path, "test")
    with pytest.raises(InputFileError, match="larger than"):  # fstat says 0 bytes
        read_json("/proc/self/maps", "test")


def test_a_file_that_cannot_be_read_is_named(tmp_path):
    with pytest.raises(InputFileError) as caught:
        read_json(tmp_path / "absent.json", "test")
    assert str(caught.value) == \
        f"{tmp_path / 'absent.json'}: cannot read: No such file or directory (test)"


@pytest.mark.parametrize("kind,problem", [("directory", "cannot read: Is a directory"),
                                          ("device", "not a regular file (a device)"),
                                          ("FIFO", "not a regular file (a FIFO)")])
def test_only_a_regular_file_is_read_and_nothing_waits_on_a_fifo(tmp_path, kind, problem):
    path = {"directory": lambda: tmp_path, "device": lambda: "/dev/zero",
            "FIFO": lambda: os.mkfifo(tmp_path / "pipe") or tmp_path / "pipe"}[kind]()
    with pytest.raises(InputFileError) as caught:
        read_json(path, "test")
    assert str(caught.value) == f"{path}: {problem} (test)"


# --- the failures as reported -------------------------------------------------------------------

RUN = ('{"key": "simple_pendulum/index1/rk4/dt=0.01", "status": "ok", "problem": {"id": '
       '"simple_pendulum"}, "method": {"id": "index1"}, "stepper": {"id": "rk4", "kind": '
       '"fixed"}, "status": "diverged", "message": "step size underflow"}')
CASES = {  # name: (results.json, the message's end)
    "nested 200 000 levels": ('{"schema": "cmbench.results/1", "runs": [' + "[" * 200_000
                              + "]" * 200_000 + "]}",
                              "nested deeper than 64 levels at /runs" + "/0" * 63
                              + " (result set)"),
    "status twice in a run": ('{"schema": "cmbench.results/1", "runs": [' + RUN + "]}",
                              'key "status" appears twice in the object at /runs/0 '
                              "(result set)"),
}


def result_set(tmp_path, text):
    directory = tmp_path / "set"
    directory.mkdir()
    (directory / "results.json").write_text(text)
    return directory


@pytest.mark.parametrize("case", sorted(CASES))
def test_load_refuses_the_reported_result_sets(tmp_path, case):
    text, end = CASES[case]
    directory = result_set(tmp_path, text)
    message = f"{directory / 'results.json'}: {end}"
    with pytest.raises(InputFileError) as caught:
        results.load(directory)
    assert str(caught.value) == message
    with pytest.raises(InputFileError) as caught:
        cmbench.load(directory)
    assert str(caught.value) == message


def run_entry_point(module, *args):
    return subprocess.run([sys.executable, "-m", module, *map(str, args)], capture_output=True,
                          text=True, env=dict(os.environ, PYTHONPATH=PACKAGE_PATH))


def assert_one_line(run, message):
    assert run.returncode == 2, run.stderr
    assert run.stderr.splitlines() == [message]


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_report_says_what_is_wrong_in_one_line(tmp_path, case):
    text, end = CASES[case]
    directory = result_set(tmp_path, text)
    assert_one_line(run_entry_point("cmbench.report", directory, "--quiet"),
                    f"report.py: {directory / 'results.json'}: {end}")


def test_the_report_refuses_a_names_file_with_a_key_twice(tmp_path):
    path = tmp_path / "names.json"
    path.write_text('{"methods": {"index1": "KKT", "index1": "Index 1"}}')
    assert_one_line(run_entry_point("cmbench.report", tmp_path, "--names", path),
                    f'report.py: {path}: key "index1" appears twice in the object at /methods '
                    "(display names)")


def test_the_benchmark_figure_refuses_a_key_twice(tmp_path):
    path = tmp_path / "bench.json"
    path.write_text('{"benchmarks": [], "benchmarks": []}')
    assert_one_line(run_entry_point("cmbench.bench", path, "--out", tmp_path / "out"),
                    f'bench_plot: {path}: key "benchmarks" appears twice in the object at / '
                    "(Google Benchmark JSON)")
    assert not (tmp_path / "out").exists()
