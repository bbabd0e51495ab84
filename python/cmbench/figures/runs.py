"""Figures over whole result sets: work-precision, drift and energy over time, convergence
order, cost scaling. Each figure function takes the rows of results.flatten (campaign order) and
the results directory, writes NAME.pdf and NAME.png there, and returns a result dict
(name, title, caption, files, tables, data); it raises plot.Skipped when the results set holds
no data for it.
"""
import math
import statistics

import numpy as np

from .. import names, plot, rerun, results, style
from ..files import write_atomic
from ..plot import Skipped

RESIDUAL_FLOOR = 1e-17  # log-scale figures draw smaller values (exact zeros) at this level


def result(name, title, caption, files, tables=(), data=None):
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


# --- work-precision ---------------------------------------------------------------------------

def _work_column():
    return "rhs_calls" if style.work_measure() == "rhs" else "time"


def _work_label(rows):
    """The work axis: RHS calls, CPU time (every run timed on the CPU clock) or run time."""
    if style.work_measure() == "rhs":
        return "RHS calls [–]"
    return "CPU time [s]" if all(r.get("time_clock") == "cpu" for r in rows) else "run time [s]"


def _wp_points(series):
    column = _work_column()
    return sorted((r[column], r["final_error"]) for r in ok(series["runs"])
                  if r[column] and r["final_error"] and r["final_error"] > 0)


def _front_series(panel, points):
    """The series of a panel with a run on its Pareto front (no other run both faster and more
    accurate), from the one reaching the front fastest to the most accurate."""
    runs = [(p, s["key"]) for s in panel["series"] for p in points[s["key"]]]
    first_on_front = {}
    for i in plot.pareto_front([p for p, _ in runs]):
        first_on_front.setdefault(runs[i][1], runs[i][0])
    return sorted(first_on_front, key=first_on_front.get)


def _named_series(panel, points):
    """(keys of the series to colour and name, in legend order; title note). A panel with at
    most MAX_SERIES series names all; a crowded one those on its Pareto front, at most
    MAX_SERIES spread along it."""
    n = len(panel["series"])
    if n <= plot.MAX_SERIES:
        return [s["key"] for s in panel["series"]], ""
    front = _front_series(panel, points)
    chosen = set(plot.spread(front, plot.MAX_SERIES))
    note = (f"front: {len(chosen)} of {n}" if len(chosen) == len(front)
            else f"front: {len(chosen)} of {len(front)} ({n} in all)")
    return [s["key"] for s in panel["series"] if s["key"] in chosen], note


def error_label(problem, what="final error"):
    """'final error [m, m/s]': the largest absolute error over the scored outputs at t_end (or
    the error named by `what`), in the outputs' units (cmbench.names.error_unit)."""
    return what + names.bracket(names.error_unit(problem))


def _panel_problem(panel):
    return panel["series"][0]["runs"][0]["problem"]


def _draw_wp_panel(ax, panel, points, styles, title):
    """Draws a panel under `title` (plus the note of a crowded panel); returns (labels of the
    series it names, whether it greyed some)."""
    named, note = _named_series(panel, points)
    labels = []
    for s in panel["series"]:
        pts = points[s["key"]]
        st = styles[s["key"]]
        if s["key"] in named:
            labels.append(plot.series_label(s, panel))
        else:
            st = style.grey_style(st)
        ax.loglog([p[0] for p in pts], [p[1] for p in pts], **st)
    ax.set_title("\n".join(t for t in (title, note) if t))
    ax.grid(True, which="major", alpha=0.3)
    return labels, bool(note)


