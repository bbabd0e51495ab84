#!/usr/bin/env python3
"""Script test (run by ctest): the report (python -m cmbench.report) and the cmbench package's
modules on real and synthetic results.

1. The smoke campaign (run with the cmbench binary given): cmbench.results reads it (series file names
   match the campaign runner's), report.py writes every figure the data supports (PDF and PNG),
   tables quoting values of the JSON, report.md and a self-contained report.html linking all of
   them, and names the figures it skipped.
2. Synthetic result sets built here, following the run-record and series-CSV contract:
   convergence (errors C·dt^p: the fitted order is p to 1e-9), scaling (cost c·nq^s: the slope
   is s to 1e-9), a Baumgarte (alpha, beta) grid with a failed cell and an index1 reference, and
   the impulse response (series integrated numerically here: deviation ~0 from the closed form;
   a run whose data belong to other gains: large deviation).
3. Synthetic rows for the rules behind the figures: series grouping (gain variants and
   perturbations apart, dt/tol sweeps together), the convergence fit (rejects O(1) errors,
   errors at the reference's accuracy, non-monotone sweeps, local slopes that disagree by more
   than 0.5 and absurd slopes; recovers a known order; fits the maximum error over the samples
   where the records have it — sweeps generated with hypothesis, and issue #25's crank_rocker
   ali3p case), faceting and naming in panels with more than 8 series, and branch_switch
   counted as a failure everywhere.
4. Bad input (copies of the smoke campaign's results, damaged): nothing to report — a missing
   or empty directory, a truncated results.json, a results.json of the wrong shape — is one
   line on stderr naming the file, exit 2; a bad part — run entries of the wrong shape among
   good ones, a truncated runs/*.json record, a truncated or garbled series CSV — is left out
   with a warning naming it and the rest reported, exit 0. Never a traceback.

Usage: PYTHONPATH=python test_report.py CMBENCH_BINARY [SOURCE_DIR]
       (SOURCE_DIR defaults to this file's ../; ctest sets PYTHONPATH)
"""
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np
from hypothesis import assume, given, settings, strategies as st

from cmbench import plot, report, results, tables
from cmbench.figures import (baumgarte as baumgarte_figures, convergence as conv_figures,
                             runs as run_figures, work_precision as wp_figures)

