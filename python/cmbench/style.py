"""How the report's figures look at print size: width, fonts, the style of each method, stepper
and parameter variant, bounded legends, panel grids and saving.

Width. A figure is drawn at its print size: 7 in wide (double column, the default) or 3.5 in
(single column), `use(width="single")` or the report's `--width`. Every text is at least
MIN_FONT = 8 pt at that size; sizes are set in points (rc()), never relative ("small"), so
what is drawn is what prints. PDF is vector; the PNG beside it (for HTML and README) is
rendered at PNG_DPI.

Styles. A known method has a fixed colour, marker and line style (METHOD_STYLE), the same in
every figure; they differ in all three, so a figure stays readable in grayscale. Methods whose
results often coincide are drawn so that both stay visible: index1's large circle under
gauss_qp's small cross (same KKT solution), svd_null_space's large triangle under
udwadia_kalaba's plus. A method the table does not know gets a style of its own from a stable
hash of its id (unknown_style): a colour of SECONDARY_COLORS, a marker of SECONDARY_MARKERS and
a line style, the same in every figure and every run (two unknown ids may share one; 252
combinations). A stepper is a line style (and hollow markers for fixed-step steppers) when a
panel mixes steppers. Parameter variants of one method (e.g. the Baumgarte (α, β) grid) are
encoded by value (variant_styles): colour by the first varying parameter, marker by the
second, so the legend holds one entry per value, not per combination.

Legends. A figure has one legend below its panels with one entry per method, per stepper
(when panels mix steppers) and per parameter value (variants) — never one per combination —
so its size is bounded by what the figure compares, not by how many series it draws.
"""
import contextlib
import hashlib
import math
import os

from .files import save_figure

WIDTHS = {"single": 3.5, "double": 7.0}   # inches: a journal's column and text width
DEFAULT_WIDTH = "double"
MIN_FONT = 8.0                             # pt, at print size: every text of every figure
PNG_DPI = 200

_state = {"width": DEFAULT_WIDTH, "work": "time"}
# What the work-precision diagrams put on their work axis: the run's time (its thread's CPU time,
# minimum of the timed repetitions, where the records have it) or its RHS calls (a DAE
# integrator's residual evaluations), which do not depend on the machine.
WORK_MEASURES = ("time", "rhs")


def work_measure():
    """What the work-precision diagrams measure work in: 'time' or 'rhs' (measuring())."""
    return _state["work"]


@contextlib.contextmanager
def measuring(work):
    """work_measure() is `work` ('time' or 'rhs') for the duration of a with block."""
    if work not in WORK_MEASURES:
        raise ValueError(f"work must be one of {', '.join(WORK_MEASURES)}, not {work!r}")
    saved = _state["work"]
    try:
        _state["work"] = work
        yield
    finally:
        _state["work"] = saved
_save_hooks = []


def use(width=None):
    """Sets the width of the figures drawn from now on ('single' or 'double')."""
    if width is not None:
        if width not in WIDTHS:
            raise ValueError(f"width must be one of {', '.join(WIDTHS)}, not {width!r}")
        _state["width"] = width


@contextlib.contextmanager
def using(width_name_):
    """use(width) for the duration of a with block."""
    saved = _state["width"]
    try:
        use(width_name_)
        yield
    finally:
        _state["width"] = saved


def width_name():
    """The current figure width's name: 'single' or 'double'."""
    return _state["width"]


def width():
    """The figure width in inches."""
    return WIDTHS[_state["width"]]