@style.figure_function
def work_precision(rows, results_dir):
    series = [s for s in results.group_series(rows) if _wp_points(s)]
    if not series:
        raise Skipped("no successful run with both a final error (a reference) and a time")
    points = {s["key"]: _wp_points(s) for s in series}
    plan, faceted = plot.facet_panels(series)
    mixed = any(len({s["stepper"] for s in p["series"]}) > 1 for p in plan)
    styles, entries = plot.series_styles(series, mixed)
    aspect = 0.75
    def title_lines(panel, column_width):
        note = _named_series(panel, points)[1]
        title = plot.display_title(panel, column_width - 0.55)
        return title.count("\n") + 1 + (1 if note else 0)

    # Panels down to 1.35 in keep a case's steppers in one row at double width up to five
    # columns (four ODE steppers and the DAE integrators of the default campaign): the row
    # shares its axes, so only the first panel carries y tick labels.
    fig, axes, layout = plot.facet_layout(
        plan, faceted, facet_min=1.35,
        flow_min=2.2 if style.width_name() == "double" else 1.7, aspect=aspect,
        title_lines=title_lines)
    cols = max(len(row) for row in layout["rows"])
    row_height = aspect * style.width() / cols
    grid = layout["faceted"]
    # A case × stepper grid has margin titles: the stepper above its column, the case beside
    # its row (in the y label); a flowed layout titles every panel.
    tops = {next(row[c] for row in layout["rows"] if row[c] is not None)
            for c in range(cols)} if grid else set()
    panels, greyed = [], False
    for ax, panel in zip(axes, plan):
        if grid:
            title = names.stepper(panel["stepper"]) if ax in tops else ""
        else:
            title = plot.display_title(panel, style.width() / cols - 0.55)
        named, grey = _draw_wp_panel(ax, panel, points, styles, title)
        greyed |= grey
        if not grid:
            ax.set_ylabel(error_label(_panel_problem(panel)))
        panels.append({"title": plot.panel_title(panel), "series": len(panel["series"]),
                       "named": named,
                       "runs": sum(len(points[s["key"]]) for s in panel["series"])})
    row_panel = {}
    for ax, panel in zip(axes, plan):
        for r, row in enumerate(layout["rows"]):
            if ax in row:
                row_panel.setdefault(r, panel)

    def row_label(r):
        panel = row_panel[r]
        unit = names.error_unit(_panel_problem(panel))
        return (style.fit_lines(plot.case_parts(panel), row_height - 0.15) + "\n"
                + style.label("final error", unit, row_height - 0.15))

    plot.label_grid(layout, _work_label(rows), row_label)
    for ax in axes:
        plot.at_least_a_decade(ax)
    if greyed:
        entries.append(("not on the Pareto front", style.grey_style({"marker": "o"}), "both"))
    style.finish(fig, entries)
    crowded = any(len(p["series"]) > plot.MAX_SERIES for p in plan)
    return result("work_precision", "Work-precision diagrams",
                  _wp_caption(layout["faceted"] or faceted, crowded, mixed),
                  plot.save(fig, results_dir, "work_precision"),
                  data={"faceted": faceted, "panels": panels})


def _work_caption():
    if style.work_measure() == "rhs":
        return ("RHS calls (a DAE integrator's residual evaluations; the same on any machine, "
                "Jacobian and factorization costs aside)")
    return ("time: the CPU time of the run's thread, minimum of its timed repetitions (taken one "
            "run at a time after the campaign's parallel pass; records without it give their "
            "wall time), so that what else the machine did does not count")


def _wp_caption(faceted, crowded, mixed):
    layout = ("a row of panels per problem case, a column per stepper, the panels of a row "
              f"sharing their axes (a case holds more than {plot.MAX_SERIES} series)" if faceted
              else "one panel per problem case")
    text = ("Final error (the largest absolute error over the problem's scored outputs at "
            "t_end, in their units) against " + _work_caption() + ", "
            "log-log, one line per series — runs that differ only in the swept tolerance or "
            "step size (method parameter variants, steppers and initial perturbations apart); "
            f"{layout}. Colour, marker and line style give the method (the same in every "
            "figure); Index-1 KKT's large circle lies under Gauss QP's cross where both give "
            "the same solution, SVD null space's large triangle under Udwadia–Kalaba's plus.")
    if mixed:
        text += (" Where a panel mixes steppers the line style gives the stepper and fixed-step "
                 "steppers have hollow markers.")
    text += (" Parameter variants of a method are coloured by the value of their first "
             "varying parameter and marked by the second; the legend has one entry per method, "
             "per parameter value and per stepper.")
    if crowded:
        text += (f" In a panel with more than {plot.MAX_SERIES} series only those with a run "
                 "on the panel's Pareto front (no other run both faster and more accurate) are "
                 f"drawn in colour, at most {plot.MAX_SERIES} spread along the front (the title "
                 "says how many); the others are light grey.")
    return text


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


