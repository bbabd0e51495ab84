"""pytest (run by ctest): cmbench.results.identity reads what a run is from its record's fields.

1. On every run record of every committed result set, identity(record) is what the run key
   spells (results._identity_from_key, the one reader of keys): the two sources agree.
2. A crash record (the run's names only) takes from its key what its fields leave out.
3. Result sets whose run keys are all replaced by "x" load (cmbench.load) into the same
   DataFrame in every column the fields determine, and group into the same series and cases:
   nothing reads the key for them. Which parameters were given (not defaulted) a record made
   before `given` lists existed leaves to its key; without it every parameter is named, so
   labels get longer but no two runs merge.
4. A record with `given` lists (what the build writes now) is read without its key at all.

Usage: PYTHONPATH=python python3 -m pytest -q tests/test_identity.py
"""
import copy
import glob
import json
import os

import pytest

import cmbench
from cmbench import results

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULT_SETS = sorted(os.path.dirname(p) for p in glob.glob(os.path.join(ROOT, "results", "*", "*",
                                                                        "results.json")))
# Columns made from the parameters a run was given, which only its key names.
GIVEN_COLUMNS = ["problem_label", "method_label", "variant_label", "series_key", "case_key"]


def set_id(path):
    return os.path.relpath(path, os.path.join(ROOT, "results"))


def records_of(path):
    with open(os.path.join(path, "results.json")) as f:
        return json.load(f)["runs"]


def test_there_are_result_sets():
    assert len(RESULT_SETS) >= 5, RESULT_SETS


@pytest.mark.parametrize("path", RESULT_SETS, ids=set_id)
def test_identity_agrees_with_the_key_on_every_run(path):
    records = records_of(path)
    disagree = [(r["key"], results.identity(r), results._identity_from_key(r)) for r in records
                if results.identity(r) != results._identity_from_key(r)]
    assert not disagree, f"{len(disagree)} of {len(records)} runs, first: {disagree[0]}"


def test_the_committed_runs_exercise_every_part():
    """The agreement above covers given parameters, horizons, perturbations and both kinds of
    stepper (else it would prove little)."""
    idents = [results.identity(r) for path in RESULT_SETS for r in records_of(path)]
    assert any(i["method_params"] for i in idents) and any(i["problem_params"] for i in idents)
    assert any(i["t_end"] is not None for i in idents)
    assert any(i["perturbation"] for i in idents)
    assert {i["kind"] for i in idents} == {"fixed", "adaptive"}


def committed_run(where, key):
    return next(r for r in records_of(os.path.join(ROOT, "results", where)) if r["key"] == key)


def test_identity_of_a_run_with_given_parameters():
    run = committed_run("baumgarte_study/2026-11-23_20a9b21a4f30",
                        "crank_rocker/baumgarte[alpha=1][beta=5]/rk4/dt=0.002/perturb=p0.001,v0")
    ident = results.identity(run)
    assert ident == {"problem": "crank_rocker", "problem_params": {}, "method": "baumgarte",
                     "method_params": {"alpha": 1.0, "beta": 5.0}, "stepper": "rk4",
                     "kind": "fixed", "sweep": "dt", "value": 0.002, "abs_tol": None,
                     "t_end": None, "perturbation": {"position": 0.001, "velocity": 0.0},
                     "assembly": "reject"}
    # The labels spell the values as the key does: 1, not the record's 1.0.
    assert results.variant_label(ident) == "baumgarte α=1 β=5"
    assert results.sweep_key(ident) == "crank_rocker/baumgarte[alpha=1][beta=5]/rk4/dt=*/" \
                                       "perturb=p0.001,v0"


def crash_record(run, status="crashed"):
    """A crash record as harness/campaign_workers.cpp writes one for `run` (given parameters
    only, the stepper's id only)."""
    return {"schema": "cmbench.run/1", "key": run["key"], "status": status,
            "message": "worker crashed with signal 11",
            "problem": {"id": run["problem"]["id"], "params": {"N": 4}},
            "method": {"id": run["method"]["id"], "params": {}},
            "stepper": {"id": run["stepper"]["id"]},
            "files": {"record": "runs/x.json", "series": None}, "context": run["context"]}


