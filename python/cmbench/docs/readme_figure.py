"""The README's figure: work against error on Andrews' squeezer (dopri5, one line per method),
from the committed default result set, at single-column print size.

Usage (from the repository root):
    PYTHONPATH=python python3 -m cmbench.docs.readme_figure [--results DIR]
writes docs/figures/readme_work_precision.png.
"""
import argparse
import os
import sys

from . import ROOT
from .. import api, names, plot, style
from ..files import exit_status, save_figure

DEFAULT_RESULTS = os.path.join(ROOT, "results", "default", "2026-11-28_19daaf75e3b0")
OUT = os.path.join(ROOT, "docs", "figures", "readme_work_precision.png")
PROBLEM, STEPPER = "andrews_squeezer", "dopri5"


def draw(frame):
    """The figure for a DataFrame of `cmbench.load`: cmbench.plot.work_precision on one panel."""
    runs = frame[(frame.problem == PROBLEM) & (frame.stepper == STEPPER)]
    plt = style.pyplot()
    style.use("single")
    with style.context():
        fig, ax = plt.subplots(figsize=(style.width(), 2.0))
        plot.work_precision(runs, ax=ax)
        ax.set_title(f"{names.problem(PROBLEM)}, {names.stepper(STEPPER)}")
        # The legend below the panel, in two columns: a single-column figure has no room beside.
        legend = ax.get_legend()
        handles = getattr(legend, "legend_handles", None) or legend.legendHandles
        ax.legend(handles, [text.get_text() for text in legend.get_texts()], ncol=2,
                  loc="upper center", bbox_to_anchor=(0.5, -0.28), frameon=False)
    return fig


def main(argv=None):
    """Draws the figure from --results (the committed default set) into docs/figures/."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", default=DEFAULT_RESULTS)
    opts = parser.parse_args(argv)
    fig = draw(api.load(opts.results))
    save_figure(fig, OUT, dpi=200, bbox_inches="tight")
    print(OUT)
    return 0


if __name__ == "__main__":
    sys.exit(exit_status("cmbench.docs.readme_figure", main))
