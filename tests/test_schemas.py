"""pytest (run by ctest): the JSON Schemas of python/cmbench/schemas/ against the files cmbench
writes and reads.

1. Every committed file validates: campaigns/*.json, examples/out_of_tree/campaign.json, every
   results/*/*/campaign.json and results.json (their run records with them), and any committed
   runs/*.json and reference-cache file.
2. The schemas reject damaged documents, naming the path: hypothesis mutates valid run records
   (a required field dropped, the status an unknown word, a count negative or fractional, a
   metric not a number) inside a small result set and expects the first violation at the
   mutated path; results, reference-cache and names files get their own damage.
3. The schemas agree with the C++ and Python readers: the status and reference-kind enums are
   those of core/errors.cpp and core/problem.cpp, the campaign keys those of
   harness/campaign/campaign_file.cpp; every bad campaign of tests/bad_inputs.json that is wrong in its
   shape is rejected at the path cmbench names; a names file is valid exactly when
   cmbench.names accepts it. Every field has a description, and docs/json_schema.md is what
   cmbench.docs.schema_page makes of them.
4. Fresh output of the binary (CMBENCH, default build/cmbench; skipped without it): a
   `cmbench run --out` record, a campaign of two shards with self-converged references, their
   merge, and smoke-campaign mutants that cmbench accepts.

Usage: PYTHONPATH=python CMBENCH=build/cmbench python3 -m pytest -q tests/test_schemas.py
"""
import copy
import glob
import json
import os
import re
import subprocess

import jsonschema
import pytest
from hypothesis import given, settings, strategies as st

from cmbench import names, schema, store
from cmbench import settings as run_settings
from cmbench.docs import schema_page

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CMBENCH = os.environ.get("CMBENCH", os.path.join(ROOT, "build", "cmbench"))
PROPERTIES = settings(max_examples=150, derandomize=True, deadline=None, database=None)
STATUSES = schema.load("run")["$defs"]["status"]["enum"]


def read(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def tracked():
    """The files git tracks in the source tree (relative paths), or None outside a checkout."""
    try:
        out = subprocess.run(["git", "-C", ROOT, "ls-files", "-z"], capture_output=True,
                             check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return set(out.decode().split("\0"))


TRACKED = tracked()


def rel(pattern):
    """The committed files matching a glob pattern: a campaign's ignored runs/ and references/
    (and whatever else lies in a working tree) are not the repository's."""
    found = (os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, pattern),
                                                         recursive=True))
    return sorted(p for p in found if TRACKED is None or p in TRACKED)


def violation(doc, kind):
    """The SchemaViolation validate raises for doc, or None."""
    try:
        schema.validate(doc, kind)
    except schema.SchemaViolation as error:
        return error
    return None


# --- 1. committed files -----------------------------------------------------------------------

CAMPAIGNS = rel("campaigns/*.json") + rel("results/*/*/campaign.json") + \
    ["examples/out_of_tree/campaign.json"]
RESULTS = rel("results/*/*/results.json")
RECORDS = rel("results/*/*/runs/*.json")
REFERENCES = rel("results/**/references/*.json")


def test_the_committed_sets_are_found():
    # A moved folder must not make the tests below pass by finding nothing.
    assert len(rel("campaigns/*.json")) >= 7 and len(RESULTS) >= 5


@pytest.mark.parametrize("path", CAMPAIGNS)
def test_committed_campaign_file_is_valid(path):
    schema.validate(read(os.path.join(ROOT, path)), "campaign")


@pytest.mark.parametrize("path", RESULTS)
def test_committed_results_file_is_valid(path):
    schema.validate(read(os.path.join(ROOT, path)), "results")


def test_committed_run_records_and_references_are_valid():
    # .gitignore keeps a campaign's runs/ and references/ out of the repository today (the
    # records are in results.json); any that get committed are checked here.
    for path in RECORDS:
        schema.validate(read(os.path.join(ROOT, path)), "run")
    for path in REFERENCES:
        schema.validate(read(os.path.join(ROOT, path)), "reference")