@style.figure_function
def drift(rows, results_dir):
    chosen = _chosen_series(rows, results_dir, ("t", "position_residual", "velocity_residual"))
    if not chosen:
        raise Skipped("no series CSV with position and velocity residuals for a successful run")
    problems = list(chosen)
    cols = 2 * max(1, style.max_columns(3.2))
    row_height = 0.9 * style.width() / cols
    fig, axes = style.flow(2 * len(problems), cols, row_height)
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
    style.finish(fig, method_entries(methods))
    return result("drift", "Constraint drift over time",
                  "Position residual max|Φ_i| (left of each pair) and velocity residual "
                  "max|ψ_i| (right) against time for one run per method: the stepper most "
                  "methods ran, at its tightest tolerance (the configuration of each run is in "
                  "the drift and energy table). Units are those of the problem's constraint "
                  "rows: m for loop closures, m² where a row is |r|² − L² (pendulums), several "
                  "where the rows mix them; ψ is Φ's unit per second, or a velocity for "
                  f"nonholonomic rows. Values below {RESIDUAL_FLOOR:g} are drawn at "
                  f"{RESIDUAL_FLOOR:g}.",
                  plot.save(fig, results_dir, "drift"))


@style.figure_function
def energy(rows, results_dir):
    with_energy = [r for r in rows if r["has_energy"]]
    if not with_energy:
        raise Skipped("no run of a problem with an energy invariant")
    chosen = _chosen_series(with_energy, results_dir, ("t", "energy_error"))
    if not chosen:
        raise Skipped("no series CSV with an energy_error column for a successful run")
    problems = list(chosen)
    cols = min(len(problems), style.max_columns(2.2))
    fig, axes = style.flow(len(problems), cols, 0.8 * style.width() / cols)
    title_width = style.width() / cols - 0.55
    methods = []
    for ax, problem in zip(axes, problems):
        stepper, picked = chosen[problem]
        for r, data in picked:
            _semilogy(ax, r, data["t"][1:], data["energy_error"][1:])
            methods.append(r["method"])
        ax.set_title(_case_title(picked[0][0]["problem_label"], problem, stepper, title_width))
        ax.set_xlabel("t [s]")
        ax.set_ylabel("|E − E0| [J]")
        ax.grid(True, alpha=0.3)
    style.finish(fig, method_entries(methods))
    return result("energy", "Energy error over time",
                  "Energy error |E − E0| against time on the problems with an energy invariant, "
                  "one run per method, chosen as for the drift figure. Values below "
                  f"{RESIDUAL_FLOOR:g} are drawn at {RESIDUAL_FLOOR:g}.",
                  plot.save(fig, results_dir, "energy"))


# --- convergence order ------------------------------------------------------------------------

# What makes an observed order (fit_order gives the reasons).
FLOOR_FACTOR = 10
LARGE_FRACTION = 1e-2
MIN_POINTS = 3
MIN_ORDER = 0.5
ORDER_MARGIN = 2
SLOPE_SPREAD = 0.5

# The errors a convergence fit can use (flatten's columns): name in the caption and table title,
# and the axis label.
FIT_ERRORS = {"max_error": ("maximum error over the samples", "max error over samples"),
              "final_error": ("final error", "final error")}


def point_class(error, accuracy, scale):
    """'floor' (error ≤ FLOOR_FACTOR × the reference's accuracy), 'large' (error ≥
    LARGE_FRACTION × scale, the typical magnitude of the scored outputs — the median of their
    |reference value| at t_end, load's output_scale —, or ≥ LARGE_FRACTION absolute when the
    record gives no scale) or 'in range'."""
    if error <= FLOOR_FACTOR * (accuracy or 0.0):
        return "floor"
    if error >= LARGE_FRACTION * (scale or 1.0):
        return "large"
    return "in range"


def _too_few(classes, failed):
    if not classes:
        return "every run failed" if failed else f"fewer than {MIN_POINTS} points"
    large, floor = classes.count("large"), classes.count("floor")
    also = f"; {failed} failed" if failed else ""
    if large == len(classes):
        return "errors O(1): outside the asymptotic range" + also
    if floor == len(classes):
        return "at the reference's accuracy" + also
    details = [f"{n} {what}" for n, what in ((large, "O(1)"),
                                             (floor, "at the reference's accuracy"),
                                             (failed, "failed")) if n]
    return (f"fewer than {MIN_POINTS} points"
            + (f" in the asymptotic range: {', '.join(details)}" if details else ""))


