"""Figures over whole result sets: work-precision, drift and energy over time, convergence
order, cost scaling. Each figure function takes the rows of cmbload.flatten (campaign order) and
the results directory, writes NAME.pdf and NAME.png there, and returns a result dict
(name, title, caption, files, tables, data); it raises cmbplot.Skipped when the results set holds
no data for it.
"""
import math
import statistics

import numpy as np

import cmbload
import cmbplot
from cmbplot import Skipped

RESIDUAL_FLOOR = 1e-17  # log-scale figures draw smaller values (exact zeros) at this level


def result(name, title, caption, files, tables=(), data=None):
    return {"name": name, "title": title, "caption": caption, "files": list(files),
            "tables": list(tables), "data": data}


def ok(rows):
    return [r for r in rows if r["status"] == "ok"]


def problem_labels(rows):
    """Problem instances (id plus parameters) in campaign order."""
    seen = []
    for r in rows:
        if r["problem_label"] not in seen:
            seen.append(r["problem_label"])
    return seen


def _setting_value(r):
    return r["tol"] if r["kind"] == "adaptive" else r["dt"]


def _error_or_inf(r):
    return r["final_error"] if r["final_error"] is not None else math.inf


def representatives(rows, problem_label):
    """One run per method for the time-series figures and the drift/energy table: the stepper
    (adaptive if any) that the most methods ran successfully on this problem, at its tightest
    tolerance (or smallest dt) per method; among parameter variants of a method the one with the
    smallest final error. A method that never succeeded with that stepper is represented by its
    most accurate run. Returns ({method: row}, chosen stepper)."""
    cand = [r for r in ok(rows) if r["problem_label"] == problem_label]
    if not cand:
        return {}, None
    pool = ([r for r in cand if r["kind"] == "adaptive" and r["tol"] is not None]
            or [r for r in cand if r["kind"] == "fixed" and r["dt"] is not None] or cand)
    coverage = {}
    for r in pool:
        coverage.setdefault(r["stepper"], set()).add(r["method"])
    tightest = {s: min((_setting_value(r) or math.inf) for r in pool if r["stepper"] == s)
                for s in coverage}
    chosen = sorted(coverage, key=lambda s: (-len(coverage[s]), tightest[s], s))[0]
    chosen_rows = {}
    for method in dict.fromkeys(r["method"] for r in cand):
        runs = [r for r in pool if r["stepper"] == chosen and r["method"] == method]
        if runs:
            best = min((_setting_value(r) or math.inf) for r in runs)
            runs = [r for r in runs if (_setting_value(r) or math.inf) == best]
        else:
            runs = [r for r in cand if r["method"] == method]
        chosen_rows[method] = min(runs, key=_error_or_inf)
    return chosen_rows, chosen


def _variant_labels(runs):
    """Legend label per method label: the label itself when a method has at most 4 variants in
    the panel, else 'method (n variants)'."""
    variants = {}
    for r in runs:
        variants.setdefault(r["method"], set()).add(r["method_label"])
    return {label: (label if len(v) <= 4 else f"{m} ({len(v)} variants)")
            for m, v in variants.items() for label in v}


# --- work-precision ---------------------------------------------------------------------------

def work_precision(rows, results_dir):
    runs = [r for r in ok(rows) if r["time"] and r["final_error"] and r["final_error"] > 0]
    problems = problem_labels(runs)
    if not problems:
        raise Skipped("no successful run with both a final error (a reference) and a time")
    steppers = sorted({r["stepper"] for r in runs})
    fig, axes, spare = cmbplot.panels(len(problems), 3, 4.2, 3.6)
    for ax, problem in zip(axes, problems):
        mine = [r for r in runs if r["problem_label"] == problem]
        labels = _variant_labels(mine)
        groups = {}
        for r in mine:
            groups.setdefault((r["method_label"], r["stepper"]), []).append(r)
        for (label, stepper), group in groups.items():
            points = sorted((r["time"], r["final_error"]) for r in group)
            style = cmbplot.style_for(group[0]["method"], stepper, steppers)
            if group[0]["kind"] == "fixed":
                style["markerfacecolor"] = "none"
            ax.loglog([p[0] for p in points], [p[1] for p in points],
                      label=f"{labels[label]} / {stepper}", **style)
        ax.set_title(problem)
        ax.set_xlabel("time per run [s] (min of repetitions)")
        ax.set_ylabel("final error (max abs over outputs)")
        ax.grid(True, which="major", alpha=0.3)
    cmbplot.shared_legend(fig, axes, spare)
    return result("work_precision", "Work-precision diagrams",
                  "Final error against run time (minimum of the timed repetitions), one line per "
                  "method × stepper over its tolerance or step-size sweep (hollow markers: "
                  "fixed-step steppers), one panel per problem.",
                  cmbplot.save(fig, results_dir, "work_precision"))


