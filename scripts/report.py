#!/usr/bin/env python3
"""Figures, tables and a Markdown report from a campaign's results directory.

Usage: /usr/bin/python3 scripts/report.py RESULTS_DIR
Writes into RESULTS_DIR: work_precision.{pdf,png}, drift.{pdf,png}, precision_table.md,
precision_table.tex and report.md (linking all of them, with the context block).
"""
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cmbplot  # noqa: E402


def load(results_dir):
    with open(os.path.join(results_dir, "results.json")) as f:
        return json.load(f)


def run_error(run):
    err = (run.get("metrics") or {}).get("error") or {}
    return err.get("final_abs_max")


def run_time(run):
    timing = run.get("timing") or {}
    return timing.get("min_s") if timing.get("min_s") is not None else timing.get("instrumented_s")


def grouped(runs):
    """problem -> (method, stepper) -> [runs]"""
    out = {}
    for run in runs:
        if run.get("status") != "ok":
            continue
        problem = run["problem"]["id"]
        out.setdefault(problem, {}).setdefault((run["method"]["id"], run["stepper"]["id"]), []).append(run)
    return out


def work_precision(doc, results_dir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    groups = grouped(doc["runs"])
    problems = sorted(groups)
    if not problems:
        return []
    cols = min(3, len(problems))
    rows = math.ceil(len(problems) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.6 * rows), squeeze=False)
    steppers = sorted({r["stepper"]["id"] for r in doc["runs"] if "stepper" in r})
    for ax, problem in zip(axes.flat, problems):
        for (method, stepper), runs in sorted(groups[problem].items()):
            points = sorted((run_time(r), run_error(r)) for r in runs
                            if run_time(r) and run_error(r) and run_error(r) > 0)
            if not points:
                continue
            style = cmbplot.style_for(method, stepper, steppers)
            if runs[0]["stepper"].get("kind") == "fixed":
                style["markerfacecolor"] = "none"
            ax.loglog([p[0] for p in points], [p[1] for p in points],
                      label=f"{method} / {stepper}", **style)
        ax.set_title(problem)
        ax.set_xlabel("time per run [s] (min of repetitions)")
        ax.set_ylabel("final error (max abs over outputs)")
        ax.grid(True, which="major", alpha=0.3)
    # One legend for all panels (same method × stepper styles everywhere): in the first unused
    # panel when there is one, else below the panels.
    handles = {}
    for ax in list(axes.flat)[:len(problems)]:
        for h, l in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(l, h)
    spare = list(axes.flat)[len(problems):]
    for ax in spare:
        ax.axis("off")
    if spare:
        spare[0].legend(list(handles.values()), list(handles.keys()), loc="center",
                        fontsize="x-small", ncol=2 if len(handles) > 16 else 1, frameon=False)
        fig.tight_layout()
    else:
        rows_needed = math.ceil(len(handles) / 3)
        fig.legend(list(handles.values()), list(handles.keys()), loc="lower center", ncol=3,
                   fontsize="small", frameon=False)
        fig.tight_layout(rect=(0, min(0.5, 0.02 * rows_needed + 0.02), 1, 1))
    return save(fig, results_dir, "work_precision")