def fit_order(points, nominal, failed=0):
    """Observed order of one fixed-step sweep from its successful runs, points [(dt, error,
    reference accuracy, output scale)]; `failed` runs of the sweep have no point.

    Only points in the asymptotic range, where error ≈ C·dt^p, enter the fit (point_class):
    - error > 10× the reference's accuracy: the measured error is then the stepper's to within
      10 % (log error off by < 0.1); closer, it measures the reference;
    - error < 1 % of the outputs' typical magnitude (1e-2 absolute without one): a larger error
      is O(1), the run has left the neighbourhood where its error expands in powers of dt.
    At least MIN_POINTS = 3 such points are needed (two always lie on a line; a third tests
    the power law), and their error must fall strictly as dt falls. Their local slopes (of log
    error on log dt between neighbouring points) must agree: largest minus smallest at most
    SLOPE_SPREAD = 0.5. The least-squares slope is a weighted mean of the local slopes with
    positive weights, so each of them then lies within 0.5 of the reported order; a wider
    spread means the points follow no single power law (docs/report.md: why 0.5). The
    least-squares slope must then lie in [0.5, nominal + 2]: monotone points make it positive,
    but under 0.5 the error hardly depends on dt (a perturbation or model error dominates, no
    stepper of order ≥ 1 is measured), and over nominal + 2 the terms of the expansion are
    still cancelling (a vanishing leading coefficient shows order nominal + 1, not + 3).
    Returns (slope or None, reason for no fit or None, class per point in increasing dt:
    'fitted', 'unfitted' (in range, but no fit), 'floor' or 'large')."""
    points = sorted(points)
    classes = [point_class(e, acc, scale) for _, e, acc, scale in points]
    usable = [(dt, e) for (dt, e, _, _), c in zip(points, classes) if c == "in range"]
    slope, reason = None, None
    if len(usable) < MIN_POINTS:
        reason = _too_few(classes, failed)
    elif any(later <= earlier for (_, earlier), (_, later) in zip(usable, usable[1:])):
        reason = "not monotone in dt"
    elif slope_spread(usable) > SLOPE_SPREAD:
        reason = _disagreeing_slopes(usable)
    else:
        slope = plot.loglog_fit([p[0] for p in usable], [p[1] for p in usable])[0]
        if not MIN_ORDER <= slope <= (nominal + ORDER_MARGIN if nominal else math.inf):
            slope, reason = None, f"slope {slope:.2f} inconsistent"
    in_range = "unfitted" if reason else "fitted"
    return slope, reason, [in_range if c == "in range" else c for c in classes]


def local_slopes(points):
    """Slopes of log error on log dt between neighbouring points [(dt, error)] (positive
    errors, distinct dt), in the points' order."""
    return [math.log(e2 / e1) / math.log(dt2 / dt1)
            for (dt1, e1), (dt2, e2) in zip(points, points[1:])]


def slope_spread(points):
    """Largest minus smallest local slope of points [(dt, error)] (0 for fewer than three)."""
    slopes = local_slopes(points)
    return max(slopes) - min(slopes) if slopes else 0.0


def format_slopes(slopes):
    return ", ".join(f"{s:.2f}" for s in slopes)


def _disagreeing_slopes(points):
    return (f"local slopes {format_slopes(local_slopes(points))} differ by "
            f"{slope_spread(points):.2f} > {SLOPE_SPREAD:g}")


def _convergence_sweeps(rows):
    """The fixed-step series (results.group_series) that sweep at least two step sizes against
    a reference."""
    sweeps = []
    for s in results.group_series(rows):
        if s["kind"] == "fixed" and len({r["dt"] for r in s["runs"] if r["dt"]}) >= 2 and \
                not all(r["reference_kind"] in (None, "none") for r in s["runs"]):
            sweeps.append(s)
    return sweeps


def fitted_error(sweeps):
    """The error the convergence fits use, one for the whole result set (figure and table name
    it): "max_error", the largest error over the samples, when every successful run with a
    reference error records it, else "final_error". The final error is the error at one time,
    t_end: where the leading error term passes near a zero there (an oscillating error), it is
    far below the error elsewhere and set by higher-order terms, and it converges erratically;
    the maximum over the samples is about dt^p times the largest leading error term."""
    measured = [r for s in sweeps for r in ok(s["runs"]) if r["final_error"] is not None]
    return "max_error" if all(r["max_error"] is not None for r in measured) else "final_error"


