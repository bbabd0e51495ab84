"""cmbench's Python side: reading result sets, figures, tables and reports, and the tools that
keep the docs current. Put this folder's parent on the module path (PYTHONPATH=python from the
repository root, or run from python/) and use the entry points:

    python3 -m cmbench.report RESULTS_DIR        figures, tables, report.md and report.html
    python3 -m cmbench.bench JSON... --out DIR   cost per RHS call against size (bench/cmb_bench)
    python3 -m cmbench.docs.pages                docs/methods/*.md, docs/problems/*.md from headers
    python3 -m cmbench.docs.numbers --check      numbers quoted in README.md and docs/*.md
    python3 -m cmbench.docs.drift_table          the drift table of docs/methods.md
    python3 -m cmbench.docs.singular_table       its singular-configuration table
    python3 -m cmbench.docs.bad_input_table CMBENCH [--check]   docs/bad_input.md
    python3 -m cmbench.docs.check_sources        no citation of a document outside the repository

Modules: results (run records, result sets, series CSV), plot (styles, panels, fits, Markdown and
LaTeX tables), figures.runs and figures.baumgarte (one function per figure), tables (the
report's tables), report (the report), bench (the benchmark figure). They need numpy, and
matplotlib for figures; pandas is optional (results.frame). scripts/report.sh wraps the report.
The symbolic derivations of generated problem code live beside that code, in problems/derive/.
"""