# --- drift and energy over time ---------------------------------------------------------------

def _chosen_series(rows, results_dir, need):
    """problem -> (stepper, [(row, series)]) for the representatives whose series holds the
    columns in `need`."""
    out = {}
    for problem in problem_labels(ok(rows)):
        reps, stepper = representatives(rows, problem)
        picked = []
        for method, r in sorted(reps.items(), key=lambda kv: cmbplot.method_order(kv[0])):
            data = cmbload.series(results_dir, r)
            if data and all(c in data for c in need) and len(data["t"]) > 1:
                picked.append((r, data))
        if picked:
            out[problem] = (stepper, picked)
    return out


def _semilogy(ax, r, t, values, label):
    style = cmbplot.method_style(r["method"])
    style["markevery"] = max(1, len(t) // 10)
    ax.semilogy(t, np.maximum(np.abs(values), RESIDUAL_FLOOR), label=label, **style)


def drift(rows, results_dir):
    chosen = _chosen_series(rows, results_dir, ("t", "position_residual", "velocity_residual"))
    if not chosen:
        raise Skipped("no series CSV with position and velocity residuals for a successful run")
    problems = list(chosen)
    fig, axes, spare = cmbplot.panels(2 * len(problems), 4, 3.4, 2.9)
    for i, problem in enumerate(problems):
        stepper, picked = chosen[problem]
        ax_p, ax_v = axes[2 * i], axes[2 * i + 1]
        holonomic = any((r["mh"] or 0) > 0 for r, _ in picked)
        for r, data in picked:
            t = data["t"][1:]
            if holonomic:
                _semilogy(ax_p, r, t, data["position_residual"][1:], r["method"])
            _semilogy(ax_v, r, t, data["velocity_residual"][1:], r["method"])
        if not holonomic:
            ax_p.text(0.5, 0.5, f"{problem}:\nno holonomic rows", ha="center", va="center",
                      transform=ax_p.transAxes)
            ax_p.axis("off")
        ax_p.set_title(f"{problem}: position ({stepper})", fontsize="small")
        ax_v.set_title(f"{problem}: velocity ({stepper})", fontsize="small")
        ax_p.set_ylabel("max |Φ_i|")
        ax_v.set_ylabel("max |ψ_i|")
        for ax in (ax_p, ax_v):
            ax.set_xlabel("time t [s]")
            ax.grid(True, alpha=0.3)
    cmbplot.shared_legend(fig, axes, spare)
    return result("drift", "Constraint drift over time",
                  "Position residual max|Φ_i| (left of each pair) and velocity residual "
                  "max|ψ_i| (right) against time for one run per method: the stepper most "
                  "methods ran, at its tightest tolerance (the configuration of each run is in "
                  f"the drift and energy table). Values below {RESIDUAL_FLOOR:g} are drawn at "
                  f"{RESIDUAL_FLOOR:g}.",
                  cmbplot.save(fig, results_dir, "drift"))


def energy(rows, results_dir):
    with_energy = [r for r in rows if r["has_energy"]]
    if not with_energy:
        raise Skipped("no run of a problem with an energy invariant")
    chosen = _chosen_series(with_energy, results_dir, ("t", "energy_error"))
    if not chosen:
        raise Skipped("no series CSV with an energy_error column for a successful run")
    problems = list(chosen)
    fig, axes, spare = cmbplot.panels(len(problems), 3, 4.2, 3.2)
    for ax, problem in zip(axes, problems):
        stepper, picked = chosen[problem]
        for r, data in picked:
            _semilogy(ax, r, data["t"][1:], data["energy_error"][1:], r["method"])
        ax.set_title(f"{problem} ({stepper})", fontsize="small")
        ax.set_xlabel("time t [s]")
        ax.set_ylabel("|E − E0|")
        ax.grid(True, alpha=0.3)
    cmbplot.shared_legend(fig, axes, spare)
    return result("energy", "Energy error over time",
                  "Energy error |E − E0| against time on the problems with an energy invariant, "
                  "one run per method, chosen as for the drift figure. Values below "
                  f"{RESIDUAL_FLOOR:g} are drawn at {RESIDUAL_FLOOR:g}.",
                  cmbplot.save(fig, results_dir, "energy"))


# --- convergence order ------------------------------------------------------------------------

def convergence_fits(rows):
    """Observed orders of fixed-step steppers: [(problem, method label, stepper, nominal order,
    [(dt, error, used in the fit)], slope or None, method id)] for every (problem, method
    variant, stepper) with at least two step sizes. Errors within 10× the reference accuracy are
    left out of the fit (the reference's floor, not the stepper's error)."""
    groups = {}
    for r in ok(rows):
        if r["kind"] == "fixed" and r["dt"] and r["final_error"] and r["final_error"] > 0:
            groups.setdefault((r["problem_label"], r["method_label"], r["stepper"]), []).append(r)
    fits = []
    for (problem, label, stepper), group in groups.items():
        if len({r["dt"] for r in group}) < 2:
            continue
        points = []
        for r in sorted(group, key=lambda r: r["dt"]):
            floor = 10 * (r["reference_accuracy"] or 0.0)
            points.append((r["dt"], r["final_error"], r["final_error"] > floor))
        used = [(dt, e) for dt, e, keep in points if keep]
        fit = cmbplot.loglog_fit([p[0] for p in used], [p[1] for p in used]) if used else None
        fits.append((problem, label, stepper, group[0]["order"], points,
                     fit[0] if fit else None, group[0]["method"]))
    return fits


CONVERGENCE_HEADER = ["problem", "method", "stepper", "nominal order", "dt range", "points fitted",
                      "observed order"]


def convergence(rows, results_dir):
    fits = convergence_fits(rows)
    if not fits:
        raise Skipped("no fixed-step stepper with at least two step sizes and a reference error")
    fitted = [f for f in fits if f[5] is not None]
    if not fitted:
        raise Skipped("fixed-step sweeps exist, but their errors are within 10× the reference "
                      "accuracy at all but at most one step size (nothing to fit)")
    problems = list(dict.fromkeys(f[0] for f in fitted))
    steppers = sorted({f[2] for f in fitted})
    fig, axes, _ = cmbplot.panels(len(problems), 3, 4.4, 3.6)
    for ax, problem in zip(axes, problems):
        dts = set()
        for _, label, stepper, _, points, slope, method in (f for f in fitted if f[0] == problem):
            style = cmbplot.style_for(method, stepper, steppers)
            ax.loglog([p[0] for p in points], [p[1] for p in points],
                      label=f"{label} / {stepper}: p = {slope:.2f}", **style)
            left_out = [p for p in points if not p[2]]
            if left_out:  # hollow: at the reference's floor, not fitted
                ax.loglog([p[0] for p in left_out], [p[1] for p in left_out], linestyle="none",
                          marker=style["marker"], color=style["color"], markerfacecolor="white")
            dts.update(p[0] for p in points)
        ax.set_xticks(sorted(dts), [f"{dt:g}" for dt in sorted(dts)])
        ax.xaxis.set_minor_formatter(cmbplot.null_formatter())
        ax.set_title(problem)
        ax.set_xlabel("step size dt [s]")
        ax.set_ylabel("final error (max abs over outputs)")
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize="xx-small")
    fig.tight_layout()
    files = cmbplot.save(fig, results_dir, "convergence")
    table = [[problem, label, stepper, "–" if order is None else str(order),
              f"{points[0][0]:g} … {points[-1][0]:g}",
              f"{sum(1 for p in points if p[2])} of {len(points)}",
              "– (reference floor)" if slope is None else f"{slope:.3f}"]
             for problem, label, stepper, order, points, slope, _ in fits]
    with open(f"{results_dir}/convergence_table.md", "w") as f:
        f.write(cmbplot.markdown_table(CONVERGENCE_HEADER, table))
    return result("convergence", "Observed order of convergence",
                  "Final error against the step size of the fixed-step steppers (log-log), one "
                  "line per method × stepper; the legend gives the least-squares slope of "
                  "log error on log dt, the observed order. Errors within 10× the reference "
                  "accuracy (drawn hollow) are left out of the fit; sweeps with fewer than two "
                  "points left are only in the table.", files,
                  [{"title": "Observed orders", "md": "convergence_table.md", "tex": None,
                    "header": CONVERGENCE_HEADER, "rows": table}],
                  data={(f[0], f[1], f[2]): f[5] for f in fits})


