"""One table of run settings (harness/run/run_settings.hpp): `cmbench run --help`, `cmbench describe
run-settings`, help(cmbench.run), docs/campaigns.md and the campaign schema list the same
settings; and over generated values the command line, cmbench.run and a campaign file refuse the
same ones, each naming the setting as its caller writes it. Run by ctest with
PYTHONPATH=build/python and CMBENCH=build/cmbench (tests/python/tests.cmake)."""
import json
import math
import os
import pydoc
import re
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings as hypothesis_settings, strategies as st

import cmbench
from cmbench import schema, settings
from cmbench.docs import settings_table

CLI = os.path.abspath(os.environ["CMBENCH"])
SOURCE = os.environ["CMB_SOURCE_DIR"]
TABLE = settings.table()
# What to run and where to write it: options of `cmbench run` that are not run settings.
NOT_SETTINGS = {"--help", "--problem", "--method", "--stepper", "--integrator", "--param", "--out",
                "--series"}
# A short run every generated value is tried on (a setting given here is left out of it); the
# step limit keeps a long generated horizon short.
BASE = {"problem": "simple_pendulum", "method": "index1", "stepper": "rk4", "dt": 0.01,
        "t_end": 0.05, "repeat": 0, "max_steps": 1000}


def cli(*args, cwd=None):
    return subprocess.run([CLI, *map(str, args)], capture_output=True, text=True, cwd=cwd)


def test_the_program_describes_the_committed_table():
    assert json.loads(cli("describe", "run-settings", "--json").stdout) == TABLE
    assert cmbench.describe("run-settings") == TABLE
    text = cli("describe", "run-settings").stdout
    for s in TABLE:
        assert f"  {s['name']}  ({s['flag']};" in text


def test_run_help_lists_every_setting_and_nothing_else():
    help_text = cli("run", "--help").stdout
    flags = set(re.findall(r"^\s+(?:-h,)?(--[a-z-]+)", help_text, re.M))
    assert flags - NOT_SETTINGS == {s["flag"] for s in TABLE}
    for s in TABLE:
        assert s["expected"] in help_text


def test_python_help_and_the_docs_list_every_setting():
    doc = pydoc.render_doc(cmbench.run, renderer=pydoc.plaintext)
    listed = set(re.findall(r"^\s+(\w+)= ", doc, re.M))
    assert listed == {s["name"] for s in TABLE}
    page = open(os.path.join(SOURCE, "docs", "campaigns.md"), encoding="utf-8").read()
    assert settings_table.rewritten_page(page) == page, "run python3 -m cmbench.docs.settings_table"
    rows = set(re.findall(r"^\| `(\w+)` \| `--", page, re.M))
    assert rows == {s["name"] for s in TABLE}


def test_the_campaign_schema_has_every_top_level_setting():
    properties = schema.load("campaign")["properties"]
    top_level = {s["name"] for s in TABLE if s["name"] in s["campaign"].split(", ")}
    settings_like = set(properties) - {"name", "description", "problems", "methods", "steppers",
                                       "integrators", "exclude"}
    assert settings_like == top_level


# Values of every JSON kind, around the table's bounds.
VALUES = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    st.integers(min_value=-3, max_value=1200),
    st.integers(min_value=10**12 - 3, max_value=10**12 + 3),
    st.sampled_from([0, 1, 3.0, 0.0, 1e-300, "problem", "self_converged", "reject", "project", "",
                     "-", "refs", True, [1], {}]),
    st.text(alphabet="abc19.-", min_size=1, max_size=5))


def cli_text(s, value):
    """The option text of a value, or None when the command line cannot write it: its text is
    all it writes, so neither a non-text value of a text setting nor text that reads as JSON
    (nor lists and objects)."""
    if s["type"] in ("choice", "path") and not isinstance(value, str):
        return None
    if isinstance(value, str):
        try:
            json.loads(value)
            return None
        except ValueError:
            return value
    if isinstance(value, (list, dict)):
        return None
    return json.dumps(value)