SOURCE = (os.path.abspath(sys.argv[2]) if len(sys.argv) > 2
          else os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The report as its users run it: python3 -m cmbench.report with the package on the path.
REPORT = ["/usr/bin/python3", "-m", "cmbench.report"]
REPORT_ENV = dict(os.environ, PYTHONPATH=os.path.join(SOURCE, "python"))

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
    return condition


def nonempty(path):
    return os.path.exists(path) and os.path.getsize(path) > 1000


# --- 1. the smoke campaign --------------------------------------------------------------------

SMOKE_FIGURES = ["work_precision", "drift", "energy", "convergence", "scaling"]
SMOKE_TABLES = ["precision_table.md", "precision_table.tex", "drift_energy_table.md",
                "drift_energy_table.tex", "convergence_table.md", "scaling_table.md"]


def smoke(cmbench, tmp):
    out = os.path.join(tmp, "smoke")
    subprocess.run([cmbench, "campaign", os.path.join(SOURCE, "campaigns", "smoke.json"),
                    "--jobs", "2", "--out", out], check=True, capture_output=True)
    run = subprocess.run(REPORT + [out], capture_output=True, text=True, env=REPORT_ENV)
    check(run.returncode == 0, f"report.py failed on the smoke campaign: {run.stderr[-2000:]}")

    # load: every record, its series under the runner's file name, flat rows.
    records = results.load(out)
    doc = json.load(open(os.path.join(out, "results.json")))
    check(len(records) == len(doc["runs"]) == 24, f"results.load: {len(records)} records")
    check(all(results.series_path(out, r) for r in records), "load: a run's series not found")
    data = results.series(out, records[0])
    check({"t", "position_residual", "velocity_residual", "energy_error"} <= set(data),
          f"results.series columns: {sorted(data)}")
    check(len(data.get("t", [])) == records[0]["samples"] + 1, "results.series row count")
    rows = [results.flatten(r) for r in records]
    r0, f0 = records[0], rows[0]
    check(f0["final_error"] == r0["metrics"]["error"]["final_abs_max"]
          and f0["drift_velocity_max"] == r0["metrics"]["drift"]["velocity"]["max"]
          and f0["rhs_calls"] == r0["work"]["rhs_calls"] and f0["nq"] == 2
          and f0["method_label"] == "index1" and f0["dt"] == 0.01 and f0["order"] == 4
          and math.isclose(f0["cost_per_rhs"], r0["timing"]["cpu_min_s"] / r0["work"]["rhs_calls"])
          and f0["time_clock"] == "cpu",
          f"results.flatten: {f0}")
    baumgarte = next(r for r in rows if r["method"] == "baumgarte")
    check(baumgarte["method_label"] == "baumgarte(alpha=10, beta=10)",
          f"method label {baumgarte['method_label']!r}")
    check(len(results.frame(records)) == 24, "results.frame length")

    for name in SMOKE_FIGURES:
        for ext in ("pdf", "png"):
            check(nonempty(os.path.join(out, f"{name}.{ext}")), f"{name}.{ext} missing or empty")
    for name in SMOKE_TABLES:
        check(os.path.exists(os.path.join(out, name)), f"{name} missing")
    md = open(os.path.join(out, "report.md")).read()
    page = open(os.path.join(out, "report.html")).read()
    for name in SMOKE_FIGURES:
        check(f"]({name}.png)" in md, f"report.md does not show {name}.png")
        check(f'<img src="{name}.png"' in page, f"report.html does not show {name}.png")
    for name in SMOKE_TABLES:
        check(f"({name})" in md, f"report.md does not link {name}")
        check(f'href="{name}"' in page, f"report.html does not link {name}")
    for name in ("baumgarte_heatmaps", "impulse_response"):
        check(re.search(rf"- {name}: skipped, \S", md) is not None,
              f"report.md does not say why {name} was skipped")
    check("git_sha" not in md and doc["context"]["git_sha"] in md and doc["context"]["cpu"] in page,
          "context block missing")
    # Self-contained HTML with real tables.
    check(not re.search(r"(src|href)=\"(https?:|//)", page) and "<script" not in page
          and "<link" not in page, "report.html refers to external resources")
    check(page.count("<table>") >= 5 and "<th>" in page, "report.html renders no HTML tables")
    for run in doc["runs"]:
        check(run["key"] in md and run["key"] in page, f"report lacks run {run['key']}")

    # Tables quote values of the JSON.
    table = open(os.path.join(out, "precision_table.md")).read()
    check(any(f"{r['timing']['cpu_min_s']:.3g} s" in table for r in doc["runs"]
              if r["timing"].get("cpu_min_s") is not None),
          "precision_table.md quotes no run (CPU) time from results.json")
    for name in ("precision_table.tex", "drift_energy_table.tex"):
        tex = open(os.path.join(out, name)).read()
        check("\\toprule" in tex and "\\bottomrule" in tex and "$$" not in tex,
              f"{name} is not a booktabs table")
    drift_md = open(os.path.join(out, "drift_energy_table.md")).read()
    crank = next(r["case_key"] for r in rows if r["problem"] == "crank_rocker")
    reps, _ = run_figures.representatives(rows, crank)
    rep = reps.get("projection")
    check(rep is not None and rep["kind"] == "adaptive" and rep["tol"] == 1e-9,
          "representative run: not the tightest dopri5 run")
    if rep:
        line = next((row for row in drift_md.splitlines()
                     if row.startswith("| crank_rocker | projection")), "")
        check(f"{rep['drift_position_max']:.2e}" in line and f"{rep['energy_max_abs']:.2e}" in line,
              f"drift_energy_table.md row {line!r} lacks the record's drift and energy")
    # The smoke campaign sweeps two step sizes: in range, but too few for an order.
    conv = open(os.path.join(out, "convergence_table.md")).read()
    check(re.search(r"\| simple_pendulum \| index1 \| rk4 \| 4 \|[^\n]*\| 2 of 2 \| "
                    r"[0-9.]+ \| no fit \(fewer than 3 points\) \|", conv) is not None,
          "RK4 on the pendulum (two step sizes) should read 'no fit (fewer than 3 points)':\n"
          + conv)


# --- 2. synthetic result sets -----------------------------------------------------------------

CONTEXT = {"git_sha": "synthetic", "build_type": "Release", "compiler": "test", "flags": "",
           "cpu": "none", "hardware_threads": 1, "libraries": {}, "date": "2000-01-01T00:00:00Z"}


def record(problem, method, stepper, setting, *, nq=9, mh=8, status="ok", problem_params=None,
           method_params=None, error=1e-6, drift=1e-9, rhs_calls=1000, time=None, order=4,
           initial=None, accuracy=1e-15, t_end=1.0):
    """A run record following docs/json_schema.md (key format of the campaign runner)."""
    pp, mp = problem_params or {}, method_params or {}

    def label(name, params):
        return name + "".join(f"[{k}={v:g}]" for k, v in params.items())

    fixed = "dt" in setting
    key = f"{label(problem, pp)}/{label(method, mp)}/{stepper}/" + \
          ("dt=" if fixed else "tol=") + f"{list(setting.values())[0]:g}"
    if initial:
        p = initial["perturbation"]
        key += f"/perturb=p{p['position']:g},v{p['velocity']:g}"
    params = dict(mp)
    if method == "baumgarte":
        params.update(baumgarte_alpha=mp.get("alpha", 10.0), baumgarte_beta=mp.get("beta", 10.0))
    rec = {
        "schema": "cmbench.run/1", "key": key, "status": status,
        "message": "" if status == "ok" else f"{status} at t = 0.5",
        "t_reached": t_end if status == "ok" else 0.5, "t_end": t_end, "samples": 100,
        "problem": {"id": problem, "params": dict(pp, t_end=t_end),
                    "sizes": {"nq": nq, "mh": mh, "mn": 0}, "tags": [], "outputs": ["x"]},
        "method": {"id": method, "params": params},
        "stepper": {"id": stepper, "kind": "fixed" if fixed else "adaptive", "order": order,
                    "dt": setting.get("dt"), "abs_tol": setting.get("tol"),
                    "rel_tol": setting.get("tol"), "max_dt": None},
        "reference": {"kind": "analytic", "provenance": "synthetic", "accuracy": accuracy},
        "metrics": {"error": {"final_abs_max": error, "final_rel_max": error, "max_abs": error,
                              "scd": -math.log10(error), "t": t_end, "outputs": {}},
                    "drift": {"position": {"max": drift, "final": drift, "rms": drift,
                                           "initial": 0.0},
                              "velocity": {"max": drift, "final": drift, "rms": drift,
                                           "initial": 0.0}},
                    "energy": None, "multipliers": {"final": [], "unique": True}},
        "work": {"rhs_calls": rhs_calls, "steps_accepted": rhs_calls // 4, "steps_rejected": 0,
                 "stepper_resets": 0, "jacobian_evaluations": 0, "method": {}},
        "timing": {"instrumented_s": time, "repetitions": 3, "min_s": time, "median_s": time},
        "context": CONTEXT}
    if initial:
        rec["initial"] = initial
    return rec


def write_results(directory, name, records, series=None):
    """results.json, runs/*.json and series/*.csv ({key: {column: values}})."""
    os.makedirs(os.path.join(directory, "runs"))
    os.makedirs(os.path.join(directory, "series"))
    for i, r in enumerate(records):
        stem = f"{r['problem']['id']}__{r['method']['id']}__{r['stepper']['id']}__{i}"
        r["files"] = {"record": f"runs/{stem}.json", "series": f"series/{stem}.csv"}
        with open(os.path.join(directory, "runs", stem + ".json"), "w") as f:
            json.dump(r, f)
        columns = (series or {}).get(r["key"])
        if columns:
            names = list(columns)
            with open(os.path.join(directory, "series", stem + ".csv"), "w") as f:
                f.write(",".join(names) + "\n")
                for i in range(len(columns["t"])):
                    f.write(",".join(repr(float(columns[c][i])) for c in names) + "\n")
    with open(os.path.join(directory, "results.json"), "w") as f:
        json.dump({"schema": "cmbench.results/1", "campaign": name, "context": CONTEXT,
                   "runs": records}, f)


CONV_ORDER, CONV_C = 3.7, 2.5
SCALING_SLOPE = 2.3
GAINS = [1.0, 10.0, 100.0]


def convergence_and_scaling_records():
    recs = []
    for dt in (0.02, 0.01, 0.005, 0.0025):
        recs.append(record("crank_rocker", "index1", "rk4", {"dt": dt},
                           error=CONV_C * dt ** CONV_ORDER))
        # The smallest step is within 10x the reference accuracy: left out of the fit.
        recs.append(record("crank_rocker", "projection", "rk4", {"dt": dt}, accuracy=2e-9,
                           error=max(1e-6 * (dt / 0.02) ** 2, 5e-9)))
    for family, sizes in (("n_pendulum", [2, 4, 8, 16]), ("n_four_bar", [3, 6, 12])):
        for n in sizes:
            nq = 2 * n if family == "n_pendulum" else 6 * n + 3
            for method, c in (("index1", 1e-7), ("svd_null_space", 4e-7)):
                calls = 400 + 10 * n
                recs.append(record(family, method, "rk4", {"dt": 0.001}, nq=nq, mh=nq - 1,
                                   problem_params={"N": n}, rhs_calls=calls,
                                   time=c * nq ** SCALING_SLOPE * calls))
    return recs


def heatmap_records():
    recs = []
    for alpha in GAINS:
        for beta in GAINS:
            failed = alpha == 100.0 and beta == 1.0
            recs.append(record("slider_crank", "baumgarte", "dopri5", {"tol": 1e-6},
                               method_params={"alpha": alpha, "beta": beta},
                               status="diverged" if failed else "ok",
                               drift=1e-3 / (alpha * beta),
                               rhs_calls=int(1000 + 10 * alpha + beta)))
    recs.append(record("slider_crank", "index1", "dopri5", {"tol": 1e-6}, drift=4.2e-5,
                       rhs_calls=777))
    return recs


def integrate(alpha, beta, phi0, dphi0, t_end, samples, substeps=400):
    """Φ̈ + 2αΦ̇ + β²Φ = 0 by classical RK4, sampled: independent of the closed forms."""
    h = t_end / samples / substeps

    def f(y):
        return np.array([y[1], -2 * alpha * y[1] - beta * beta * y[0]])

    y, out = np.array([phi0, dphi0], dtype=float), [(phi0, dphi0)]
    for _ in range(samples):
        for _ in range(substeps):
            k1 = f(y)
            k2 = f(y + h / 2 * k1)
            k3 = f(y + h / 2 * k2)
            y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + f(y + h * k3))
        out.append((y[0], y[1]))
    return np.array(out)


