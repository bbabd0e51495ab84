"""Shared helpers of cmbench's figures: panels (faceting, grids at print width, axis labels),
series styles and their bounded legend, the choice of series to name, fits, Markdown and LaTeX
tables. Styles, widths and fonts are cmbench.style's, display names cmbench.names'.
"""
import math
import re

import numpy as np

from . import names, style

# Styles live in cmbench.style (one table for every figure); the names stay here for callers.
METHOD_STYLE = style.METHOD_STYLE
STEPPER_LINES = style.STEPPER_LINES


class Skipped(Exception):
    """A figure or table the results set holds no data for; the message says what is missing."""


def method_style(method):
    """Colour, marker and line style of a method (cmbench.style.method_style)."""
    return style.method_style(method)


def style_for(method, stepper, steppers):
    """Colour and marker by method; line style by stepper (its index in sorted `steppers`), so
    method × stepper lines stay apart in grayscale too."""
    out = style.method_style(method)
    out["linestyle"] = style.stepper_line(stepper, steppers)
    return out


def pyplot():
    """matplotlib.pyplot with the non-interactive Agg backend (cmbench.style.pyplot)."""
    return style.pyplot()


def panels(n, cols, width, height):
    """A figure with n panels of width × height inches on a grid of at most `cols` columns;
    unused panels are hidden. Returns (fig, list of the n axes, list of the spare axes). (The
    benchmark figure's layout; the report's figures are drawn at print width by
    cmbench.style.)"""
    plt = pyplot()
    cols = max(1, min(cols, n))
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(width * cols, height * rows), squeeze=False)
    flat = list(axes.flat)
    for ax in flat[n:]:
        ax.axis("off")
    return fig, flat[:n], flat[n:]


MAX_SERIES = 8  # lines per panel beyond which neither the lines nor a legend stay readable
GREY = style.GREY


def facet_panels(series, max_series=MAX_SERIES):
    """Panels for series (of results.group_series: dicts with "case", "case_label",
    "stepper"): one per case; when a case holds more than max_series series of several
    steppers (so that splitting it helps), one per case × stepper for every case — a figure is
    faceted throughout or not at all. A panel may still hold more than max_series series (the
    variants of one stepper): its figure then names only some of them. Returns (panels
    [{"case", "case_label", "stepper" (None unless faceted), "series"}] in campaign order,
    faceted)."""
    def split(key):
        out = {}
        for s in series:
            out.setdefault(key(s), []).append(s)
        return out

    by_case = split(lambda s: s["case"])
    by_stepper = split(lambda s: (s["case"], s["stepper"]))
    faceted = any(len(v) > max_series and len({s["stepper"] for s in v}) > 1
                  for v in by_case.values())
    groups = by_stepper if faceted else {(case, None): v for case, v in by_case.items()}
    return [{"case": case, "case_label": group[0]["case_label"], "stepper": stepper,
             "series": group} for (case, stepper), group in groups.items()], faceted


def _panel_stepper(panel):
    steppers = {s["stepper"] for s in panel["series"]}
    return panel["stepper"] or (steppers.pop() if len(steppers) == 1 else None)


def panel_title(panel):
    """Case label, plus the stepper when the panel holds one stepper only (ids: the panel's
    identity in a figure's data; display_title is what is drawn)."""
    stepper = _panel_stepper(panel)
    return panel["case_label"] + (f": {stepper}" if stepper else "")


def case_parts(panel_or_series):
    """The case label of a panel or series with display names (cmbench.names), as parts: the
    problem, then what tells the problem's cases apart (['Crank-rocker', 'perturbed
    p=0.001'])."""
    first = panel_or_series["series"][0] if "series" in panel_or_series else panel_or_series
    problem_label = first["runs"][0]["problem_label"] if first.get("runs") else ""
    label = panel_or_series["case_label"]
    if not problem_label or not label.startswith(problem_label):
        return [label]
    rest = label[len(problem_label):].lstrip(", ")
    return [names.problem_label(problem_label)] + (rest.split(", ") if rest else [])


