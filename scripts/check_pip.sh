#!/usr/bin/env bash
# CI check of `pip install .`: installs the checkout into a fresh virtual environment (Debian's
# python3 -m venv --system-site-packages, no package index), then runs the README's Python
# example with that environment's Python, from outside the checkout, and the installed entry
# points `cmbench` and `cmbench-report` (the example notebook is the ctest example_notebook_runs).
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

# The README's Python example from outside the checkout, its /tmp/ paths moved into the work
# directory (the campaign it runs ships with the package: cmbench.campaign_file).
example="$("$venv/bin/python" - "$root/README.md" "$work" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
code = re.findall(r"^```python\n(.*?)^```", text, flags=re.M | re.S)[0]
print(code.replace('"/tmp/', '"' + sys.argv[2] + "/"))
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
echo "check_pip: installed into a fresh venv; the README's Python example and the entry points ran"