def campaign_doc(s, value):
    """A one-run campaign with the value where the table says a campaign sets it, and its JSON
    path; (None, None) when campaigns do not take the setting."""
    doc = {"name": "settings", "repeat": 0, "problems": [{"id": "simple_pendulum", "t_end": 0.05}],
           "methods": [{"id": "index1"}], "steppers": [{"id": "rk4", "dt": 0.01}]}
    keys = s["campaign"].split(", ") if s["campaign"] else []
    if s["name"] in keys:
        doc[s["name"]] = value
        return doc, "/" + s["name"]
    if not keys:
        return None, None
    key = keys[0]
    if key == "problems[].t_end":
        doc["problems"][0]["t_end"] = value
        return doc, "/problems/0/t_end"
    if key.startswith("problems[].perturbations[]."):
        axis = key.rsplit(".", 1)[1]
        doc["problems"][0]["perturbations"] = [{axis: value}]
        return doc, "/problems/0/perturbations/0/" + axis
    field = key.split(".", 1)[1]
    doc["steppers"] = [{"id": "rk4"} if field == "dt" else {"id": "dopri5", "tol": 1e-6}]
    if field == "max_dt":
        doc["steppers"][0][field] = value
        return doc, "/steppers/0/max_dt"
    doc["steppers"][0][field] = [value]  # an element of a sweep
    return doc, f"/steppers/0/{field}/0"


def refused_by_table(message, prefix):
    return message.startswith(prefix) and "expected" in message


