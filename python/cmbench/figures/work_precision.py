"""Work-precision diagrams: the error of each successful run against its work, log-log, one line
per series (results.group_series), a panel per problem case (or per case × stepper when a case
holds more than plot.MAX_SERIES series).

draw(rows, ax=None, work=, error=) is the figure of a set of rows (cmbench.plot.work_precision
calls it for a DataFrame); work_precision(rows, results_dir) is the report's figure: the same
drawing, split into pages of at most figures.pages.MAX_HEIGHT inches.

One unit per panel. A run's final error is the largest absolute error over its problem's
scored outputs; where those outputs have different units (the crank-rocker's crank angle in rad
and coupler point in m) that maximum compares radians with metres, so such a panel plots the
final relative error instead (the largest |error| / |reference| over the outputs at t_end,
the records' final_rel_max, dimensionless) and its axis says so. A panel whose outputs share a
unit plots the absolute final error in that unit (error="auto"); error="relative" plots the
relative error everywhere. The axis says "relative error [–]"; the caption says it is the final
one.
"""
from .. import names, plot, results, style
from ..plot import Skipped
from . import pages
from .runs import ok, result

# The work axis: the name a caller gives (cmbench.plot.work_precision's work=, the report's
# --work) -> the column of results.flatten / cmbench.load it plots.
WORK_COLUMNS = {"cpu": "time", "time": "time", "rhs": "rhs_calls"}
ERROR_CHOICES = ("auto", "relative")


def work_column(work):
    """The column plotted for `work` ('cpu' or its report spelling 'time': `time`, the run's
    CPU time, minimum of its timed repetitions, where recorded; 'rhs': `rhs_calls`)."""
    if work not in WORK_COLUMNS:
        raise ValueError(f"work must be one of {', '.join(WORK_COLUMNS)}, not {work!r}")
    return WORK_COLUMNS[work]


def work_label(rows, work):
    """The work axis label: RHS calls, CPU time (every successful timed run timed on the CPU
    clock) or run time."""
    if work_column(work) == "rhs_calls":
        return "RHS calls [–]"
    timed = [r for r in ok(rows) if r.get("time")]
    return "CPU time [s]" if all(r.get("time_clock") == "cpu" for r in timed) else "run time [s]"


def single_unit(problem):
    """The one unit of a problem's scored outputs, or None when they mix units (or the problem
    cmbench.names.output_units does not know, whose outputs' units are unknown)."""
    table = names.output_units(problem)
    units = set(table.values()) if table else set()
    return units.pop() if len(units) == 1 else None


def panel_error(problems, error="auto"):
    """(column, axis label) of the error a panel of these problems plots, in one unit: the final
    absolute error in the outputs' unit when they all share one (error="auto"), else the final
    relative error [–]."""
    if error not in ERROR_CHOICES:
        raise ValueError(f"error must be one of {', '.join(ERROR_CHOICES)}, not {error!r}")
    units = {single_unit(p) for p in problems}
    if error == "auto" and len(units) == 1 and None not in units:
        return "final_error", f"final error [{units.pop()}]"
    return "final_rel_error", "relative error [–]"


def points(series, work_col, error_col):
    """(work, error) of a series' successful runs with both, by increasing work."""
    return sorted((r[work_col], r[error_col]) for r in ok(series["runs"])
                  if r.get(work_col) and r.get(error_col) and r[error_col] > 0)


def _front_series(panel, pts):
    """The series of a panel with a run on its Pareto front (no other run both faster and more
    accurate), from the one reaching the front fastest to the most accurate."""
    runs = [(p, s["key"]) for s in panel["series"] for p in pts[s["key"]]]
    first_on_front = {}
    for i in plot.pareto_front([p for p, _ in runs]):
        first_on_front.setdefault(runs[i][1], runs[i][0])
    return sorted(first_on_front, key=first_on_front.get)


def named_series(panel, pts):
    """(keys of the series to colour and name, in legend order; title note). A panel with at
    most MAX_SERIES series names all; a crowded one those on its Pareto front, at most
    MAX_SERIES spread along it."""
    n = len(panel["series"])
    if n <= plot.MAX_SERIES:
        return [s["key"] for s in panel["series"]], ""
    front = _front_series(panel, pts)
    chosen = set(plot.spread(front, plot.MAX_SERIES))
    note = (f"front: {len(chosen)} of {n}" if len(chosen) == len(front)
            else f"front: {len(chosen)} of {len(front)} ({n} in all)")
    return [s["key"] for s in panel["series"] if s["key"] in chosen], note


