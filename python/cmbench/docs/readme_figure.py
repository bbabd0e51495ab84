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
from .. import api, names, style
from ..files import exit_status, save_figure

DEFAULT_RESULTS = os.path.join(ROOT, "results", "default", "2026-11-27_24879888e99b")
OUT = os.path.join(ROOT, "docs", "figures", "readme_work_precision.png")
PROBLEM, STEPPER = "andrews_squeezer", "dopri5"


def draw(frame):
    """The figure for a DataFrame of `results.load`: run time against final error, log-log."""
    runs = frame[(frame.problem == PROBLEM) & (frame.stepper == STEPPER) & (frame.status == "ok")]
    plt = style.pyplot()
    style.use("single")
    with style.context():
        fig, ax = plt.subplots(figsize=(style.width(), 2.0))
        for method, line in runs.groupby("method"):
            line = line.sort_values("tol", ascending=False)
            ax.loglog(line.final_error, line.time_min * 1e3, label=names.method(method),
                      **style.method_style(method))
        ax.set_xlabel("final error" + names.bracket(names.error_unit(PROBLEM)))
        ax.set_ylabel("run time [ms]")
        ax.set_title(f"{names.problem(PROBLEM)}, {names.stepper(STEPPER)}")
        ax.legend(ncol=2, loc="upper center", bbox_to_anchor=(0.5, -0.28), frameon=False)
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