def drift(doc, results_dir):
    """Constraint residual over time (positions; velocities for problems with no holonomic
    rows): per problem, the most accurate run of each method."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    groups = grouped(doc["runs"])
    problems = sorted(groups)
    if not problems:
        return []
    cols = 2 if len(problems) > 1 else 1
    rows = math.ceil(len(problems) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(6.0 * cols, 3.2 * rows), squeeze=False)
    for ax in list(axes.flat)[len(problems):]:
        ax.axis("off")
    for ax, problem in zip(axes.flat, problems):
        best = {}
        for (method, _), runs in groups[problem].items():
            for r in runs:
                e = run_error(r)
                if e is not None and (method not in best or e < run_error(best[method])):
                    best[method] = r
        holonomic = any(r["problem"]["sizes"]["mh"] > 0 for r in best.values())
        residual = "position_residual" if holonomic else "velocity_residual"
        for method, run in sorted(best.items()):
            csv = os.path.join(results_dir, "series", series_name(doc, run) + ".csv")
            if not os.path.exists(csv):
                continue
            column = cmbplot.read_series(csv)
            t = column("t")[1:]
            phi = [max(abs(v), 1e-18) for v in column(residual)[1:]]
            style = dict(cmbplot.METHOD_STYLE.get(method, cmbplot.FALLBACK_STYLE))
            style["markevery"] = max(1, len(t) // 10)
            ax.semilogy(t, phi, label=f"{method} ({run['stepper']['id']})", **style)
        ax.set_title(problem)
        ax.set_xlabel("time t [s]")
        ax.set_ylabel("max |Φ_i|" if holonomic else "max |ψ_i| (velocity rows)")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="x-small", ncol=2)
    fig.tight_layout()
    return save(fig, results_dir, "drift")


def series_name(doc, run):
    """The series file of a run (same stem as its record: problem__method__stepper__hash)."""
    return doc["_stems"].get(run["key"], "")


def save(fig, results_dir, name):
    import matplotlib.pyplot as plt
    paths = [os.path.join(results_dir, f"{name}.{ext}") for ext in ("pdf", "png")]
    for p in paths:
        fig.savefig(p, dpi=150)
    plt.close(fig)
    return paths


def precision_tables(doc):
    """Cheapest configuration of each method reaching each accuracy (IFToMM-style)."""
    levels = [1e-3, 1e-6]
    rows = []
    for problem, by_config in sorted(grouped(doc["runs"]).items()):
        methods = sorted({m for m, _ in by_config})
        for method in methods:
            cells = []
            for level in levels:
                candidates = [r for (m, _), runs in by_config.items() if m == method for r in runs
                              if run_error(r) is not None and run_error(r) <= level and run_time(r)]
                best = min(candidates, key=run_time) if candidates else None
                cells.append(best)
            rows.append((problem, method, cells))
    md = ["| problem | method | " + " | ".join(f"cheapest to {l:g}" for l in levels) + " |",
          "|---|---|" + "---|" * len(levels)]
    tex = [r"\begin{tabular}{ll" + "l" * len(levels) + "}", r"\toprule",
           "problem & method & " + " & ".join(f"to ${l:g}$" for l in levels) + r" \\", r"\midrule"]
    for problem, method, cells in rows:
        def text(r):
            if r is None:
                return "not reached"
            s = r["stepper"]
            setting = f"dt={s['dt']:g}" if s.get("kind") == "fixed" else f"tol={s['rel_tol']:g}"
            return f"{s['id']} {setting}: {run_time(r):.3g} s"
        md.append(f"| {problem} | {method} | " + " | ".join(text(r) for r in cells) + " |")
        tex.append(f"{problem.replace('_', chr(92) + '_')} & {method.replace('_', chr(92) + '_')} & "
                   + " & ".join(text(r).replace("_", "\\_") for r in cells) + r" \\")
    tex += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(md) + "\n", "\n".join(tex) + "\n"


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    results_dir = sys.argv[1]
    doc = load(results_dir)
    doc["_stems"] = {}
    runs_dir = os.path.join(results_dir, "runs")
    for name in os.listdir(runs_dir):
        with open(os.path.join(runs_dir, name)) as f:
            doc["_stems"][json.load(f)["key"]] = name[:-5]
    figures = work_precision(doc, results_dir) + drift(doc, results_dir)
    md_table, tex_table = precision_tables(doc)
    with open(os.path.join(results_dir, "precision_table.md"), "w") as f:
        f.write(md_table)
    with open(os.path.join(results_dir, "precision_table.tex"), "w") as f:
        f.write(tex_table)
    summary = cmbplot.summary_table([(r["key"], r) for r in doc["runs"]])
    ctx = doc.get("context", {})
    report = [f"# cmbench report: campaign `{doc['campaign']}`", "",
              f"Built from `{ctx.get('git_sha')}` ({ctx.get('build_type')}, {ctx.get('compiler')}, "
              f"{ctx.get('flags')}) on {ctx.get('cpu')} ({ctx.get('hardware_threads')} threads), "
              f"{ctx.get('date')}.", ""]
    for path in figures:
        if path.endswith(".png"):
            name = os.path.basename(path)
            report += [f"![{name}]({name})", ""]
    report += ["## Cheapest configuration reaching each accuracy", "", md_table,
               "LaTeX: [precision_table.tex](precision_table.tex)", "",
               "## All runs", "", summary, ""]
    with open(os.path.join(results_dir, "report.md"), "w") as f:
        f.write("\n".join(report))
    print(f"report: {os.path.join(results_dir, 'report.md')} ({len(figures)} figure files)")


if __name__ == "__main__":
    main()
