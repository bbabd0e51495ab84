#!/usr/bin/env bash
# Rewrites every generated page and table after an entry was added or changed: the method,
# problem and integrator pages (docs/<kind>/<id>.md) from the source headers, the capability
# table of docs/methods.md, the README's table of entries and the display names and units the
# figures use (python/cmbench/entries.json) from the catalog of the built
# executable, the bad-input page, the JSON schema page, the Python API page and the measured
# numbers of the docs (cmbench.docs.numbers, without the slow ones). The ctests named
# *_is_current / docs_pages_are_current check the same things; this command makes them pass.
# Usage: scripts/regenerate_docs.sh [CMBENCH]   (default: build/cmbench, brought up to date first)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -ge 1 ]; then
  cmbench="$1"
  [ -x "$cmbench" ] || { echo "regenerate_docs: no cmbench executable at $cmbench" >&2; exit 2; }
else
  cmbench=build/cmbench
  bash scripts/build.sh cmbench  # incremental: the tables must come from the entries as they are
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
echo "regenerate_docs: pages and tables written; review them with git diff"
