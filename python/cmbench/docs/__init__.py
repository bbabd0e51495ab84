"""Tools that keep the docs current, each a `python3 -m cmbench.docs.NAME` entry point (run from
the repository root with PYTHONPATH=python; the paths they read and write are the repository's
whatever the working directory, except where an option names a path):

    pages            docs/methods/<id>.md, docs/problems/<id>.md from the source headers
    schema_page      the field tables of docs/json_schema.md from python/cmbench/schemas/
    numbers          the numbers quoted in README.md and docs/*.md, checked or rewritten
    drift_table      the drift table of docs/methods.md (run_table: what such tables share)
    singular_table   the singular-configuration table of docs/methods.md
    settings_table   the run-settings table of docs/campaigns.md, from cmbench.settings
    capability_table the declared-capability table of docs/methods.md, from the catalog
    entry_names      python/cmbench/entries.json: the entries' display names and units, from
                     the catalog (cmbench.names reads it)
    bad_input_table  docs/bad_input.md from tests/bad_inputs.json
    check_sources    no citation of a document outside the repository (docs/sources.md)
"""
import os

# The repository: this package is python/cmbench/docs/.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
