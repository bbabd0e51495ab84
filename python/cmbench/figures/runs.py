"""Figures over whole result sets: drift and energy over time, cost scaling, and what every
figure shares (result, ok, representatives); work precision and convergence have modules of
their own. Each figure function takes the rows of results.flatten (campaign order) and the
results directory (where series CSVs are read), writes NAME.pdf and NAME.png — or, when the
figure is taller than a page, NAME_1, NAME_2, ... (figures.pages) — into out_dir (default: the
results directory) and returns a result dict (name, title, caption, files, tables, data); it
raises plot.Skipped when the results set holds no data for it.
"""
import math
import statistics

import numpy as np

from .. import names, plot, rerun, results, style
from ..files import write_atomic
from ..plot import Skipped
from . import pages

RESIDUAL_FLOOR = 1e-17  # log-scale figures draw smaller values (exact zeros) at this level


def result(name, title, caption, files, tables=(), data=None):
    """What a figure function returns to the report: its name, title, caption, the files
    written, its tables ({"title", "md", "tex", "header", "rows"}) and data for tests."""
    return {"name": name, "title": title, "caption": caption, "files": list(files),
            "tables": list(tables), "data": data}


def ok(rows):
    """The successful runs. Every other status (diverged, branch_switch, singular,
    newton_failed, step_limit, time_limit, unsupported, invalid_input, ...) is a failure: its
    run is never drawn or fitted as a result, whatever metrics its record holds."""
    return [r for r in rows if r["status"] == "ok"]


def _setting_value(r):
    return r["tol"] if r["kind"] == "adaptive" else r["dt"]


def _error_or_inf(r):
    return r["final_error"] if r["final_error"] is not None else math.inf


def representatives(rows, case):
    """One run per method of a case (results.case_key) for the time-series figures and the
    drift/energy table: the stepper (adaptive if any) that the most methods ran successfully on
    the case, at its tightest tolerance (or smallest dt) per method; among parameter variants of
    a method the one with the smallest final error. A method that never succeeded with that
    stepper is represented by its most accurate run. Returns ({method: row}, chosen stepper)."""
    cand = [r for r in ok(rows) if r["case_key"] == case]
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


def error_label(problem, what="final error"):
    """'final error [m, m/s]': the largest absolute error over the scored outputs at t_end (or
    the error named by `what`), in the outputs' units (cmbench.names.error_unit)."""
    return what + names.bracket(names.error_unit(problem))


def panel_problem(panel):
    """The problem id of a panel's first run."""
    return panel["series"][0]["runs"][0]["problem"]


# --- drift and energy over time ---------------------------------------------------------------

def _chosen_series(rows, results_dir, need):
    """case label -> (stepper, [(row, series)]) for the representatives whose series holds the
    columns in `need`."""
    out = {}
    for case, problem in results.case_labels(rows).items():
        reps, stepper = representatives(rows, case)
        picked = []
        for method, r in sorted(reps.items(), key=lambda kv: plot.method_order(kv[0])):
            data = rerun.series(results_dir, r)
            if data and all(c in data for c in need) and len(data["t"]) > 1:
                picked.append((r, data))
        if picked:
            out[problem] = (stepper, picked)
    return out


