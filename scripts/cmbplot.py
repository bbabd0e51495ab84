"""Shared helpers for cmbench's scripts: reading run records, tables and figures.

Figures use one colour and marker per method everywhere, and line styles that stay apart in
grayscale.
"""
import csv
import math

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
FALLBACK_STYLE = {"color": "#7f7f7f", "marker": "^", "linestyle": ":"}
STEPPER_LINES = ["-", "--", "-.", ":", (0, (5, 1)), (0, (3, 1, 1, 1))]


def style_for(method, stepper, steppers):
    """Colour and marker by method; line style by stepper (its index in `steppers`), hollow
    markers for fixed-step steppers, so method × stepper lines stay apart in grayscale too."""
    style = dict(METHOD_STYLE.get(method, FALLBACK_STYLE))
    index = sorted(steppers).index(stepper) if stepper in steppers else 0
    style["linestyle"] = STEPPER_LINES[index % len(STEPPER_LINES)]
    return style


def fmt(value, spec=".2e"):
    return "–" if value is None else format(value, spec)


def summary_table(records):
    """Markdown table, one row per run record."""
    lines = ["| run | status | final error | scd | max ‖Φ‖ | max ‖ψ‖ | max |E−E0| | RHS calls | min time [s] |",
             "|---|---|---|---|---|---|---|---|---|"]
    for name, r in records:
        m = r.get("metrics") or {}
        err = m.get("error") or {}
        drift = m.get("drift") or {}
        energy = m.get("energy") or {}
        lines.append("| `{}` | {} | {} | {} | {} | {} | {} | {} | {} |".format(
            r["key"], r["status"], fmt(err.get("final_abs_max")), fmt(err.get("scd"), ".2f"),
            fmt((drift.get("position") or {}).get("max")),
            fmt((drift.get("velocity") or {}).get("max")),
            fmt(energy.get("max_abs")), (r.get("work") or {}).get("rhs_calls", "–"),
            fmt((r.get("timing") or {}).get("min_s"), ".3g")))
    return "\n".join(lines)


def read_series(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    def column(name):
        return [float(row[name]) if row[name] != "" else math.nan for row in rows]
    return column