def max_columns(min_panel=1.6):
    """Panels of at least `min_panel` inches that fit side by side."""
    return max(1, int(width() // min_panel))


def rc():
    """Matplotlib settings of every report figure: all text MIN_FONT points."""
    size = MIN_FONT
    return {
        "font.size": size, "axes.titlesize": size, "axes.labelsize": size,
        "xtick.labelsize": size, "ytick.labelsize": size, "legend.fontsize": size,
        "legend.title_fontsize": size, "figure.titlesize": size,
        "axes.linewidth": 0.6, "grid.linewidth": 0.4, "lines.linewidth": 1.0,
        "lines.markersize": 4.0, "lines.markeredgewidth": 0.8,
        "xtick.major.size": 2.5, "ytick.major.size": 2.5, "xtick.minor.size": 1.5,
        "ytick.minor.size": 1.5, "xtick.major.pad": 2.0, "ytick.major.pad": 2.0,
        "axes.titlepad": 3.0, "axes.labelpad": 2.0, "legend.handlelength": 2.2,
        "legend.columnspacing": 1.2, "legend.handletextpad": 0.5, "legend.borderaxespad": 0.3,
        "savefig.dpi": PNG_DPI, "pdf.fonttype": 42,
    }


def pyplot():
    """matplotlib.pyplot, with the non-interactive Agg backend unless a backend is already in
    use or asked for: a notebook (IPython, MPLBACKEND) keeps its inline figures, and a program
    that imported pyplot keeps its choice."""
    import sys

    import matplotlib
    chosen = ("matplotlib.pyplot" in sys.modules or "IPython" in sys.modules
              or os.environ.get("MPLBACKEND"))
    if not chosen:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


@contextlib.contextmanager
def context():
    """Figures created and saved inside are drawn with rc()."""
    import matplotlib
    pyplot()
    with matplotlib.rc_context(rc()):
        yield


def figure_function(function):
    """Decorator: the figure function runs inside context()."""
    import functools

    @functools.wraps(function)
    def wrapped(*args, **kwargs):
        with context():
            return function(*args, **kwargs)
    return wrapped


# --- styles -----------------------------------------------------------------------------------

BASE_MARKERSIZE = 4.5
METHOD_STYLE = {
    "index1": {"color": "#d62728", "marker": "o", "linestyle": "-", "markersize": 6.5,
               "linewidth": 1.8, "zorder": 2.0},
    "baumgarte": {"color": "#1f77b4", "marker": "s", "linestyle": "--"},
    "projection": {"color": "#2ca02c", "marker": "^", "linestyle": "-."},
    "coordinate_partitioning": {"color": "#9467bd", "marker": "D", "linestyle": ":",
                                "markersize": 4.0},
    "svd_null_space": {"color": "#8c564b", "marker": "v", "linestyle": "-", "markersize": 6.0,
                       "linewidth": 1.5, "zorder": 2.05},
    "udwadia_kalaba": {"color": "#e377c2", "marker": "P", "linestyle": "--", "markersize": 4.0,
                       "zorder": 2.3},
    "gauss_qp": {"color": "#17becf", "marker": "X", "linestyle": "-.", "markersize": 4.0,
                 "zorder": 2.35},
    "augmented_lagrangian": {"color": "#bcbd22", "marker": "*", "linestyle": ":",
                             "markersize": 5.5},
    # DAE integrators: black and greys, so they stand apart from the ODE formulations
    "ida": {"color": "#000000", "marker": "o", "linestyle": "-", "markersize": 4.0,
            "markerfacecolor": "none", "linewidth": 1.2},
    "generalized_alpha": {"color": "#555555", "marker": "s", "linestyle": "--",
                          "markersize": 4.0, "markerfacecolor": "none"},
    "ali3p": {"color": "#888888", "marker": "^", "linestyle": "-.", "markersize": 4.0,
              "markerfacecolor": "none"},
    "rattle": {"color": "#333333", "marker": "D", "linestyle": ":", "markersize": 4.0,
               "markerfacecolor": "none", "linewidth": 1.4},
}
METHOD_ORDER = list(METHOD_STYLE)
# Unknown methods: colours not used by METHOD_STYLE (darker tab20b/tab20c shades and orange),
# filled markers not used by it, and line styles.
SECONDARY_COLORS = ["#ff7f0e", "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173",
                    "#3182bd", "#e6550d", "#31a354"]
SECONDARY_MARKERS = ["<", ">", "p", "h", "d", "8", "H"]
SECONDARY_LINES = ["-", "--", "-.", ":"]
STEPPER_LINES = ["-", "--", "-.", ":", (0, (5, 1)), (0, (3, 1, 1, 1))]
GREY = "#c4c4c4"
VALUE_MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]


def stable_hash(text):
    """A hash of text that is the same in every process and on every machine (Python's hash()
    is salted per process)."""
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")


def unknown_style(method):
    """The style of a method not in METHOD_STYLE: colour, marker and line style from a stable hash of its id."""
    h = stable_hash(method)
    return {"color": SECONDARY_COLORS[h % len(SECONDARY_COLORS)],
            "marker": SECONDARY_MARKERS[(h // len(SECONDARY_COLORS)) % len(SECONDARY_MARKERS)],
            "linestyle": SECONDARY_LINES[(h // (len(SECONDARY_COLORS) * len(SECONDARY_MARKERS)))
                                         % len(SECONDARY_LINES)]}


def method_style(method):
    """Colour, marker, line style (and size, z-order) of a method; a hashed one for an id not
    in METHOD_STYLE. Always a new dict."""
    style = {"markersize": BASE_MARKERSIZE, "linewidth": 1.0, "zorder": 2.2}
    style.update(METHOD_STYLE.get(method) or unknown_style(method))
    return style


def method_order(method):
    """Sort key: the order of METHOD_STYLE, unknown methods after it by name."""
    if method in METHOD_ORDER:
        return METHOD_ORDER.index(method), ""
    return len(METHOD_ORDER), method


def stepper_line(stepper, steppers):
    """The line style of a stepper among the steppers of a figure (by sorted id)."""
    ordered = sorted(steppers)
    index = ordered.index(stepper) if stepper in ordered else 0
    return STEPPER_LINES[index % len(STEPPER_LINES)]


def grey_style(style):
    """A series drawn for context only: light grey, small, behind the named ones (its marker
    kept)."""
    return {"color": GREY, "marker": style.get("marker", "o"), "markersize": 2.5,
            "linewidth": 0.6, "linestyle": "-", "zorder": 1, "markerfacecolor": GREY,
            "markeredgecolor": GREY}


# --- parameter variants -----------------------------------------------------------------------

def _number(text):
    try:
        return float(text)
    except ValueError:
        return None


def _value_colors(n):
    """n colours of viridis from dark to light (its yellow end left out: poor on white)."""
    import matplotlib
    cmap = matplotlib.colormaps["viridis"]
    return [matplotlib.colors.to_hex(cmap(0.85 * i / max(1, n - 1))) for i in range(n)]


def variant_styles(series, params_of):
    """Styles of the series of a figure ({series key: style}) and its legend entries [(label,
    style, kind)], kind 'line' (colour) or 'marker'.

    A method drawn with a single variant keeps its method style. The variants of a method that
    differ in one or two numeric parameters are encoded by value: colour by the first varying
    parameter (viridis, dark to light with the value), marker by the second — one legend
    entry per value. Other variants (more parameters vary, or too many values) take the
    method's marker and distinct colours, one legend entry each; beyond len(VALUE_MARKERS)
    variants of such a method the rest stay unnamed in grey, and the legend says how many.
    `params_of(series)` gives the series' given method parameters ({name: value text}:
    plot.variant_params)."""
    from . import names
    by_method = {}
    for s in series:
        by_method.setdefault(s["method"], {}).setdefault(s["variant"], []).append(s)
    styles, entries = {}, []
    for method in sorted(by_method, key=method_order):
        variants = by_method[method]
        base = method_style(method)
        if len(variants) == 1:
            for s in next(iter(variants.values())):
                styles[s["key"]] = dict(base)
            entries.append((names.method(method), base, "both"))
            continue
        params = {v: params_of(group[0]) for v, group in variants.items()}
        keys = list(dict.fromkeys(k for p in params.values() for k in p))
        varying = [k for k in keys if len({p.get(k) for p in params.values()}) > 1]
        values = {k: sorted({p.get(k) for p in params.values()},
                            key=lambda x: (_number(x or "") is None, _number(x or "") or 0,
                                           x or "")) for k in varying}
        numeric = all(_number(v or "") is not None for k in varying for v in values[k])
        if numeric and 1 <= len(varying) <= 2 and \
                all(len(values[k]) <= len(VALUE_MARKERS) for k in varying):
            colours = _value_colors(len(values[varying[0]]))
            for v, group in variants.items():
                style = dict(base, linestyle="-", zorder=2.2, markersize=BASE_MARKERSIZE,
                             linewidth=1.0)
                style["color"] = colours[values[varying[0]].index(params[v].get(varying[0]))]
                if len(varying) == 2:
                    style["marker"] = VALUE_MARKERS[values[varying[1]].index(
                        params[v].get(varying[1]))]
                for s in group:
                    styles[s["key"]] = style
            label = names.method(method)
            for value, colour in zip(values[varying[0]], colours):
                entries.append((f"{label} {names.param(varying[0])} = {value}",
                                {"color": colour, "linestyle": "-", "linewidth": 1.5}, "line"))
            if len(varying) == 2:
                for i, value in enumerate(values[varying[1]]):
                    entries.append((f"{names.param(varying[1])} = {value}",
                                    {"color": "0.25", "marker": VALUE_MARKERS[i],
                                     "markersize": BASE_MARKERSIZE}, "marker"))
            continue
        colours = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
                   "#e377c2", "#17becf"]
        for i, (v, group) in enumerate(variants.items()):
            if i < len(colours):
                style = dict(base, color=colours[i], linestyle="-")
                entries.append((names.variant(v, method), style, "both"))
            else:
                style = grey_style(base)
            for s in group:
                styles[s["key"]] = style
        if len(variants) > len(colours):
            entries.append((f"{len(variants) - len(colours)} more {names.method(method)} "
                            "variants (grey)", grey_style(base), "both"))
    return styles, entries


# --- text fitting -----------------------------------------------------------------------------

def text_width(text, size=MIN_FONT):
    """Width in inches of text set in the figures' font at `size` points (of its longest line
    when it has several)."""
    if "\n" in text:
        return max(text_width(line, size) for line in text.split("\n"))
    from matplotlib.backends.backend_agg import RendererAgg
    from matplotlib.font_manager import FontProperties
    renderer = _renderer.get("agg")
    if renderer is None:
        renderer = _renderer["agg"] = RendererAgg(10, 10, 72)
    w, _, _ = renderer.get_text_width_height_descent(text, FontProperties(size=size),
                                                     ismath="TeX" if "$" in text else False)
    return w / 72


_renderer = {}


def fit_lines(parts, width_in, sep=", "):
    """The parts packed greedily into lines of at most width_in inches (joined by sep within a
    line); a part longer than the width gets a line of its own."""
    lines = []
    for part in (p for p in parts if p):
        if lines and text_width(lines[-1] + sep + part) <= width_in:
            lines[-1] += sep + part
        else:
            lines.append(part)
    return "\n".join(lines)


def label(text, unit, length_in):
    """An axis label 'text [unit]', the unit on a line of its own when the whole is longer
    than length_in inches."""
    if not unit:
        return text
    whole = f"{text} [{unit}]"
    return whole if text_width(whole) <= length_in else f"{text}\n[{unit}]"


# --- grids, legends, saving -------------------------------------------------------------------

def grid(nrows, ncols, row_height):
    """A figure of the current width with nrows × ncols axes (2-D list), row_height inches per
    row."""
    plt = pyplot()
    fig, axes = plt.subplots(nrows, ncols, figsize=(width(), max(1.0, nrows * row_height)),
                             squeeze=False)
    return fig, [list(row) for row in axes]


MAX_ROW_HEIGHT = 3.0  # inches: a lone panel of a double-column figure stays wide, not square


def flow(n, cols, row_height, keep_columns=False):
    """A figure with n panels in rows of `cols` (spares hidden), rows at most MAX_ROW_HEIGHT
    high when there is one column: (fig, the n axes). keep_columns: `cols` columns and
    row_height as given even when n is smaller (a last page of a figure split into pages keeps
    the panel size of the others)."""
    if not keep_columns:
        if cols == 1 or n == 1:
            row_height = min(row_height, MAX_ROW_HEIGHT)
        cols = max(1, min(cols, n))
    rows = math.ceil(n / cols)
    fig, axes = grid(rows, cols, row_height)
    flat = [ax for row in axes for ax in row]
    for ax in flat[n:]:
        ax.axis("off")
    return fig, flat[:n]


def panel_width(fig, ax):
    """Width of an axes in inches (its position in the figure)."""
    return ax.get_position().width * fig.get_size_inches()[0]


def legend_handle(style, kind="both"):
    """A legend handle (Line2D) of a style: line and marker ('both'), the line only ('line') or the marker only ('marker')."""
    from matplotlib.lines import Line2D
    keep = {k: v for k, v in style.items() if k in ("color", "marker", "linestyle",
                                                       "linewidth", "markersize",
                                                       "markerfacecolor", "markeredgecolor")}
    if kind == "line":
        keep.pop("marker", None)
        keep.setdefault("linestyle", "-")
    elif kind == "marker":
        keep["linestyle"] = "none"
    return Line2D([], [], **keep)


def finish(fig, entries=(), pad=0.04):
    """Lays the figure out: the legend entries [(label, style, kind)] as one legend below the
    panels (as many columns as fit the width; the figure grows by the legend's height, the
    panels keep theirs), then tight_layout."""
    entries = list(entries)
    if not entries:
        fig.tight_layout(pad=0.6, h_pad=1.0, w_pad=0.8)
        return
    handles = [legend_handle(style, kind) for _, style, kind in entries]
    labels = [label for label, _, _ in entries]
    w, h = fig.get_size_inches()
    renderer = fig.canvas.get_renderer()
    legend = None
    for ncol in range(min(len(entries), 6), 0, -1):
        if legend is not None:
            legend.remove()
        legend = fig.legend(handles, labels, loc="lower center", bbox_to_anchor=(0.5, 0.0),
                            ncol=ncol, frameon=False)
        if legend.get_window_extent(renderer).width / fig.dpi <= w * 0.98:
            break
    extra = legend.get_window_extent(renderer).height / fig.dpi + pad
    fig.set_size_inches(w, h + extra)
    fig.tight_layout(pad=0.6, h_pad=1.0, w_pad=0.8, rect=(0, extra / (h + extra), 1, 1))


def legend_height(entries, pad=0.04):
    """The height in inches that finish() adds below the panels for these legend entries (0
    without entries), measured on a scratch figure of the current width."""
    entries = list(entries)
    if not entries:
        return 0.0
    with context():
        fig = pyplot().figure(figsize=(width(), 2.0))
        try:
            finish(fig, entries, pad)
            return float(fig.get_size_inches()[1]) - 2.0
        finally:
            pyplot().close(fig)


def add_save_hook(hook):
    """hook(fig, name) runs on every figure just before it is saved (tests inspect the figures
    at print size through it). Returns a function that removes it."""
    _save_hooks.append(hook)
    return lambda: _save_hooks.remove(hook)


def save(fig, out_dir, name):
    """Writes NAME.pdf (vector, without a creation date) and NAME.png (PNG_DPI) at the figure's
    print size, each whole or not at all (cmbench.files.save_figure); returns their paths."""
    for hook in list(_save_hooks):
        hook(fig, name)
    paths = [os.path.join(out_dir, f"{name}.{ext}") for ext in ("pdf", "png")]
    for path in paths:
        # No creation date: the same figure gives the same file (no churn in committed sets).
        save_figure(fig, path, dpi=PNG_DPI,
                    metadata={"CreationDate": None} if path.endswith(".pdf") else None)
    pyplot().close(fig)
    return paths
