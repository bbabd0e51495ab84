"""The long-horizon figure: how each run's energy error grows over many periods, log–log, with
the fitted growth rate (docs/report.md, "Energy growth").

A problem case qualifies when its runs sample at least LONG_HORIZON_SAMPLES intervals (three
decades of time on the log axis); shorter campaigns skip the figure. The curve of a run is the
running maximum of |E − E0| over its samples — the envelope of the oscillating error, which a
bounded error reaches early and a drifting one keeps raising — and its growth rate is the
least-squares slope of log(envelope) against log t over the last FIT_DECADES decades of the run.
A slope below BOUNDED_SLOPE reads "bounded"; 1 is a linear drift. Same conventions as
figures.runs: functions take results.flatten rows and the results directory, return a result
dict, raise plot.Skipped without data.
"""
import numpy as np

from .. import names, plot, rerun, style
from ..files import write_atomic
from ..plot import Skipped
from . import pages
from .runs import method_entries, result

LONG_HORIZON_SAMPLES = 1000
FIT_DECADES = 1  # the last decade: a bounded error may need 10³ periods to reach its band
FIT_POINTS = 21  # log-spaced times the envelope is read at for the fit
BOUNDED_SLOPE = 0.1
ENVELOPE_FLOOR = 1e-16  # drawn below this (an exact invariant would have no log)


def envelope(energy_error):
    """Running maximum of |E − E0| (NaN samples, after a failure, count as nothing)."""
    values = np.abs(np.asarray(energy_error, dtype=float))
    return np.maximum.accumulate(np.where(np.isfinite(values), values, 0.0))


def growth_slope(t, energy_error, decades=FIT_DECADES):
    """Log–log slope of the envelope against t over [t_last·10^-decades, t_last], read at
    FIT_POINTS log-spaced times (each the envelope at the last sample at or before it), or None
    when the samples do not span the window or the envelope is zero in it."""
    t = np.asarray(t, dtype=float)
    env = envelope(energy_error)
    keep = t > 0
    t, env = t[keep], env[keep]
    if len(t) < 2:
        return None
    start = t[-1] * 10.0 ** -decades
    if t[0] > start:
        return None
    grid = np.geomspace(start, t[-1], FIT_POINTS)
    at = env[np.searchsorted(t, grid, side="right") - 1]
    if np.any(at <= 0):
        return None
    fit = plot.loglog_fit(grid, at)
    return fit[0] if fit else None


def growth_text(slope):
    """'bounded' below BOUNDED_SLOPE, else the power of t."""
    if slope is None:
        return "–"
    return "bounded" if slope < BOUNDED_SLOPE else f"grows ~ t^{slope:.2f}"


def _long(data):
    """Whether a series has an energy error sampled over at least LONG_HORIZON_SAMPLES
    intervals."""
    return "energy_error" in data and len(data["t"]) - 1 >= LONG_HORIZON_SAMPLES


def long_cases(rows, results_dir):
    """case label -> [(row, series)] of every run of the cases where some run has an energy
    error sampled over at least LONG_HORIZON_SAMPLES intervals, in method order. A run that
    failed (a shorter series, or none: {}) stays in its case, so the table shows its status."""
    cases = {}
    for r in sorted(rows, key=lambda r: (r["case_key"], plot.method_order(r["method"]))):
        data = (rerun.series(results_dir, r) or {}) if r["has_energy"] else {}
        cases.setdefault(r["case_key"], []).append((r, data))
    return {case: runs for case, runs in cases.items() if any(_long(d) for _, d in runs)}


HEADER = ["problem", "method", "stepper", "step [s]", "status", "t reached [s]", "RHS calls",
          "max |E − E0|", "slope (last decade)" if FIT_DECADES == 1 else f"slope (last {FIT_DECADES} decades)", "growth", "max |Φ|"]