IMPULSE_CASES = [  # (alpha, beta, p, w, data generated with these gains instead, dt)
    (10.0, 20.0, 0.0, 0.01, None, 0.001),
    (20.0, 20.0, 0.0, 0.01, None, 0.001),
    (20.0, 10.0, 0.0, 0.01, None, 0.001),
    (10.0, 20.0, 1e-3, 0.0, None, 0.001),   # free response from a position offset
    (10.0, 20.0, 0.0, 0.01, (20.0, 10.0), 0.002),  # wrong: data of the overdamped gains
]


def impulse_records():
    recs, series = [], {}
    t_end, samples, rows = 0.5, 100, 3
    for alpha, beta, p, w, data_gains, dt in IMPULSE_CASES:
        initial = {"assembly": "reject", "perturbation": {"position": p, "velocity": w}}
        r = record("crank_rocker", "baumgarte", "rk4", {"dt": dt}, t_end=t_end,
                   method_params={"alpha": alpha, "beta": beta}, initial=initial)
        a, b = data_gains or (alpha, beta)
        sim = integrate(a, b, p, w, t_end, samples)
        cols = {"t": np.linspace(0, t_end, samples + 1), "position_residual": np.abs(sim[:, 0]),
                "velocity_residual": np.abs(sim[:, 1]), "energy_error": np.zeros(samples + 1)}
        for i in range(rows):
            cols[f"phi_{i}"] = sim[:, 0]
        for i in range(rows):
            cols[f"dphi_{i}"] = sim[:, 1]
        recs.append(r)
        series[r["key"]] = cols
    return recs, series


def synthetic(tmp):
    out = os.path.join(tmp, "synthetic")
    imp_recs, series = impulse_records()
    recs = convergence_and_scaling_records() + heatmap_records() + imp_recs
    write_results(out, "synthetic", recs, series)
    blocks, produced, skipped, errors = report.build(out)
    check(not errors, f"figures failed on the synthetic set: {errors}")
    names = {f["name"] for f in produced}
    for name in ("convergence", "scaling", "baumgarte_heatmaps", "impulse_response"):
        check(name in names, f"synthetic set: {name} not drawn (skipped: {skipped})")
    rows = [results.flatten(r) for r in results.load(out)]

    # Convergence: exact power law -> the fitted order is p; floor point left out.
    fits = {(f["case"], f["variant"]): f for f in conv_figures.convergence_fits(rows)}
    slope = fits.get(("crank_rocker", "index1"), {}).get("slope")
    check(slope is not None and abs(slope - CONV_ORDER) < 1e-9,
          f"convergence: fitted order {slope}, expected {CONV_ORDER}")
    proj = fits.get(("crank_rocker", "projection"), {})
    check(proj.get("slope") is not None and abs(proj["slope"] - 2.0) < 1e-9
          and [p[2] for p in proj["points"]] == ["floor", "fitted", "fitted", "fitted"],
          f"convergence: the point at the reference floor was not left out ({proj})")
    conv = open(os.path.join(out, "convergence_table.md")).read()
    check(f"{CONV_ORDER:.3f}" in conv and "3 of 4" in conv, "convergence_table.md")
    for ext in ("pdf", "png"):
        for name in ("convergence", "scaling", "impulse_response",
                     "baumgarte_heatmap_slider_crank"):
            check(nonempty(os.path.join(out, f"{name}.{ext}")), f"synthetic {name}.{ext}")

    # Scaling: exact power law in nq -> slope s in every panel, panels per family and all.
    panels = run_figures.scaling_points(rows)
    check(set(panels) == {"n_pendulum", "n_four_bar", "all problems"},
          f"scaling panels {sorted(panels)}")
    scaling = next((f for f in produced if f["name"] == "scaling"), {"data": {}})
    for (panel, method), s in scaling["data"].items():
        if panel == "all problems":  # points of two families: no series, no fit
            check(s is None, f"scaling: a slope through several problems' points: {s}")
        else:
            check(s is not None and abs(s - SCALING_SLOPE) < 1e-9,
                  f"scaling slope {panel}/{method}: {s}, expected {SCALING_SLOPE}")
    check(len(scaling["data"]) == 6, f"scaling fits: {sorted(scaling['data'])}")

    # Heat map: a 3x3 grid with one failed cell and the index1 reference.
    grids = [g for g in baumgarte_figures.heatmap_grids(rows)
             if g["case"]["problem"] == "slider_crank"]
    check(len(grids) == 1 and grids[0]["alphas"] == GAINS and grids[0]["betas"] == GAINS
          and grids[0]["index1"] is not None, f"heat-map grids: {len(grids)}")
    grid_md = open(os.path.join(out, "baumgarte_heatmaps.md")).read()
    check("| 1 | 1.00e-03 | 1.00e-04 | diverged |" in grid_md,
          f"baumgarte_heatmaps.md: row beta=1 should read 1e-3, 1e-4, diverged:\n{grid_md}")
    check("index1 on the same case: ok, max ‖Φ‖ 4.20e-05" in grid_md,
          "baumgarte_heatmaps.md lacks the index1 reference")

    # Impulse response: deviation ~0 for the right data, large for the wrong data.
    cases = baumgarte_figures.impulse_cases(rows, out)
    check(len(cases) == len(IMPULSE_CASES), f"impulse cases: {len(cases)}")
    check({c["regime"] for c in cases} == {"underdamped", "critical", "overdamped"},
          "impulse regimes")
    for c in cases:
        wrong = c["row"]["dt"] == 0.002
        dev, worst, rate = c["deviation"], c["worst"], c["rate_deviation"]
        if wrong:
            check(dev > 0.3 and worst > 0.3, f"impulse: wrong data gives deviation {dev}")
        else:
            check(dev < 1e-8 and worst < 1e-8 and rate < 1e-8,
                  f"impulse {c['regime']} {c['kind']}: deviation {dev}, {worst}, rate {rate}")
    table = open(os.path.join(out, "impulse_response.md")).read()
    values = [float(v) for v in re.findall(r"\| (\d\.\d\de[-+]\d\d) \| \d\.\d\de[-+]\d\d \| "
                                           r"\d\.\d\de[-+]\d\d \|", table)]
    check(len(values) == 5 and sorted(values)[-1] > 0.3 and sorted(values)[-2] < 1e-8,
          f"impulse_response.md deviations {values}")
    md = open(os.path.join(out, "report.md")).read()
    page = open(os.path.join(out, "report.html")).read()
    for name in ("impulse_response.png", "baumgarte_heatmap_slider_crank.png", "scaling.png",
                 "convergence.png", "impulse_response.md", "baumgarte_heatmaps.md"):
        check(f"({name})" in md and f'"{name}"' in page, f"synthetic report does not link {name}")


