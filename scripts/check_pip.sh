#!/usr/bin/env bash
# CI check of `pip install .`: installs the checkout into a fresh virtual environment (Debian's
# python3 -m venv --system-site-packages, no package index), then runs the README's Python
# example and the example notebook with that environment's Python, from outside the checkout,
# and the installed entry points `cmbench` and `cmbench-report`.
# The CMake build directory is CMB_BUILD_DIR (default ./build, as scripts/test.sh leaves it), so
# after the test suite the install rebuilds nothing but what the Python changes.
# Usage: scripts/check_pip.sh [WORK_DIR]   (default: a new temporary directory, removed after)
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
work="${1:-$(mktemp -d)}"
[ $# -ge 1 ] || trap 'rm -rf "$work"' EXIT
venv="$work/venv"
/usr/bin/python3 -m venv --system-site-packages "$venv"
SECONDS=0
CMB_BUILD_DIR="${CMB_BUILD_DIR:-$root/build}" "$venv/bin/pip" install --no-build-isolation \
  --no-index --quiet "$root"
echo "check_pip: pip install took ${SECONDS} s"

# The README's Python example, its paths made absolute or moved into the work directory.
example="$("$venv/bin/python" - "$root/README.md" "$root" "$work" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
code = re.findall(r"^```python\n(.*?)^```", text, flags=re.M | re.S)[0]
print(code.replace("campaigns/", sys.argv[2] + "/campaigns/").replace("/tmp/", sys.argv[3] + "/"))
PY
)"
(cd "$work" && "$venv/bin/python" -c "import cmbench, sys; \
assert cmbench.__file__.startswith(sys.prefix), cmbench.__file__" && \
  "$venv/bin/python" -c "$example")
"$venv/bin/cmbench" --version
"$venv/bin/cmbench" run --problem simple_pendulum --method index1 --stepper rk4 --dt 1e-3 \
  --repeat 1 >/dev/null
"$venv/bin/cmbench-report" "$work/smoke-python" --quiet >/dev/null
test -s "$work/smoke-python/report.html"
# The notebook in a kernel of the environment (Debian's kernel "python3" would run
# /usr/bin/python3), without PYTHONPATH, its first cell checking where cmbench comes from.
notebook="$root/examples/notebook/first_campaign.ipynb"
"$venv/bin/python" -m ipykernel install --sys-prefix --name cmbench-venv >/dev/null 2>&1
(cd "$work" && env -u PYTHONPATH -u CMBENCH_PYTHONPATH TMPDIR="$work" PYDEVD_DISABLE_FILE_VALIDATION=1 \
  JUPYTER_PATH="$venv/share/jupyter" "$venv/bin/python" - "$notebook" <<'PY'
import sys
import nbclient, nbformat
notebook = nbformat.read(sys.argv[1], as_version=4)
check = "import cmbench, sys\nassert cmbench.__file__.startswith(sys.prefix), cmbench.__file__"
notebook.cells.insert(0, nbformat.v4.new_code_cell(check))
nbclient.NotebookClient(notebook, timeout=600, kernel_name="cmbench-venv").execute()
PY
) || { echo "check_pip: the example notebook failed in the installed environment"; exit 1; }
echo "check_pip: installed into a fresh venv; README example, entry points and notebook ran"
