"""pytest (run by ctest): the numbers docs/ quotes from committed result sets are those sets'.

docs/long_horizon.md tabulates the long-horizon study's energy errors, slopes and failures, and
docs/performance.md the spatial scaling study's cost per step and slopes. Those runs take minutes
to hours, so the numbers test (cmbench.docs.numbers) does not re-run them; instead each quoted
cell is read back from the committed set the page links to, and must be that value rounded to
the digits quoted. A regenerated set whose page was not updated, or a typo, fails here.

Usage: PYTHONPATH=python python3 -m pytest -q tests/test_committed_quotes.py
"""
import decimal
import json
import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NUMBER = r"[-+]?\d[\d ]*(?:\.\d+)?(?:e[-+]?\d+)?"


def read(rel):
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        return f.read()


def linked_set(page_text, campaign):
    """The committed result directory of `campaign` that the page links to (exactly one)."""
    found = set(re.findall(r"\.\./(results/%s/[^/)]+)/" % campaign, page_text))
    assert len(found) == 1, f"the page links {len(found)} {campaign} sets: {sorted(found)}"
    return found.pop()


def markdown_rows(text, header_start):
    """The body rows (lists of cells) of the first table whose header begins with header_start."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header_start))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]])
    return rows


def half_unit(quoted):
    """Half a unit in the last digit of a number as written."""
    return 0.5 * 10.0 ** decimal.Decimal(quoted).as_tuple().exponent


def assert_rounds_to(quoted, value, source_written=None, what=""):
    """quoted is the source rounded half up to the digits quoted: the source as written
    (source_written, e.g. a table's cell), else the value within half a unit of the last digit."""
    quoted = quoted.replace(" ", "")
    if source_written is None:
        assert abs(float(quoted) - value) <= half_unit(quoted) * (1 + 1e-12), \
            f"{what}: quoted {quoted}, source {value}"
        return
    digits = decimal.Decimal(quoted)
    rounded = decimal.Decimal(source_written).quantize(digits, rounding=decimal.ROUND_HALF_UP)
    assert rounded == digits, f"{what}: quoted {quoted}, source {source_written}"


# --- docs/long_horizon.md against energy_growth_table.md --------------------------------------

LONG_HORIZON_PROBLEMS = {
    "pendulum": "Simple pendulum",
    "crank-rocker": "Crank-rocker",
    "top, natural coordinates": "Lagrange top (natural coordinates)",
    "top, Euler parameters": "Lagrange top",
}
LONG_HORIZON_METHODS = ["RATTLE", "Generalized-α", "Projection", "Baumgarte", "Index-1 KKT"]


def long_horizon_cells():
    page = read("docs/long_horizon.md")
    table = read(os.path.join(linked_set(page, "long_horizon"), "energy_growth_table.md"))
    source = {(r[0], r[1]): r for r in markdown_rows(table, "| problem | method |")}
    rows = markdown_rows(page, "| problem | RATTLE |")
    assert [r[0] for r in rows] == list(LONG_HORIZON_PROBLEMS)
    for row in rows:
        for method, cell in zip(LONG_HORIZON_METHODS, row[1:]):
            yield cell, source[(LONG_HORIZON_PROBLEMS[row[0]], method)]


@pytest.mark.parametrize("cell,source", list(long_horizon_cells()))
def test_long_horizon_cell_is_the_committed_run(cell, source):
    status, t_reached, max_error, slope, growth = source[4], source[5], source[7], source[8], \
        source[9]
    failed = re.fullmatch(r"(\w+) at t = (%s) s" % NUMBER, cell)
    if failed:
        assert failed.group(1) == status
        assert_rounds_to(failed.group(2), float(t_reached), t_reached, "t reached")
        return
    if cell.startswith("unsupported"):
        assert status == "unsupported"
        return
    assert status == "ok", cell
    ok = re.fullmatch(r"(%s), (?:(bounded) \((?:slope )?(%s)\)|slope (%s))" % ((NUMBER,) * 3), cell)
    assert ok, f"unexpected cell {cell!r}"
    assert_rounds_to(ok.group(1), float(max_error), max_error, "max |E - E0|")
    assert (ok.group(2) == "bounded") == (growth == "bounded"), cell
    assert_rounds_to(ok.group(3) or ok.group(4), float(slope), slope, "slope")


# --- docs/performance.md's spatial_chain section against the spatial_scaling set ---------------

SCALING_METHODS = ["index1", "projection", "baumgarte", "rattle", "generalized_alpha"]


def spatial_scaling():
    page = read("docs/performance.md")
    section = page[page.index("### Spatial bodies"):]
    section = section[:section.index("\n## ")]
    return section, linked_set(section, "spatial_scaling")


def test_spatial_scaling_cost_per_step_is_the_committed_timing():
    section, result_dir = spatial_scaling()
    runs = json.loads(read(os.path.join(result_dir, "results.json")))["runs"]
    per_step = {}
    for run in runs:
        n = int(re.search(r"N=(\d+)", run["key"]).group(1))
        method = run["key"].split("/")[1]
        per_step[(n, method)] = run["timing"]["min_s"] / run["work"]["steps_accepted"]
    assert re.search(r"has all %d runs ok" % len(runs), section)
    assert all(run["status"] == "ok" for run in runs)
    rows = markdown_rows(section, "| N (nq) |")
    assert len(rows) >= 3
    for row in rows:
        n = int(row[0].split()[0])
        for method, cell in zip(SCALING_METHODS, row[1:]):
            quoted, unit = cell.split()
            scale = {"µs": 1e-6, "ms": 1e-3, "s": 1.0}[unit]
            assert_rounds_to(quoted, per_step[(n, method)] / scale, what=f"N = {n}, {method}")


def test_spatial_scaling_slopes_are_the_committed_fits():
    section, result_dir = spatial_scaling()
    table = read(os.path.join(result_dir, "scaling_table.md"))
    fitted = {r[1]: r[5] for r in markdown_rows(table, "| panel | method |")}
    quoted = dict((m, s) for s, m in re.findall(r"(\d\.\d+)\s+\((\w+)\)", section))
    assert set(quoted) == set(SCALING_METHODS)
    for method, slope in quoted.items():
        assert_rounds_to(slope, float(fitted[method]), fitted[method], method)


def test_spatial_scaling_accuracy_at_the_largest_chain_is_the_committed_runs():
    section, result_dir = spatial_scaling()
    text = " ".join(section.split())
    runs = {run["key"].split("/")[1]: run
            for run in json.loads(read(os.path.join(result_dir, "results.json")))["runs"]
            if "[N=128]" in run["key"]}

    def metric(method, *path):
        value = runs[method]
        for key in ("metrics",) + path:
            value = value[key]
        return value

    def quoted(pattern):
        found = re.search(pattern.replace(" ", r"\s+") % {"n": "(%s)" % NUMBER}, text)
        assert found, f"the section no longer says {pattern!r}"
        return found.groups()

    rk4 = ["index1", "projection", "baumgarte"]
    (worst,) = quoted(r"at N = 128 rk4's runs are within %(n)s m")
    assert_rounds_to(worst, max(metric(m, "error", "max_abs") for m in rk4), what="rk4 error")
    (agreement,) = quoted(r"runs agree to %(n)s m")
    assert_rounds_to(agreement, runs["index1"]["reference"]["accuracy"], what="reference")
    (drift,) = quoted(r"index1 keeps \|Φ\| below %(n)s m")
    assert_rounds_to(drift, metric("index1", "drift", "position", "max"), what="index1 |Φ|")
    errors = quoted(r"are %(n)s and %(n)s m off and keep \|Φ\| at %(n)s m")
    for method, value in zip(["rattle", "generalized_alpha"], errors):
        assert_rounds_to(value, metric(method, "error", "max_abs"), what=method)
        assert_rounds_to(errors[2], metric(method, "drift", "position", "max"), what=method)
    (energy,) = quoted(r"rattle's energy error stays at %(n)s")
    assert_rounds_to(energy, metric("rattle", "energy", "max_rel"), what="rattle energy")