# --- cost scaling -----------------------------------------------------------------------------

def scaling_points(rows):
    """{panel: {method: [(nq, cost per RHS call)]}}: the median of time / rhs_calls over a
    method's successful runs of each problem instance; one panel per problem family with at
    least two sizes, plus 'all problems' when the results hold several families (or no family
    with two sizes) and at least two sizes overall."""
    per_instance = {}
    for r in ok(rows):
        if r["cost_per_rhs"] and r["nq"]:
            key = (r["problem"], r["problem_label"], r["method"])
            per_instance.setdefault(key, (r["nq"], []))[1].append(r["cost_per_rhs"])
    points = {}
    for (family, _, method), (nq, costs) in per_instance.items():
        points.setdefault(family, {}).setdefault(method, []).append((nq, statistics.median(costs)))
    panels = {}
    for family, by_method in points.items():
        if len({nq for pts in by_method.values() for nq, _ in pts}) >= 2:
            panels[family] = by_method
    all_sizes = {nq for by in points.values() for pts in by.values() for nq, _ in pts}
    if len(all_sizes) >= 2 and (len(points) > 1 or not panels):
        merged = {}
        for by_method in points.values():
            for method, pts in by_method.items():
                merged.setdefault(method, []).extend(pts)
        panels["all problems"] = merged
    return {p: {m: sorted(pts) for m, pts in by.items()} for p, by in panels.items()}