def _semilogy(ax, r, t, values):
    st = plot.method_style(r["method"])
    st["markevery"] = max(1, len(t) // 10)
    st["markersize"] = st["markersize"] * 0.85
    ax.semilogy(t, np.maximum(np.abs(values), RESIDUAL_FLOOR), **st)


def method_entries(methods):
    """Legend entries of methods (one each, in the order of METHOD_STYLE)."""
    return [(names.method(m), plot.method_style(m), "both")
            for m in sorted(set(methods), key=plot.method_order)]


def _case_title(problem_label, case, stepper, width_in):
    """Case (display names) and the representative stepper, packed into lines."""
    parts = plot.case_parts({"case_label": case, "runs": [{"problem_label": problem_label}]})
    return style.fit_lines(parts + [names.stepper(stepper)], width_in)


def _pages_caption(page_units):
    return pages.caption(len(page_units))


def _draw_drift_page(chosen, problems, cols, row_height):
    fig, axes = style.flow(2 * len(problems), cols, row_height, keep_columns=True)
    title_width = style.width() / cols - 0.55
    methods = []
    for i, problem in enumerate(problems):
        stepper, picked = chosen[problem]
        ax_p, ax_v = axes[2 * i], axes[2 * i + 1]
        problem_id = picked[0][0]["problem"]
        unit_p, unit_v = names.drift_units(problem_id)
        holonomic = any((r["mh"] or 0) > 0 for r, _ in picked)
        for r, data in picked:
            t = data["t"][1:]
            if holonomic:
                _semilogy(ax_p, r, t, data["position_residual"][1:])
            _semilogy(ax_v, r, t, data["velocity_residual"][1:])
            methods.append(r["method"])
        title = _case_title(picked[0][0]["problem_label"], problem, stepper, title_width)
        if not holonomic:
            ax_p.text(0.5, 0.5, "no holonomic rows", ha="center", va="center",
                      transform=ax_p.transAxes)
            ax_p.axis("off")
        ax_p.set_title(title)
        ax_v.set_title(title)
        ax_p.set_ylabel(style.label("max |Φ_i|", unit_p, row_height - 0.5))
        ax_v.set_ylabel(style.label("max |ψ_i|", unit_v, row_height - 0.5))
        for ax in (ax_p, ax_v):
            ax.set_xlabel("t [s]")
            ax.grid(True, alpha=0.3)
    return fig, methods


@style.figure_function
def drift(rows, results_dir, name="drift", out_dir=None):
    """Position and velocity residuals over time, a pair of panels per problem case, one run per
    method (representatives)."""
    chosen = _chosen_series(rows, results_dir, ("t", "position_residual", "velocity_residual"))
    if not chosen:
        raise Skipped("no series CSV with position and velocity residuals for a successful run")
    problems = list(chosen)
    cols = 2 * max(1, style.max_columns(3.2))
    cols = min(cols, 2 * len(problems))
    row_height = 0.9 * style.width() / max(2, 2 * max(1, style.max_columns(3.2)))
    entries = method_entries(r["method"] for _, picked in chosen.values() for r, _ in picked)

    def draw(units):
        fig, _ = _draw_drift_page(chosen, units, cols, row_height)
        style.finish(fig, entries)
        return fig

    per_page = pages.units_per_page(row_height, cols // 2,
                                    reserve=style.legend_height(entries) + 0.1)
    files, page_units = pages.save_pages(problems, per_page, draw, out_dir or results_dir, name)
    return result(name, "Constraint drift over time",
                  "Position residual max|Φ_i| (left of each pair) and velocity residual "
                  "max|ψ_i| (right) against time for one run per method: the stepper most "
                  "methods ran, at its tightest tolerance (the configuration of each run is in "
                  "the drift and energy table). Units are those of the problem's constraint "
                  "rows: m for loop closures, m² where a row is |r|² − L² (pendulums), several "
                  "where the rows mix them; ψ is Φ's unit per second, or a velocity for "
                  f"nonholonomic rows. Values below {RESIDUAL_FLOOR:g} are drawn at "
                  f"{RESIDUAL_FLOOR:g}." + _pages_caption(page_units), files)


@style.figure_function
def energy(rows, results_dir, name="energy", out_dir=None):
    """|E − E0| over time, a panel per problem case with an energy invariant, one run per
    method."""
    with_energy = [r for r in rows if r["has_energy"]]
    if not with_energy:
        raise Skipped("no run of a problem with an energy invariant")
    chosen = _chosen_series(with_energy, results_dir, ("t", "energy_error"))
    if not chosen:
        raise Skipped("no series CSV with an energy_error column for a successful run")
    problems = list(chosen)
    cols = min(len(problems), style.max_columns(2.2))
    row_height = 0.8 * style.width() / cols
    if cols == 1:
        row_height = min(row_height, style.MAX_ROW_HEIGHT)
    title_width = style.width() / cols - 0.55
    entries = method_entries(r["method"] for _, picked in chosen.values() for r, _ in picked)

    def draw(units):
        fig, axes = style.flow(len(units), cols, row_height, keep_columns=True)
        for ax, problem in zip(axes, units):
            stepper, picked = chosen[problem]
            for r, data in picked:
                _semilogy(ax, r, data["t"][1:], data["energy_error"][1:])
            ax.set_title(_case_title(picked[0][0]["problem_label"], problem, stepper,
                                     title_width))
            ax.set_xlabel("t [s]")
            ax.set_ylabel("|E − E0| [J]")
            ax.grid(True, alpha=0.3)
        style.finish(fig, entries)
        return fig

    per_page = pages.units_per_page(row_height, cols, reserve=style.legend_height(entries) + 0.1)
    files, page_units = pages.save_pages(problems, per_page, draw, out_dir or results_dir, name)
    return result(name, "Energy error over time",
                  "Energy error |E − E0| against time on the problems with an energy invariant, "
                  "one run per method, chosen as for the drift figure. Values below "
                  f"{RESIDUAL_FLOOR:g} are drawn at {RESIDUAL_FLOOR:g}."
                  + _pages_caption(page_units), files)


# --- cost scaling -----------------------------------------------------------------------------

ALL_PROBLEMS = "all problems"
MIN_FIT_POINTS = 3  # a slope through two points is no test of a power law


def scaling_points(rows):
    """{panel: {method: [(nq, cost per RHS call)]}}: the median of time / rhs_calls over a
    method's successful runs of each problem instance; one panel per problem family with at
    least two sizes, plus ALL_PROBLEMS when the results hold several families (or no family
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
        panels[ALL_PROBLEMS] = merged
    return {p: {m: sorted(pts) for m, pts in by.items()} for p, by in panels.items()}


def scaling_fit(panel, pts):
    """(slope, coefficient) of the log-log least-squares fit of cost against nq through one
    method's points of a panel, or (None, reason). A fit needs at least MIN_FIT_POINTS distinct
    sizes of one series — one problem family: the points of ALL_PROBLEMS belong to several
    families (different models, not one that grows), so that panel is never fitted."""
    if panel == ALL_PROBLEMS:
        return None, "points of different problems"
    if len({nq for nq, _ in pts}) < MIN_FIT_POINTS:
        return None, f"fewer than {MIN_FIT_POINTS} sizes"
    fit = plot.loglog_fit([p[0] for p in pts], [p[1] for p in pts])
    return (fit[0], fit[1]) if fit else (None, "no spread in size")


SCALING_HEADER = ["panel", "method", "problem sizes", "nq range",
                  "cost per RHS call at smallest nq [s]", "log-log slope"]


def _draw_scaling_panel(ax, panel, by_method, table, slopes):
    merged = panel == ALL_PROBLEMS
    legend = []
    for method, pts in sorted(by_method.items(), key=lambda kv: plot.method_order(kv[0])):
        slope, why = scaling_fit(panel, pts)
        slopes[(panel, method)] = slope
        st = plot.method_style(method)
        nq = [p[0] for p in pts]
        if merged:  # several families: their points only, not joined
            ax.loglog(nq, [p[1] for p in pts], **dict(st, linestyle="none"))
        else:
            ax.loglog(nq, [p[1] for p in pts], **st)
        if slope is not None:
            legend.append((st, f"{slope:.2f}"))
        table.append([panel, method, str(len(pts)), f"{pts[0][0]} … {pts[-1][0]}",
                      f"{pts[0][1]:.3g}",
                      f"{slope:.3f}" if slope is not None else f"no fit ({why})"])
    ax.set_title(panel if merged else names.problem(panel))
    sizes = sorted({p[0] for pts in by_method.values() for p in pts})
    plot.at_least_a_decade(ax, x=False)
    if len(sizes) <= 6:  # the sizes themselves as ticks (2×10⁰ reads badly for nq = 2)
        ax.set_xticks(sizes, [f"{n:g}" for n in sizes])
        ax.xaxis.set_minor_formatter(plot.null_formatter())
    ax.set_xlabel("coordinates nq [–]")
    ax.set_ylabel("time per RHS call [s]")
    ax.grid(True, which="major", alpha=0.3)
    plot.number_legend(ax, legend, "slope")


@style.figure_function
def scaling(rows, results_dir, name="scaling", out_dir=None):
    """Cost per RHS call against nq, a panel per problem family with several sizes (and one of
    all problems, unfitted), with slopes fitted through at least MIN_FIT_POINTS sizes of one
    family."""
    panels_ = scaling_points(rows)
    if not panels_:
        raise Skipped("fewer than two problem sizes (nq) with timed successful runs")
    cols = min(len(panels_), style.max_columns(2.2))
    row_height = 0.85 * style.width() / cols
    if cols == 1:
        row_height = min(row_height, style.MAX_ROW_HEIGHT)
    table, slopes = [], {}
    entries = method_entries(m for by in panels_.values() for m in by)

    def draw(units):
        fig, axes = style.flow(len(units), cols, row_height, keep_columns=True)
        for ax, panel in zip(axes, units):
            _draw_scaling_panel(ax, panel, panels_[panel], table, slopes)
        style.finish(fig, entries)
        return fig

    per_page = pages.units_per_page(row_height, cols, reserve=style.legend_height(entries) + 0.1)
    out = out_dir or results_dir
    files, page_units = pages.save_pages(list(panels_), per_page, draw, out, name)
    # A page drawn twice (too tall at first) added its rows twice: one row per panel and method.
    table = list({(row[0], row[1]): row for row in table}.values())
    table_name = name.replace("scaling", "scaling_table", 1) + ".md" \
        if name.startswith("scaling") else f"{name}_table.md"
    write_atomic(f"{out}/{table_name}", plot.markdown_table(SCALING_HEADER, table))
    return result(name, "Cost per right-hand-side call against size",
                  "Run time (minimum of the repetitions, else the instrumented run) divided by "
                  "the number of RHS calls, against the number of coordinates nq (log-log); per "
                  "method the median over its successful runs of each problem instance. One "
                  "panel per problem family with several sizes, with the least-squares log-log "
                  f"slope of each method that has at least {MIN_FIT_POINTS} sizes of the family "
                  "in the small legend of the panel (by the method's marker and colour; fewer "
                  "points would always lie on a line). A panel of all problems shows the points "
                  "of every family unjoined and unfitted: different models are no series in "
                  "size." + _pages_caption(page_units), files,
                  [{"title": "Scaling slopes", "md": table_name, "tex": None,
                    "header": SCALING_HEADER, "rows": table}],
                  data=slopes)
