"""The layer check must find what it is there to find: in a generated tree, every include from a
layer to one above it is reported, every include downwards or within a layer is not, and a file
directly in harness/ (outside run/ and campaign/) is reported as in no layer."""
import itertools
import pathlib
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import check_layers  # noqa: E402

# A header in each layer, named by the layer's folder.
HEADERS = {layer: f"{layer}/x.hpp" for layer in check_layers.BELOW}


def expected_edges():
    """(including layer, included layer) pairs that point upwards."""
    return {(a, b) for a, b in itertools.permutations(check_layers.BELOW, 2)
            if b not in check_layers.BELOW[a]}


def test_every_upward_pair_is_reported_and_no_other():
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        for layer, header in HEADERS.items():
            (root / header).parent.mkdir(parents=True, exist_ok=True)
            (root / header).write_text("")
            for other, target in HEADERS.items():
                name = other.replace("/", "_")
                (root / layer / f"uses_{name}.cpp").write_text(f'#include "{target}"\n')
        (root / "harness" / "loose.cpp").write_text("")
        found = list(check_layers.upward_edges(root))
        reported = {(line.split(" includes ")[0].split("/uses_")[0],
                     line.split("(")[1].split(" is above")[0]) for line in found if "includes" in line}
        assert reported == expected_edges()
        assert any("harness/loose.cpp is in no layer" in line for line in found)
        assert len(expected_edges()) > 20  # the order is a real order, not everything allowed
        result = subprocess.run([sys.executable, str(HERE / "check_layers.py"), str(root)],
                                capture_output=True, text=True)
        assert result.returncode == 1


def test_the_source_tree_has_no_upward_include():
    assert list(check_layers.upward_edges(HERE.parent)) == []
