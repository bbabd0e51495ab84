#!/usr/bin/env python3
"""Main job until campaigns arrive (issue #5): runs every configuration of campaigns/demo.json
through `cmbench run`, then writes a Markdown summary and drift/energy figures.

Usage: scripts/run_demo.py [--cmbench build/cmbench] [--campaign campaigns/demo.json]
                           [--out results/demo]
"""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cmbplot  # noqa: E402


def cli_args(run):
    args = ["run", "--problem", run["problem"], "--method", run["method"],
            "--stepper", run["stepper"]]
    if "dt" in run:
        args += ["--dt", repr(run["dt"])]
    if "tol" in run:
        args += ["--tol", repr(run["tol"])]
    for scope in ("problem", "method"):
        for key, value in run.get(scope + "_params", {}).items():
            args += ["--param", f"{scope}.{key}={json.dumps(value)}"]
    return args


def slug(index, run):
    return f"{index:02d}_{run['problem']}_{run['method']}_{run['stepper']}"


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cmbench", default="build/cmbench")
    parser.add_argument("--campaign", default="campaigns/demo.json")
    parser.add_argument("--out", default="results/demo")
    opts = parser.parse_args()

    with open(opts.campaign) as f:
        campaign = json.load(f)
    os.makedirs(os.path.join(opts.out, "runs"), exist_ok=True)
    os.makedirs(os.path.join(opts.out, "series"), exist_ok=True)
    records = []
    for index, run in enumerate(campaign["runs"]):
        name = slug(index, run)
        json_path = os.path.join(opts.out, "runs", name + ".json")
        csv_path = os.path.join(opts.out, "series", name + ".csv")
        args = [opts.cmbench] + cli_args(run) + [
            "--repeat", str(campaign.get("repeat", 3)), "--out", json_path, "--series", csv_path]
        done = subprocess.run(args, capture_output=True, text=True)
        if done.returncode == 2:
            sys.exit(f"demo run {name} was rejected:\n{done.stderr}")
        print(done.stdout.strip().splitlines()[0])
        with open(json_path) as f:
            records.append((name, json.load(f)))

    summary = cmbplot.summary_table(records)
    with open(os.path.join(opts.out, "summary.md"), "w") as f:
        f.write("# cmbench demo results\n\n" + summary + "\n")
    figures = cmbplot.drift_figures(records, os.path.join(opts.out, "series"), opts.out)
    print(f"\nwrote {len(records)} run records, {os.path.join(opts.out, 'summary.md')} and "
          + ", ".join(figures))


if __name__ == "__main__":
    main()
