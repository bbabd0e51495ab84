#!/usr/bin/env python3
"""Script test (run by ctest): on the smoke campaign's results, scripts/report.py writes
non-empty PDF and PNG figures, tables holding the values of the JSON, and a report linking
every figure. Usage: test_report.py CMBENCH_BINARY SOURCE_DIR"""
import json
import os
import subprocess
import sys
import tempfile


def main():
    cmbench, source = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "smoke")
        subprocess.run([cmbench, "campaign", os.path.join(source, "campaigns", "smoke.json"),
                        "--jobs", "2", "--out", out], check=True, capture_output=True)
        subprocess.run(["/usr/bin/python3", os.path.join(source, "scripts", "report.py"), out],
                       check=True, capture_output=True)
        failures = []
        for name in ("work_precision", "drift"):
            for ext in ("pdf", "png"):
                path = os.path.join(out, f"{name}.{ext}")
                if not os.path.exists(path) or os.path.getsize(path) < 1000:
                    failures.append(f"{name}.{ext} missing or empty")
        report = open(os.path.join(out, "report.md")).read()
        for figure in ("work_precision.png", "drift.png", "precision_table.tex"):
            if f"({figure})" not in report:
                failures.append(f"report.md does not link {figure}")
        # Every run key appears in the report's run table, and the precision table quotes the
        # minimum time of the run it names.
        doc = json.load(open(os.path.join(out, "results.json")))
        for run in doc["runs"]:
            if run["key"] not in report:
                failures.append(f"report.md lacks run {run['key']}")
        table = open(os.path.join(out, "precision_table.md")).read()
        quoted = [r for r in doc["runs"] if r["timing"]["min_s"] is not None
                  and f"{r['timing']['min_s']:.3g} s" in table]
        if not quoted:
            failures.append("precision_table.md quotes no run time from results.json")
        tex = open(os.path.join(out, "precision_table.tex")).read()
        if "\\toprule" not in tex or "\\bottomrule" not in tex:
            failures.append("precision_table.tex is not a booktabs table")
        if failures:
            print("\n".join(failures))
            return 1
        print("report: 1 passed, 0 failed")
        return 0


if __name__ == "__main__":
    sys.exit(main())
