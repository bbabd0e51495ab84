"""cmbench from Python: runs and campaigns of the C++ harness, result sets as DataFrames, figures,
tables and reports, and the tools that keep the docs current.

    import cmbench
    cmbench.list()                     # the catalog (problems, methods, steppers, parameters)
    cmbench.describe("andrews_squeezer")
    record = cmbench.run(problem="simple_pendulum", method="baumgarte", stepper="rk4", dt=1e-3)
    summary = cmbench.campaign(cmbench.campaign_file("smoke"), jobs=2, out="/tmp/smoke")
    frame = cmbench.load("/tmp/smoke")  # one row per run (pandas)
    cmbench.report.main(["/tmp/smoke"]) # figures, tables, report.md/.html

list, describe, run and campaign need the compiled module cmbench._core, built with the project
(PYTHONPATH=build/python) or installed with it (docs/python.md); everything else is pure Python
(PYTHONPATH=python is enough). Entry points:

    python3 -m cmbench.report RESULTS_DIR        figures, tables, report.md and report.html
    python3 -m cmbench.derive MODEL.py           a problem's C++ code from a sympy model
    python3 -m cmbench.bench JSON... --out DIR   cost per RHS call against size (bench/cmb_bench)
    python3 -m cmbench.docs.pages                docs/methods/*.md, docs/problems/*.md from headers
    python3 -m cmbench.docs.schema_page --write  docs/json_schema.md's field tables from the schemas
    python3 -m cmbench.docs.numbers --check      numbers quoted in README.md and docs/*.md
    python3 -m cmbench.docs.drift_table          the drift table of docs/methods.md
    python3 -m cmbench.docs.singular_table       its singular-configuration table
    python3 -m cmbench.docs.bad_input_table CMBENCH [--check]   docs/bad_input.md
    python3 -m cmbench.docs.check_sources        no citation of a document outside the repository

Modules: api (the functions above), files (every file read within bounds, every write atomic:
InputFileError for a file that cannot be used), results (run records, result sets, series CSV), plot
(styles, panels, fits, Markdown and LaTeX tables), figures.runs and figures.baumgarte (one
function per figure), tables (the report's tables), report (the report), bench (the benchmark
figure), derive (sympy models to problems). They need numpy, matplotlib for figures and pandas
for load. The symbolic derivations of the generated problems live beside them, in
problems/derive/. schema holds the JSON Schemas of the files cmbench reads and writes
(python/cmbench/schemas/) and validates documents against them (jsonschema).
"""
from .api import InputError, campaign, campaign_file, describe, load, load_series, run, version
from .api import list_catalog as list
from .files import InputFileError
from .requirements import install_entry_point_hook as _install_entry_point_hook

_install_entry_point_hook()

__all__ = ["list", "describe", "run", "campaign", "campaign_file", "load", "load_series",
           "version", "InputError", "InputFileError", "report"]


_SUBMODULES = {"report", "results", "plot", "style", "names", "tables", "figures", "bench",
               "derive", "docs", "rerun", "schema", "files"}


def __getattr__(name):
    # cmbench.report, cmbench.results, ... on first use: `import cmbench` loads neither numpy nor
    # matplotlib.
    if name in _SUBMODULES:
        import importlib
        return importlib.import_module("." + name, __name__)
    raise AttributeError(f"module 'cmbench' has no attribute '{name}'")