def _draw_panel(ax, panel, pts, styles, title):
    """Draws a panel under `title` (plus the note of a crowded panel): the series it names in
    their style, the others grey."""
    named, note = named_series(panel, pts)
    for s in panel["series"]:
        st = styles[s["key"]] if s["key"] in named else style.grey_style(styles[s["key"]])
        ax.loglog([p[0] for p in pts[s["key"]]], [p[1] for p in pts[s["key"]]], **st)
    ax.set_title("\n".join(t for t in (title, note) if t))
    ax.grid(True, which="major", alpha=0.3)


class Plan(pages.PanelPages):
    """Everything the pages of one work-precision figure share: the series with points, the
    panels (plot.facet_panels), each panel's error column and label, the styles and legend
    entries, and the panel geometry (plot.facet_geometry)."""

    ASPECT = 0.75

    def __init__(self, rows, work="cpu", error="auto"):
        self.rows, self.work = rows, work
        wcol = work_column(work)
        candidates = results.group_series(rows)
        self.errors = {}
        for s in candidates:
            self.errors.setdefault(s["case"], panel_error([s["runs"][0]["problem"]], error))
        self.points = {s["key"]: points(s, wcol, self.errors[s["case"]][0]) for s in candidates}
        self.series = [s for s in candidates if self.points[s["key"]]]
        if not self.series:
            raise Skipped("no successful run with both a final error (a reference) and a time")
        self.panels, self.faceted = plot.facet_panels(self.series)
        self.mixed = any(len({s["stepper"] for s in p["series"]}) > 1 for p in self.panels)
        self.styles, self.entries = plot.series_styles(self.series, self.mixed)
        self.crowded = any(len(p["series"]) > plot.MAX_SERIES for p in self.panels)
        if self.crowded:
            self.entries.append(("not on the Pareto front", style.grey_style({"marker": "o"}),
                                 "both"))
        # Panels down to 1.35 in keep a case's steppers in one row at double width up to five
        # columns (four ODE steppers and the DAE integrators of the default campaign): the row
        # shares its axes, so only the first panel carries y tick labels.
        self.geometry = plot.facet_geometry(
            self.panels, self.faceted, facet_min=1.35,
            flow_min=2.2 if style.width_name() == "double" else 1.7, aspect=self.ASPECT,
            title_lines=self._title_lines)

    def _title_lines(self, panel, column_width):
        note = named_series(panel, self.points)[1]
        title = plot.display_title(panel, column_width - 0.55)
        return title.count("\n") + 1 + (1 if note else 0)


def _draw_page(plan, panels, geometry=None):
    """A figure of these panels of the plan (laid out as `geometry`, default the plan's), with
    the plan's legend below; returns (fig, [panel data])."""
    fig, axes, layout = plot.facet_layout(panels, plan.faceted, geometry=geometry or plan.geometry)
    cols = max(len(row) for row in layout["rows"])
    grid = layout["faceted"]
    # A case × stepper grid has margin titles: the stepper above its column, the case beside
    # its row (in the y label); a flowed layout titles every panel.
    tops = {next(row[c] for row in layout["rows"] if row[c] is not None)
            for c in range(cols) if any(row[c] is not None for row in layout["rows"])} \
        if grid else set()
    for ax, panel in zip(axes, panels):
        if grid:
            title = names.stepper(panel["stepper"]) if ax in tops else ""
        else:
            title = plot.display_title(panel, style.width() / cols - 0.55)
        _draw_panel(ax, panel, plan.points, plan.styles, title)
        if not grid:
            ax.set_ylabel(plan.errors[panel["case"]][1])
    row_panel = {}
    for ax, panel in zip(axes, panels):
        for r, row in enumerate(layout["rows"]):
            if ax in row:
                row_panel.setdefault(r, panel)
    row_height = fig.get_size_inches()[1] / max(1, len(layout["rows"]))

    def row_label(r):
        panel = row_panel[r]
        what, _, unit = plan.errors[panel["case"]][1].partition(" [")
        return (style.fit_lines(plot.case_parts(panel), row_height - 0.15) + "\n"
                + style.label(what, unit.rstrip("]"), row_height - 0.15))

    plot.label_grid(layout, work_label(plan.rows, plan.work), row_label)
    for ax in axes:
        plot.at_least_a_decade(ax)
    style.finish(fig, plan.entries)
    return fig, _panel_data(plan, panels)