def convergence_fits(rows):
    """Observed orders of the fixed-step series (results.group_series) that sweep at least two
    step sizes against a reference, all fitted on one error (fitted_error): the series dict
    plus "error" (its column), "points" [(dt, error, class)] of its successful runs, "failed"
    (runs of another status), "dts", "local_slopes" (between neighbouring points in the
    asymptotic range, increasing dt), "slope" (None without a fit) and "reason"."""
    sweeps = _convergence_sweeps(rows)
    column = fitted_error(sweeps)
    fits = []
    for s in sweeps:
        dts = sorted({r["dt"] for r in s["runs"] if r["dt"]})
        measured = sorted((r["dt"], r[column], r["reference_accuracy"], r["output_scale"])
                          for r in ok(s["runs"]) if r[column] is not None)
        failed = len(s["runs"]) - len(ok(s["runs"]))
        slope, reason, classes = fit_order(measured, s["order"], failed)
        points = [(dt, e, c) for (dt, e, _, _), c in zip(measured, classes)]
        in_range = [(dt, e) for dt, e, c in points if c in ("fitted", "unfitted")]
        fits.append(dict(s, error=column, points=points, failed=failed, dts=dts,
                         local_slopes=local_slopes(in_range), slope=slope, reason=reason))
    return fits


def _error_at_smallest_dt(fit):
    return min(fit["points"])[1]


def _named_fits(panel):
    """(keys of the fits to colour and name, in legend order; title note). A panel with at
    most MAX_SERIES series names all; a crowded one MAX_SERIES: those with a fitted order
    first, then others spread over the range of errors at the smallest step."""
    n = len(panel["series"])
    if n <= plot.MAX_SERIES:
        return [f["key"] for f in panel["series"]], ""
    fits = sorted(panel["series"], key=_error_at_smallest_dt)
    fitted = plot.spread([f for f in fits if f["slope"] is not None], plot.MAX_SERIES)
    rest = plot.spread([f for f in fits if f["slope"] is None],
                          plot.MAX_SERIES - len(fitted))
    chosen = {f["key"] for f in fitted + rest}
    return ([f["key"] for f in panel["series"] if f["key"] in chosen],
            f"{len(chosen)} of {n} named")


def _range_lines(ax, panel):
    """A dashed line at each bound of the asymptotic range that leaves a point of the panel out
    (when all runs of the panel share it), so the figure shows why a point is hollow."""
    runs = [r for f in panel["series"] for r in ok(f["runs"]) if r[f["error"]] is not None]
    classes = {p[2] for f in panel["series"] for p in f["points"]}
    bounds = [("floor", {FLOOR_FACTOR * (r["reference_accuracy"] or 0.0) for r in runs},
               f"{FLOOR_FACTOR}× reference accuracy", "bottom"),
              ("large", {LARGE_FRACTION * (r["output_scale"] or 1.0) for r in runs},
               f"{LARGE_FRACTION:.0%} of output scale", "top")]
    lines = []
    for kind, values, text, side in bounds:
        if kind in classes and len(values) == 1 and min(values) > 0:
            y = values.pop()
            ax.axhline(y, color="0.45", linestyle=(0, (4, 3)), linewidth=0.8, zorder=0)
            lines.append((y, text, side))
    plot.at_least_a_decade(ax, x=False)
    lo, hi = (math.log(v) for v in ax.get_ylim())
    for y, text, side in lines:
        # The label on the side of its line that stays inside the panel.
        where = (math.log(y) - lo) / (hi - lo) if hi > lo else 0.5
        if side == "bottom" and where > 0.85:
            side = "top"
        elif side == "top" and where < 0.15:
            side = "bottom"
        ax.text(0.02, y, text, transform=ax.get_yaxis_transform(), color="0.35", va=side)


