"""Observed order of convergence: the error of the fixed-step series against their step size,
log-log, with the order fitted where the rules of fit_order allow (at least MIN_POINTS points of
one series in the asymptotic range, agreeing local slopes, a plausible slope).

draw(rows, ax=None) is the figure of a set of rows (cmbench.plot.convergence calls it for a
DataFrame); convergence(rows, results_dir) is the report's figure and table, the figure split
into pages of at most figures.pages.MAX_HEIGHT inches.
"""
import math

from .. import plot, results, style
from ..files import write_atomic
from ..plot import Skipped
from . import pages
from .runs import error_label, ok, panel_problem, result

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
    """Slopes as text, two decimals each, comma-separated."""
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
    ax.set_ylabel(error_label(panel_problem(panel), FIT_ERRORS[panel["series"][0]["error"]][1]))
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


class Plan(pages.PanelPages):
    """What the pages of one convergence figure share: the fits, the panels, styles, legend
    entries and geometry."""

    def __init__(self, rows):
        self.fits = convergence_fits(rows)
        if not self.fits:
            raise Skipped("no fixed-step stepper with at least two step sizes and a reference")
        drawn = [f for f in self.fits if any(p[1] > 0 for p in f["points"])]
        if not drawn:
            raise Skipped("fixed-step sweeps exist, but none has a successful run with a "
                          "positive error against the reference")
        self.panels, self.faceted = plot.facet_panels(drawn)
        mixed = any(len({f["stepper"] for f in p["series"]}) > 1 for p in self.panels)
        self.styles, self.entries = plot.series_styles(drawn, mixed)
        self.crowded = any(len(p["series"]) > plot.MAX_SERIES for p in self.panels)
        self.entries += [("in the fit", {"color": "0.3", "marker": "o", "markersize": 4},
                          "marker"),
                         ("left out", {"color": "0.3", "marker": "o", "markersize": 4,
                                       "markerfacecolor": "white"}, "marker")]
        if self.crowded:
            self.entries.append(("not named (grey)", style.grey_style({"marker": "o"}), "both"))
        self.geometry = plot.facet_geometry(self.panels, self.faceted, facet_min=2.2,
                                            aspect=0.85, title_lines=self._title_lines)

    def _title_lines(self, panel, column_width):
        note = _named_fits(panel)[1]
        return plot.display_title(panel, column_width - 0.55).count("\n") + 1 + bool(note)

    def draw(self, panels):
        """A finished figure of these panels."""
        fig, axes, layout = plot.facet_layout(panels, self.faceted, geometry=self.geometry)
        cols = max(len(row) for row in layout["rows"])
        for ax, panel in zip(axes, panels):
            _draw_convergence_panel(ax, panel, self.styles, style.width() / cols - 0.55)
        style.finish(fig, self.entries)
        return fig


def draw(rows, ax=None):
    """The convergence figure of rows (results.flatten's, or cmbench.plot.rows(frame)): with
    ax=None a new figure with a panel per problem case, returned whole however tall; with an
    ax, the fixed-step series of one problem case drawn into it and its figure returned."""
    with style.context():
        plan = Plan(rows)
        if ax is None:
            return plan.draw(plan.panels)
        if len(plan.panels) != 1:
            raise ValueError(f"the rows hold {len(plan.panels)} panels ("
                             + "; ".join(plot.panel_title(p) for p in plan.panels)
                             + "): filter them to one problem case, or give ax=None")
        _draw_convergence_panel(ax, plan.panels[0], plan.styles, 3.0)
        return ax.figure


@style.figure_function
def convergence(rows, results_dir, name="convergence", out_dir=None):
    """The report's convergence figure (on pages of at most pages.MAX_HEIGHT inches: NAME.pdf
    or NAME_1.pdf, ...) and its table (NAME_table.md)."""
    plan = Plan(rows)
    out = out_dir or results_dir
    files, page_units = pages.save_pages(plan.units(), plan.per_page(),
                                         lambda units: plan.draw(plan.page(units)), out, name)
    fits = plan.fits
    column = fits[0]["error"]
    header, table = convergence_header(column), convergence_table(fits)
    table_name = name.replace("convergence", "convergence_table", 1) + ".md" \
        if name.startswith("convergence") else f"{name}_table.md"
    write_atomic(f"{out}/{table_name}", plot.markdown_table(header, table))
    caption = _convergence_caption(column, plan.crowded)
    caption += pages.caption(len(page_units))
    return result(name, "Observed order of convergence", caption, files,
                  [{"title": f"Observed orders ({FIT_ERRORS[column][0]})",
                    "md": table_name, "tex": None,
                    "header": header, "rows": table}],
                  data={(f["case_label"], f["variant"], f["stepper"]): f["slope"]
                        for f in fits})
