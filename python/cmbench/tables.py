"""The report's tables: the cheapest configuration of each method reaching each accuracy
(precision_table, IFToMM-style) and the constraint drift and energy error of the runs the drift
and energy figures draw (drift_energy_table), each written as Markdown and LaTeX (booktabs).
"""
import os

from . import plot, results
from .files import write_atomic
from .figures import runs

LEVELS = [1e-3, 1e-6]
# The clocks a run's time may come from (results.flatten's time_clock), best first.
CLOCKS = ["cpu", "wall", "instrumented"]


def configuration(r):
    """'stepper setting', prefixed by the method variant when it has non-default parameters."""
    text = f"{r['stepper']} {r['setting']}"
    return text if r["method_label"] == r["method"] else f"{r['method_label']}, {text}"


def precision_table(rows):
    """Cheapest configuration of each method reaching each accuracy (IFToMM-style): per problem
    case (perturbed and unperturbed runs apart) and method, the successful run of least time
    whose final error is at most the level: its thread's CPU time where the records have it (the
    minimum of its timed repetitions, one run at a time), else its wall time. Within a case only
    times of one clock are compared, the best one its runs have: a run whose timing did not
    complete (its instrumented wall time only) does not compete with CPU times."""
    header = ["problem", "method"] + [f"cheapest to {level:g}" for level in LEVELS]
    body = []
    ok = runs.ok(rows)
    for case, problem in results.case_labels(rows).items():
        mine = [r for r in ok if r["case_key"] == case and r["time"]]
        clocks = {r["time_clock"] for r in mine}
        clock = next((c for c in CLOCKS if c in clocks), None)
        for method in sorted({r["method"] for r in mine}):
            cells = []
            for level in LEVELS:
                reached = [r for r in mine if r["method"] == method and r["time_clock"] == clock
                           and r["final_error"] is not None and r["final_error"] <= level]
                best = min(reached, key=lambda r: r["time"]) if reached else None
                cells.append("not reached" if best is None
                             else f"{configuration(best)}: {best['time']:.3g} s")
            body.append([problem, method] + cells)
    return header, body


DRIFT_ENERGY_HEADER = ["problem", "method", "configuration", "final error", "max ‖Φ‖",
                       "max ‖ψ‖", "max |E−E0|", "max |E−E0|/|E0|", "RHS calls"]


def drift_energy_table(rows):
    """The runs of the drift and energy figures (one per problem case and method), with their
    constraint drift and energy error."""
    body = []
    for case, problem in results.case_labels(rows).items():
        reps, _ = runs.representatives(rows, case)
        for method, r in sorted(reps.items(), key=lambda kv: plot.method_order(kv[0])):
            body.append([problem, method, configuration(r), plot.fmt(r["final_error"]),
                         plot.fmt(r["drift_position_max"]), plot.fmt(r["drift_velocity_max"]),
                         plot.fmt(r["energy_max_abs"]), plot.fmt(r["energy_max_rel"]),
                         "–" if r["rhs_calls"] is None else str(r["rhs_calls"])])
    return DRIFT_ENERGY_HEADER, body


def write(results_dir, name, text):
    """Writes text to results_dir/name, whole or not at all (write_atomic)."""
    write_atomic(os.path.join(results_dir, name), text)


def write_tables(rows, results_dir):
    """Writes the Markdown and booktabs tables; returns their entries for the report."""
    out = []
    for name, title, (header, body) in [
            ("precision_table", "Cheapest configuration reaching each accuracy (CPU time, "
                                "minimum of the repetitions, where recorded)",
             precision_table(rows)),
            ("drift_energy_table", "Constraint drift and energy error",
             drift_energy_table(rows))]:
        write(results_dir, f"{name}.md", plot.markdown_table(header, body))
        write(results_dir, f"{name}.tex", plot.booktabs_table(header, body))
        out.append({"title": title, "md": f"{name}.md", "tex": f"{name}.tex", "header": header,
                    "rows": body})
    return out