def display_title(panel, width_in, with_stepper=True):
    """The drawn title of a panel: case and stepper display names, packed into lines of at most
    width_in inches."""
    stepper = _panel_stepper(panel) if with_stepper else None
    return style.fit_lines(case_parts(panel) + ([names.stepper(stepper)] if stepper else []),
                           width_in)


def series_label(series, panel):
    """The variant (method and its parameters), plus the stepper when the panel mixes
    steppers; the case is in the panel title (ids, as panel_title)."""
    mixed = len({s["stepper"] for s in panel["series"]}) > 1
    return series["variant"] + (f" / {series['stepper']}" if mixed else "")


def variant_params(series):
    """The given method parameters of a series, as its labels show them ({'alpha': '10'}),
    from its runs' identity (results.identity)."""
    from . import results
    params = series["runs"][0]["identity"]["method_params"]
    return {name: results.param_text(value) for name, value in sorted(params.items())}


def series_styles(series, steppers_in_panels):
    """({series key: style}, legend entries [(label, style, kind)]) for the series of a figure:
    methods and their parameter variants (style.variant_styles), and — when some panel mixes
    steppers (`steppers_in_panels`) — the stepper as the line style (hollow markers for
    fixed-step ones), with one legend entry per stepper. Bounded: one entry per method, per
    parameter value and per stepper, never per combination."""
    styles, entries = style.variant_styles(series, variant_params)
    if not steppers_in_panels:
        return styles, entries
    steppers = sorted({s["stepper"] for s in series})
    kinds = {s["stepper"]: s["kind"] for s in series}
    out = {}
    for s in series:
        st = dict(styles[s["key"]])
        if st.get("color") != GREY:
            st["linestyle"] = style.stepper_line(s["stepper"], steppers)
            if s["kind"] == "fixed":
                st["markerfacecolor"] = "white"
        out[s["key"]] = st
    entries = [(label, st, "marker" if kind == "both" else kind) for label, st, kind in entries]
    for stepper in steppers:
        fixed = kinds[stepper] == "fixed"
        entries.append((names.stepper(stepper),
                        {"color": "0.2", "linestyle": style.stepper_line(stepper, steppers),
                         "marker": "o", "markersize": 3.5,
                         "markerfacecolor": "white" if fixed else "0.2"}, "both"))
    return out, entries


LINE_HEIGHT = 1.25 * style.MIN_FONT / 72  # inches per line of MIN_FONT text


def facet_geometry(plan, faceted, facet_min=1.6, flow_min=2.2, aspect=0.8, title_lines=None):
    """How facet_layout lays out the panels of facet_panels at print width, before drawing:
    {"kind": "grid", "steppers", "cols", "row_height"} — one row per case, one column per
    stepper, when the figure is faceted, the panels of facet_min inches fit side by side and at
    least 3/4 of the case × stepper grid holds a panel — else {"kind": "flow", "cols",
    "row_height"}: the panels flow in rows of as many panels of flow_min inches as fit. Rows are
    aspect × the column width high, plus the lines of the longest title beyond one when flowing
    (title_lines(panel, column width in inches) counts them), so that titles do not eat the
    plots. Pages of one figure share it (figures.pages), so their panels line up."""
    steppers = list(dict.fromkeys(p["stepper"] for p in plan))
    cases = list(dict.fromkeys(p["case"] for p in plan))
    dense = len(plan) >= 0.75 * len(steppers) * len(cases)
    if faceted and dense and len(steppers) <= style.max_columns(facet_min):
        return {"kind": "grid", "steppers": steppers, "cols": len(steppers),
                "row_height": aspect * style.width() / len(steppers)}
    cols = max(1, min(len(plan), style.max_columns(flow_min)))
    extra = 0.0
    if title_lines is not None and plan:
        extra = LINE_HEIGHT * max(0, max(title_lines(p, style.width() / cols) for p in plan) - 1)
    row_height = aspect * style.width() / cols + extra
    if cols == 1 or len(plan) == 1:
        row_height = min(row_height, style.MAX_ROW_HEIGHT)
    return {"kind": "flow", "cols": cols, "row_height": row_height}


