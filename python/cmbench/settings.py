"""The run settings: one table for `cmbench run`, cmbench.run and campaign files.

The table is declared once, in C++ (harness/run/run_settings.hpp), and every caller's values are
read through it. run_settings.json beside this file is what `cmbench describe run-settings --json`
prints (a test keeps the two equal), so that help(cmbench.run) and the run-settings table of
docs/campaigns.md (cmbench.docs.settings_table) are written from it without the compiled module.
"""
import json
import os
import textwrap

TABLE_FILE = os.path.join(os.path.dirname(__file__), "run_settings.json")
# Where cmbench.run's default differs from the table's (timing is the command line's and the
# campaigns' business; a Python caller asks for it).
PYTHON_DEFAULTS = {"repeat": 0}


def table():
    """The settings: a list of dicts with name, flag, campaign, type, expected, default, help
    (and excludes)."""
    with open(TABLE_FILE, encoding="utf-8") as f:
        return json.load(f)


def _default_text(value):
    return json.dumps(value) if value is not None else "unset"


def keyword_help():
    """The settings as help(cmbench.run) lists them: one paragraph per keyword."""
    lines = ["Run settings (keywords; the same as `cmbench run`'s options and campaign keys,",
             "`cmbench describe run-settings`):"]
    for s in table():
        default = PYTHON_DEFAULTS.get(s["name"], s["default"])
        text = f"{s['name']}= {s['help']}; {s['expected']} (default {_default_text(default)})"
        if s.get("excludes"):
            text += "; not with " + ", ".join(f"{other}=" for other in s["excludes"])
        lines += textwrap.wrap(text, 96, initial_indent="    ", subsequent_indent="        ")
    return "\n".join(lines)