# --- 3. the rules behind the figures ----------------------------------------------------------

PERTURBED = {"assembly": "reject", "perturbation": {"position": 1e-3, "velocity": 0.0}}
GAIN_PAIRS = [(10.0, 20.0), (20.0, 10.0)]
DTS = [0.004, 0.002, 0.001]


def gain_study_records():
    """Two gain pairs, each unperturbed (error 3·dt^4) and perturbed (error ≈ 1e-3, set by the
    perturbation, growing only slightly with dt), over one dt sweep, plus a dopri5 tolerance
    sweep; and at dt = 0.0005 a branch_switch run of the first pair whose record holds an
    error and a time that would make it the cheapest accurate run and change the fitted order
    if it were taken for a success."""
    recs = []
    for alpha, beta in GAIN_PAIRS:
        gains = {"alpha": alpha, "beta": beta}
        for initial in (None, PERTURBED):
            for dt in DTS:
                error = 3 * dt ** 4 if initial is None else 1e-3 * (1 + dt)
                recs.append(record("crank_rocker", "baumgarte", "rk4", {"dt": dt}, error=error,
                                   method_params=gains, initial=initial, time=1e-6 / dt))
        for tol in (1e-6, 1e-8):
            recs.append(record("crank_rocker", "baumgarte", "dopri5", {"tol": tol}, error=tol,
                               method_params=gains, time=1e-3 * tol ** -0.2))
    recs.append(record("crank_rocker", "baumgarte", "rk4", {"dt": 0.0005}, error=1e-12,
                       method_params=dict(zip(("alpha", "beta"), GAIN_PAIRS[0])),
                       status="branch_switch", time=1e-9))
    return recs


def test_grouping():
    rows = [results.flatten(r) for r in gain_study_records()]
    series = results.group_series(rows)
    by = {(s["case_label"], s["variant"], s["stepper"]): s for s in series}
    expected = {(case, f"baumgarte α={a:g} β={b:g}", "rk4")
                for a, b in GAIN_PAIRS
                for case in ("crank_rocker, unperturbed", "crank_rocker, perturbed p=0.001")}
    expected |= {("crank_rocker, unperturbed", f"baumgarte α={a:g} β={b:g}", "dopri5")
                 for a, b in GAIN_PAIRS}
    check(set(by) == expected,
          f"grouping: gain variants and perturbations must be separate series: {sorted(by)}")
    first = by.get(("crank_rocker, unperturbed", "baumgarte α=10 β=20", "rk4"), {"runs": []})
    check([r["dt"] for r in first["runs"]] == [0.0005] + DTS[::-1]
          and {r["status"] for r in first["runs"]} == {"ok", "branch_switch"},
          "grouping: runs differing only in dt belong to one series, by increasing dt")
    dopri = by.get(("crank_rocker, unperturbed", "baumgarte α=20 β=10", "dopri5"), {"runs": []})
    check([r["tol"] for r in dopri["runs"]] == [1e-8, 1e-6],
          "grouping: runs differing only in tol belong to one series")
    run = {"problem": "kane_pendulum", "problem_params": {"N": 2}, "method": "index1",
           "method_params": {}, "stepper": "dopri5", "kind": "adaptive", "sweep": "tol",
           "value": 1e-6, "abs_tol": 1e-9, "t_end": 5.0, "perturbation": None,
           "assembly": "project"}
    same = results.sweep_key(run)
    check(same == "kane_pendulum[N=2]/index1/dopri5/tol=*,atol=1e-09/t_end=5/assembly=project"
          and same == results.sweep_key(dict(run, value=1e-8))
          and same != results.sweep_key(dict(run, abs_tol=1e-10))
          and same != results.sweep_key(dict(run, t_end=10.0))
          and same != results.sweep_key(dict(run, assembly="reject")),
          f"sweep_key: only tol is swept; a held atol, t_end and assembly tell series apart: "
          f"{same}")

    # Through the figures: one fit and one line per series, never a merged one.
    fits = {(f["case_label"], f["variant"]): f for f in conv_figures.convergence_fits(rows)}
    clean = fits.get(("crank_rocker, unperturbed", "baumgarte α=10 β=20"), {})
    check(clean.get("slope") is not None and abs(clean["slope"] - 4) < 0.01
          and clean.get("failed") == 1 and len(clean.get("points", [])) == 3,
          f"convergence: the unperturbed sweep has order 4, its branch_switch run left out: "
          f"slope {clean.get('slope')}, {clean.get('failed')} failed, {clean.get('points')}")
    for a, b in GAIN_PAIRS:
        perturbed = fits.get(("crank_rocker, perturbed p=0.001", f"baumgarte α={a:g} β={b:g}"),
                             {})
        check(perturbed.get("slope") is None
              and "inconsistent" in (perturbed.get("reason") or ""),
              f"convergence: a perturbation-dominated sweep has no order: {perturbed}")
    with tempfile.TemporaryDirectory() as out:
        wp = wp_figures.work_precision(rows, out)
    panels = {p["title"]: p for p in wp["data"]["panels"]}
    check(not wp["data"]["faceted"] and set(panels) == {"crank_rocker, unperturbed",
                                                       "crank_rocker, perturbed p=0.001: rk4"},
          f"work precision: one panel per case: {sorted(panels)}")
    unperturbed = panels.get("crank_rocker, unperturbed", {})
    check(unperturbed.get("series") == 4 and len(set(unperturbed.get("named", []))) == 4
          and "baumgarte α=10 β=20 / rk4" in unperturbed.get("named", [])
          and unperturbed.get("runs") == 10,
          f"work precision: four lines of distinct labels, the branch_switch run not drawn: "
          f"{unperturbed}")


