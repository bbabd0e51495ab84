"""Cost of one RHS call from cmb_bench's Google Benchmark JSON: figure and tables.

Reads one or more files written with --benchmark_out=FILE --benchmark_out_format=json and
writes to --out DIR:
  bench_scaling.{pdf,png}  cost per RHS call against the number of coordinates nq, log-log, one
                           panel per problem family (benchmarks scaling/FAMILY/N=n/METHOD),
                           least-squares log-log slope per method in the legend, slope-1 guide;
  bench_scaling.md         family, method, N and nq range, cost at both ends, fitted slope;
  bench_rhs.md             cost per call for every problem (rhs/PROBLEM/METHOD) × method.
With repetitions the median aggregate is used; benchmarks that reported an error (a method
that refuses a problem) are left out and listed. CPU time is used throughout.

Usage: python3 -m cmbench.bench BENCH.json [BENCH.json ...] --out DIR   (PYTHONPATH=python)
Exit status: 0 written, 2 unreadable or empty input (read by cmbench.files.read_json; one line on
stderr naming the file), 1 a file that could not be written (each is written whole or not at
all).
"""
import argparse
import os
import sys

from . import plot
from .files import InputFileError, exit_status, read_json, write_atomic

UNIT_SECONDS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def read_costs(paths):
    """{run_name: (seconds per call, nq)} plus the names of errored benchmarks. The median
    aggregate wins over single iterations of the same run."""
    costs, medians, errored = {}, {}, []
    for path in paths:
        doc = read_json(path, "Google Benchmark JSON")
        entries = doc.get("benchmarks") if isinstance(doc, dict) else None
        if not isinstance(entries, list):
            raise InputFileError(path, "not a Google Benchmark JSON file (no 'benchmarks' list)")
        for b in entries:
            name = b.get("run_name", b.get("name", ""))
            if b.get("error_occurred"):
                errored.append(name)
                continue
            if b.get("time_unit") not in UNIT_SECONDS or "cpu_time" not in b:
                continue
            seconds = b["cpu_time"] * UNIT_SECONDS[b["time_unit"]]
            if b.get("run_type") == "aggregate":
                if b.get("aggregate_name") == "median":
                    medians[name] = (seconds, int(b.get("nq", 0)))
            else:  # repetitions without aggregates: keep the smallest
                previous = costs.get(name)
                if previous is None or seconds < previous[0]:
                    costs[name] = (seconds, int(b.get("nq", 0)))
    costs.update(medians)
    if not costs:
        raise InputFileError(", ".join(paths), "no timed benchmarks")
    return costs, sorted(set(errored))


def split(costs):
    """Scaling points {family: {method: [(N, nq, seconds)]}} and per-problem costs
    {problem: {method: (seconds, nq)}}."""
    scaling, per_problem = {}, {}
    for name, (seconds, nq) in costs.items():
        parts = name.split("/")
        if parts[0] == "scaling" and len(parts) == 4 and parts[2].startswith("N="):
            scaling.setdefault(parts[1], {}).setdefault(parts[3], []).append(
                (int(parts[2][2:]), nq, seconds))
        elif parts[0] == "rhs" and len(parts) == 3:
            per_problem.setdefault(parts[1], {})[parts[2]] = (seconds, nq)
    for by_method in scaling.values():
        for points in by_method.values():
            points.sort()
    return scaling, per_problem


def duration(seconds):
    """A time in seconds written with three significant digits in s, ms, µs or ns."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def scaling_figure(scaling, out_dir):
    """Draws the figure, returns (table rows, {(family, method): slope})."""
    fig, axes, _ = plot.panels(len(scaling), 2, 5.0, 5.2)
    rows, slopes = [], {}
    for ax, (family, by_method) in zip(axes, sorted(scaling.items())):
        for method, pts in sorted(by_method.items(), key=lambda kv: plot.method_order(kv[0])):
            nq = [p[1] for p in pts]
            cost = [p[2] for p in pts]
            fit = plot.loglog_fit(nq, cost)
            slope = fit[0] if fit else None
            slopes[(family, method)] = slope
            label = method if slope is None else f"{method}: slope {slope:.2f}"
            ax.loglog(nq, cost, label=label, **plot.method_style(method))
            rows.append([family, method, f"{pts[0][0]} … {pts[-1][0]}", f"{nq[0]} … {nq[-1]}",
                         duration(cost[0]), duration(cost[-1]), plot.fmt(slope, ".2f")])
        all_nq = sorted({p[1] for pts in by_method.values() for p in pts})
        guide = min(p[2] for pts in by_method.values() for p in pts) / 3  # below the data
        ax.loglog([all_nq[0], all_nq[-1]], [guide, guide * all_nq[-1] / all_nq[0]],
                  color="0.5", linewidth=1.0, linestyle=":", label="slope 1 (guide)")
        ax.set_title(family)
        ax.set_xlabel("coordinates nq")
        ax.set_ylabel("CPU time per RHS call [s]")
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize="x-small", loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2,
                  frameon=False)
    fig.tight_layout()
    plot.save(fig, out_dir, "bench_scaling")
    return rows, slopes


def per_problem_table(per_problem):
    """The Markdown table of cost per RHS call, one row per problem (with its nq) and one column
    per method."""
    methods = sorted({m for by in per_problem.values() for m in by}, key=plot.method_order)
    rows = []
    for problem, by_method in sorted(per_problem.items()):
        nq = next(iter(by_method.values()))[1]
        rows.append([f"{problem} ({nq})"] +
                    [duration(by_method[m][0]) if m in by_method else "–" for m in methods])
    return plot.markdown_table(["problem (nq)"] + methods, rows)


def main(argv):
    """Command line: reads the Google Benchmark JSON files of cmb_bench and writes the figure
    and tables into --out. Returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("inputs", nargs="+", help="Google Benchmark JSON files of cmb_bench")
    parser.add_argument("--out", required=True, help="directory for the figure and tables")
    return exit_status("bench_plot", plot_costs, parser.parse_args(argv))


def plot_costs(args):
    """Reads the benchmark files named in args.inputs and writes the scaling figure,
    bench_scaling.md and bench_rhs.md into args.out, printing the fitted log-log slopes."""
    costs, errored = read_costs(args.inputs)
    os.makedirs(args.out, exist_ok=True)
    scaling, per_problem = split(costs)
    if scaling:
        rows, slopes = scaling_figure(scaling, args.out)
        header = ["family", "method", "N", "nq", "cost at smallest", "cost at largest",
                  "log-log slope"]
        write_atomic(os.path.join(args.out, "bench_scaling.md"), plot.markdown_table(header, rows))
        for (family, method), slope in sorted(slopes.items()):
            print(f"{family:12s} {method:24s} slope {plot.fmt(slope, '.6f')}")
    if per_problem:
        write_atomic(os.path.join(args.out, "bench_rhs.md"), per_problem_table(per_problem))
    if errored:
        print(f"left out ({len(errored)} reported an error, e.g. a refused problem): "
              + ", ".join(errored[:5]) + (" …" if len(errored) > 5 else ""))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