# --- 2. damaged documents ---------------------------------------------------------------------

def sample_runs():
    """A few committed run records of every status and shape: per results file, the first run of
    each status, of each reference kind and of each stepper kind."""
    picked, keys = [], set()
    for path in RESULTS:
        seen = set()
        for run in read(os.path.join(ROOT, path))["runs"]:
            tags = {("status", run["status"]), ("reference", run["reference"]["kind"]),
                    ("stepper", run["stepper"]["kind"]), ("cached", "cache_file" in run["reference"])}
            if tags - seen and run["key"] not in keys:  # sets share keys: a result set has each once
                picked.append(run)
                keys.add(run["key"])
                seen |= tags
    return picked


RUNS = sample_runs()
HEADER = {k: v for k, v in read(os.path.join(ROOT, RESULTS[-1])).items() if k != "runs"}


def results_with(runs):
    return dict(copy.deepcopy(HEADER), runs=copy.deepcopy(runs))


def get(doc, path):
    for part in path.split("/"):
        doc = doc[part]
    return doc


def has(doc, path):
    try:
        get(doc, path)
    except (KeyError, TypeError):
        return False
    return True


def parent_and_name(doc, path):
    head, _, name = path.rpartition("/")
    return (get(doc, head) if head else doc), name


# Fields every record has; fields of a prepared run; fields of a run that was integrated.
REQUIRED_ALWAYS = ["schema", "key", "status", "message", "problem", "method", "stepper", "context",
                   "problem/id", "problem/params", "method/id", "method/params", "stepper/id",
                   "context/git_sha", "context/flags", "context/date", "context/libraries/eigen"]
REQUIRED_PREPARED = ["t_end", "samples", "limits", "reference", "problem/sizes", "problem/tags",
                     "problem/outputs", "problem/sizes/nq", "stepper/kind", "stepper/order",
                     "stepper/dt", "stepper/max_dt", "limits/max_steps", "limits/time_limit_s",
                     "reference/kind", "reference/accuracy"]
REQUIRED_INTEGRATED = ["metrics", "t_reached", "work", "timing", "initial", "metrics/error",
                       "metrics/drift", "metrics/drift/position/max", "metrics/energy",
                       "metrics/branch", "work/rhs_calls", "work/method",
                       "work/method_rejections", "timing/instrumented_s", "timing/repetitions",
                       "timing/min_s", "initial/tolerance", "initial/perturbation",
                       "initial/projected"]
COUNTS = ["samples", "limits/max_steps", "problem/sizes/nq", "problem/sizes/mh",
          "problem/sizes/mn", "stepper/order", "work/rhs_calls", "work/steps_accepted",
          "work/steps_rejected", "work/stepper_resets", "work/jacobian_evaluations",
          "work/method_rejections", "timing/repetitions", "context/hardware_threads"]
METRICS = ["t_reached", "metrics/drift/position/max", "metrics/drift/velocity/rms",
           "metrics/energy/max_abs", "metrics/error/max_abs", "metrics/error/scd",
           "metrics/multipliers/scale", "metrics/branch/min_margin", "timing/instrumented_s",
           "timing/min_s", "initial/position_residual", "reference/accuracy"]


def required_paths(run):
    paths = REQUIRED_ALWAYS + (REQUIRED_PREPARED if "t_end" in run else [])
    return paths + (REQUIRED_INTEGRATED if "metrics" in run else [])


def first_violation_at(runs, index, expected):
    error = violation(results_with(runs), "results")
    assert error is not None, f"no violation for runs/{index}/{expected}"
    assert error.kind == "results" and isinstance(error, ValueError)
    assert error.path == f"runs/{index}/{expected}", str(error)
    assert f"runs/{index}/{expected}" in str(error) and "results file" in str(error)


def test_the_sampled_runs_are_valid_and_varied():
    schema.validate(results_with(RUNS), "results")
    assert {run["status"] for run in RUNS} >= {"ok", "unsupported", "branch_switch", "singular"}