def facet_layout(plan, faceted, facet_min=1.6, flow_min=2.2, aspect=0.8, title_lines=None,
                 geometry=None):
    """Axes for the panels of facet_panels at print width, laid out as facet_geometry says (or
    as `geometry`, that of the whole figure when `plan` is one page of it): a grid shares the
    axes along a row, so the steppers of a case compare at a glance. Returns (fig, axes in the
    order of `plan`, layout {"rows": [[ax or None]], "faceted": whether the grid is case ×
    stepper})."""
    geometry = geometry or facet_geometry(plan, faceted, facet_min, flow_min, aspect,
                                          title_lines)
    if geometry["kind"] == "grid":
        steppers = geometry["steppers"]
        cases = list(dict.fromkeys(p["case"] for p in plan))
        fig, grid = style.grid(len(cases), len(steppers), geometry["row_height"])
        rows = [[None] * len(steppers) for _ in cases]
        axes, first_in_row = [], {}
        for p in plan:
            r, c = cases.index(p["case"]), steppers.index(p["stepper"])
            ax = grid[r][c]
            if r in first_in_row:
                ax.sharex(first_in_row[r])
                ax.sharey(first_in_row[r])
            first_in_row.setdefault(r, ax)
            rows[r][c] = ax
            axes.append(ax)
        for r, row in enumerate(grid):
            for c, ax in enumerate(row):
                if rows[r][c] is None:
                    ax.axis("off")
        return fig, axes, {"rows": rows, "faceted": True}
    cols = geometry["cols"]
    fig, axes = style.flow(len(plan), cols, geometry["row_height"], keep_columns=True)
    rows = [axes[i:i + cols] for i in range(0, len(axes), cols)]
    return fig, axes, {"rows": rows, "faceted": False}


def label_grid(layout, xlabel, ylabel_of):
    """Axis labels of a panel grid: on a faceted grid the y label (ylabel_of(row index)) on the
    first panel of each row and y tick labels only there, the x label on the bottom panel of
    each column; on a flowed grid every panel is labelled."""
    rows = layout["rows"]
    if not layout["faceted"]:
        for r, row in enumerate(rows):
            for ax in row:
                if ax is not None:
                    ax.set_xlabel(xlabel)
        return
    ncols = max(len(row) for row in rows)
    for r, row in enumerate(rows):
        present = [ax for ax in row if ax is not None]
        if present:
            present[0].set_ylabel(ylabel_of(r))
            for ax in present[1:]:
                ax.tick_params(labelleft=False)
    for c in range(ncols):
        column = [row[c] for row in rows if c < len(row) and row[c] is not None]
        if column:
            column[-1].set_xlabel(xlabel)


def number_legend(ax, entries, title, filled=True):
    """A small legend inside a panel: one entry per named series, its marker and colour and a
    number (a fitted order, a slope, a deviation); the figure's legend says what the markers
    stand for. entries: [(style, text)]."""
    if not entries:
        return
    handles = [style.legend_handle(dict(st, markerfacecolor=st.get("color")) if filled else st,
                                   "marker") for st, _ in entries]
    ax.legend(handles, [text for _, text in entries], title=title, loc="best",
              ncol=2 if len(entries) > 4 else 1, handlelength=1.0, handletextpad=0.3,
              markerscale=0.7,
              columnspacing=0.6, borderpad=0.3, labelspacing=0.2, framealpha=0.85,
              edgecolor="none")


def at_least_a_decade(ax, x=True, y=True):
    """Widens a log axis that spans less than a decade to one decade around its data
    (geometrically centred), so that it holds a labelled power of ten, and drops the minor
    tick labels (several of '2×10⁻³' overlap at print size)."""
    for use, get, set_, axis in ((x, ax.get_xlim, ax.set_xlim, ax.xaxis),
                                 (y, ax.get_ylim, ax.set_ylim, ax.yaxis)):
        if not use or axis.get_scale() != "log":
            continue
        lo, hi = get()
        if lo > 0 and hi > lo and hi / lo < 10:
            centre = math.sqrt(lo * hi)
            set_(centre / math.sqrt(10) / 1.05, centre * math.sqrt(10) * 1.05)
        axis.set_minor_formatter(null_formatter())


