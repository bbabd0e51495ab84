"""The README's work-precision figure, Andrews' squeezer row (dopri5, fehlberg78), from the committed
default results, notebook style: PYTHONPATH=build/python python3 examples/python/work_precision.py"""
import pathlib

import cmbench
from cmbench import names, style

root = pathlib.Path(__file__).resolve().parents[2]
frame = cmbench.load(root / "results/default/2026-11-28_19daaf75e3b0")
runs = frame[(frame.problem == "andrews_squeezer") & (frame.status == "ok")]
steppers = ["dopri5", "fehlberg78"]

plt = style.pyplot()
style.use("double")
with style.context():
    fig, axes = plt.subplots(1, 2, figsize=(style.width(), 2.6), sharey=True)
    for ax, stepper in zip(axes, steppers):
        for method, line in runs[runs.stepper == stepper].groupby("method"):
            line = line.sort_values("tol", ascending=False)
            ax.loglog(line.time * 1e3, line.final_error, label=names.method(method),
                      **style.method_style(method))
        ax.set_title(names.stepper(stepper))
        ax.set_xlabel("CPU time [ms]")
    axes[0].set_ylabel("final error " + names.bracket(names.error_unit("andrews_squeezer")))
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=4, bbox_to_anchor=(0.5, -0.22))
    fig.savefig("andrews_work_precision.pdf", bbox_inches="tight")
    fig.savefig("andrews_work_precision.png", dpi=200, bbox_inches="tight")
