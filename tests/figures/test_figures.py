#!/usr/bin/env python3
"""Script test (run by ctest, tests/figures/tests.cmake): the report's figures are fit to print.

1. Print size and fonts. The report runs on the smoke campaign (run here with the cmbench binary
   given) at both widths; a save hook of cmbench.style inspects every figure just before it is
   written: its width is the chosen column width (3.5 or 7 in) and every visible text artist
   (titles, axis and tick labels, legend entries, cell labels, colour-bar labels) is at least
   8 pt. The written files are checked independently of matplotlib's objects: the PDF page is
   as wide as the figure (its MediaBox, in points), every font size its content streams select
   is 8 pt or more — or the size mathtext gives a superscript of 8-pt text (the exponents of
   "10^n" tick labels) —, and the PNG is width × dpi pixels wide.
2. Units and names. Every axis and colour-bar label carries a unit in brackets; no snake_case
   id of the catalog appears in a figure's text; every method, problem and stepper id that
   `cmbench list --json` prints has a display name; an unknown id is shown as itself;
   --names overrides a name.
3. Styles and legends. Unknown methods get distinct, non-grey styles that are the same in
   another process (no salted hash); a panel comparing 8 methods × 4 steppers has one legend
   of 8 + 4 entries, not 32; index1's marker is larger than gauss_qp's and drawn under it.
4. Heat maps. A fixed-step (α, β) grid shows the final error, not the run time (equal work:
   its time differences are noise); an adaptive one the RHS calls.
5. The command line. `--help` prints the usage (exit 0); a report prints one progress line per
   figure on stderr and the path of report.md once on stdout.

Usage: PYTHONPATH=python test_figures.py CMBENCH_BINARY [SOURCE_DIR]
"""
import json
import math
import os
import re
import struct
import subprocess
import sys
import tempfile
import zlib

from cmbench import names, report, results, style
from cmbench.figures import baumgarte as baumgarte_figures, work_precision as wp_figures