def test_fit_rules():
    dts = [0.01, 0.005, 0.0025, 0.00125]

    def points(errors, accuracy=1e-15, scale=1.0):
        return [(dt, e, accuracy, scale) for dt, e in zip(dts, errors)]

    slope, reason, classes = conv_figures.fit_order(points([3 * dt ** 4 for dt in dts]), 4)
    check(slope is not None and abs(slope - 4) < 0.01 and reason is None
          and classes == ["fitted"] * 4, f"fit: C·dt^4 gives {slope}, {reason}")
    cases = [  # (errors at dt = 0.01 … 0.00125, nominal order, accuracy, scale, reason)
        ([9.0, 2.0, 0.3, 0.05], 4, 1e-15, 1.0, "errors O(1): outside the asymptotic range"),
        # O(1) relative to the outputs' size: up to 8e-3 on outputs of size 0.05.
        ([8e-3, 4e-3, 2e-3, 1e-3], 1, 1e-15, 0.05, "errors O(1): outside the asymptotic range"),
        ([9e-14, 8e-14, 5e-14, 3e-14], 4, 1e-14, 1.0, "at the reference's accuracy"),
        ([1e-6, 1e-7, 5e-13, 3e-13], 4, 1e-13, 1.0,
         "fewer than 3 points in the asymptotic range: 2 at the reference's accuracy"),
        ([1e-7, 3e-9, 1e-8, 1e-9], 4, 1e-15, 1.0, "not monotone in dt"),
        ([1.03e-3, 1.02e-3, 1.01e-3, 1e-3], 4, 1e-15, 1.0, "slope 0.01 inconsistent"),
        ([dt ** 7 for dt in dts], 4, None, 1.0, "slope 7.00 inconsistent"),
    ]
    for errors, nominal, accuracy, scale, expected in cases:
        slope, reason, _ = conv_figures.fit_order(points(errors, accuracy, scale), nominal)
        check(slope is None and reason == expected,
              f"fit of {errors} (accuracy {accuracy}, scale {scale}): slope {slope}, reason "
              f"{reason!r}, expected {expected!r}")
    # The same errors are in range on outputs of size 100: a fit, order 1.
    slope, _, _ = conv_figures.fit_order(points([8e-3, 4e-3, 2e-3, 1e-3], scale=100.0), 1)
    check(slope is not None and abs(slope - 1) < 1e-9, f"fit with output scale 100: {slope}")
    # The review's case: errors O(1) at two steps and a diverged run (Andrews' squeezer, RK4).
    slope, reason, classes = conv_figures.fit_order(
        [(0.0005, 0.07, 4.3e-9, 0.53), (0.001, 2.2, 4.3e-9, 0.53)], 4, failed=1)
    check(slope is None and reason.startswith("errors O(1)") and "1 failed" in reason
          and classes == ["large", "large"], f"Andrews-like sweep: {slope}, {reason}")
    # No sweep of points in range yields a negative or absurd order.
    rng = np.random.default_rng(7)
    for _ in range(500):
        errors = 10 ** rng.uniform(-12, -3, size=4)
        slope, _, _ = conv_figures.fit_order(points(list(errors)), 4)
        check(slope is None or 0.5 <= slope <= 6, f"fit of random errors: slope {slope}")
    # The output scale is the median |reference value| at t_end.
    rec = record("andrews_squeezer", "index1", "rk4", {"dt": 0.001})
    rec["metrics"]["error"]["outputs"] = {
        name: {"final_value": v, "final_reference": v, "final_abs": 0.0, "final_rel": 0.0,
               "max_abs": 0.0}
        for name, v in (("beta", 15.81), ("Theta", -15.76), ("gamma", 0.04), ("Phi", -0.53),
                        ("delta", 0.52))}
    check(results.flatten(rec)["output_scale"] == 0.53,
          f"output_scale: {results.flatten(rec)['output_scale']}, expected the median 0.53")


# Local slopes: generated sweeps (hypothesis, derandomized: the same cases on every run). The
# functions assert, so pytest runs them as they are; main() runs them through asserting().
PROPERTY_SETTINGS = settings(max_examples=300, derandomize=True, deadline=None, database=None)
SPREAD_MARGIN = 1e-6  # sweeps this close to the bound are left out: rounding may tip them


def sweep(dt0, ratio, first_error, slopes):
    """Points [(dt, error)] at dt0·ratio^i whose local slopes are `slopes`."""
    points = [(dt0, first_error)]
    for s in slopes:
        dt, e = points[-1]
        points.append((dt * ratio, e * ratio ** s))
    return points


def in_range(points):
    """fit_order's points with every error in the asymptotic range: the reference's accuracy
    a hundredth of the smallest error, 1 % of the output scale 1000× the largest."""
    low, high = min(e for _, e in points), max(e for _, e in points)
    return [(dt, e, low / 100, high * 1e5) for dt, e in points]


@PROPERTY_SETTINGS
@given(slopes=st.lists(st.floats(0.6, 7.0), min_size=2, max_size=5),
       ratio=st.floats(1.2, 4.0), dt0=st.floats(1e-5, 1e-2),
       exponent=st.floats(-12.0, -4.0))
def test_fit_needs_agreeing_local_slopes(slopes, ratio, dt0, exponent):
    """Errors rising with dt at chosen local slopes (all ≥ 0.6, so monotone and any mean of
    them above MIN_ORDER): a fit exactly when largest − smallest ≤ SLOPE_SPREAD, and then
    between the smallest and the largest (the least-squares slope is their weighted mean); a
    refusal naming the slopes and their spread otherwise."""
    assume(abs(max(slopes) - min(slopes) - conv_figures.SLOPE_SPREAD) > SPREAD_MARGIN)
    points = sweep(dt0, ratio, 10 ** exponent, slopes)
    slope, reason, classes = conv_figures.fit_order(in_range(points), None)
    measured = conv_figures.local_slopes(points)
    assert max(abs(a - b) for a, b in zip(measured, slopes)) < 1e-9, (measured, slopes)
    spread = max(measured) - min(measured)
    if spread > conv_figures.SLOPE_SPREAD:
        assert slope is None and classes == ["unfitted"] * len(points), (slope, classes)
        assert reason == (f"local slopes {conv_figures.format_slopes(measured)} differ by "
                          f"{spread:.2f} > {conv_figures.SLOPE_SPREAD:g}"), reason
    else:
        assert reason is None and classes == ["fitted"] * len(points), (reason, classes)
        assert min(slopes) - 1e-9 <= slope <= max(slopes) + 1e-9, (slope, slopes)


NOISE = 0.08
# Each log error is off its power law by at most −log(1 − NOISE), so each local slope (step
# ratio 2) by at most twice that over log 2, the spread by at most four times: 0.48 < 0.5, a
# fit; and the fit, a weighted mean of the local slopes, is within 0.241 of p.
NOISE_SLOPE_BOUND = 2 * -math.log(1 - NOISE) / math.log(2)


@PROPERTY_SETTINGS
@given(p=st.floats(1.0, 6.0), n=st.integers(3, 6), exponent=st.floats(-11.0, -4.0),
       noise=st.lists(st.floats(-NOISE, NOISE), min_size=6, max_size=6))
def test_fit_of_a_noisy_power_law(p, n, exponent, noise):
    """C·dt^p·(1 + η), |η| ≤ 0.08, at dt halving: always a fit, within NOISE_SLOPE_BOUND of p."""
    dts = [1e-3 * 2.0 ** -i for i in range(n)][::-1]
    points = [(dt, 10 ** exponent * (dt / dts[-1]) ** p * (1 + eta))
              for dt, eta in zip(dts, noise)]
    slope, reason, _ = conv_figures.fit_order(in_range(points), round(p))
    assert reason is None and abs(slope - p) <= NOISE_SLOPE_BOUND, (p, slope, reason)


