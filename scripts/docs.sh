#!/usr/bin/env bash
# Builds the documentation site: the C++ API reference with doxygen (Doxyfile: the public
# headers of core/; an undocumented class, function, member or macro is an error), then the site
# from docs/ with `mkdocs build --strict` (mkdocs.yml; scripts/mkdocs_hooks.py rewrites links to
# files outside docs/ and fails on a broken link or heading fragment), which serves the doxygen
# HTML as api/cpp/. Open OUT/site/index.html (it works from the disk, no server needed).
# Usage: scripts/docs.sh [OUT]   (default: build, i.e. build/doxygen and build/site)
# Needs Debian's doxygen, mkdocs and mkdocs-material; exits 77 (the ctest docs_site_builds then
# reports "skipped") when one is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-build}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
missing=()
command -v doxygen >/dev/null || missing+=(doxygen)
command -v mkdocs >/dev/null || missing+=(mkdocs)
[ -d /usr/share/mkdocs/themes/material ] || /usr/bin/python3 -c 'import material' 2>/dev/null \
  || missing+=(mkdocs-material)
if [ ${#missing[@]} -gt 0 ]; then
  echo "docs.sh: skipped: ${missing[*]} not installed (Debian packages: apt-get install" \
       "doxygen mkdocs mkdocs-material)"
  exit 77
fi
rm -rf "$out/doxygen"
# Doxyfile writes to build/doxygen; another OUT is given on doxygen's standard input.
(cat Doxyfile; echo "OUTPUT_DIRECTORY = $out/doxygen") | doxygen -
echo "docs.sh: C++ API reference in $out/doxygen/html"
# mkdocs 1.4 shows a DeprecationWarning of Debian's jinja2 with its traceback at INFO level:
# left out of the log, which is kept otherwise (warnings fail the strict build).
status=0
CMB_DOXYGEN_HTML="$out/doxygen/html" mkdocs build --strict --site-dir "$out/site" \
  >"$out/mkdocs.log" 2>&1 || status=$?
grep -v -e 'DeprecationWarning: invalid escape' -e 'jinja2/lexer.py' -e 'self.current = next' \
  -e 'decode("unicode-escape")' -e '^$' "$out/mkdocs.log" || true
[ "$status" -eq 0 ] || { echo "docs.sh: mkdocs build --strict failed"; exit "$status"; }
echo "docs.sh: site in $out/site (open $out/site/index.html)"
