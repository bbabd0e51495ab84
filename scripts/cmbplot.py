"""Shared helpers for cmbench's scripts: reading run records, tables and figures.

Figures use one colour and marker per method everywhere, and line styles that stay apart in
grayscale.
"""
import csv
import math
import os

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


def drift_figures(records, series_dir, out_dir):
    """Position residual and energy error over time for the long pendulum runs (rk4)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    chosen = [(n, r) for n, r in records
              if r["problem"]["id"] == "simple_pendulum" and r["stepper"]["id"] == "rk4"
              and r["status"] == "ok"]
    if not chosen:
        return []
    fig, (ax_phi, ax_e) = plt.subplots(2, 1, figsize=(6.4, 5.6), sharex=True)
    for name, r in chosen:
        column = read_series(os.path.join(series_dir, name + ".csv"))
        method = r["method"]["id"]
        style = dict(METHOD_STYLE.get(method, FALLBACK_STYLE))
        style["markevery"] = max(1, len(column("t")) // 12)
        # The t = 0 sample is exactly consistent (zero residual): leave it off the log axes.
        t = column("t")[1:]
        ax_phi.semilogy(t, [abs(v) for v in column("position_residual")[1:]], label=method, **style)
        ax_e.semilogy(t, [abs(v) for v in column("energy_error")[1:]], label=method, **style)
    ax_phi.set_ylabel(r"position residual max$_i|\Phi_i|$ [m$^2$]")
    ax_e.set_ylabel(r"energy error $|E-E_0|$ [J]")
    ax_e.set_xlabel("time t [s]")
    ax_phi.set_title("IFToMM A01 pendulum, RK4, dt = 1 ms")
    for ax in (ax_phi, ax_e):
        ax.grid(True, which="major", alpha=0.3)
        ax.legend()
    fig.tight_layout()
    paths = [os.path.join(out_dir, "pendulum_drift." + ext) for ext in ("pdf", "png")]
    for p in paths:
        fig.savefig(p, dpi=150)
    plt.close(fig)
    return paths