def table_row(r, data):
    """A run's row of the growth table (HEADER): what ran, how far, its work, its energy error and
    growth rate, its largest position drift."""
    slope = growth_slope(data["t"], data["energy_error"]) if "energy_error" in data else None
    return [names.problem(r["problem"]), names.method(r["method"]), names.stepper(r["stepper"]),
            plot.fmt(r["dt"], "g"), r["status"], plot.fmt(r["t_reached"], ".6g"),
            plot.fmt(r["rhs_calls"], "d"), plot.fmt(r["energy_max_abs"]),
            plot.fmt(slope, ".3f"), growth_text(slope), plot.fmt(r["drift_position_max"])]


def _draw_panel(ax, picked, title_width):
    for r, data in picked:
        if "energy_error" not in data or len(data["t"]) < 2:
            continue
        t = np.asarray(data["t"], dtype=float)
        env = envelope(data["energy_error"])
        keep = t > 0
        line_style = dict(plot.method_style(r["method"]), markevery=0.1)  # evenly on the log axis
        ax.loglog(t[keep], np.maximum(env[keep], ENVELOPE_FLOOR), **line_style)
    first = picked[0][0]
    ax.set_title(style.fit_lines([names.problem_label(first["problem_label"]),
                                  f"t_end = {first['t_end']:g} s"],
                                 title_width))
    ax.set_xlabel("t [s]")
    ax.set_ylabel("max |E − E0| up to t [J]")
    ax.grid(True, which="major", alpha=0.3)


@style.figure_function
def energy_growth(rows, results_dir, name="energy_growth", out_dir=None):
    """The energy error's envelope against t (log–log), a panel per long problem case, a line
    per run, and the table of fitted growth rates (energy_growth_table.md)."""
    cases = long_cases(rows, results_dir)
    if not cases:
        raise Skipped(f"no run of a problem with an energy invariant sampled over at least "
                      f"{LONG_HORIZON_SAMPLES} intervals")
    labels = list(cases)
    cols = min(len(labels), style.max_columns(2.2))
    row_height = 0.85 * style.width() / cols
    if cols == 1:
        row_height = min(row_height, style.MAX_ROW_HEIGHT)
    title_width = style.width() / cols - 0.55
    entries = method_entries(r["method"] for picked in cases.values() for r, d in picked if d)

    def draw(units):
        fig, axes = style.flow(len(units), cols, row_height, keep_columns=True)
        for ax, case in zip(axes, units):
            _draw_panel(ax, cases[case], title_width)
        style.finish(fig, entries)
        return fig

    per_page = pages.units_per_page(row_height, cols, reserve=style.legend_height(entries) + 0.1)
    out = out_dir or results_dir
    files, page_units = pages.save_pages(labels, per_page, draw, out, name)
    table = [table_row(r, data) for picked in cases.values() for r, data in picked]
    table_name = f"{name}_table.md"
    write_atomic(f"{out}/{table_name}", plot.markdown_table(HEADER, table))
    slopes = {r["key"]: growth_slope(data["t"], data["energy_error"])
              for picked in cases.values() for r, data in picked if "energy_error" in data}
    return result(name, "Energy error over many periods",
                  "Running maximum of the energy error |E − E0| over [0, t] against t (log–log), "
                  f"a panel per problem case sampled over at least {LONG_HORIZON_SAMPLES} "
                  "intervals, a line per run (a run that failed ends where it stopped). The table "
                  "lists every run of those cases with its status and gives its growth rate: the least-squares slope of the logarithm of that "
                  f"maximum against log t over the last {FIT_DECADES} decades of the run, read at "
                  f"{FIT_POINTS} log-spaced times; below {BOUNDED_SLOPE:g} it reads 'bounded', 1 "
                  "is a linear drift." + pages.caption(len(page_units)), files,
                  [{"title": "Energy growth", "md": table_name, "tex": None, "header": HEADER,
                    "rows": table}],
                  data=slopes)