def test_a_crash_record_takes_what_it_lacks_from_its_key():
    run = committed_run("integrators/2026-11-28_19daaf75e3b0",
                        "n_four_bar[N=4]/ida/dae/tol=1e-06/t_end=5")
    for status in ("crashed", "time_limit"):
        crash = crash_record(run, status)
        assert results.identity(crash) == results.identity(run)
        row = results.flatten(crash)
        assert (row["series_key"], row["case_key"]) == ("n_four_bar[N=4]/ida/dae/tol=*/t_end=5",
                                                        "n_four_bar[N=4]/t_end=5")


def test_fields_win_over_the_key():
    """Where a record holds a part, its identity is the record's, whatever the key says."""
    run = copy.deepcopy(committed_run("default/2026-11-28_19daaf75e3b0",
                                      "simple_pendulum/index1/rk4/dt=0.002"))
    run["key"] = "simple_pendulum/index1/rk4/dt=0.5/t_end=3/perturb=p1,v0/assembly=project"
    ident = results.identity(run)
    assert (ident["value"], ident["t_end"], ident["perturbation"], ident["assembly"]) == \
        (0.002, None, None, "reject")


def with_given_lists(record):
    """`record` as the build writes it now: its problem and method blocks list the parameters
    its key names (a crash record has no lists)."""
    listed = copy.deepcopy(record)
    from_key = results._identity_from_key(record)
    for block, field in (("problem", "problem_params"), ("method", "method_params")):
        if "sizes" in listed["problem"]:
            listed[block]["given"] = list(from_key[field])
    return listed


@pytest.mark.parametrize("path", RESULT_SETS, ids=set_id)
def test_a_record_with_given_lists_is_read_without_its_key(path):
    read = 0
    for record in records_of(path):
        listed = with_given_lists(record)
        if listed.get("initial") is None or "kind" not in listed["stepper"]:
            continue  # stopped before its initial state was checked: the key tells that part
        expected = results.identity(record)
        listed["key"] = "x"
        assert results.identity(listed) == expected, record["key"]
        read += 1
    assert read > 0


def scrambled_copy(path, tmp_path):
    """The result set at `path` with every run key replaced by 'x', in tmp_path."""
    doc = json.load(open(os.path.join(path, "results.json")))
    for run in doc["runs"]:
        run["key"] = "x"
    out = tmp_path / "scrambled"
    out.mkdir()
    (out / "results.json").write_text(json.dumps(doc))
    return str(out)


def partition(frame, column):
    """The runs (by row number) that share each value of `column`, as a set of frozensets."""
    return {frozenset(rows) for rows in frame.groupby(column).indices.values()}


@pytest.mark.parametrize("path", RESULT_SETS, ids=set_id)
def test_a_scrambled_key_changes_nothing_the_fields_tell(path, tmp_path):
    pytest.importorskip("pandas")
    frame = cmbench.load(path)
    scrambled = cmbench.load(scrambled_copy(path, tmp_path))
    fields = [c for c in frame.columns if c not in GIVEN_COLUMNS + ["key"]]
    assert list(scrambled.columns) == list(frame.columns)
    differ = [c for c in fields if not scrambled[c].equals(frame[c])]
    assert not differ, f"columns that changed with the key: {differ}"
    for column in ("series_key", "case_key"):
        assert partition(scrambled, column) == partition(frame, column), column
    # Every given parameter is still named (among the defaulted ones).
    for before, after in zip(frame["variant_label"], scrambled["variant_label"]):
        assert set(before.split(" ")) <= set(after.split(" ")), (before, after)


def test_series_and_cases_of_a_scrambled_set():
    """The Baumgarte study without keys: its 25 (alpha, beta) variants per case stay 25
    series, its perturbed and unperturbed runs separate cases."""
    path = os.path.join(ROOT, "results", "baumgarte_study", "2026-11-23_20a9b21a4f30")
    records = records_of(path)
    rows = [results.flatten(r) for r in records]
    for r in records:
        r["key"] = "x"
    scrambled = [results.flatten(r) for r in records]
    series = results.group_series(rows)
    assert len(results.group_series(scrambled)) == len(series) > 25
    assert len(results.case_labels(scrambled)) == len(results.case_labels(rows)) > 1