@st.composite
def damaged(draw, paths_of, value=None):
    """(runs, index, path): three sampled runs, run `index` damaged at `path`, which is dropped
    (value None) or set to a value drawn from `value`; index and path None when the run drawn
    has none of the paths."""
    chosen = draw(st.integers(0, len(RUNS) - 1))
    run = copy.deepcopy(RUNS[chosen])
    runs = [RUNS[(chosen + 1) % len(RUNS)], RUNS[(chosen + 2) % len(RUNS)]]
    index = draw(st.integers(0, 2))
    runs.insert(index, run)
    paths = [p for p in paths_of(run) if has(run, p)]
    if not paths:
        return runs, None, None
    path = draw(st.sampled_from(paths))
    parent, name = parent_and_name(run, path)
    if value is None:
        del parent[name]
    else:
        parent[name] = draw(value)
    return runs, index, path


@PROPERTIES
@given(damaged(required_paths))
def test_a_missing_required_field_is_named(case):
    runs, index, path = case
    first_violation_at(runs, index, path)


@PROPERTIES
@given(damaged(lambda run: ["status"], st.text().filter(lambda s: s not in STATUSES)))
def test_an_unknown_status_is_named(case):
    runs, index, path = case
    first_violation_at(runs, index, path)


BAD_COUNTS = (st.integers(max_value=-1)
              | st.floats(allow_nan=False, allow_infinity=False).filter(lambda x: x != int(x))
              | st.floats(min_value=0, max_value=1e6).map(float).filter(lambda x: x == int(x))
              | st.sampled_from([float("nan"), float("inf"), True, "3", None]))


@PROPERTIES
@given(damaged(lambda run: [p for p in COUNTS if has(run, p) and get(run, p) is not None],
               BAD_COUNTS))
def test_a_count_that_is_not_a_whole_number_is_named(case):
    runs, index, path = case
    if index is not None:
        first_violation_at(runs, index, path)


@PROPERTIES
@given(damaged(lambda run: METRICS,
               st.sampled_from([float("nan"), float("inf"), -float("inf"), "1e-3", [1.0], {}])))
def test_a_metric_that_is_not_a_finite_number_is_named(case):
    runs, index, path = case
    if index is not None:
        first_violation_at(runs, index, path)


def test_a_negative_error_or_drift_is_named():
    runs = copy.deepcopy(RUNS)
    index = next(i for i, run in enumerate(runs) if run["metrics"]["error"])
    runs[index]["metrics"]["drift"]["velocity"]["max"] = -1e-9
    first_violation_at(runs, index, "metrics/drift/velocity/max")


def test_an_unknown_field_is_named():
    runs = copy.deepcopy(RUNS)
    runs[1]["metrics"]["drift"]["acceleration"] = {}
    first_violation_at(runs, 1, "metrics/drift/acceleration")


def test_open_maps_stay_open():
    # A method's counters and parameters are its own: any name is valid.
    runs = copy.deepcopy(RUNS)
    runs[0]["work"]["method"]["a_counter_of_a_new_method"] = 3
    runs[0]["method"]["params"]["a_new_parameter"] = "x"
    schema.validate(results_with(runs), "results")


def test_a_failed_run_has_no_error_and_no_repetitions():
    runs = copy.deepcopy(RUNS)
    ok = next(i for i, run in enumerate(runs) if run["status"] == "ok" and run["metrics"]["error"])
    runs[ok]["status"] = "diverged"
    first_violation_at(runs, ok, "metrics/error")
    runs[ok]["metrics"]["error"] = None
    first_violation_at(runs, ok, "timing/repetitions")


def test_a_stepper_kind_brings_its_settings():
    runs = copy.deepcopy(RUNS)
    fixed = next(i for i, run in enumerate(runs) if run["stepper"]["kind"] == "fixed")
    runs[fixed]["stepper"]["abs_tol"] = 1e-8
    first_violation_at(runs, fixed, "stepper/abs_tol")


def test_a_projection_reports_its_iterations():
    runs = copy.deepcopy(RUNS)
    runs[0]["initial"]["projected"] = True
    first_violation_at(runs, 0, "initial/iterations")
    runs[0]["initial"]["iterations"] = 3
    schema.validate(results_with(runs), "results")