def oscillating_records(p, phase, depth):
    """A sweep of 5 runs at dt = 2 ms … 0.125 ms whose maximum error over the samples is
    1e-9·(dt/0.125 ms)^p, and whose final error is that times 10^-(2 + depth·(1 + sin(phase +
    2.1 i))): a final time at which the leading error term passes near zero, at another phase
    of it for each step (100 to 10^(2 + 2·depth) times below the maximum)."""
    recs = []
    for i in range(5):
        dt = 0.000125 * 2 ** i
        largest = 1e-9 * 2.0 ** (p * i)
        rec = record("crank_rocker", "ali3p", "dae", {"dt": dt}, order=2,
                     error=largest * 10 ** -(2 + depth * (1 + math.sin(phase + 2.1 * i))))
        rec["metrics"]["error"]["max_abs"] = largest
        recs.append(rec)
    return recs


@PROPERTY_SETTINGS
@given(p=st.floats(1.0, 4.0), phase=st.floats(0.0, 2 * math.pi), depth=st.floats(0.0, 0.4))
def test_fits_use_the_maximum_error(p, phase, depth):
    """Records with the maximum error over the samples are fitted on it: order p. Without it
    (older records) the final error is fitted, and a fit through it has agreeing local
    slopes; disagreeing ones are a refusal that says so."""
    recs = oscillating_records(p, phase, depth)
    (fit,) = conv_figures.convergence_fits([results.flatten(r) for r in recs])
    assert fit["error"] == "max_error" and abs(fit["slope"] - p) < 1e-9, fit
    for r in recs:
        r["metrics"]["error"]["max_abs"] = None
    (fit,) = conv_figures.convergence_fits([results.flatten(r) for r in recs])
    spread = max(fit["local_slopes"]) - min(fit["local_slopes"])
    assert fit["error"] == "final_error", fit["error"]
    if fit["slope"] is not None:
        assert spread <= conv_figures.SLOPE_SPREAD, fit
    elif min(fit["local_slopes"]) > 0 and spread > conv_figures.SLOPE_SPREAD:
        assert fit["reason"].startswith("local slopes"), fit["reason"]


# The committed integrators set, crank_rocker with ali3p (second order), dt = 0.125 … 2 ms: the
# final error at t = 10 and the maximum error over the samples.
ALI3P_CRANK_ROCKER = [(0.000125, 2.044e-08, 2.012e-06), (0.00025, 7.492e-08, 7.935e-06),
                      (0.0005, 2.421e-07, 3.08e-05), (0.001, 5.052e-07, 0.0001157),
                      (0.002, 1.691e-06, 0.0004052)]


def test_issue_case():
    """Issue #25's case: fitted on the maximum error, order 2 ± 0.2 (the last local slope, 1.81,
    is the farthest from 2: the fit, their weighted mean, is nearer); on the final error a
    refusal naming its local slopes and their spread (1.06 … 1.87); the caption, the table's
    title and its header name the error fitted."""
    recs = []
    for dt, final, largest in ALI3P_CRANK_ROCKER:
        rec = record("crank_rocker", "ali3p", "dae", {"dt": dt}, order=2, accuracy=1e-9,
                     error=final)
        rec["metrics"]["error"]["max_abs"] = largest
        recs.append(rec)
    (fit,) = conv_figures.convergence_fits([results.flatten(r) for r in recs])
    assert fit["error"] == "max_error" and fit["slope"] is not None \
        and abs(fit["slope"] - 2) <= 0.2, (fit["slope"], fit["reason"])
    points = [(dt, final, 1e-9, None) for dt, final, _ in ALI3P_CRANK_ROCKER]
    slope, reason, _ = conv_figures.fit_order(points, 2)
    assert slope is None and \
        reason == "local slopes 1.87, 1.69, 1.06, 1.74 differ by 0.81 > 0.5", (slope, reason)
    with tempfile.TemporaryDirectory() as out:
        conv = conv_figures.convergence([results.flatten(r) for r in recs], out)
        table = open(os.path.join(out, "convergence_table.md")).read()
    assert conv["caption"].startswith("Maximum error over the samples against the step size") \
        and conv["tables"][0]["title"] == "Observed orders (maximum error over the samples)" \
        and "local slopes (max error over samples)" in table \
        and "| 1.98, 1.96, 1.91, 1.81 |" in table, table


def asserting(test):
    """Run a test that asserts (a hypothesis test reports its smallest failing case); its
    failure is a failed check."""
    try:
        test()
    except Exception as e:  # noqa: BLE001 - any failure of the property is reported
        check(False, f"{test.__name__}: {type(e).__name__}: {e}")


METHODS = ["index1", "baumgarte", "projection", "coordinate_partitioning", "svd_null_space",
           "udwadia_kalaba", "gauss_qp", "augmented_lagrangian"]


def crowded_records():
    """Eight methods × two steppers on one problem (16 series: faceting by stepper gives panels
    of 8), and index1 plus 25 gain variants of one stepper on another (26 series in a panel,
    every run on the Pareto front: the k-th variant is (1 + k)× slower and (1 + k)^4.5× more
    accurate than index1 at the same dt)."""
    recs = []
    for i, method in enumerate(METHODS):
        for dt in DTS:
            recs.append(record("crank_rocker", method, "rk4", {"dt": dt}, time=(1 + i) * 1e-6 / dt,
                               error=(1 + i) * dt ** 4))
        for tol in (1e-6, 1e-8):
            recs.append(record("crank_rocker", method, "dopri5", {"tol": tol}, error=tol,
                               time=(1 + i) * 1e-3 * tol ** -0.2))
    for k, (alpha, beta) in enumerate([(None, None)] + [(a, b) for a in (1, 5, 10, 20, 50)
                                                        for b in (1, 5, 10, 20, 50)]):
        method, gains = ("index1", None) if alpha is None else ("baumgarte",
                                                               {"alpha": alpha, "beta": beta})
        for dt in DTS:
            recs.append(record("slider_crank", method, "rk4", {"dt": dt}, method_params=gains,
                               time=(1 + k) * 1e-6 / dt, error=dt ** 4 / (1 + k) ** 4.5))
    return recs


def front_series(points):
    """Series with a non-dominated (time, error) point, by brute force: {label}."""
    return {label for t, e, label in points
            if not any(t2 <= t and e2 <= e and (t2, e2) != (t, e) for t2, e2, _ in points)}


