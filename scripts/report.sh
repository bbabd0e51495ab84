#!/usr/bin/env bash
# Report of a results directory (figures, tables, report.md/.html): bash scripts/report.sh DIR
# [--width single|double] [--names FILE] [--series-from RERUN_DIR] [--quiet] (docs/report.md).
# The same as `PYTHONPATH=python /usr/bin/python3 -m cmbench.report DIR ...` from the repository
# root; the report itself prints the path of report.md (once) and its progress on stderr.
python_dir="$(cd "$(dirname "$0")/../python" && pwd)"
PYTHONPATH="${python_dir}${PYTHONPATH:+:$PYTHONPATH}" exec /usr/bin/python3 -m cmbench.report "$@"