def crash_record(run):
    """A crash record as harness/campaign/campaign_workers.cpp writes one for `run`."""
    return {"schema": "cmbench.run/1", "key": run["key"], "status": "crashed",
            "message": "worker crashed with signal 11",
            "problem": {"id": run["problem"]["id"], "params": run["problem"]["params"]},
            "method": dict(run["method"]), "stepper": {"id": run["stepper"]["id"]},
            "files": {"record": "runs/x.json", "series": None}, "context": run["context"]}


def test_crash_records_name_the_run_only():
    crash = crash_record(RUNS[0])
    schema.validate(crash, "run")
    schema.validate(dict(crash, status="time_limit"), "run")
    assert violation(dict(crash, t_end=1.0), "run").path == "t_end"
    assert violation(dict(crash, status="ok"), "run").path == "t_end"
    damaged_files = dict(crash, files={"record": "runs/x.json", "series": "series/x.csv"})
    assert violation(damaged_files, "run").path == "files/series"
    without_files = {k: v for k, v in crash.items() if k != "files"}
    assert violation(without_files, "run").path == "files"


def test_a_program_of_its_own_names_both_builds():
    # Records of cmbench_add_executable programs (and of cmbench since the distinction) carry
    # program and cmbench_build together; the committed sets predate both.
    record = copy.deepcopy(RUNS[0])
    build = {k: record["context"][k] for k in ("build_type", "compiler", "flags")}
    record["context"].update(program="mybench", cmbench_build=dict(build, build_type=""))
    schema.validate(record, "run")
    del record["context"]["cmbench_build"]
    assert violation(record, "run").path == "context/cmbench_build"


def test_a_run_recorded_twice_is_named():
    runs = copy.deepcopy(RUNS[:3])
    runs[2]["key"] = runs[0]["key"]
    first_violation_at(runs, 2, "key")


def test_results_file_fields():
    doc = results_with(RUNS[:2])
    assert violation(dict(doc, shard={"index": 3, "count": 2}), "results").path == "shard/index"
    assert violation(dict(doc, shard=None), "results").path == "shard"
    merged = dict(doc, shard=None, merged_from=["a", "b"], missing_shards=[2])
    schema.validate(merged, "results")
    assert violation(dict(merged, missing_shards=[0]), "results").path == "missing_shards/0"
    assert violation({k: v for k, v in doc.items() if k != "filter"}, "results").path == "filter"
    bad_campaign = copy.deepcopy(doc)
    bad_campaign["campaign_file"]["problems"] = []
    assert violation(bad_campaign, "results").path == "campaign_file/problems"


def reference_cache():
    """A reference-cache file of the layout harness/run/self_converged.cpp writes."""
    provenance = next(run["reference"]["provenance"] for run in RUNS
                      if "cache_file" in run["reference"])
    doc = {"key": {"problem": "flyball_governor", "params": {"t_end": 10.0}, "t_end": 10.0,
                   "recipe": provenance["runs"], "format": 4},
           "grid": [10.0 * k / 200 for k in range(201)],
           "outputs": [[0.1 * k, 1.0] for k in range(201)],
           "interval_errors": [1e-14] * 200,
           "agreement": provenance["agreement"], "provenance": provenance}
    return dict(doc, digest=store.digest(json.dumps(doc, sort_keys=True, separators=(",", ":"))))


def test_reference_cache_layout():
    doc = reference_cache()
    schema.validate(doc, "reference")
    short_row = copy.deepcopy(doc)
    short_row["outputs"][7] = [1.0]
    assert violation(short_row, "reference").path == "outputs/7"
    assert violation(dict(doc, grid=doc["grid"][:-1]), "reference").path == "grid"
    assert violation(dict(doc, outputs=doc["outputs"][:-1]), "reference").path == "outputs"
    short_bounds = dict(doc, interval_errors=doc["interval_errors"][:-1])
    assert violation(short_bounds, "reference").path == "interval_errors"
    negative_bound = copy.deepcopy(doc)
    negative_bound["interval_errors"][5] = -1e-12
    assert violation(negative_bound, "reference").path == "interval_errors/5"
    null_value = copy.deepcopy(doc)
    null_value["outputs"][3][1] = None  # NaN written by nlohmann: the reader cannot read it back
    assert violation(null_value, "reference").path == "outputs/3/1"
    old_format = copy.deepcopy(doc)
    old_format["key"]["format"] = 3
    assert violation(old_format, "reference").path == "key/format"
    assert violation(dict(doc, digest="fnv:1234"), "reference").path == "digest"


