"""Python reads a stored result set through its store (cmbench.store, sqlite3 and pandas): the
store's digests are the C++ writer's, an edited, unfinished or damaged set is refused by name, a
series comes from the store (not from a file that may have been cut or removed), and a store
damaged at a generated offset is read whole or refused, never read partly changed. Run by ctest
(tests/python/tests.cmake) with PYTHONPATH=build/python and CMBENCH=build/cmbench."""
import json
import os
import shutil
import sqlite3
import subprocess

import pytest
from hypothesis import given, settings, strategies as st

import cmbench
from cmbench import results, store

CLI = os.environ["CMBENCH"]
CAMPAIGN = {"name": "store_reader", "repeat": 0,
            "problems": [{"id": "simple_pendulum", "t_end": 0.5}],
            "methods": [{"id": "index1"}, {"id": "baumgarte"}, {"id": "projection"}],
            "steppers": [{"id": "rk4", "dt": [0.01, 0.005]}]}


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """A finished campaign's directory (six runs), to copy for each case."""
    root = tmp_path_factory.mktemp("store_reader")
    (root / "c.json").write_text(json.dumps(CAMPAIGN))
    done = subprocess.run([CLI, "campaign", "c.json", "--out", "set", "--jobs", "2"], cwd=root,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return root / "set"


def copy_of(finished, tmp_path, name="copy"):
    target = tmp_path / name
    shutil.copytree(finished, target)
    return target


def execute(directory, sql, *args):
    connection = sqlite3.connect(os.path.join(directory, "results.db"))
    with connection:
        connection.execute(sql, args)
    connection.close()


def test_the_store_holds_what_results_json_holds_with_the_writers_digests(finished):
    frame = store.runs_frame(finished)  # checks every row's digests, the C++ writer's
    with open(finished / "results.json", encoding="utf-8") as f:
        exported = {run["key"]: run for run in json.load(f)["runs"]}
    assert sorted(frame["key"]) == sorted(exported)
    for row in frame.itertuples():
        assert row.record == exported[row.key]
        assert row.status == exported[row.key]["status"]
        assert row.has_series
    stem = os.path.basename(exported[frame["key"][0]]["files"]["series"])
    with open(finished / "series" / stem, encoding="utf-8") as f:
        assert store.stored_series(finished, frame["key"][0]) == f.read()


@given(st.binary(max_size=2000))
def test_the_digest_is_crc32_and_length(data):
    import zlib
    value, length = store.digest(data).split("/")
    assert int(value, 16) == zlib.crc32(data) and int(length) == len(data)


def test_an_edited_results_json_beside_its_store_is_refused(finished, tmp_path):
    work = copy_of(finished, tmp_path)
    text = (work / "results.json").read_text(encoding="utf-8")
    (work / "results.json").write_text(text.replace('"ok"', '"diverged"', 1), encoding="utf-8")
    with pytest.raises(cmbench.InputFileError, match="inconsistent"):
        cmbench.load(work)
    os.unlink(work / "results.db")  # the exported files alone: read as they are
    assert "diverged" in set(cmbench.load(work)["status"])


def test_an_unfinished_set_is_refused(finished, tmp_path):
    work = copy_of(finished, tmp_path)
    execute(work, "DELETE FROM facts WHERE name = 'complete'")
    with pytest.raises(cmbench.InputFileError, match="unfinished"):
        cmbench.load(work)
    os.unlink(work / "results.json")  # stopped before its export: not read from runs/ either
    with pytest.raises(cmbench.InputFileError, match="unfinished"):
        cmbench.load(work)


def test_a_stored_run_that_does_not_match_its_digest_is_refused_by_name(finished, tmp_path):
    work = copy_of(finished, tmp_path)
    key = store.runs_frame(work)["key"][0]
    execute(work, "UPDATE runs SET series = substr(series, 1, 100) WHERE key = ?", key)
    with pytest.raises(cmbench.InputFileError, match="its series does not match its digest"):
        store.runs_frame(work)
    assert results.series(str(work), {"key": key}) == {}  # left out, with a warning


def test_series_come_from_the_store_not_from_the_exported_files(finished, tmp_path):
    work = copy_of(finished, tmp_path)
    expected = cmbench.load_series(finished)
    for name in os.listdir(work / "series"):
        os.unlink(work / "series" / name)
    assert cmbench.load_series(work).equals(expected)


@settings(max_examples=12, deadline=None)
@given(offset=st.floats(0, 1), bit=st.integers(0, 7), cut=st.booleans())
def test_a_damaged_store_is_read_whole_or_refused(finished, tmp_path_factory, offset, bit, cut):
    work = copy_of(finished, tmp_path_factory.mktemp("damaged"))
    expected = cmbench.load(finished)
    db = work / "results.db"
    size = os.path.getsize(db)
    at = min(int(offset * size), size - 1)
    with open(db, "r+b") as f:
        if cut:
            f.truncate(at)
        else:
            f.seek(at)
            byte = f.read(1)[0]
            f.seek(at)
            f.write(bytes([byte ^ (1 << bit)]))
    try:
        frame = cmbench.load(work)
    except cmbench.InputFileError as refused:
        assert "results.db" in str(refused) or "result set" in str(refused)
        return
    assert frame.equals(expected)
