"""The report's figures: runs (work-precision, drift, energy, convergence, scaling) and
baumgarte (heat maps over the gains, impulse responses against their closed forms)."""