def _draw_convergence_panel(ax, panel, styles, title_width):
    named, note = _named_fits(panel)
    dts, orders = set(), []
    for fit in panel["series"]:
        pts = [p for p in fit["points"] if p[1] > 0]
        st = dict(styles[fit["key"]])
        if fit["key"] not in named:
            st = style.grey_style(st)
        elif fit["slope"] is not None:
            orders.append((st, f"{fit['slope']:.2f}"))
        # Filled only where a point entered a fitted order: the reader sees what p rests on.
        ax.loglog([p[0] for p in pts], [p[1] for p in pts], **dict(st, markerfacecolor="white"))
        fitted = [p for p in pts if p[2] == "fitted"]
        if fitted:
            ax.loglog([p[0] for p in fitted], [p[1] for p in fitted],
                      **dict(st, linestyle="none", markerfacecolor=st.get("color"),
                             zorder=st.get("zorder", 2) + 0.1))
        dts.update(p[0] for p in pts)
    _range_lines(ax, panel)
    ax.set_xticks(sorted(dts), [f"{dt:g}" for dt in sorted(dts)])
    ax.xaxis.set_minor_formatter(plot.null_formatter())
    ax.set_title(plot.display_title(panel, title_width) + (f"\n{note}" if note else ""))
    ax.set_xlabel("step size dt [s]")
    ax.set_ylabel(error_label(_panel_problem(panel), FIT_ERRORS[panel["series"][0]["error"]][1]))
    ax.grid(True, which="major", alpha=0.3)
    plot.number_legend(ax, orders, "p")


def convergence_header(column):
    """The convergence table's header; the local slopes' column names the error fitted
    (FIT_ERRORS)."""
    what = FIT_ERRORS[column][1]
    return ["problem", "method", "stepper", "nominal order", "dt range", "points in range",
            f"local slopes ({what})", "observed order"]


def convergence_table(fits):
    """One row per fit (convergence_header): its local slopes in increasing dt, and the
    observed order or 'no fit (reason)'."""
    return [[f["case_label"], f["variant"], f["stepper"],
             "–" if f["order"] is None else str(f["order"]),
             f"{f['dts'][0]:g} … {f['dts'][-1]:g}",
             f"{sum(1 for p in f['points'] if p[2] in ('fitted', 'unfitted'))} of "
             f"{len(f['points'])}",
             format_slopes(f["local_slopes"]) or "–",
             f"{f['slope']:.3f}" if f["slope"] is not None else f"no fit ({f['reason']})"]
            for f in fits]


ERROR_DEFINITIONS = {
    "max_error": "the maximum error over the samples is the largest absolute error over the "
                 "scored outputs and the sample times at which the reference has a value (the "
                 "final error, taken at one time, can fall near a zero of an oscillating error "
                 "and converge erratically)",
    "final_error": "the final error is the largest absolute error over the scored outputs at "
                   "t_end (the records give no maximum over the samples)"}


def _convergence_caption(column, crowded):
    what = FIT_ERRORS[column][0]
    caption = (
        f"{what[0].upper() + what[1:]} against the step size of the fixed-step steppers "
        "(log-log), one line per series (a method variant and stepper on one problem case); "
        f"{ERROR_DEFINITIONS[column]}. The observed order p, "
        "the least-squares slope of log error on log dt, is fitted only through points in "
        f"the asymptotic range — error above {FLOOR_FACTOR}× the reference's accuracy and "
        f"below {LARGE_FRACTION:.0%} of the output scale (the median |reference value| of the "
        f"scored outputs at t_end); dashed lines mark these bounds where they leave points "
        f"out — from at least {MIN_POINTS} points whose error falls with dt and whose local "
        "slopes (between neighbouring step sizes; in the table) differ by at most "
        f"{SLOPE_SPREAD:g}, and kept only within [{MIN_ORDER:g}, nominal + {ORDER_MARGIN}]. "
        "The small legend in a panel gives p of each fitted series by its marker and colour "
        "(the figure's legend names the methods); series without a fit are not listed there, "
        "and a panel without such a legend has no fitted order (the reasons are in the "
        "table). Filled markers: points in a fit; hollow: the rest. Errors are in the units "
        "of the problem's outputs.")
    if crowded:
        caption += (f" A panel with more than {plot.MAX_SERIES} series names "
                    f"{plot.MAX_SERIES} in colour (those with a fitted order first, then "
                    "others spread over the errors at the smallest step) and draws the rest "
                    "light grey; every series is in the table.")
    return caption