@hypothesis_settings(max_examples=120, derandomize=True, deadline=None, database=None,
                     suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(index=st.integers(0, len(TABLE) - 1), value=VALUES)
def test_every_caller_refuses_the_same_values(tmp_path, monkeypatch, index, value):
    s = TABLE[index]
    monkeypatch.chdir(tmp_path)  # a reference cache, if any, goes here
    run = {k: v for k, v in BASE.items() if k != s["name"]}
    if s["name"] in ("tol", "abs_tol", "rel_tol", "max_dt"):
        run = dict(run, stepper="dopri5")
        run.pop("dt", None)
    run[s["name"]] = value
    try:
        cmbench.run(**run)
        python_message = ""
    except cmbench.InputError as e:
        python_message = str(e)
    python_refused = refused_by_table(python_message, f"{s['name']}=")

    text = cli_text(s, value)
    if text is not None:
        args = ["run"]
        for k, v in run.items():
            flag = next((t["flag"] for t in TABLE if t["name"] == k), "--" + k)
            args += [flag, text if k == s["name"] else v]
        out = cli(*args, cwd=tmp_path)
        cli_refused = refused_by_table(out.stderr.replace("cmbench: error: ", ""),
                                       f"{s['flag']} ")
        assert cli_refused == python_refused, (args, out.stderr, python_message)
        if cli_refused:
            assert out.returncode == 2

    doc, path = campaign_doc(s, value)
    if doc is None:
        return
    try:
        cmbench.campaign(doc, out=tmp_path / "campaign", dry_run=True)
        campaign_message = ""
    except cmbench.InputError as e:
        campaign_message = str(e)
    campaign_refused = refused_by_table(campaign_message, f"campaign {path}:")
    assert campaign_refused == python_refused, (doc, campaign_message, python_message)
    if path == "/" + s["name"] and not (isinstance(value, float) and not math.isfinite(value)):
        # The schema says of a top-level setting what the reader does.
        assert (not schema.violations(doc, "campaign")) == (not campaign_refused), (doc, path)


@pytest.mark.parametrize("flag,text,python", [("--max-steps", "0", {"max_steps": 0}),
                                              ("--repeat", "3.0", {"repeat": 3.0}),
                                              ("--initial-tol", "-1", {"initial_tol": -1})])
def test_the_former_disagreements_are_refused_everywhere(flag, text, python):
    # Before the table, max_steps=0 ran in Python (ending step_limit) and repeat=3.0 was taken
    # for 3 there, while the command line or campaigns refused them.
    out = cli("run", "--problem", "simple_pendulum", "--method", "index1", "--stepper", "rk4",
              "--dt", "0.01", flag, text)
    assert out.returncode == 2 and f"{flag} {text}: expected" in out.stderr
    name, value = next(iter(python.items()))
    with pytest.raises(cmbench.InputError, match=f"^{name}={re.escape(json.dumps(value))}: expected"):
        cmbench.run("simple_pendulum", "index1", "rk4", dt=0.01, **python)


# cmbench.campaign's options: what type each takes.
CAMPAIGN = {"name": "options", "repeat": 0, "problems": [{"id": "simple_pendulum", "t_end": 0.05}],
            "methods": [{"id": "index1"}], "steppers": [{"id": "rk4", "dt": 0.01}]}
OPTION_TYPES = {"jobs": "a whole number from 1 to 4096",
                "out": "a directory path (not empty, not '-')", "filter": "a string",
                "shard": "a string", "resume": "true or false", "force": "true or false",
                "dry_run": "true or false", "progress": "true or false"}


def well_typed(name, value):
    if name == "progress":  # also None (silent), "auto" (bars in a notebook) or a function
        return value is None or isinstance(value, bool) or value == "auto" or callable(value)
    if name == "out":
        return isinstance(value, str) and value not in ("", "-")
    if OPTION_TYPES[name] == "a string":
        return isinstance(value, str)
    if OPTION_TYPES[name] == "true or false":
        return isinstance(value, bool)
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 4096


@hypothesis_settings(max_examples=120, derandomize=True, deadline=None, database=None,
                     suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(sorted(OPTION_TYPES)), value=VALUES)
def test_campaign_options_are_checked_and_named_as_python_writes_them(tmp_path, monkeypatch,
                                                                      name, value):
    monkeypatch.chdir(tmp_path)  # an `out` of any text stays here
    options = {"out": str(tmp_path / "out"), "dry_run": True, name: value}
    try:
        cmbench.campaign(CAMPAIGN, **options)
        message = ""
    except cmbench.InputError as e:
        message = str(e)
    refused_for_type = message.startswith(f"{name}=") and \
        message.endswith(f": expected {OPTION_TYPES[name]}")
    assert refused_for_type == (not well_typed(name, value)), message


def test_campaign_messages_name_options_as_the_caller_writes_them(tmp_path):
    path = tmp_path / "c.json"
    path.write_text(json.dumps(CAMPAIGN))
    out = tmp_path / "out"
    assert cli("campaign", path, "--out", out, "--jobs", 1).returncode == 0
    again = cli("campaign", path, "--out", out)
    assert again.returncode == 2 and "use --resume to finish it or --out" in again.stderr
    with pytest.raises(cmbench.InputError, match="use resume= to finish it or out= "):
        cmbench.campaign(str(path), out=out)
    changed = dict(CAMPAIGN, repeat=1)
    with pytest.raises(cmbench.InputError, match=r"^cannot resume: .*or force= to resume anyway"):
        cmbench.campaign(changed, out=out, resume=True)
    with pytest.raises(cmbench.InputError, match=r'^shard="3/2": expected I/N'):
        cmbench.campaign(CAMPAIGN, out=tmp_path / "other", shard="3/2")
    bad_shard = cli("campaign", path, "--out", tmp_path / "third", "--shard", "3/2")
    assert bad_shard.returncode == 2 and "--shard 3/2: expected I/N" in bad_shard.stderr


@pytest.mark.parametrize("text", [".01", "0.01", "1e-2", "+0.01", "0.010"])
def test_the_command_line_reads_numbers_as_the_c_library_does(text):
    # Numbers written as people type them, not only as JSON spells them; a count in decimal.
    out = cli("run", "--problem", "simple_pendulum", "--method", "index1", "--stepper", "rk4",
              "--t-end", "0.05", "--repeat", "0", "--dt", text, "--max-steps", "010")
    assert out.returncode == 0, out.stderr
    assert "/dt=0.01/" in out.stdout
