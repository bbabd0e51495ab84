"""A result set's store (results.db), read with the standard library's sqlite3.

    from cmbench import store
    store.check_set("results/smoke/RUN", results_json_text)   # InputFileError unless complete
    frame = store.runs_frame("results/smoke/RUN")              # pandas: a row per stored run
    text = store.stored_series("results/smoke/RUN", key)       # a run's series CSV, or None

A campaign or a merge commits its runs into results.db (schema cmbench.store/1: tables runs and
facts, each value beside its digest) and exports results.json and the run files from it. The
set is complete when the store's "complete" fact is the digest of the results.json it exported;
a campaign or merge erases that fact before it changes the store and writes it after the export,
so a set stopped in between is refused here, as by the C++ readers (docs/campaigns.md, "The
result store"). A directory without results.db (a committed set, a copy of the exported files) has
nothing to check. The digest is zlib's CRC-32 in hex and the length in bytes ("1a2b3c4d/5120").
"""
import json
import os
import sqlite3
import urllib.parse
import zlib

from .files import InputFileError

__all__ = ["STORE_FILE", "SCHEMA", "digest", "store_path", "has_store", "check_set", "runs_frame",
           "stored_series"]

STORE_FILE = "results.db"
SCHEMA = "cmbench.store/1"


def digest(data):
    """The digest the store keeps beside `data` (bytes, or text as UTF-8)."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    return f"{zlib.crc32(data) & 0xFFFFFFFF:08x}/{len(data)}"


def store_path(results_dir):
    """The path of the store of the result set in results_dir."""
    return os.path.join(os.fspath(results_dir), STORE_FILE)


def has_store(results_dir):
    """Whether results_dir holds a store (a campaign's or merge's own directory)."""
    return os.path.lexists(store_path(results_dir))


def _connect(path):
    """A read-only connection: a reader never changes the file (nor creates one)."""
    uri = "file:" + urllib.parse.quote(os.path.abspath(path)) + "?mode=ro"
    try:
        return sqlite3.connect(uri, uri=True)
    except sqlite3.Error as error:
        raise InputFileError(path, f"cannot open the result store: {error}") from None


def _query(connection, path, sql, *args):
    try:
        return connection.execute(sql, args).fetchall()
    except sqlite3.DatabaseError as error:
        raise InputFileError(path, f"cannot read the result store: {error} (damaged, or not a "
                                   "cmbench result store)") from None


def _facts(connection, path):
    """{name: value} of the store's facts, each checked against its digest."""
    facts = {}
    for name, value, kept in _query(connection, path, "SELECT name, value, digest FROM facts"):
        if digest(name + "\n" + value) != kept:
            raise InputFileError(path, f"the result store is damaged: its fact '{name}' does not "
                                       "match its digest")
        facts[name] = value
    if facts.get("schema") != SCHEMA:
        raise InputFileError(path, f"not a cmbench result store (schema {facts.get('schema')!r}, "
                                   f"not {SCHEMA})")
    return facts


def _integrity(connection, path):
    findings = [row[0] for row in _query(connection, path, "PRAGMA integrity_check")]
    if findings != ["ok"]:
        shown = next((f for f in findings if not f.startswith("*** in database")), findings[0])
        raise InputFileError(path, f"the result store is damaged (SQLite's integrity check: "
                                   f"{shown})")


def check_set(results_dir, results_text):
    """InputFileError unless the set in results_dir is complete: without a store, nothing to
    check; with one, it passes SQLite's integrity check, its facts their digests, and
    `results_text` (its results.json, as read) is the one it exported last."""
    path = store_path(results_dir)
    if not os.path.lexists(path):
        return
    connection = _connect(path)
    try:
        _integrity(connection, path)
        complete = _facts(connection, path).get("complete")
    finally:
        connection.close()
    if complete is None:
        raise InputFileError(os.fspath(results_dir), "the result set is unfinished: the campaign "
                             "or merge writing it stopped before it committed the set (finish "
                             "it with resume, or merge again with --force)")
    if complete != digest(results_text):
        raise InputFileError(os.fspath(results_dir), "the result set is inconsistent: its "
                             "results.json is not the one its store exported (it was edited or "
                             "replaced since)")


def _checked_row(path, key, record, record_digest, series, series_digest):
    if digest(record) != record_digest:
        raise InputFileError(path, f"the result store is damaged: run {key}: its record does "
                                   "not match its digest")
    if (series is None) != (series_digest is None) or (
            series is not None and digest(series) != series_digest):
        raise InputFileError(path, f"the result store is damaged: run {key}: its series does "
                                   "not match its digest")


def stored_series(results_dir, key):
    """The series CSV text the store holds for run `key` (its digest checked), or None when the
    set has no store, the store does not hold the run, or the run has no series."""
    path = store_path(results_dir)
    if not os.path.lexists(path):
        return None
    connection = _connect(path)
    try:
        rows = _query(connection, path, "SELECT record, record_digest, series, series_digest "
                                         "FROM runs WHERE key = ?", key)
    finally:
        connection.close()
    if not rows:
        return None
    _checked_row(path, key, *rows[0])
    return rows[0][2]


def runs_frame(results_dir):
    """The store's runs as a pandas DataFrame, read by pandas from sqlite3: key, file, status,
    timing_pending (bool), has_series (bool) and record (the run record, parsed), in key order;
    every row's digests checked first (InputFileError naming the run otherwise)."""
    from .requirements import require
    require("cmbench.store.runs_frame", "pandas")
    import pandas

    path = store_path(results_dir)
    if not os.path.lexists(path):
        raise InputFileError(os.fspath(results_dir), f"no {STORE_FILE} (not a stored result set)")
    connection = _connect(path)
    try:
        _integrity(connection, path)
        _facts(connection, path)
        frame = pandas.read_sql_query(
            "SELECT key, file, status, timing_pending, record, record_digest, series, "
            "series_digest FROM runs ORDER BY key", connection)
    except pandas.errors.DatabaseError as error:
        raise InputFileError(path, f"cannot read the result store: {error}") from None
    finally:
        connection.close()
    for row in frame.itertuples(index=False):
        _checked_row(path, row.key, row.record, row.record_digest, row.series, row.series_digest)
    frame["timing_pending"] = frame["timing_pending"].astype(bool)
    frame["has_series"] = frame["series"].notna()
    frame["record"] = [json.loads(text) for text in frame["record"]]
    return frame.drop(columns=["record_digest", "series", "series_digest"])