@style.figure_function
def convergence(rows, results_dir):
    fits = convergence_fits(rows)
    if not fits:
        raise Skipped("no fixed-step stepper with at least two step sizes and a reference")
    drawn = [f for f in fits if any(p[1] > 0 for p in f["points"])]
    if not drawn:
        raise Skipped("fixed-step sweeps exist, but none has a successful run with a "
                      "positive error against the reference")
    plan, faceted = plot.facet_panels(drawn)
    mixed = any(len({f["stepper"] for f in p["series"]}) > 1 for p in plan)
    styles, entries = plot.series_styles(drawn, mixed)
    def title_lines(panel, column_width):
        note = _named_fits(panel)[1]
        return plot.display_title(panel, column_width - 0.55).count("\n") + 1 + bool(note)

    fig, axes, layout = plot.facet_layout(plan, faceted, facet_min=2.2, aspect=0.85,
                                          title_lines=title_lines)
    cols = max(len(row) for row in layout["rows"])
    for ax, panel in zip(axes, plan):
        _draw_convergence_panel(ax, panel, styles, style.width() / cols - 0.55)
    crowded = any(len(p["series"]) > plot.MAX_SERIES for p in plan)
    entries += [("in the fit", {"color": "0.3", "marker": "o", "markersize": 4}, "marker"),
                ("left out", {"color": "0.3", "marker": "o", "markersize": 4,
                              "markerfacecolor": "white"}, "marker")]
    if crowded:
        entries.append(("not named (grey)", style.grey_style({"marker": "o"}), "both"))
    style.finish(fig, entries)
    files = plot.save(fig, results_dir, "convergence")
    column = fits[0]["error"]
    header, table = convergence_header(column), convergence_table(fits)
    write_atomic(f"{results_dir}/convergence_table.md", plot.markdown_table(header, table))
    return result("convergence", "Observed order of convergence",
                  _convergence_caption(column, crowded), files,
                  [{"title": f"Observed orders ({FIT_ERRORS[column][0]})",
                    "md": "convergence_table.md", "tex": None,
                    "header": header, "rows": table}],
                  data={(f["case_label"], f["variant"], f["stepper"]): f["slope"]
                        for f in fits})


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


@style.figure_function
def scaling(rows, results_dir):
    panels_ = scaling_points(rows)
    if not panels_:
        raise Skipped("fewer than two problem sizes (nq) with timed successful runs")
    cols = min(len(panels_), style.max_columns(2.2))
    fig, axes = style.flow(len(panels_), cols, 0.85 * style.width() / cols)
    table, slopes, methods = [], {}, []
    for ax, (panel, by_method) in zip(axes, panels_.items()):
        merged = panel == "all problems"
        legend = []
        for method, pts in sorted(by_method.items(), key=lambda kv: plot.method_order(kv[0])):
            fit = plot.loglog_fit([p[0] for p in pts], [p[1] for p in pts])
            slope = fit[0] if fit else None
            slopes[(panel, method)] = slope
            st = plot.method_style(method)
            nq = [p[0] for p in pts]
            if merged:  # several families: their points, and the fitted power law as the line
                ax.loglog(nq, [p[1] for p in pts], **dict(st, linestyle="none"))
                if fit:
                    x = np.geomspace(min(nq), max(nq), 20)
                    ax.loglog(x, fit[1] * x ** fit[0], **dict(st, marker="none"))
            else:
                ax.loglog(nq, [p[1] for p in pts], **st)
            methods.append(method)
            if slope is not None:
                legend.append((st, f"{slope:.2f}"))
            table.append([panel, method, str(len(pts)), f"{pts[0][0]} … {pts[-1][0]}",
                          f"{pts[0][1]:.3g}", "–" if slope is None else f"{slope:.3f}"])
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
    style.finish(fig, method_entries(methods))
    files = plot.save(fig, results_dir, "scaling")
    write_atomic(f"{results_dir}/scaling_table.md", plot.markdown_table(SCALING_HEADER, table))
    return result("scaling", "Cost per right-hand-side call against size",
                  "Run time (minimum of the repetitions, else the instrumented run) divided by "
                  "the number of RHS calls, against the number of coordinates nq (log-log); per "
                  "method the median over its successful runs of each problem instance, with "
                  "the least-squares log-log slope in the small legend of the panel (by the "
                  "method's marker and colour). One panel per problem family with several "
                  "sizes, and one over all problems, where the points of different families "
                  "are not joined: its lines are the fitted power laws.", files,
                  [{"title": "Scaling slopes", "md": "scaling_table.md", "tex": None,
                    "header": SCALING_HEADER, "rows": table}],
                  data=slopes)
