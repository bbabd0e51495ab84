#!/usr/bin/env bash
# Brings everything an added or changed entry makes stale up to date, in one command: rebuilds
# the command line and the Python module (build/cmbench, build/python), reinstalls the package
# into the active virtual environment when cmbench is installed there (pip), then rewrites every
# generated page and table: the method, problem and integrator pages (docs/<kind>/<id>.md) from
# the source headers, the capability table of docs/methods.md, the README's table of entries and
# the display names and units the figures use (python/cmbench/entries.json) from the catalog of
# the built executable, the bad-input page, the JSON schema page, the Python API page and the
# measured numbers of the docs (cmbench.docs.numbers, without the slow ones). The ctests named
# *_is_current / docs_pages_are_current check the same things; this command makes them pass.
# Usage: scripts/regenerate_docs.sh [CMBENCH]   (default: build/cmbench, brought up to date first;
# with CMBENCH given, nothing is built or installed)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -ge 1 ]; then
  cmbench="$1"
  [ -x "$cmbench" ] || { echo "regenerate_docs: no cmbench executable at $cmbench" >&2; exit 2; }
else
  cmbench=build/cmbench
  # Incremental: the tables must come from the entries as they are, and the module must know them.
  targets=(cmbench)
  if grep -q '^CMB_PYTHON_MODULE:BOOL=ON' build/CMakeCache.txt 2>/dev/null ||
     [ ! -f build/CMakeCache.txt ]; then targets+=(cmb_python_core); fi
  bash scripts/build.sh "${targets[@]}"
  install_into_venv=1
fi
run() { PYTHONPATH=python /usr/bin/python3 -m "$@"; }
run cmbench.docs.pages
run cmbench.docs.capability_table --cmbench "$cmbench" --write
run cmbench.docs.catalog_table --cmbench "$cmbench" --write
run cmbench.docs.entry_names --cmbench "$cmbench" --write
run cmbench.docs.bad_input_table "$cmbench" --write
run cmbench.docs.schema_page --write
run cmbench.docs.settings_table --write
run cmbench.docs.api_page --write
# Measured numbers last: the drift table of docs/methods.md has a row per method.
run cmbench.docs.numbers --cmbench "$cmbench" --write
# Last, so that the package installed carries the entries file written above.
if [ "${install_into_venv:-0}" = 1 ] && [ -n "${VIRTUAL_ENV:-}" ] && [ -x "$VIRTUAL_ENV/bin/pip" ] &&
   "$VIRTUAL_ENV/bin/pip" show --quiet cmbench >/dev/null 2>&1; then
  echo "regenerate_docs: reinstalling cmbench into $VIRTUAL_ENV (the build above is reused)"
  "$VIRTUAL_ENV/bin/pip" install --no-build-isolation --no-index --quiet .
fi
echo "regenerate_docs: pages and tables written; review them with git diff"