def test_validate_names_the_kind():
    with pytest.raises(ValueError, match=r"not a valid campaign file: problems: "):
        schema.validate({"name": "x", "integrators": [{"id": "ida", "tol": 1e-6}]}, "campaign")
    with pytest.raises(ValueError, match="unknown file kind"):
        schema.validate({}, "record")


# --- 3. the schemas agree with the readers ----------------------------------------------------

def source(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read()


def spellings(path, enum):
    """The words to_string gives the values of a C++ enum: its `case Enum::x: return "x";`."""
    return re.findall(enum + r'::\w+:\s*return "(\w+)";', source(path))


def test_status_enum_is_the_harness_one():
    assert STATUSES == spellings("core/errors.cpp", "RunStatus")


def test_reference_kinds_are_the_harness_ones():
    kinds = schema.load("run")["$defs"]["reference"]["properties"]["kind"]["enum"]
    assert kinds == spellings("core/problem.cpp", "ReferenceKind")


def test_campaign_keys_are_the_parser_ones():
    # The reader takes its own keys and every run setting a campaign sets at its top level.
    text = source("harness/campaign/campaign_file.cpp").split("std::set<std::string> keys = {")[1]
    keys = re.findall(r'"(\w+)"', text.split("};")[0])
    keys += [s["name"] for s in run_settings.table() if s["name"] in s["campaign"].split(", ")]
    assert sorted(schema.load("campaign")["properties"]) == sorted(keys)


def bad_campaigns():
    return [case for case in read(os.path.join(ROOT, "tests", "bad_inputs.json"))
            if case["args"] == "campaign campaign.json" and isinstance(case.get("campaign"), dict)]


# The bad campaigns of tests/bad_inputs.json that are wrong in their shape; the others are wrong
# in what only cmbench knows (ids, parameters, step sizes against horizons, duplicate runs).
SHAPE_CASES = {
    "campaign: unknown top-level key", "campaign: RHS-call budget not a positive integer",
    "campaign: missing steppers", "campaign: bad name", "campaign: negative step in a sweep",
    "campaign: empty sweep", "campaign: repeat not an integer",
    "campaign: non-numeric perturbation", "campaign: unknown initial assembly",
    "campaign: description not a string", "campaign: long non-string name quoted briefly",
    "campaign: repeat beyond int", "campaign: max_steps beyond long",
    "campaign: exclusion of the wrong type"}


def test_bad_campaigns_of_the_wrong_shape_are_rejected_where_cmbench_says():
    cases = bad_campaigns()
    assert SHAPE_CASES <= {case["case"] for case in cases}
    for case in cases:
        error = violation(case["campaign"], "campaign")
        assert (error is not None) == (case["case"] in SHAPE_CASES), (case["case"], error)
        where = re.match(r"campaign /(\S*):", case["expect"])
        if error and where:
            assert error.path == where.group(1), (case["case"], str(error))


NAME_VALUES = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=4),
                           lambda inner: st.dictionaries(st.text(max_size=3), inner, max_size=3)
                           | st.lists(inner, max_size=2), max_leaves=6)
NAME_KEYS = st.sampled_from(["methods", "problems", "steppers", "params", "index1", "rk4"])


@PROPERTIES
@given(st.dictionaries(NAME_KEYS, NAME_VALUES, max_size=4) | NAME_VALUES)
def test_names_file_is_valid_exactly_when_cmbench_names_reads_it(doc):
    try:
        with names.overriding(doc if isinstance(doc, dict) else {"x": doc}):
            accepted = isinstance(doc, dict)
    except ValueError:
        accepted = False
    assert (violation(doc, "names") is None) == accepted, doc