SCALING_HEADER = ["panel", "method", "problem sizes", "nq range",
                  "cost per RHS call at smallest nq [s]", "log-log slope"]


def scaling(rows, results_dir):
    panels_ = scaling_points(rows)
    if not panels_:
        raise Skipped("fewer than two problem sizes (nq) with timed successful runs")
    fig, axes, _ = cmbplot.panels(len(panels_), 3, 4.4, 3.6)
    table, slopes = [], {}
    for ax, (panel, by_method) in zip(axes, panels_.items()):
        for method, pts in sorted(by_method.items(), key=lambda kv: cmbplot.method_order(kv[0])):
            fit = cmbplot.loglog_fit([p[0] for p in pts], [p[1] for p in pts])
            slope = fit[0] if fit else None
            slopes[(panel, method)] = slope
            label = method if slope is None else f"{method}: slope {slope:.2f}"
            ax.loglog([p[0] for p in pts], [p[1] for p in pts], label=label,
                      **cmbplot.method_style(method))
            table.append([panel, method, str(len(pts)), f"{pts[0][0]} … {pts[-1][0]}",
                          f"{pts[0][1]:.3g}", "–" if slope is None else f"{slope:.3f}"])
        ax.set_title(panel)
        ax.set_xlabel("coordinates nq")
        ax.set_ylabel("time per RHS call [s]")
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize="xx-small")
    fig.tight_layout()
    files = cmbplot.save(fig, results_dir, "scaling")
    with open(f"{results_dir}/scaling_table.md", "w") as f:
        f.write(cmbplot.markdown_table(SCALING_HEADER, table))
    return result("scaling", "Cost per right-hand-side call against size",
                  "Run time (minimum of the repetitions, else the instrumented run) divided by "
                  "the number of RHS calls, against the number of coordinates nq (log-log); per "
                  "method the median over its successful runs of each problem instance, with "
                  "the least-squares log-log slope in the legend. One panel per problem family "
                  "with several sizes, and one over all problems.", files,
                  [{"title": "Scaling slopes", "md": "scaling_table.md", "tex": None,
                    "header": SCALING_HEADER, "rows": table}],
                  data=slopes)