def draw(rows, ax=None, work="cpu", error="auto"):
    """The work-precision figure of rows (results.flatten's, or cmbench.plot.rows(frame)): with
    ax=None a new figure with a panel per problem case (or case × stepper), returned whole
    however tall; with an ax, every series drawn into it (the rows must then hold one error
    unit: filter them to one problem, or give error="relative"), and ax's figure returned."""
    with style.context():
        plan = Plan(rows, work, error)
        if ax is None:
            return _draw_page(plan, plan.panels)[0]
        errors = {plan.errors[s["case"]] for s in plan.series}
        if len(errors) > 1:
            raise ValueError(
                "the rows hold errors in several units (" + "; ".join(sorted(
                    label for _, label in errors)) + "): filter them to one problem, draw a "
                "panel per case with ax=None, or give error=\"relative\"")
        panel = {"case": None, "case_label": "", "stepper": None, "series": plan.series}
        _draw_panel(ax, panel, plan.points, plan.styles, "")
        ax.set_xlabel(work_label(rows, work))
        ax.set_ylabel(errors.pop()[1])
        ax.legend([style.legend_handle(st, kind) for _, st, kind in plan.entries],
                  [label for label, _, _ in plan.entries])
        return ax.figure


@style.figure_function
def work_precision(rows, results_dir, name="work_precision", out_dir=None):
    """The report's work-precision figure (work axis: style.work_measure()), on as many pages
    of at most pages.MAX_HEIGHT inches as it needs: NAME.pdf/png, or NAME_1, NAME_2, ..."""
    work = "rhs" if style.work_measure() == "rhs" else "cpu"
    plan = Plan(rows, work)
    data = []

    figures = pages.split(plan.units(), plan.per_page(),
                          lambda units: _draw_page(plan, plan.page(units))[0])
    files = []
    for (fig, units), page_name in zip(figures, pages.page_names(name, len(figures))):
        data += _panel_data(plan, plan.page(units))
        files += style.save(fig, out_dir or results_dir, page_name)
    relative = any(plan.errors[p["case"]][0] == "final_rel_error" for p in plan.panels)
    return result(name, "Work-precision diagrams",
                  caption(plan.geometry["kind"] == "grid" or plan.faceted, plan.crowded,
                          plan.mixed, work, relative, len(figures)),
                  files, data={"faceted": plan.faceted, "panels": data, "pages": len(figures)})


def _panel_data(plan, panels):
    """What the figure's data says of each panel (for tests and callers): its title, series,
    the labels of the series it names, its error column and axis label, its runs."""
    out = []
    for p in panels:
        named = named_series(p, plan.points)[0]
        out.append({"title": plot.panel_title(p), "series": len(p["series"]),
                    "named": [plot.series_label(s, p) for s in p["series"] if s["key"] in named],
                    "error": plan.errors[p["case"]][0], "ylabel": plan.errors[p["case"]][1],
                    "runs": sum(len(plan.points[s["key"]]) for s in p["series"])})
    return out


def _work_caption(work):
    if work_column(work) == "rhs_calls":
        return ("RHS calls (a DAE integrator's residual evaluations; the same on any machine, "
                "Jacobian and factorization costs aside)")
    return ("time: the CPU time of the run's thread, minimum of its timed repetitions (taken one "
            "run at a time after the campaign's parallel pass; records without it give their "
            "wall time), so that what else the machine did does not count")


def caption(faceted, crowded, mixed, work="cpu", relative=False, page_count=1):
    """The figure's caption: what is plotted, in which units, how panels and styles are laid
    out."""
    layout = ("a row of panels per problem case, a column per stepper, the panels of a row "
              f"sharing their axes (a case holds more than {plot.MAX_SERIES} series)" if faceted
              else "one panel per problem case")
    text = ("Final error (the largest absolute error over the problem's scored outputs at "
            "t_end, in their unit) against " + _work_caption(work) + ", "
            "log-log, one line per series — runs that differ only in the swept tolerance or "
            "step size (method parameter variants, steppers and initial perturbations apart); "
            f"{layout}.")
    if relative:
        text += (" Where a problem's outputs have different units (an angle in rad beside a "
                 "position in m) their largest absolute error would compare them, so its panels "
                 "plot the final relative error instead: the largest |error| / |reference| over "
                 "the outputs at t_end, dimensionless [–]. Every panel has one unit.")
    text += (" Colour, marker and line style give the method (the same in every figure); "
             "Index-1 KKT's large circle lies under Gauss QP's cross where both give the same "
             "solution, SVD null space's large triangle under Udwadia–Kalaba's plus.")
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
    text += pages.caption(page_count)
    return text