def test_crowded_panels():
    rows = [results.flatten(r) for r in crowded_records()]
    series = results.group_series(rows)
    plan, faceted = plot.facet_panels(series)
    sizes = {(p["case_label"], p["stepper"]): len(p["series"]) for p in plan}
    check(faceted and sizes == {("crank_rocker", "rk4"): 8, ("crank_rocker", "dopri5"): 8,
                                ("slider_crank", "rk4"): 26},
          f"faceting: 16 series of two steppers split by stepper; 26 of one stepper cannot be: "
          f"{sizes}")
    few, few_faceted = plot.facet_panels([s for s in series if s["case"] == "crank_rocker"
                                             and s["stepper"] == "rk4"])
    check(not few_faceted and len(few) == 1, "faceting: 8 series stay in one panel")
    with tempfile.TemporaryDirectory() as out:
        wp = wp_figures.work_precision(rows, out)
        conv = conv_figures.convergence(rows, out)
    panels = {p["title"]: p for p in wp["data"]["panels"]}
    for title in ("crank_rocker: rk4", "crank_rocker: dopri5"):
        check(len(panels.get(title, {}).get("named", [])) == 8,
              f"work precision: a panel of 8 series names all of them ({panels.get(title)})")
    crowded = panels.get("slider_crank: rk4", {})
    named = crowded.get("named", [])
    slider = [r for r in rows if r["problem"] == "slider_crank"]
    front = front_series([(r["time"], r["final_error"], r["variant_label"]) for r in slider])
    check(crowded.get("series") == 26 and len(front) == 26 and len(named) == 8
          and set(named) <= front and {"index1", "baumgarte α=50 β=50"} <= set(named),
          f"work precision: a panel of 26 series on the Pareto front names 8 of them, the "
          f"fastest and the most accurate included: {named}")
    check("Pareto front" in wp["caption"] and "light grey" in wp["caption"],
          "work precision: the caption says what the crowded panels show")
    check("grey" in conv["caption"], "convergence: the caption says what the crowded panel shows")


def test_branch_switch():
    rows = [results.flatten(r) for r in gain_study_records()]
    switched = [r for r in rows if r["status"] == "branch_switch"]
    check(len(switched) == 1 and switched[0] not in run_figures.ok(rows),
          "branch_switch: not a successful run")
    counts = report.run_counts(rows)
    check(counts == f"runs: {len(rows)} ({len(rows) - 1} ok; 1 failed: 1 branch_switch)",
          f"run counts: {counts}")
    _, body = tables.precision_table(rows)
    check(not any("0.0005" in cell for row in body for cell in row),
          f"precision table: the branch_switch run is no configuration: {body}")
    grid = [record("slider_crank", "baumgarte", "dopri5", {"tol": 1e-6},
                   method_params={"alpha": a, "beta": b},
                   status="branch_switch" if (a, b) == (5.0, 5.0) else "ok")
            for a in (1.0, 5.0) for b in (1.0, 5.0)]
    with tempfile.TemporaryDirectory() as out:
        baumgarte_figures.heatmaps([results.flatten(r) for r in grid], out)
        table = open(os.path.join(out, baumgarte_figures.HEATMAP_DOC)).read()
    check("| 5 | 1.00e-09 | branch_switch |" in table,
          f"heat map: the branch_switch cell shows its status, not a value:\n{table}")


@settings(max_examples=60, derandomize=True, deadline=None, database=None)
@given(st.lists(st.tuples(st.sampled_from(["index1", "baumgarte"]),
                          st.floats(min_value=1e-4, max_value=10.0),
                          st.booleans(), st.sampled_from([1e-7, 1e-4])),
                min_size=1, max_size=8))
def test_the_cheapest_configuration_compares_one_clock(runs_drawn):
    """A run whose timing did not complete has its instrumented wall time only; in a case where
    other runs have CPU times it never counts as the cheapest (it once could, its wall time of
    one instrumented run beating a CPU minimum)."""
    records = []
    for i, (method, seconds, cpu, error) in enumerate(runs_drawn):
        r = record("slider_crank", method, "rk4", {"dt": 1e-3 / (i + 1)}, error=error)
        r["timing"] = ({"instrumented_s": seconds, "repetitions": 3, "min_s": seconds,
                        "median_s": seconds, "cpu_min_s": seconds} if cpu else
                       {"instrumented_s": seconds, "note": "not timed: stopped from outside"})
        records.append(r)
    rows = [results.flatten(r) for r in records]
    _, body = tables.precision_table(rows)
    any_cpu = any(cpu for _, _, cpu, _ in runs_drawn)
    for row in body:
        method = row[1]
        for level, cell in zip(tables.LEVELS, row[2:]):
            eligible = [(s, c) for m, s, c, e in runs_drawn
                        if m == method and e <= level and (c or not any_cpu)]
            if not eligible:
                check(cell == "not reached", f"{method} to {level:g}: {cell} ({runs_drawn})")
                continue
            best = min(s for s, _ in eligible)
            check(cell.endswith(f": {best:.3g} s"),
                  f"{method} to {level:g}: {cell}, expected {best:.3g} s ({runs_drawn})")


# --- 4. bad input -----------------------------------------------------------------------------

def report_on(directory):
    return subprocess.run(REPORT + [directory], capture_output=True, text=True, env=REPORT_ENV)


def expect(case, directory, code, messages):
    """report.py on `directory` exits with `code`, prints no traceback, and every regexp of
    `messages` matches a line of its stderr; exit 2 says why in one line (after the warnings
    about the parts left out, if any)."""
    run = report_on(directory)
    lines = run.stderr.splitlines()
    check(run.returncode == code, f"{case}: exit {run.returncode}, expected {code}: "
          f"{run.stderr[-1500:]}")
    check("Traceback" not in run.stderr, f"{case}: a traceback:\n{run.stderr[-1500:]}")
    if code == 2:
        errors = [line for line in lines if not line.startswith("report.py: warning: ")]
        check(len(errors) == 1, f"{case}: {len(errors)} error lines on stderr, expected one")
    for message in messages:
        check(any(re.search(message, line) for line in lines),
              f"{case}: no line of stderr matches {message!r}:\n{run.stderr[-1500:]}")
    return run


def smoke_copy(tmp, name):
    """A copy of the smoke campaign's exported files (without its store, as a committed set, and
    without the report written into it): these cases damage the files the report reads; damage
    to a stored set is tests/python/test_store_reader.py's."""
    directory = os.path.join(tmp, name)
    shutil.copytree(os.path.join(tmp, "smoke"), directory,
                    ignore=shutil.ignore_patterns("report.md", "report.html", "results.db*"))
    return directory


def edit_results(directory, change):
    """results.json rewritten with change(document) applied."""
    path = os.path.join(directory, "results.json")
    doc = json.load(open(path))
    change(doc)
    with open(path, "w") as f:
        json.dump(doc, f)
    return doc


def truncate(path, keep):
    with open(path, "rb") as f:
        data = f.read()
    with open(path, "wb") as f:
        f.write(data[:keep])


def test_missing_and_empty_directory(tmp):
    missing = os.path.join(tmp, "no_such_results")
    expect("missing directory", missing, 2,
           [rf"^report\.py: {re.escape(missing)}: no such directory$"])
    empty = os.path.join(tmp, "empty_results")
    os.makedirs(empty)
    expect("empty directory", empty, 2,
           [rf"^report\.py: {re.escape(empty)}: neither results\.json nor runs/"])