def spread(items, n):
    """At most n of items, evenly spaced over the sequence (first and last included)."""
    if len(items) <= n:
        return list(items)
    if n == 1:
        return [items[0]]
    return [items[round(i * (len(items) - 1) / (n - 1))] for i in range(n)]


def pareto_front(points):
    """Indices of the non-dominated (cost, error) points: no other point is at most as costly
    and more accurate (of identical points, one)."""
    front, best = [], math.inf
    for i in sorted(range(len(points)), key=lambda i: points[i]):
        if points[i][1] < best:
            front.append(i)
            best = points[i][1]
    return front


def grey_style(method):
    """A series drawn for context only: light grey, small, behind the named ones."""
    return style.grey_style(method_style(method))


def null_formatter():
    """A tick formatter that writes no label (for minor ticks)."""
    from matplotlib.ticker import NullFormatter
    return NullFormatter()


METHOD_ORDER = style.METHOD_ORDER


def method_order(method):
    """Sort key: the order of METHOD_STYLE, unknown methods after it by name."""
    return style.method_order(method)


def save(fig, out_dir, name):
    """Writes NAME.pdf and NAME.png at the figure's size; returns their paths."""
    return style.save(fig, out_dir, name)


def loglog_fit(x, y):
    """Least-squares fit of log y = slope·log x + c over positive pairs: (slope, exp(c)), or
    None with fewer than two distinct x."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    keep = (x > 0) & (y > 0) & np.isfinite(x) & np.isfinite(y)
    x, y = np.log(x[keep]), np.log(y[keep])
    if len(np.unique(x)) < 2:
        return None
    A = np.vstack([x, np.ones_like(x)]).T
    (slope, intercept), *_ = np.linalg.lstsq(A, y, rcond=None)
    return float(slope), float(math.exp(intercept))


def fmt(value, spec=".2e"):
    """A number formatted by spec, or '–' for None (table cells)."""
    return "–" if value is None else format(value, spec)


TEX_SYMBOLS = {"‖": r"$\|$", "|": r"$|$", "Φ": r"$\Phi$", "ψ": r"$\psi$", "α": r"$\alpha$",
               "β": r"$\beta$", "−": r"$-$", "…": r"\ldots{}", "–": "--", "×": r"$\times$"}


def tex_escape(text):
    """Plain text (with the few Unicode symbols of the tables) as LaTeX text."""
    out = []
    for ch in str(text):
        if ch == "\\":
            out.append(r"\textbackslash{}")
        elif ch in "_%&#$":
            out.append("\\" + ch)
        else:
            out.append(TEX_SYMBOLS.get(ch, ch))
    return re.sub(r"(?<!\\)\$\$", "", "".join(out))  # adjacent math: $\|$$\Phi$ -> $\|\Phi$


def markdown_table(header, rows):
    """A Markdown table of header and rows (cells as text, '|' escaped)."""
    def cell(c):
        return str(c).replace("|", "\\|")
    lines = ["| " + " | ".join(cell(h) for h in header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        lines.append("| " + " | ".join(cell(c) for c in row) + " |")
    return "\n".join(lines) + "\n"


def booktabs_table(header, rows, align=None):
    """A LaTeX booktabs tabular of header and rows (cells escaped by tex_escape)."""
    align = align or "l" * len(header)
    lines = [r"\begin{tabular}{" + align + "}", r"\toprule",
             " & ".join(tex_escape(h) for h in header) + r" \\", r"\midrule"]
    for row in rows:
        lines.append(" & ".join(tex_escape(c) for c in row) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines) + "\n"


SUMMARY_HEADER = ["run", "status", "final error", "scd", "max ‖Φ‖", "max ‖ψ‖", "max |E−E0|",
                  "RHS calls", "min time [s]"]


def summary_rows(rows):
    """One row per run (rows of results.flatten) for the table of all runs."""
    out = []
    for r in rows:
        out.append([f"`{r['key']}`", r["status"], fmt(r["final_error"]), fmt(r["scd"], ".2f"),
                    fmt(r["drift_position_max"]), fmt(r["drift_velocity_max"]),
                    fmt(r["energy_max_abs"]),
                    "–" if r["rhs_calls"] is None else str(r["rhs_calls"]),
                    fmt(r["time_min"], ".3g")])
    return out


def summary_table(rows):
    """Markdown table of all runs (rows of results.flatten)."""
    return markdown_table(SUMMARY_HEADER, summary_rows(rows))


# --- figures of a DataFrame -------------------------------------------------------------------
# The report's figures, for a (filtered) DataFrame of cmbench.load: each returns a matplotlib
# Figure, or draws into the axes given. The report draws its figures with the same code
# (cmbench.figures.work_precision, .convergence), split into pages.

def rows(frame):
    """The rows of results.flatten that the figures take, from a DataFrame of cmbench.load (one
    row per run, filtered as you like), a list of its records (frame.to_dict("records")) or
    flatten rows themselves. Missing values (NaN, <NA>) become None; a row's identity is read
    back from its series_key (results.sweep_key spells it)."""
    from . import results
    records = frame.to_dict("records") if hasattr(frame, "to_dict") else list(frame)
    out = []
    for record in records:
        row = {k: _plain(v) for k, v in record.items()}
        if "identity" not in row:
            if not row.get("series_key"):
                raise ValueError("a row without series_key: give rows of cmbench.load or "
                                 "cmbench.results.flatten")
            row["identity"] = results._identity_from_key({"key": row["series_key"]})
        out.append(row)
    return out


def _plain(value):
    """A DataFrame cell as flatten holds it: None for NaN and <NA>, Python numbers."""
    if value is None or isinstance(value, (dict, list, str, bool)):
        return value
    try:
        if value != value:  # NaN
            return None
    except (TypeError, ValueError):  # pandas.NA compares to neither
        return None
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    return value


def work_precision(frame, ax=None, work="cpu", error="auto"):
    """Work-precision diagram of a DataFrame of cmbench.load (filtered as you like): the error
    of each successful run against its work, log-log, one line per series (runs differing only
    in dt or tol), styles and display names as in the report.

    work: "cpu" — the column `time`, the CPU time of the run's thread, minimum of its timed
    repetitions (its wall minimum where a record has no CPU time) — or "rhs" (`rhs_calls`).
    error: "auto" plots the final absolute error where a problem's outputs share one unit and
    the final relative error [–] where they mix units (a panel never mixes units); "relative"
    plots the relative error everywhere.
    ax=None: a new Figure with a panel per problem case (per case × stepper when a case holds
    more than MAX_SERIES series), at the width of cmbench.style.use(). With an Axes: every
    series drawn into it (the frame must then hold errors of one unit) and its Figure returned.
    Raises Skipped (its message says why) when the frame holds nothing to draw, e.g. no run that
    ended ok.
    """
    from .figures import work_precision as figure
    return figure.draw(rows(frame), ax=ax, work=work, error=error)


def convergence(frame, ax=None):
    """Error against step size of the fixed-step series of a DataFrame of cmbench.load, log-log,
    with the observed order of each series that has at least three points in the asymptotic
    range (figures.convergence.fit_order). ax=None: a new Figure, a panel per problem case; with
    an Axes: the one case the frame holds drawn into it. Returns the Figure; raises Skipped when
    the frame holds no fixed-step series to draw."""
    from .figures import convergence as figure
    return figure.draw(rows(frame), ax=ax)


def convergence_fits(frame):
    """The observed orders of a DataFrame's fixed-step series: a list of dicts with "case_label",
    "variant", "stepper", "slope" (None without a fit) and "reason" (why not), as the report's
    convergence table gives them."""
    from .figures import convergence as figure
    return figure.convergence_fits(rows(frame))
