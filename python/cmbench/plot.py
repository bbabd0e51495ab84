"""Shared helpers of cmbench's figures: styles, panel grids, saving, fits, tables.

Every figure draws a method with the colour and marker of METHOD_STYLE, and methods also differ
in line style, so figures stay readable in grayscale.
"""
import math
import os
import re

import numpy as np

METHOD_STYLE = {
    "index1": {"color": "#d62728", "marker": "o", "linestyle": "-"},
    "baumgarte": {"color": "#1f77b4", "marker": "s", "linestyle": "--"},
    "projection": {"color": "#2ca02c", "marker": "^", "linestyle": "-."},
    "coordinate_partitioning": {"color": "#9467bd", "marker": "D", "linestyle": ":"},
    "svd_null_space": {"color": "#8c564b", "marker": "v", "linestyle": "-"},
    "udwadia_kalaba": {"color": "#e377c2", "marker": "P", "linestyle": "--"},
    "gauss_qp": {"color": "#17becf", "marker": "X", "linestyle": "-."},
    "augmented_lagrangian": {"color": "#bcbd22", "marker": "*", "linestyle": ":"},
}
FALLBACK_STYLE = {"color": "#7f7f7f", "marker": "h", "linestyle": ":"}
STEPPER_LINES = ["-", "--", "-.", ":", (0, (5, 1)), (0, (3, 1, 1, 1))]


class Skipped(Exception):
    """A figure or table the results set holds no data for; the message says what is missing."""


def method_style(method):
    return dict(METHOD_STYLE.get(method, FALLBACK_STYLE))


def style_for(method, stepper, steppers):
    """Colour and marker by method; line style by stepper (its index in sorted `steppers`), so
    method × stepper lines stay apart in grayscale too."""
    style = method_style(method)
    ordered = sorted(steppers)
    index = ordered.index(stepper) if stepper in ordered else 0
    style["linestyle"] = STEPPER_LINES[index % len(STEPPER_LINES)]
    return style


def pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def panels(n, cols, width, height):
    """A figure with n panels on a grid of at most `cols` columns; unused panels are hidden.
    Returns (fig, list of the n axes, list of the spare axes)."""
    plt = pyplot()
    cols = max(1, min(cols, n))
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(width * cols, height * rows), squeeze=False)
    flat = list(axes.flat)
    for ax in flat[n:]:
        ax.axis("off")
    return fig, flat[:n], flat[n:]


def shared_legend(fig, axes, spare, max_rows=18):
    """One legend for all panels (the labels of every panel, each once): in the first spare
    panel when there is one, else below the panels. Calls tight_layout."""
    handles = {}
    for ax in axes:
        for h, label in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(label, h)
    if not handles:
        fig.tight_layout()
        return
    if spare:
        spare[0].legend(list(handles.values()), list(handles.keys()), loc="center",
                        fontsize="x-small", ncol=math.ceil(len(handles) / max_rows),
                        frameon=False)
        fig.tight_layout()
    else:
        ncol = 3
        rows = math.ceil(len(handles) / ncol)
        fig.legend(list(handles.values()), list(handles.keys()), loc="lower center", ncol=ncol,
                   fontsize="small", frameon=False)
        height = fig.get_size_inches()[1]
        fig.tight_layout(rect=(0, min(0.6, (0.2 * rows + 0.2) / height), 1, 1))


MAX_SERIES = 8  # lines per panel beyond which neither the lines nor a legend stay readable
GREY = "#c4c4c4"
# Series picked out of a crowded panel: distinct hues; the method still shows in the marker.
HIGHLIGHT_COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
                    "#e377c2", "#17becf"]


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


def panel_title(panel):
    """Case label, plus the stepper when the panel holds one stepper only."""
    steppers = {s["stepper"] for s in panel["series"]}
    stepper = panel["stepper"] or (steppers.pop() if len(steppers) == 1 else None)
    return panel["case_label"] + (f": {stepper}" if stepper else "")


def series_label(series, panel):
    """The variant (method and its parameters), plus the stepper when the panel mixes
    steppers; the case is in the panel title."""
    mixed = len({s["stepper"] for s in panel["series"]}) > 1
    return series["variant"] + (f" / {series['stepper']}" if mixed else "")


def facet_grid(plan, faceted, cols, width, height):
    """Axes for the panels of facet_panels: faceted, one row per case and one column per
    stepper (the axes shared along a row, so the steppers of a case compare at a glance); else
    a grid of at most `cols` columns. Returns (fig, axes in the order of `plan`, spare axes)."""
    if not faceted:
        return panels(len(plan), cols, width, height)
    cases = list(dict.fromkeys(p["case"] for p in plan))
    steppers = list(dict.fromkeys(p["stepper"] for p in plan))
    fig, grid = pyplot().subplots(len(cases), len(steppers),
                                  figsize=(width * len(steppers), height * len(cases)),
                                  squeeze=False)
    axes, first_in_row = [], {}
    for p in plan:
        row = cases.index(p["case"])
        ax = grid[row][steppers.index(p["stepper"])]
        if row in first_in_row:
            ax.sharex(first_in_row[row])
            ax.sharey(first_in_row[row])
        first_in_row.setdefault(row, ax)
        axes.append(ax)
    spare = [ax for ax in grid.flat if ax not in axes]
    for ax in spare:
        ax.axis("off")
    return fig, axes, spare


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
    return {"color": GREY, "marker": method_style(method)["marker"], "markersize": 3,
            "linewidth": 0.8, "linestyle": "-", "zorder": 1}


def highlight_style(method, i):
    return {"color": HIGHLIGHT_COLORS[i % len(HIGHLIGHT_COLORS)],
            "marker": method_style(method)["marker"], "linestyle": "-", "zorder": 3}


def panel_legend(ax):
    """A legend of this panel's series only, right of the panel (it covers no data)."""
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0,
                  fontsize="xx-small", frameon=False)


def null_formatter():
    from matplotlib.ticker import NullFormatter
    return NullFormatter()


METHOD_ORDER = list(METHOD_STYLE)


def method_order(method):
    """Sort key: the order of METHOD_STYLE, unknown methods after it by name."""
    if method in METHOD_ORDER:
        return METHOD_ORDER.index(method), ""
    return len(METHOD_ORDER), method


def save(fig, out_dir, name):
    """Writes NAME.pdf and NAME.png; returns their paths."""
    plt = pyplot()
    paths = [os.path.join(out_dir, f"{name}.{ext}") for ext in ("pdf", "png")]
    for path in paths:
        fig.savefig(path, dpi=150)
    plt.close(fig)
    return paths


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
    def cell(c):
        return str(c).replace("|", "\\|")
    lines = ["| " + " | ".join(cell(h) for h in header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        lines.append("| " + " | ".join(cell(c) for c in row) + " |")
    return "\n".join(lines) + "\n"


def booktabs_table(header, rows, align=None):
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