SOURCE = (os.path.abspath(sys.argv[2]) if len(sys.argv) > 2
          else os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
REPORT = ["/usr/bin/python3", "-m", "cmbench.report"]
ENV = dict(os.environ, PYTHONPATH=os.path.join(SOURCE, "python"))

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
    return condition


# --- inspecting figures -----------------------------------------------------------------------

def visible_texts(fig):
    """Every visible, non-empty text artist of a figure once drawn (tick labels exist only
    then)."""
    from matplotlib.text import Text
    fig.canvas.draw()
    return [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]


class Inspector:
    """A save hook recording, per figure name, its width and its smallest text."""

    def __init__(self):
        self.figures = {}

    def __call__(self, fig, name):
        texts = visible_texts(fig)
        small = [(t.get_fontsize(), t.get_text()) for t in texts
                 if t.get_fontsize() < style.MIN_FONT]
        labels = []
        for ax in fig.axes:
            if ax.get_visible() and ax.axison:
                labels += [ax.get_xlabel(), ax.get_ylabel()]
        self.figures[name] = {"width": fig.get_size_inches()[0], "small": small,
                              "texts": [t.get_text() for t in texts],
                              "labels": [label for label in labels if label.strip()],
                              "legends": [len(lg.get_texts()) for lg in fig.legends]}


def pdf_page_width(path):
    """Width in points of the PDF's first MediaBox."""
    data = open(path, "rb").read()
    found = re.search(rb"/MediaBox\s*\[\s*([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)", data)
    return float(found.group(3)) - float(found.group(1)) if found else None


def pdf_font_sizes(path):
    """Every font size selected by a Tf operator in the PDF's (Flate-compressed) streams."""
    data = open(path, "rb").read()
    sizes = set()
    for stream in re.findall(rb"stream\r?\n(.*?)\nendstream", data, re.S):
        try:  # decompressobj: trailing bytes after the compressed data are no error
            text = zlib.decompressobj().decompress(stream)
        except zlib.error:
            text = stream
        sizes |= {float(s) for s in re.findall(rb"/F\d+\s+([\d.]+)\s+Tf", text)}
    return sizes


def png_width(path):
    with open(path, "rb") as f:
        head = f.read(24)
    return struct.unpack(">I", head[16:20])[0]


def superscript_size():
    """The size mathtext sets the exponent of MIN_FONT-point text at (matplotlib's own
    constant, not a number of this test)."""
    from matplotlib import _mathtext
    return style.MIN_FONT * _mathtext.SHRINK_FACTOR


# --- 1, 2: the smoke campaign at both widths --------------------------------------------------

SNAKE_IDS = re.compile(r"\b[a-z0-9]+_[a-z0-9_]+\b")


def smoke(cmbench, tmp):
    out = os.path.join(tmp, "smoke")
    subprocess.run([cmbench, "campaign", os.path.join(SOURCE, "campaigns", "smoke.json"),
                    "--jobs", "2", "--out", out], check=True, capture_output=True)
    catalog = json.loads(subprocess.run([cmbench, "list", "--json"], capture_output=True,
                                        text=True, check=True).stdout)
    ids = {e["id"] for kind in ("methods", "problems", "steppers") for e in catalog[kind]}
    for width, inches in style.WIDTHS.items():
        inspector = Inspector()
        remove = style.add_save_hook(inspector)
        try:
            _, produced, skipped, errors = report.build(out, width=width)
        finally:
            remove()
        check(not errors and len(produced) == 5,
              f"{width}: report on the smoke campaign: {len(produced)} figures, {errors}")
        check(len(inspector.figures) == len(produced),
              f"{width}: {len(inspector.figures)} figures inspected, {len(produced)} written")
        for name, seen in inspector.figures.items():
            check(math.isclose(seen["width"], inches),
                  f"{width}/{name}: figure {seen['width']:.3f} in wide, not {inches}")
            check(not seen["small"], f"{width}/{name}: text below {style.MIN_FONT} pt: "
                  f"{seen['small'][:5]}")
            bare = [label for label in seen["labels"] if not re.search(r"\[[^\]]+\]", label)]
            check(not bare, f"{width}/{name}: axis labels without a unit: {bare}")
            leaked = sorted({m for t in seen["texts"] for m in SNAKE_IDS.findall(t)} & ids)
            check(not leaked, f"{width}/{name}: ids instead of display names: {leaked}")
        for fig in produced:
            for path in fig["files"]:
                if path.endswith(".pdf"):
                    page = pdf_page_width(path)
                    check(page is not None and math.isclose(page, 72 * inches, abs_tol=0.01),
                          f"{width}: {os.path.basename(path)} page {page} pt wide, not "
                          f"{72 * inches}")
                    sizes = pdf_font_sizes(path)
                    bad = {s for s in sizes if s < style.MIN_FONT
                           and not math.isclose(s, superscript_size(), abs_tol=0.01)}
                    check(sizes and not bad,
                          f"{width}: {os.path.basename(path)} sets text at {sorted(bad)} pt "
                          f"(sizes {sorted(sizes)})")
                else:
                    pixels = png_width(path)
                    check(abs(pixels - inches * style.PNG_DPI) <= 1,
                          f"{width}: {os.path.basename(path)} {pixels} px wide, not "
                          f"{inches} in × {style.PNG_DPI} dpi")
    # Every id of the catalog is drawn with the display name its entry declares.
    for kind, name_of in (("methods", names.method), ("integrators", names.method),
                          ("problems", names.problem), ("steppers", names.stepper)):
        wrong = [e["id"] for e in catalog[kind] if name_of(e["id"]) != e["display_name"]]
        check(not wrong, f"names: {kind} not drawn with their entry's display name: {wrong}")
    return out


def test_names(smoke_dir, tmp):
    check(names.method("my_method") == "my_method" and names.stepper("x_y") == "x_y",
          "names: an unknown id must be shown as itself")
    path = os.path.join(tmp, "names.json")
    with open(path, "w") as f:
        json.dump({"methods": {"index1": "Plain KKT"}, "rk4": "Classical RK"}, f)
    inspector = Inspector()
    remove = style.add_save_hook(inspector)
    try:
        report.build(smoke_dir, display_names=path)
    finally:
        remove()
    texts = " ".join(t for seen in inspector.figures.values() for t in seen["texts"])
    check("Plain KKT" in texts and "Classical RK" in texts and "Index-1 KKT" not in texts,
          "names: --names overrides (sectioned and flat) are not what the figures show")
    check(names.method("index1") == "Index-1 KKT", "names: overrides leak out of the report")
    test_catalog_names()


def test_catalog_names():
    """A program built outside the tree lists its own entries (`mybench list --json`); that
    document as names override gives its entries' names and units, and only within the with."""
    catalog = {"schema": names.CATALOG_SCHEMA,
               "methods": [{"id": "my_method", "display_name": "My method"}],
               "integrators": [], "steppers": [],
               "problems": [{"id": "my_problem", "display_name": "My problem",
                             "units": {"outputs": {"x": "mm", "w": "rad/s"},
                                       "holonomic": ["mm"], "nonholonomic": []}}]}
    with names.overriding(catalog):
        got = (names.method("my_method"), names.problem("my_problem"),
               names.error_unit("my_problem"), names.error_unit("my_problem", ["x"]),
               names.drift_units("my_problem"))
    check(got == ("My method", "My problem", "mm, rad/s", "mm", ("mm", "mm/s")),
          f"names: a catalog override gives {got}")
    check(names.problem("my_problem") == "my_problem"
          and names.error_unit("my_problem") == "output units",
          "names: a catalog override leaks out of its with block")
    catalog["methods"].append({"id": "no_name"})
    try:
        names.override(catalog)
        check(False, "names: a catalog entry without a display name is accepted")
    except ValueError as error:
        check("methods[1]" in str(error), f"names: the refusal does not name the entry: {error}")
    finally:
        names.reset()


# --- 3: styles and legends --------------------------------------------------------------------

CONTEXT = {"git_sha": "synthetic", "build_type": "Release", "compiler": "test", "flags": "",
           "cpu": "none", "hardware_threads": 1, "libraries": {}, "date": "2000-01-01T00:00:00Z"}


def record(problem, method, stepper, setting, *, error, time, rhs_calls=1000, drift=1e-9,
           method_params=None):
    """A minimal run record following docs/json_schema.md."""
    fixed = "dt" in setting
    value = list(setting.values())[0]
    given = "".join(f"[{k}={v:g}]" for k, v in (method_params or {}).items())
    key = f"{problem}/{method}{given}/{stepper}/{'dt' if fixed else 'tol'}={value:g}"
    params = dict(method_params or {})
    if method == "baumgarte" and params:
        params.update(baumgarte_alpha=params["alpha"], baumgarte_beta=params["beta"])
    return {
        "schema": "cmbench.run/1", "key": key, "status": "ok", "message": "", "t_reached": 1.0,
        "t_end": 1.0, "samples": 100,
        "problem": {"id": problem, "params": {"t_end": 1.0},
                    "sizes": {"nq": 9, "mh": 8, "mn": 0}, "tags": [], "outputs": ["x"]},
        "method": {"id": method, "params": params},
        "stepper": {"id": stepper, "kind": "fixed" if fixed else "adaptive", "order": 4,
                    "dt": setting.get("dt"), "abs_tol": setting.get("tol"),
                    "rel_tol": setting.get("tol"), "max_dt": None},
        "reference": {"kind": "analytic", "provenance": "synthetic", "accuracy": 1e-15},
        "metrics": {"error": {"final_abs_max": error, "final_rel_max": error, "max_abs": error,
                              "scd": -math.log10(error), "t": 1.0, "outputs": {}},
                    "drift": {"position": {"max": drift, "final": drift, "rms": drift,
                                           "initial": 0.0},
                              "velocity": {"max": drift, "final": drift, "rms": drift,
                                           "initial": 0.0}},
                    "energy": None, "multipliers": {"final": [], "unique": True}},
        "work": {"rhs_calls": rhs_calls, "steps_accepted": rhs_calls // 4, "steps_rejected": 0,
                 "stepper_resets": 0, "jacobian_evaluations": 0, "method": {}},
        "timing": {"instrumented_s": time, "repetitions": 3, "min_s": time, "median_s": time},
        "context": CONTEXT}


METHODS = [m for m in style.METHOD_STYLE if m not in names.INTEGRATORS]  # the 8 ODE methods
STEPPERS = [("rk4", "dt", (0.004, 0.002, 0.001)), ("euler", "dt", (0.001, 0.0005)),
            ("dopri5", "tol", (1e-6, 1e-8)), ("fehlberg78", "tol", (1e-6, 1e-8))]


def crowded_rows():
    """8 methods × 4 steppers on one problem (32 series; gauss_qp with index1's very numbers,
    as on problems without redundant rows), 3 of them on a second problem."""
    recs = []
    for problem, methods in (("crank_rocker", METHODS), ("slider_crank", METHODS[:3])):
        for i, method in enumerate(methods):
            same = 0 if method == "gauss_qp" else i
            for stepper, what, values in STEPPERS:
                for v in values:
                    recs.append(record(problem, method, stepper, {what: v},
                                       error=(1 + same) * v ** 2, time=(1 + same) * 1e-6 / v))
    return [results.flatten(r) for r in recs]


def test_styles_and_legends(tmp):
    unknown = ["my_method", "another_method", "x"]
    styles = [style.method_style(m) for m in unknown]
    known = [style.method_style(m) for m in METHODS]
    check(len({(s["color"], s["marker"], str(s["linestyle"])) for s in styles}) == 3,
          f"unknown methods share a style: {styles}")
    check(all(s["color"] not in {k["color"] for k in known} and s["color"] != style.GREY
              for s in styles), f"unknown methods: colours of known methods or grey: {styles}")
    other = subprocess.run(
        ["/usr/bin/python3", "-c", "import json, sys; from cmbench import style; "
         "print(json.dumps([style.method_style(m) for m in sys.argv[1:]]))"] + unknown,
        capture_output=True, text=True, env=dict(ENV, PYTHONHASHSEED="12345"))
    check(other.returncode == 0 and json.loads(other.stdout or "null") == styles,
          f"unknown methods: another process gives other styles: {other.stdout} {other.stderr}")
    index1, gauss = style.method_style("index1"), style.method_style("gauss_qp")
    check(index1["marker"] != gauss["marker"] and index1["markersize"] > gauss["markersize"]
          and index1["zorder"] < gauss["zorder"],
          "index1 must be drawn larger and under gauss_qp so that both stay visible")

    rows = crowded_rows()
    inspector = Inspector()
    remove = style.add_save_hook(inspector)
    try:
        with style.using("double"):
            wp = wp_figures.work_precision(rows, tmp)
    finally:
        remove()
    seen = inspector.figures.get("work_precision", {})
    expected = len(METHODS) + (0 if wp["data"]["faceted"] else len(STEPPERS))
    check(seen.get("legends") == [expected],
          f"work precision: one legend of {expected} entries (methods, steppers), got "
          f"{seen.get('legends')}")
    check(max(p["series"] for p in wp["data"]["panels"]) <= 8 or not wp["data"]["faceted"],
          "work precision: a faceted panel holds at most 8 series")


# --- 4: heat maps -----------------------------------------------------------------------------

def heatmap_rows():
    """A 2 × 2 gain grid with a fixed-step stepper (same work everywhere, times that differ)
    and with an adaptive one (work that differs)."""
    recs = []
    for i, (alpha, beta) in enumerate([(1.0, 1.0), (1.0, 10.0), (10.0, 1.0), (10.0, 10.0)]):
        gains = {"alpha": alpha, "beta": beta}
        recs.append(record("crank_rocker", "baumgarte", "rk4", {"dt": 0.001}, error=1e-6 * (i + 1),
                           time=0.01 * (1 + 0.1 * i), rhs_calls=4000, method_params=gains))
        recs.append(record("crank_rocker", "baumgarte", "dopri5", {"tol": 1e-6}, error=1e-6,
                           time=0.01, rhs_calls=1000 + 100 * i, method_params=gains))
    return [results.flatten(r) for r in recs]


def test_heatmaps(tmp):
    inspector = Inspector()
    remove = style.add_save_hook(inspector)
    try:
        baumgarte_figures.heatmaps(heatmap_rows(), tmp)
    finally:
        remove()
    texts = [t for seen in inspector.figures.values() for t in seen["texts"]]
    timed = [t for t in texts if re.search(r"\btime\b", t) and "$" not in t]
    check(not timed, f"heat maps: a run-time map is drawn: {timed}")
    check(any("final error" in t for t in texts) and any("4 000 RHS calls in every cell" in t
                                                         for t in texts),
          "heat maps: the fixed-step grid should map the final error and say that every cell "
          "made the same number of RHS calls")
    check(any(t.startswith("RHS calls") for t in texts),
          "heat maps: the adaptive grid should map the RHS calls")


# --- 5: the command line ----------------------------------------------------------------------

def test_command_line(smoke_dir):
    help_run = subprocess.run(REPORT + ["--help"], capture_output=True, text=True, env=ENV)
    check(help_run.returncode == 0 and "usage:" in help_run.stdout
          and "--width" in help_run.stdout and "Traceback" not in help_run.stderr,
          f"--help: exit {help_run.returncode}: {help_run.stdout[-300:]}{help_run.stderr[-300:]}")
    run = subprocess.run(REPORT + [smoke_dir, "--width", "single"], capture_output=True,
                         text=True, env=ENV)
    line_start = rf"report\.py: \[\d/{len(report.FIGURES)}\] "
    progress = [line for line in run.stderr.splitlines() if re.match(line_start, line)]
    check(run.returncode == 0 and len(progress) == len(report.FIGURES),
          f"progress: {len(progress)} lines for {len(report.FIGURES)} figures:\n{run.stderr}")
    md = os.path.join(smoke_dir, "report.md")
    check((run.stdout + run.stderr).count(md) == 1,
          f"the path of report.md is printed {(run.stdout + run.stderr).count(md)} times")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    with tempfile.TemporaryDirectory() as tmp:
        smoke_dir = smoke(sys.argv[1], tmp)
        test_names(smoke_dir, tmp)
        test_styles_and_legends(tmp)
        test_heatmaps(tmp)
        test_command_line(smoke_dir)
    if failures:
        print("\n".join(failures))
        print(f"figures: {len(failures)} check(s) failed")
        return 1
    print("figures: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
