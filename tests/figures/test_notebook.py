"""pytest (ctest example_notebook_runs): examples/notebook/first_campaign.ipynb runs from campaign
to figure with nbclient in a fresh kernel that finds the built package (PYTHONPATH=build/python,
passed on to the kernel through the environment), and draws the figures it promises.

Run: PYTHONPATH=build/python CMB_SOURCE_DIR=$PWD /usr/bin/python3 -m pytest tests/figures/test_notebook.py
"""
import glob
import os
import sys
import time

import nbformat
import pytest
from nbclient import NotebookClient

SOURCE = os.environ.get("CMB_SOURCE_DIR") or os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__))))
NOTEBOOK = os.path.join(SOURCE, "examples", "notebook", "first_campaign.ipynb")


def outputs_text(cell):
    parts = []
    for out in cell.get("outputs", []):
        parts.append(out.get("text", ""))
        parts += [str(v) for k, v in out.get("data", {}).items() if k == "text/plain"]
    return "\n".join(parts)


def test_the_notebook_runs_from_campaign_to_figure(tmp_path, monkeypatch):
    env_path = os.environ.get("PYTHONPATH", "")
    assert env_path, "PYTHONPATH must name the built package for the kernel"
    if not any(glob.glob(os.path.join(d, "cmbench", "_core*.so")) for d in env_path.split(":")):
        pytest.skip("the compiled module cmbench._core is not built")
    # The notebook writes its campaign under tempfile's directory: this test's, inherited by the
    # kernel, so nothing is left behind.
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    nb = nbformat.read(NOTEBOOK, as_version=4)
    began = time.monotonic()
    client = NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}})
    client.execute()  # raises CellExecutionError on any failing cell
    seconds = time.monotonic() - began
    code = [c for c in nb.cells if c.cell_type == "code"]
    text = [outputs_text(c) for c in code]
    assert "12 runs: 12 ok" in text[1], text[1]
    # The two figures: a PNG output of the pair of panels, and the labels of the whole figure,
    # each error axis in one unit.
    assert any("image/png" in o.get("data", {}) for o in code[3].outputs), "no figure shown"
    assert "final error [rad]" in text[4] and "relative error [–]" in text[4], text[4]
    print(f"notebook: {seconds:.1f} s", file=sys.stderr)
