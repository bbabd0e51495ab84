#!/usr/bin/env python3
"""Script test (run by ctest): python3 -m cmbench.bench on synthetic Google Benchmark output.

Costs are built as c·nq^s with known s per family and method (one set as repetitions with
median aggregates, one as single iterations), so the fitted slopes must be s (to the 1e-6 the
script prints); an errored
benchmark is left out and named; the per-problem table quotes the given costs; unreadable input
exits with status 2 and writes nothing.

Usage: test_bench_plot.py [SOURCE_DIR]   (defaults to this file's ../)
"""
import json
import os
import re
import subprocess
import sys
import tempfile

SOURCE = (os.path.abspath(sys.argv[1]) if len(sys.argv) > 1
          else os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The figure script as its users run it: the cmbench package on the path, -m cmbench.bench.
SCRIPT = ["-m", "cmbench.bench"]
ENV = dict(os.environ, PYTHONPATH=os.path.join(SOURCE, "python"))
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)


def entry(name, cpu_ns, nq, **extra):
    e = dict(name=name, run_name=name, run_type="iteration", cpu_time=cpu_ns, real_time=cpu_ns,
             time_unit="ns", nq=float(nq))
    e.update(extra)
    return e


SLOPES = {("n_four_bar", "index1"): 1.0, ("n_four_bar", "udwadia_kalaba"): 2.7,
          ("n_pendulum", "gauss_qp"): 1.15}


def synthetic():
    benches = []
    for (family, method), s in SLOPES.items():
        for n in (10, 20, 50, 100):
            nq = 6 * n + 3 if family == "n_four_bar" else 2 * n
            cost = 40.0 * nq ** s
            name = f"scaling/{family}/N={n}/{method}"
            if family == "n_four_bar":  # repetitions: noisy iterations, exact median aggregate
                # (their minimum would bend the slope: the median must be the one used)
                benches.append(entry(name, cost * (2.0 if n == 10 else 1.5), nq))
                benches.append(entry(name, cost * (0.5 if n == 100 else 1.2), nq))
                benches.append(entry(name + "_median", cost, nq, run_type="aggregate",
                                     aggregate_name="median"))
                benches[-1]["run_name"] = name
            else:
                benches.append(entry(name, cost, nq))
    benches.append(entry("rhs/simple_pendulum/index1", 104.0, 2))
    benches.append(entry("rhs/andrews_squeezer/index1", 724.0, 7))
    benches.append(entry("rhs/andrews_squeezer/gauss_qp", 1500.0, 7))
    benches.append({"name": "rhs/bricard/index1", "run_name": "rhs/bricard/index1",
                    "run_type": "iteration", "error_occurred": True,
                    "error_message": "singular"})
    return {"context": {}, "benchmarks": benches}


def main():
    with tempfile.TemporaryDirectory() as tmp:
        bench = os.path.join(tmp, "bench.json")
        with open(bench, "w") as f:
            json.dump(synthetic(), f)
        out = os.path.join(tmp, "out")
        p = subprocess.run([sys.executable, *SCRIPT, bench, "--out", out], capture_output=True,
                           text=True, env=ENV)
        check(p.returncode == 0, f"exit {p.returncode}: {p.stderr}")
        for name in ("bench_scaling.png", "bench_scaling.pdf", "bench_scaling.md", "bench_rhs.md"):
            check(os.path.isfile(os.path.join(out, name)), f"{name} not written")
        fitted = {}
        for line in p.stdout.splitlines():
            m = re.match(r"(\S+)\s+(\S+)\s+slope (\S+)", line)
            if m:
                fitted[(m.group(1), m.group(2))] = float(m.group(3))
        for key, s in SLOPES.items():
            check(key in fitted and abs(fitted[key] - s) < 2e-6,
                  f"slope of {key}: {fitted.get(key)} (expected {s})")
        with open(os.path.join(out, "bench_scaling.md")) as f:
            table = f.read()
        check("| n_four_bar | udwadia_kalaba | 10 … 100 | 63 … 603 |" in table,
              "scaling table row of udwadia_kalaba")
        check("2.70" in table and "1.15" in table, "slopes in the scaling table")
        with open(os.path.join(out, "bench_rhs.md")) as f:
            rhs = f.read()
        check("| andrews_squeezer (7) | 724 ns | 1.5 µs |" in rhs, f"per-problem row: {rhs}")
        check("| simple_pendulum (2) | 104 ns | – |" in rhs, f"missing entries as –: {rhs}")
        check("bricard" not in rhs and "rhs/bricard/index1" in p.stdout,
              "errored benchmark left out and named")

        bad = os.path.join(tmp, "bad.json")
        with open(bad, "w") as f:
            f.write("{not json")
        out_bad = os.path.join(tmp, "out_bad")
        p = subprocess.run([sys.executable, *SCRIPT, bad, "--out", out_bad], capture_output=True,
                           text=True, env=ENV)
        check(p.returncode == 2 and f"bench_plot: {bad}: not valid JSON" in p.stderr,
              f"malformed input: exit {p.returncode}, {p.stderr}")
        check(not os.path.exists(out_bad), "nothing written for malformed input")
    if failures:
        print("\n".join("FAIL: " + f for f in failures))
        return 1
    print("test_bench_plot.py: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