def test_truncated_results_json(tmp):
    directory = smoke_copy(tmp, "truncated_results")
    path = os.path.join(directory, "results.json")
    truncate(path, os.path.getsize(path) // 2)
    expect("truncated results.json", directory, 2,
           [rf"^report\.py: {re.escape(path)}: not valid JSON \(truncated\?\)"])
    truncate(path, 0)
    expect("empty results.json", directory, 2,
           [rf"^report\.py: {re.escape(path)}: not valid JSON"])


def test_wrong_typed_results_json(tmp):
    cases = [  # (name, change of the document, message)
        ("'runs' a number", lambda d: d.update(runs=24), r"'runs' must be a list, not a number$"),
        ("no 'runs'", lambda d: d.pop("runs"), r"'runs' must be a list"),
        ("every run a string", lambda d: d.update(runs=[r["key"] for r in d["runs"]]),
         r"none of its 24 runs is usable$"),
    ]
    for i, (name, change, message) in enumerate(cases):
        directory = smoke_copy(tmp, f"wrong_type_{i}")
        edit_results(directory, change)
        path = re.escape(os.path.join(directory, "results.json"))
        expect(f"results.json with {name}", directory, 2, [rf"^report\.py: {path}: {message}"])
    directory = smoke_copy(tmp, "wrong_type_list")
    with open(os.path.join(directory, "results.json"), "w") as f:
        json.dump([1, 2], f)
    expect("results.json a list", directory, 2,
           [rf"^report\.py: {re.escape(os.path.join(directory, 'results.json'))}: must be a JSON "
            r"object, not a list$"])


def test_bad_run_entries(tmp):
    """Four bad run entries among 24: each left out with a warning naming results.json and the
    entry; the other 20 reported."""
    directory = smoke_copy(tmp, "bad_runs")
    bad = {}

    def damage(doc):
        runs = doc["runs"]
        bad.update({i: runs[i]["key"] for i in (2, 5, 9, 14)})
        runs[2] = "not a run"
        runs[5]["metrics"] = 7
        del runs[9]["metrics"]
        runs[14]["metrics"]["error"]["final_abs_max"] = "small"
    edit_results(directory, damage)
    path = re.escape(os.path.join(directory, "results.json"))
    expect("bad run entries", directory, 0, [
        rf"^report\.py: warning: {path}: runs\[2\]: a run must be an object, not a string; "
        r"run left out$",
        rf"^report\.py: warning: {path}: runs\[5\] \(.*\): 'metrics' must be an object, not a "
        r"number; run left out$",
        rf"^report\.py: warning: {path}: runs\[9\] \(.*\): an ok run without 'metrics'",
        rf"^report\.py: warning: {path}: runs\[14\] \(.*\): 'metrics\.error\.final_abs_max' "
        r"must be a number, not a string"])
    md_path = os.path.join(directory, "report.md")
    md = open(md_path).read() if os.path.exists(md_path) else ""
    doc = json.load(open(os.path.join(directory, "results.json")))
    good = [r["key"] for i, r in enumerate(doc["runs"]) if i not in bad]
    check("runs: 20 (" in md and all(f"`{key}`" in md for key in good)
          and not any(f"`{key}`" in md for key in bad.values()),
          "bad run entries: report.md should list the 20 good runs and none of the bad ones")


def test_truncated_run_record(tmp):
    """A truncated runs/*.json: with results.json the runs all come from there and each record
    names its series file, so runs/ is not read at all (no warning); without (an interrupted
    campaign) the damaged record's run is left out with a warning."""
    for with_results in (True, False):
        directory = smoke_copy(tmp, f"bad_record_{with_results}")
        if not with_results:
            os.remove(os.path.join(directory, "results.json"))
        name = sorted(os.listdir(os.path.join(directory, "runs")))[0]
        path = os.path.join(directory, "runs", name)
        truncate(path, 100)
        case = f"truncated runs/ record ({'with' if with_results else 'without'} results.json)"
        warning = rf"^report\.py: warning: {re.escape(path)}: not valid JSON \(truncated\?\)"
        run = expect(case, directory, 0, [] if with_results else [warning])
        if with_results:
            check(not any(re.search(warning, line) for line in run.stderr.splitlines()),
                  f"{case}: runs/ was read although every record names its files")
        md_path = os.path.join(directory, "report.md")
        md = open(md_path).read() if os.path.exists(md_path) else ""
        runs = 24 if with_results else 23
        check(f"runs: {runs} (" in md, f"{case}: report.md should count {runs} runs")


def test_bad_series_csv(tmp):
    """The series CSV of a run the drift and energy figures draw (crank_rocker's projection
    representative), truncated in the middle of a row or with a cell that is not a number:
    left out with a warning naming it; the figures drawn from the other runs' series."""
    source = os.path.join(tmp, "smoke")
    rows = [results.flatten(r) for r in json.load(open(os.path.join(source,
                                                                      "results.json")))["runs"]]
    crank = next(r["case_key"] for r in rows if r["problem"] == "crank_rocker")
    rep = run_figures.representatives(rows, crank)[0]["projection"]
    stem = os.path.basename(results.series_path(source, rep))
    for damage in ("truncated", "garbled"):
        directory = smoke_copy(tmp, f"bad_series_{damage}")
        path = os.path.join(directory, "series", stem)
        lines = open(path).read().splitlines(keepends=True)
        if damage == "truncated":  # in the middle of line 4
            truncate(path, len("".join(lines[:3])) + len(lines[3]) // 2)
        else:  # line 4's second cell
            cells = lines[3].rstrip("\n").split(",")
            lines[3] = ",".join(cells[:1] + ["abc"] + cells[2:]) + "\n"
            with open(path, "w") as f:
                f.write("".join(lines))
        expect(f"{damage} series CSV", directory, 0,
               [rf"^report\.py: warning: {re.escape(path)}: line 4: .*; series left out$"])
        md_path = os.path.join(directory, "report.md")
        md = open(md_path).read() if os.path.exists(md_path) else ""
        check("](drift.png)" in md and "](energy.png)" in md,
              f"{damage} series CSV: the drift and energy figures should still be drawn")


def bad_input(tmp):
    test_missing_and_empty_directory(tmp)
    test_truncated_results_json(tmp)
    test_wrong_typed_results_json(tmp)
    test_bad_run_entries(tmp)
    test_truncated_run_record(tmp)
    test_bad_series_csv(tmp)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    with tempfile.TemporaryDirectory() as tmp:
        smoke(sys.argv[1], tmp)
        synthetic(tmp)
        bad_input(tmp)
    test_grouping()
    test_fit_rules()
    for test in (test_fit_needs_agreeing_local_slopes, test_fit_of_a_noisy_power_law,
                 test_fits_use_the_maximum_error, test_issue_case):
        asserting(test)
    test_crowded_panels()
    test_branch_switch()
    test_the_cheapest_configuration_compares_one_clock()
    if failures:
        print("\n".join(failures))
        print(f"report: {len(failures)} check(s) failed")
        return 1
    print("report: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