def test_the_schemas_are_valid_draft_2020_12():
    for kind in schema.KINDS:
        jsonschema.Draft202012Validator.check_schema(schema.load(kind))


def test_every_field_is_described():
    # The descriptions are the documentation (docs/json_schema.md is generated from them).
    for kind in schema.KINDS:
        rows = schema_page.field_rows(kind, schema.load(kind))
        rows += [row for name in schema.load(kind).get("$defs", {})
                 if (kind, name) in schema_page.SHARED for row in schema_page.rows_of_def(kind, name)]
        assert rows and all(text for _, _, text in rows), [f for f, _, text in rows if not text]


def test_the_page_has_one_block_per_kind():
    with open(schema_page.PAGE, encoding="utf-8") as f:
        page = f.read()
    assert schema_page.render(page) == page, "run python3 -m cmbench.docs.schema_page --write"
    without_names = page.replace("<!--schema:names-->", "<!--schema-names-->")
    with pytest.raises(ValueError, match="schema:names"):
        schema_page.render(without_names)


# --- 4. fresh output of the binary ------------------------------------------------------------

needs_binary = pytest.mark.skipif(not os.access(CMBENCH, os.X_OK),
                                  reason=f"no cmbench binary at {CMBENCH} (set CMBENCH)")

TINY = {"name": "tiny", "repeat": 1, "timing_min_s": 0, "reference": "self_converged",
        "problems": [{"id": "simple_pendulum", "t_end": 0.5,
                      "perturbations": [{}, {"position": 1e-3}]},
                     {"id": "chaplygin_sleigh", "t_end": 0.5}],
        "methods": [{"id": "baumgarte", "params": {"alpha": 10, "beta": 10}},
                    {"id": "coordinate_partitioning"}],
        "steppers": [{"id": "rk4", "dt": 0.01}, {"id": "dopri5", "tol": 1e-6}],
        "integrators": [{"id": "ida", "tol": 1e-6, "max_rhs_calls": 5}]}


def cmbench(*args, check=True):
    return subprocess.run([CMBENCH, *map(str, args)], capture_output=True, text=True, check=check)


@needs_binary
def test_fresh_run_records_are_valid(tmp_path):
    runs = [["--problem", "simple_pendulum", "--method", "baumgarte", "--stepper", "rk4",
             "--dt", "1e-3", "--perturb-position", "1e-4", "--repeat", "2"],
            ["--problem", "crank_rocker", "--method", "projection", "--stepper", "dopri5",
             "--tol", "1e-8", "--t-end", "1", "--reference", "self_converged",
             "--reference-cache", tmp_path / "refs", "--repeat", "0"]]
    for i, args in enumerate(runs):
        out = tmp_path / f"run{i}.json"
        cmbench("run", *args, "--out", out)
        schema.validate(read(out), "run")
    assert read(tmp_path / "run1.json")["reference"]["from_cache"] is False
    for cache in glob.glob(str(tmp_path / "refs" / "*.json")):
        schema.validate(read(cache), "reference")


@needs_binary
def test_fresh_campaign_shards_merge_and_references_are_valid(tmp_path):
    campaign = tmp_path / "tiny.json"
    campaign.write_text(json.dumps(TINY))
    for shard in (1, 2):
        cmbench("campaign", campaign, "--out", tmp_path / f"shard{shard}", "--jobs", "2",
                "--shard", f"{shard}/2", "--reference-cache", tmp_path / "refs")
    cmbench("merge", tmp_path / "shard1", "--out", tmp_path / "merged", "--allow-partial")
    documents = [(p, "results") for p in glob.glob(str(tmp_path / "*" / "results.json"))]
    documents += [(p, "run") for p in glob.glob(str(tmp_path / "*" / "runs" / "*.json"))]
    documents += [(p, "campaign") for p in glob.glob(str(tmp_path / "shard*" / "campaign.json"))]
    documents += [(p, "reference") for p in glob.glob(str(tmp_path / "refs" / "*.json"))]
    # results.json of both shards and the merge, their records (8, 7, and the merge's copies of
    # shard 1's 8), the two campaign.json and the two problems' references.
    assert len(documents) == 3 + 8 + 7 + 8 + 2 + 2, documents
    for path, kind in documents:
        schema.validate(read(path), kind)
    merged = read(tmp_path / "merged" / "results.json")
    assert merged["missing_shards"] == [2] and merged["shard"] is None
    assert {run["status"] for run in merged["runs"]} == {"ok", "step_limit", "unsupported"}


SMOKE = read(os.path.join(ROOT, "campaigns", "smoke.json"))
DROP = object()
# Per key of a campaign file, values valid and not: an edit sets the key or drops it (DROP).
CAMPAIGN_VALUES = {
    "name": ["smoke-2", "x y", "", 3],
    "description": ["", "text", [1], None],
    "repeat": [0, 1000, 1001, -1, 2.5, 2.0, "3"],
    "timing_min_s": [0, 0.5, -0.1, "1"],
    "sample_dt": [0.01, 0, -1, [0.1]],
    "time_limit": [1, 30.5, 0, -1],
    "max_steps": [1, 10**6, 0, 10**12 + 1, 1.5],
    "max_rhs_calls": [1000, 0, 2.5],
    "initial_assembly": ["project", "reject", "fix"],
    "initial_tol": [1e-8, 0, -1e-8],
    "reference": ["problem", "self_converged", "none"],
    "reference_cache": ["refs", ""],
    "problems": [[], [{"id": "simple_pendulum", "t_end": 1}],
                 [{"id": "simple_pendulum", "perturbations": [{}, {"velocity": 0.1}]}],
                 [{"id": "simple_pendulum", "perturbations": []}],
                 [{"id": "simple_pendulum", "label": 3}], [{"id": "simple_pendulum", "x": 1}]],
    "methods": [[{"id": "index1", "label": "KKT"}], [], [{"id": "index1", "params": []}]],
    "steppers": [[{"id": "rk4", "dt": 0.01}], [{"id": "dopri5", "tol": 1e-6, "max_dt": 0.1}],
                 [{"id": "rk4", "dt": 0.01, "max_dt": 0.1}], [{"id": "dopri5"}],
                 [{"id": "dopri5", "tol": [1e-6, 1e-8], "dt": 0.1}], [{"id": "dae", "tol": 1}]],
    "integrators": [[{"id": "ida", "tol": 1e-6}], [{"id": "ali3p", "dt": 0.001}],
                    [{"id": "ida", "tol": 1e-6, "max_rhs_calls": 0}], []],
    "exclude": [[], [{}], [{"method": "index1"}], [{"stepper": "rk4"}], [{"problem": 3}], {}],
}
CAMPAIGN_EDITS = st.dictionaries(st.sampled_from(sorted(CAMPAIGN_VALUES)), st.integers(0, 7),
                                 max_size=3).map(
    lambda picks: {key: ([DROP] + CAMPAIGN_VALUES[key])[i % (len(CAMPAIGN_VALUES[key]) + 1)]
                   for key, i in picks.items()})


def edited(doc, edits):
    out = {k: v for k, v in doc.items() if edits.get(k, None) is not DROP}
    out.update({k: v for k, v in edits.items() if v is not DROP})
    return out


@needs_binary
@settings(max_examples=80, derandomize=True, deadline=None, database=None)
@given(CAMPAIGN_EDITS)
def test_campaigns_cmbench_accepts_are_valid(tmp_path_factory, edits):
    # The schema holds the shape, cmbench checks more (ids, parameters): whatever it accepts must
    # be valid, whatever the schema refuses it must refuse.
    doc = edited(SMOKE, edits)
    path = tmp_path_factory.mktemp("smoke") / "campaign.json"
    path.write_text(json.dumps(doc))
    run = cmbench("campaign", path, "--dry-run", check=False)
    assert run.returncode in (0, 2), run.stderr
    if run.returncode == 0:
        schema.validate(doc, "campaign")
