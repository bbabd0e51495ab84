"""Numbers in README.md and docs/*.md are regenerated, not typed.

Every accuracy, drift, energy, multiplier, step or RHS-call count and status quoted in the prose
is a *claim*: an id, the `cmbench run` arguments that measure it, the path of the value in the
run record (docs/json_schema.md) and a format. This script re-runs the commands (each distinct
command once, as `cmbench run ARGS --out X.json --repeat 0` in a scratch directory with a fresh
self-converged reference cache, two processes at a time) and compares or rewrites the text.

Usage:
  python3 -m cmbench.docs.numbers --check [--all] [--cmbench build/cmbench]
  python3 -m cmbench.docs.numbers --write [--all] [--cmbench build/cmbench]
  python3 -m cmbench.docs.numbers --list          # claims, commands and quoted values
(PYTHONPATH=python from the repository root.)

--check exits 1 listing every mismatch (file:line, claim id, text value, measured value);
--write rewrites the quoted values in place. Claims and tables marked slow are skipped unless
--all is given, and the check names them. Slow: runs of more than about 5 s on the 2-core
development machine (A02 N = 40 with dense truncation takes 230 s, N = 1000 augmented_lagrangian
175 s), and the singular-configuration table (24 runs, about 80 s); the others (about 60 runs,
30–40 s of CPU, most of it flyball_governor's self-converged reference) make up the ctest
docs_numbers_are_current, which runs `--check` without --all.
Paths: the repository is the one this package lives in (python/cmbench/docs; any cwd works);
--cmbench defaults to build/cmbench there.

Marker syntax (HTML comments: invisible in rendered Markdown):
  inline value   <!--n:CLAIM_ID-->2.6e-10<!--/n-->
                 CLAIM_ID is an entry of CLAIMS below; the text between the two comments is
                 the quoted value and nothing else (units stay outside). The same id may be
                 quoted more than once. A marker must not start a line (after indentation): a
                 line starting with "<!--" begins a raw HTML block in CommonMark and would
                 change the rendering; it must not be inside a `code span` either (comments
                 are shown literally there). The check refuses both.
  whole table    a line <!--table:TABLE_ID-->, a blank line, the Markdown table, a blank line,
                 a line <!--/table-->. TABLE_ID names a table module (TABLES below:
                 cmbench.docs.drift_table, cmbench.docs.singular_table) that gives each row's key
                 cells, commands and cells; columns in its EXEMPT set (timings) are not checked
                 and --write keeps their committed text.

Formats: e2 (two significant digits, "2.6e-10", "4.1e-5"), e1 ("3e-13"), e3…e6 (more digits,
where two runs agree beyond two: "2.06272e-3"), f0/f1/f2/f3 (fixed,
"9.54"), g3 (three significant digits, "1.24", "20"), int (thousands separated by a space as
the README writes them: "14 914", "1 501", "672"), word (a status word as it is: "ok",
"singular"). A value the record does not hold (null) is written "–".

Timings (s, µs, ns, wall time, min time, speed-ups) are not claims: they are noisy; the text
keeps the command that produced them next to them.
"""
import argparse
import concurrent.futures
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time

from . import ROOT, integrator_numbers
from ..files import exit_status, read_json, write_atomic
from .run_table import line as table_line

DOCS = ["README.md", "docs/measured.md", "docs/catalog.md", "docs/run.md", "docs/methods.md",
        "docs/performance.md", "docs/robustness.md", "docs/problems.md", "docs/extending.md",
        "docs/campaigns.md", "docs/json_schema.md",
        "docs/notation.md", "docs/report.md", "docs/bad_input.md", "docs/integrators.md"]


class Run:
    """One cmbench run: arguments of `cmbench run` (without --out/--repeat); slow runs are
    skipped without --all; cost (seconds, rough) orders the work so the longest start first."""

    def __init__(self, args, slow=False, cost=0.1):
        self.args = shlex.split(args) if isinstance(args, str) else list(args)
        self.slow = slow
        self.cost = cost


A02_N4 = "--problem n_four_bar --param N=4 --t-end 20 "
N1000 = "--problem n_four_bar --param N=1000 --stepper fehlberg78 --tol 1e-10 "
TRUNC = "--param rank_policy=truncate --param pivot_tol=1e-10 "

RUNS = {
    # README "Measured"
    "pendulum_fe78": Run("--problem simple_pendulum --method index1 --stepper fehlberg78 --tol 1e-12"),
    "pendulum_rk4_index1": Run("--problem simple_pendulum --t-end 100 --method index1 --stepper rk4 --dt 1e-3", cost=0.3),
    "pendulum_rk4_baumgarte": Run("--problem simple_pendulum --t-end 100 --method baumgarte --param alpha=10 --param beta=10 --stepper rk4 --dt 1e-3", cost=0.3),
    "andrews_fe78_12": Run("--problem andrews_squeezer --method index1 --stepper fehlberg78 --tol 1e-12"),
    "andrews_fe78_14": Run("--problem andrews_squeezer --method index1 --stepper fehlberg78 --tol 1e-14"),
    "a02_n4_index1": Run(A02_N4 + "--method index1 --stepper fehlberg78 --tol 1e-10"),
    "a02_n4_baumgarte100_rk4": Run(A02_N4 + "--method baumgarte --param omega0=100 " + TRUNC + "--stepper rk4 --dt 1e-3", cost=2),
    "a02_n4_baumgarte100_fe78": Run(A02_N4 + "--method baumgarte --param omega0=100 " + TRUNC + "--stepper fehlberg78 --tol 1e-10", cost=4),
    "a02_n4_projection_default_fe78": Run(A02_N4 + "--method projection --stepper fehlberg78 --tol 1e-10", cost=0.2),
    "a02_n4_projection_fe78": Run(A02_N4 + "--method projection " + TRUNC + "--stepper fehlberg78 --tol 1e-10", cost=0.6),
    "a02_n4_projection_rk4": Run(A02_N4 + "--method projection " + TRUNC + "--stepper rk4 --dt 1e-3", cost=3),
    "a02_n4_baumgarte_trunc_rk4": Run(A02_N4 + "--method baumgarte " + TRUNC + "--stepper rk4 --dt 1e-3", cost=3),
    "a02_n4_svd_fe78": Run(A02_N4 + "--method svd_null_space --stepper fehlberg78 --tol 1e-10", cost=2.5),
    "a02_n4_uk_fe78": Run(A02_N4 + "--method udwadia_kalaba --stepper fehlberg78 --tol 1e-10", cost=2),
    "a02_n4_gauss_qp_fe78": Run(A02_N4 + "--method gauss_qp --stepper fehlberg78 --tol 1e-10", cost=2.5),
    "a02_n40_dense": Run("--problem n_four_bar --param N=40 --method baumgarte --param omega0=30 " + TRUNC + "--stepper fehlberg78 --tol 1e-10", slow=True, cost=300),
    "a02_n40_sparse": Run("--problem n_four_bar --param N=40 --method baumgarte --param omega0=30 " + TRUNC + "--param linear_solver=sparse --stepper fehlberg78 --tol 1e-10", cost=3),
    "a02_n40_index1": Run("--problem n_four_bar --param N=40 --method index1 --stepper fehlberg78 --tol 1e-10", cost=0.3),
    "bricard_uk_8": Run("--problem bricard --method udwadia_kalaba --stepper dopri5 --tol 1e-8", cost=1),
    "bricard_uk_12": Run("--problem bricard --method udwadia_kalaba --stepper dopri5 --tol 1e-12", cost=1),
    "bricard_index1": Run("--problem bricard --method index1 --stepper dopri5 --tol 1e-8", cost=1),
    "flyball_rosenbrock4": Run("--problem flyball_governor --method index1 --stepper rosenbrock4 --tol 1e-6", cost=16),
    "flyball_dopri5": Run("--problem flyball_governor --method index1 --stepper dopri5 --tol 1e-6", cost=16),
    "n_pendulum_10": Run("--problem n_pendulum --param N=10 --t-end 2 --method index1 --stepper fehlberg78 --tol 1e-13", cost=0.2),
    "kane_index1": Run("--problem kane_pendulum --method index1 --stepper fehlberg78 --tol 1e-12"),
    "kane_cp": Run("--problem kane_pendulum --method coordinate_partitioning --stepper fehlberg78 --tol 1e-12"),
    "chaplygin": Run("--problem chaplygin_sleigh --method index1 --stepper fehlberg78 --tol 1e-12"),
    "rolling_disk": Run("--problem rolling_disk --t-end 10 --method projection --stepper fehlberg78 --tol 1e-12"),
    "car_axis_fe78": Run("--problem car_axis --method index1 --stepper fehlberg78 --tol 1e-13"),
    "car_axis_rosenbrock4": Run("--problem car_axis --method index1 --stepper rosenbrock4 --tol 1e-8", cost=0.2),
    # docs/performance.md: whole runs at N = 1000
    "n1000_index1_07": Run(N1000 + "--t-end 0.7 --method index1", cost=1),
    "n1000_gauss_qp_07": Run(N1000 + "--t-end 0.7 --method gauss_qp", cost=1),
    "n1000_projection_07": Run(N1000 + "--t-end 0.7 --method projection", cost=1),
    "n1000_baumgarte_07": Run(N1000 + "--t-end 0.7 --method baumgarte --param omega0=30", cost=2.5),
    "n1000_al_07": Run(N1000 + "--t-end 0.7 --method augmented_lagrangian", slow=True, cost=45),
    "n1000_index1_1": Run(N1000 + "--t-end 1 --method index1", cost=1.3),
    "n1000_gauss_qp_1": Run(N1000 + "--t-end 1 --method gauss_qp", cost=1.3),
    "n1000_projection_1": Run(N1000 + "--t-end 1 --method projection", slow=True, cost=18),
    "n1000_baumgarte_1": Run(N1000 + "--t-end 1 --method baumgarte --param omega0=30", slow=True, cost=30),
    "n1000_al_1": Run(N1000 + "--t-end 1 --method augmented_lagrangian", slow=True, cost=175),
    "n1000_baumgarte_trunc_1": Run(N1000 + "--t-end 1 --method baumgarte --param omega0=30 " + TRUNC + "--param linear_solver=sparse", slow=True, cost=6),
    "n1000_projection_trunc_1": Run(N1000 + "--t-end 1 --method projection " + TRUNC + "--param linear_solver=sparse", slow=True, cost=13),
    "n4_projection_1": Run("--problem n_four_bar --param N=4 --t-end 1 --method projection --stepper fehlberg78 --tol 1e-10"),
    "n10_projection_1": Run("--problem n_four_bar --param N=10 --t-end 1 --method projection --stepper fehlberg78 --tol 1e-10"),
    "n100_projection_1": Run("--problem n_four_bar --param N=100 --t-end 1 --method projection --stepper fehlberg78 --tol 1e-10", cost=0.5),
    "n10_al_07": Run("--problem n_four_bar --param N=10 --t-end 0.7 --method augmented_lagrangian --stepper fehlberg78 --tol 1e-10"),
    "n100_al_07": Run("--problem n_four_bar --param N=100 --t-end 0.7 --method augmented_lagrangian --stepper fehlberg78 --tol 1e-10", slow=True, cost=6),
    # slow since it now runs to the end: its reference (Bulirsch-Stoer at 1e-13 in the 200 link
    # angles) takes about 3 minutes
    "n_pendulum_200_al": Run("--problem n_pendulum --param N=200 --method augmented_lagrangian --stepper fehlberg78 --tol 1e-10", cost=7),
    # docs/performance.md: time to accuracy
    "crank_rocker_fe78_10": Run("--problem crank_rocker --method index1 --stepper fehlberg78 --tol 1e-10"),
    "crank_rocker_fe78_9": Run("--problem crank_rocker --method index1 --stepper fehlberg78 --tol 1e-9"),
    "crank_rocker_bs_9": Run("--problem crank_rocker --method index1 --stepper bulirsch_stoer --tol 1e-9"),
    "andrews_fe78_9": Run("--problem andrews_squeezer --method index1 --stepper fehlberg78 --tol 1e-9"),
    "andrews_fe78_2e9": Run("--problem andrews_squeezer --method index1 --stepper fehlberg78 --tol 2e-9"),
    "crank_rocker_proj_fe78_11": Run("--problem crank_rocker --method projection --stepper fehlberg78 --tol 1e-11"),
    "crank_rocker_proj_dp87_3e10": Run("--problem crank_rocker --method projection --stepper dopri87 --tol 3e-10"),
    "andrews_proj_dp87_2e7": Run("--problem andrews_squeezer --method projection --stepper dopri87 --tol 2e-7"),
    "andrews_proj_dp87_3e7": Run("--problem andrews_squeezer --method projection --stepper dopri87 --tol 3e-7"),
    "andrews_proj_dp87_1_5e7": Run("--problem andrews_squeezer --method projection --stepper dopri87 --tol 1.5e-7"),
    "andrews_proj_dp87_5e8": Run("--problem andrews_squeezer --method projection --stepper dopri87 --tol 5e-8"),
    "andrews_proj_dp87_3e8": Run("--problem andrews_squeezer --method projection --stepper dopri87 --tol 3e-8"),
    "andrews_proj_dop853_2e8": Run("--problem andrews_squeezer --method projection --stepper dop853 --tol 2e-8"),
    "crank_rocker_proj_dop853_7e11": Run("--problem crank_rocker --method projection --stepper dop853 --tol 7e-11"),
    "andrews_fe78_8": Run("--problem andrews_squeezer --method index1 --stepper fehlberg78 --tol 1e-8"),
    "andrews_dopri5_7": Run("--problem andrews_squeezer --method index1 --stepper dopri5 --tol 1e-7"),
}

# docs/methods.md, coordinate_partitioning's partition: each problem with rk4 at 1.25 ms, the
# method at repartition_tol = 0.1 (its former default) and at its default, beside projection
# and index1.
CP_PROBLEMS = ["simple_pendulum", "spherical_pendulum", "crank_rocker", "lagrange_top",
               "lagrange_top_natural", "spatial_slider_crank", "spatial_chain"]
CP_VARIANTS = {"cp01": "--method coordinate_partitioning --param repartition_tol=0.1",
               "cp": "--method coordinate_partitioning", "proj": "--method projection",
               "index1": "--method index1"}
RUNS["cp_top_dopri5"] = Run("--problem lagrange_top --method coordinate_partitioning "
                            "--stepper dopri5 --tol 1e-10", cost=0.5)
RUNS["cp_top_dopri5_01"] = Run("--problem lagrange_top --method coordinate_partitioning "
                               "--param repartition_tol=0.1 --stepper dopri5 --tol 1e-10", cost=0.8)
for _problem in CP_PROBLEMS:
    for _variant, _method in CP_VARIANTS.items():
        RUNS[f"cp_{_problem}_{_variant}"] = Run(
            f"--problem {_problem} {_method} --stepper rk4 --dt 0.00125", cost=0.3)

ERR = "metrics.error.max_abs"
FINAL = "metrics.error.final_abs_max"
CRANK = "metrics.error.outputs.crank_angle.final_abs"
CRANK_MAX = "metrics.error.outputs.crank_angle.max_abs"  # over the samples

# (claim id, run, JSON path in the run record, format)
CLAIMS = [
    ("pendulum_fe78_final", "pendulum_fe78", FINAL, "e2"),
    ("pendulum_rk4_index1_drift", "pendulum_rk4_index1", "metrics.drift.position.max", "e2"),
    ("pendulum_rk4_baumgarte_drift", "pendulum_rk4_baumgarte", "metrics.drift.position.max", "e2"),
    ("pendulum_rk4_index1_final", "pendulum_rk4_index1", FINAL, "e2"),
    ("pendulum_rk4_baumgarte_final", "pendulum_rk4_baumgarte", FINAL, "e2"),
    ("andrews_scd", "andrews_fe78_12", "metrics.error.scd", "f2"),
    ("andrews_scd_14", "andrews_fe78_14", "metrics.error.scd", "f2"),
    ("andrews_multipliers", "andrews_fe78_12", "metrics.multipliers.max_rel_error", "e2"),
    ("andrews_energy", "andrews_fe78_12", "metrics.energy.max_abs", "e2"),
    ("a02_n4_index1_status", "a02_n4_index1", "status", "word"),
    ("a02_n4_index1_t", "a02_n4_index1", "t_reached", "f2"),
    ("a02_n4_baumgarte100_status", "a02_n4_baumgarte100_rk4", "status", "word"),
    ("a02_n4_baumgarte100_max", "a02_n4_baumgarte100_rk4", ERR, "e2"),
    ("a02_n4_baumgarte100_final", "a02_n4_baumgarte100_rk4", FINAL, "e2"),
    ("a02_n4_baumgarte100_fe78_status", "a02_n4_baumgarte100_fe78", "status", "word"),
    ("a02_n4_baumgarte100_fe78_max", "a02_n4_baumgarte100_fe78", ERR, "e2"),
    ("a02_n4_projection_default_fe78_t", "a02_n4_projection_default_fe78", "t_reached", "g3"),
    ("a02_n4_projection_fe78_status", "a02_n4_projection_fe78", "status", "word"),
    ("a02_n4_projection_fe78_max", "a02_n4_projection_fe78", ERR, "e2"),
    ("a02_n4_projection_rk4_max", "a02_n4_projection_rk4", ERR, "e2"),
    ("a02_n4_baumgarte_trunc_rk4_status", "a02_n4_baumgarte_trunc_rk4", "status", "word"),
    ("a02_n4_baumgarte_trunc_rk4_t", "a02_n4_baumgarte_trunc_rk4", "t_reached", "g3"),
    ("a02_n4_svd_fe78_status", "a02_n4_svd_fe78", "status", "word"),
    ("a02_n4_uk_fe78_status", "a02_n4_uk_fe78", "status", "word"),
    ("a02_n4_gauss_qp_fe78_status", "a02_n4_gauss_qp_fe78", "status", "word"),
    ("a02_n40_dense_status", "a02_n40_dense", "status", "word"),
    ("a02_n40_dense_max", "a02_n40_dense", ERR, "e2"),
    ("a02_n40_sparse_status", "a02_n40_sparse", "status", "word"),
    ("a02_n40_sparse_max", "a02_n40_sparse", ERR, "e2"),
    ("a02_n40_index1_status", "a02_n40_index1", "status", "word"),
    ("a02_n40_index1_t", "a02_n40_index1", "t_reached", "f2"),
    ("bricard_reference_accuracy", "bricard_uk_8", "reference.accuracy", "e2"),
    ("bricard_uk_8_max", "bricard_uk_8", ERR, "e2"),
    ("bricard_uk_8_rhs", "bricard_uk_8", "work.rhs_calls", "int"),
    ("bricard_uk_8_energy", "bricard_uk_8", "metrics.energy.max_abs", "e2"),
    ("bricard_uk_12_max", "bricard_uk_12", ERR, "e2"),
    ("bricard_uk_12_rhs", "bricard_uk_12", "work.rhs_calls", "int"),
    ("bricard_uk_12_energy", "bricard_uk_12", "metrics.energy.max_abs", "e2"),
    ("bricard_index1_status", "bricard_index1", "status", "word"),
    ("bricard_index1_t", "bricard_index1", "t_reached", "g3"),
    ("flyball_reference_accuracy", "flyball_rosenbrock4", "reference.accuracy", "e2"),
    ("flyball_rosenbrock4_steps", "flyball_rosenbrock4", "work.steps_accepted", "int"),
    ("flyball_rosenbrock4_rhs", "flyball_rosenbrock4", "work.rhs_calls", "int"),
    ("flyball_rosenbrock4_max", "flyball_rosenbrock4", ERR, "e2"),
    ("flyball_dopri5_steps", "flyball_dopri5", "work.steps_accepted", "int"),
    ("flyball_dopri5_rhs", "flyball_dopri5", "work.rhs_calls", "int"),
    ("flyball_dopri5_max", "flyball_dopri5", ERR, "e2"),
    ("n_pendulum_10_max", "n_pendulum_10", ERR, "e2"),
    ("kane_index1_max", "kane_index1", ERR, "e2"),
    ("kane_cp_max", "kane_cp", ERR, "e2"),
    ("chaplygin_max", "chaplygin", ERR, "e2"),
    ("rolling_disk_max", "rolling_disk", ERR, "e2"),
    ("car_axis_fe78_final", "car_axis_fe78", FINAL, "e2"),
    ("car_axis_rosenbrock4_rhs", "car_axis_rosenbrock4", "work.rhs_calls", "int"),
    ("car_axis_rosenbrock4_final", "car_axis_rosenbrock4", FINAL, "e2"),
    # N = 1000, T = 0.7 s and T = 1 s
    ("n1000_index1_07_status", "n1000_index1_07", "status", "word"),
    ("n1000_index1_07_steps", "n1000_index1_07", "work.steps_accepted", "int"),
    ("n1000_index1_07_max", "n1000_index1_07", ERR, "e2"),
    ("n1000_gauss_qp_07_status", "n1000_gauss_qp_07", "status", "word"),
    ("n1000_gauss_qp_07_steps", "n1000_gauss_qp_07", "work.steps_accepted", "int"),
    ("n1000_gauss_qp_07_max", "n1000_gauss_qp_07", ERR, "e2"),
    ("n1000_projection_07_status", "n1000_projection_07", "status", "word"),
    ("n1000_projection_07_steps", "n1000_projection_07", "work.steps_accepted", "int"),
    ("n1000_projection_07_max", "n1000_projection_07", ERR, "e2"),
    ("n1000_baumgarte_07_status", "n1000_baumgarte_07", "status", "word"),
    ("n1000_baumgarte_07_steps", "n1000_baumgarte_07", "work.steps_accepted", "int"),
    ("n1000_baumgarte_07_max", "n1000_baumgarte_07", ERR, "e2"),
    ("n1000_al_07_status", "n1000_al_07", "status", "word"),
    ("n1000_al_07_steps", "n1000_al_07", "work.steps_accepted", "int"),
    ("n1000_al_07_max", "n1000_al_07", ERR, "e2"),
    ("n1000_index1_1_status", "n1000_index1_1", "status", "word"),
    ("n1000_index1_1_steps", "n1000_index1_1", "work.steps_accepted", "int"),
    ("n1000_index1_1_max", "n1000_index1_1", ERR, "e2"),
    ("n1000_gauss_qp_1_status", "n1000_gauss_qp_1", "status", "word"),
    ("n1000_gauss_qp_1_steps", "n1000_gauss_qp_1", "work.steps_accepted", "int"),
    ("n1000_gauss_qp_1_max", "n1000_gauss_qp_1", ERR, "e2"),
    ("n1000_projection_1_status", "n1000_projection_1", "status", "word"),
    ("n1000_projection_1_t", "n1000_projection_1", "t_reached", "f3"),
    ("n1000_baumgarte_1_status", "n1000_baumgarte_1", "status", "word"),
    ("n1000_baumgarte_1_t", "n1000_baumgarte_1", "t_reached", "f3"),
    ("n1000_singular_t", "n1000_baumgarte_1", "t_reached", "f2"),
    ("n1000_al_1_status", "n1000_al_1", "status", "word"),
    ("n1000_al_1_t", "n1000_al_1", "t_reached", "f3"),
    ("n1000_baumgarte_trunc_1_status", "n1000_baumgarte_trunc_1", "status", "word"),
    ("n1000_baumgarte_trunc_1_steps", "n1000_baumgarte_trunc_1", "work.steps_accepted", "int"),
    ("n1000_baumgarte_trunc_1_max", "n1000_baumgarte_trunc_1", ERR, "e2"),
    ("n1000_baumgarte_trunc_1_rank_drops", "n1000_baumgarte_trunc_1", "work.method.rank_drops", "int"),
    ("n1000_projection_trunc_1_status", "n1000_projection_trunc_1", "status", "word"),
    ("n1000_projection_trunc_1_steps", "n1000_projection_trunc_1", "work.steps_accepted", "int"),
    ("n1000_projection_trunc_1_max", "n1000_projection_trunc_1", ERR, "e2"),
    ("n1000_projection_trunc_1_rank_drops", "n1000_projection_trunc_1", "work.method.rank_drops", "int"),
    ("n4_projection_1_status", "n4_projection_1", "status", "word"),
    ("n10_projection_1_status", "n10_projection_1", "status", "word"),
    ("n100_projection_1_status", "n100_projection_1", "status", "word"),
    ("n100_projection_1_t", "n100_projection_1", "t_reached", "f3"),
    ("n10_al_07_steps", "n10_al_07", "work.steps_accepted", "int"),
    ("n100_al_07_steps", "n100_al_07", "work.steps_accepted", "int"),
    ("n100_al_07_max", "n100_al_07", ERR, "e2"),
    ("n_pendulum_200_al_status", "n_pendulum_200_al", "status", "word"),
    ("n_pendulum_200_al_max", "n_pendulum_200_al", ERR, "e2"),
    # time to accuracy
    ("crank_rocker_fe78_10_rhs", "crank_rocker_fe78_10", "work.rhs_calls", "int"),
    ("crank_rocker_fe78_10_crank", "crank_rocker_fe78_10", CRANK, "e2"),
    ("crank_rocker_fe78_9_crank", "crank_rocker_fe78_9", CRANK, "e2"),
    ("crank_rocker_bs_9_crank", "crank_rocker_bs_9", CRANK, "e2"),
    ("andrews_fe78_9_rhs", "andrews_fe78_9", "work.rhs_calls", "int"),
    ("andrews_fe78_9_scd", "andrews_fe78_9", "metrics.error.scd", "f2"),
    ("andrews_fe78_2e9_scd", "andrews_fe78_2e9", "metrics.error.scd", "f2"),
    ("andrews_fe78_2e9_rhs", "andrews_fe78_2e9", "work.rhs_calls", "int"),
    ("crank_rocker_proj_fe78_11_crank", "crank_rocker_proj_fe78_11", CRANK_MAX, "e2"),
    ("crank_rocker_proj_dp87_3e10_crank", "crank_rocker_proj_dp87_3e10", CRANK_MAX, "e2"),
    ("crank_rocker_proj_dp87_3e10_rhs", "crank_rocker_proj_dp87_3e10", "work.rhs_calls", "int"),
    ("andrews_proj_dp87_2e7_scd", "andrews_proj_dp87_2e7", "metrics.error.scd", "f2"),
    ("andrews_proj_dp87_2e7_rhs", "andrews_proj_dp87_2e7", "work.rhs_calls", "int"),
    ("andrews_proj_dp87_3e7_scd", "andrews_proj_dp87_3e7", "metrics.error.scd", "f2"),
    ("andrews_proj_dp87_1_5e7_scd", "andrews_proj_dp87_1_5e7", "metrics.error.scd", "f2"),
    ("andrews_proj_dp87_5e8_scd", "andrews_proj_dp87_5e8", "metrics.error.scd", "f2"),
    ("andrews_proj_dp87_3e8_scd", "andrews_proj_dp87_3e8", "metrics.error.scd", "f2"),
    ("andrews_proj_dp87_3e8_rhs", "andrews_proj_dp87_3e8", "work.rhs_calls", "int"),
    ("andrews_proj_dop853_2e8_rhs", "andrews_proj_dop853_2e8", "work.rhs_calls", "int"),
    ("andrews_proj_dop853_2e8_scd", "andrews_proj_dop853_2e8", "metrics.error.scd", "f2"),
    ("crank_rocker_proj_dop853_7e11_rhs", "crank_rocker_proj_dop853_7e11", "work.rhs_calls", "int"),
    ("crank_rocker_proj_dop853_7e11_crank", "crank_rocker_proj_dop853_7e11", CRANK_MAX, "e2"),
    ("crank_rocker_proj_dp87_3e10_newton", "crank_rocker_proj_dp87_3e10", "work.method.newton_iterations", "int"),
    ("crank_rocker_proj_dp87_3e10_projections", "crank_rocker_proj_dp87_3e10", "work.method.projections", "int"),
    ("crank_rocker_proj_fe78_11_rhs", "crank_rocker_proj_fe78_11", "work.rhs_calls", "int"),
    ("andrews_fe78_8_scd", "andrews_fe78_8", "metrics.error.scd", "f2"),
    ("andrews_dopri5_7_scd", "andrews_dopri5_7", "metrics.error.scd", "f2"),
]

for _problem in CP_PROBLEMS:
    for _variant in CP_VARIANTS:
        CLAIMS.append((f"cp_{_problem}_{_variant}_max", f"cp_{_problem}_{_variant}", ERR, "e1"))
    for _variant in ("cp01", "cp"):
        CLAIMS.append((f"cp_{_problem}_{_variant}_repartitions", f"cp_{_problem}_{_variant}",
                       "work.method.repartitions", "int"))

CLAIMS += [("cp_top_dopri5_rhs", "cp_top_dopri5", "work.rhs_calls", "int"),
           ("cp_top_dopri5_01_rhs", "cp_top_dopri5_01", "work.rhs_calls", "int")]

# The DAE integrators' claims (docs/integrators.md) live in their own module.
RUNS.update({key: Run(**run) for key, run in integrator_numbers.RUNS.items()})
CLAIMS += integrator_numbers.CLAIMS


def table_modules():
    """The table modules by TABLE_ID."""
    from . import drift_table, singular_table
    return {m.TABLE_ID: m for m in (drift_table, singular_table)}


# ---------------------------------------------------------------------------------------------
# formatting and record paths

def format_value(value, spec):
    """A measured value written in a claim's format (see the module docstring); "–" for None."""
    if value is None:
        return "–"
    if spec == "word":
        return str(value)
    if spec == "int":
        return f"{int(value):,}".replace(",", " ")
    if spec in ("e1", "e2", "e3", "e4", "e5", "e6"):
        mantissa, exponent = format(float(value), f".{int(spec[1]) - 1}e").split("e")
        return f"{mantissa}e{int(exponent)}"
    if spec in ("f0", "f1", "f2", "f3", "f4"):
        return format(float(value), f".{spec[1]}f")
    if spec == "g3":
        return format(float(value), ".3g")
    raise ValueError(f"unknown format {spec!r}")


def lookup(record, path):
    """The value at a dotted path of a run record, or None when the record has none there."""
    value = record
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def canonical(args):
    """Arguments as a hashable key independent of option order (every option takes one value)."""
    pairs = [(args[i], args[i + 1]) for i in range(0, len(args) - 1, 2)]
    if len(args) % 2 or any(not flag.startswith("--") for flag, _ in pairs):
        raise ValueError("run arguments must be --option value pairs: " + " ".join(args))
    return tuple(sorted(pairs))


def command_text(args):
    """The cmbench run command line of a claim, as shown in messages."""
    return "build/cmbench run " + " ".join(shlex.quote(a) for a in args)


# ---------------------------------------------------------------------------------------------
# Markdown: markers

MARKER = re.compile(r"<!--n:([A-Za-z0-9_.-]+)-->(.*?)<!--/n-->")
TABLE_OPEN = re.compile(r"^<!--table:([A-Za-z0-9_.-]+)-->\s*$")
TABLE_CLOSE = "<!--/table-->"


def doc_path(rel):
    """The absolute path of a repository-relative documentation file."""
    return os.path.join(ROOT, rel)


def read_docs():
    """The text of every checked documentation file that exists, by repository-relative path."""
    texts = {}
    for rel in DOCS:
        if os.path.exists(doc_path(rel)):
            with open(doc_path(rel), encoding="utf-8") as f:
                texts[rel] = f.read()
    return texts


def find_markers(texts):
    """[(file, line number, claim id, quoted text)] and a list of syntax problems."""
    found, problems = [], []
    for rel, text in texts.items():
        fenced = False
        ticks = 0  # backticks seen so far in the current paragraph: odd = inside a code span
        for number, line in enumerate(text.splitlines(), 1):
            if line.lstrip().startswith("```"):
                fenced = not fenced
                ticks = 0
                continue
            if not line.strip():
                ticks = 0
            if fenced:
                if "<!--n:" in line:
                    problems.append(f"{rel}:{number}: marker inside a fenced code block")
                continue
            if line.lstrip().startswith("<!--n:"):
                problems.append(f"{rel}:{number}: a marker starts the line (CommonMark would "
                                "render it as a raw HTML block): rewrap the paragraph")
            for m in MARKER.finditer(line):
                if (ticks + line[:m.start()].count("`")) % 2:
                    problems.append(f"{rel}:{number}: marker {m.group(1)} inside a code span")
                found.append((rel, number, m.group(1), m.group(2)))
            if line.count("<!--n:") != len(MARKER.findall(line)):
                problems.append(f"{rel}:{number}: unclosed marker (<!--n:ID-->value<!--/n--> "
                                "must be on one line)")
            ticks += line.count("`")
    return found, problems


def split_row(line):
    """The cells of a Markdown table row (an escaped pipe stays inside its cell)."""
    cells = re.split(r"(?<!\\)\|", line.strip())
    return [c.strip() for c in cells[1:-1]]


def find_tables(texts):
    """{table id: (file, first line index of the table, [rows as cell lists], [raw lines])}."""
    tables, problems = {}, []
    for rel, text in texts.items():
        lines = text.splitlines()
        i = 0
        while i < len(lines):
            m = TABLE_OPEN.match(lines[i])
            if m:
                j = i + 1
                while j < len(lines) and lines[j].strip() != TABLE_CLOSE:
                    j += 1
                if j == len(lines):
                    problems.append(f"{rel}:{i + 1}: table {m.group(1)} has no {TABLE_CLOSE}")
                    break
                body = [(k, lines[k]) for k in range(i + 1, j) if lines[k].strip()]
                tables[m.group(1)] = (rel, body)
                i = j
            i += 1
    return tables, problems


def replace_table(rel, table_id, new_lines):
    """Put new_lines between <!--table:TABLE_ID--> and <!--/table--> of file rel."""
    path = doc_path(rel)
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    start = next(i for i, line in enumerate(lines) if line.strip() == f"<!--table:{table_id}-->")
    end = next(i for i in range(start, len(lines)) if lines[i].strip() == TABLE_CLOSE)
    lines[start:end + 1] = [lines[start], ""] + list(new_lines) + ["", TABLE_CLOSE]
    write_atomic(path, "\n".join(lines))


# ---------------------------------------------------------------------------------------------
# running

def run_all(cmbench, runs, jobs, verbose):
    """{canonical args: record or None} for every Run in runs (each distinct command once)."""
    unique = {}
    for run in runs:
        key = canonical(run.args)
        if key not in unique or run.cost > unique[key].cost:
            unique[key] = run
    results, times = {}, {}
    with tempfile.TemporaryDirectory(prefix="doc_numbers_") as tmp:
        references = os.path.join(tmp, "references")
        # Self-converged references (bricard, flyball_governor) are computed by the first run
        # that needs one and cached for the others: runs of those problems go in one queue.
        queues = {}
        for key, run in unique.items():
            problem = dict(key).get("--problem")
            shared = problem in ("bricard", "flyball_governor")
            queues.setdefault(problem if shared else key, []).append((key, run))
        ordered = sorted(queues.values(), key=lambda q: -sum(r.cost for _, r in q))

        def work(queue):
            for key, run in queue:
                out = os.path.join(tmp, f"run{abs(hash(key))}.json")
                started = time.monotonic()
                done = subprocess.run([cmbench, "run", *run.args, "--out", out, "--repeat", "0",
                                       "--reference-cache", references],
                                      cwd=tmp, capture_output=True, text=True)
                times[key] = time.monotonic() - started
                if os.path.exists(out):
                    results[key] = read_json(out, "run record")
                else:
                    results[key] = None
                    first = (done.stdout + done.stderr).strip().splitlines()
                    print(f"no record (exit {done.returncode}): {command_text(run.args)}: "
                          f"{first[0] if first else ''}", file=sys.stderr)
                if verbose:
                    print(f"  {times[key]:7.2f} s  {command_text(run.args)}", file=sys.stderr)

        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            list(pool.map(work, ordered))
    return results


# ---------------------------------------------------------------------------------------------

def _positive_count(text):
    """--jobs: a whole number from 1 up (argparse prints the message and exits 2)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got '{text}'")
    return value


def main():
    """Command line: --check, --write or --list (see the module docstring); returns the exit
    status."""
    parser = argparse.ArgumentParser(description="Check or rewrite the numbers quoted in "
                                     "README.md and docs/*.md (see the module docstring).")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="exit 1 listing every mismatch")
    mode.add_argument("--write", action="store_true", help="rewrite the quoted values")
    mode.add_argument("--list", action="store_true", help="print claims, commands, quoted values")
    parser.add_argument("--cmbench", default=os.path.join(ROOT, "build", "cmbench"))
    parser.add_argument("--all", action="store_true", help="also run the slow claims and tables")
    parser.add_argument("--jobs", type=_positive_count, default=2,
                        help="parallel cmbench processes (2)")
    parser.add_argument("--verbose", action="store_true", help="print each run and its time")
    opts = parser.parse_args()
    cmbench = os.path.abspath(opts.cmbench)
    if not (os.path.isfile(cmbench) and os.access(cmbench, os.X_OK)):
        print(f"no cmbench binary at {cmbench} (--cmbench PATH, an executable file)",
              file=sys.stderr)
        return 2
    started = time.monotonic()

    texts = read_docs()
    markers, problems = find_markers(texts)
    doc_tables, table_problems = find_tables(texts)
    problems += table_problems
    claims = {c[0]: c for c in CLAIMS}
    modules = table_modules()
    for claim_id, run_id, _, spec in CLAIMS:
        if run_id not in RUNS:
            problems.append(f"claim {claim_id}: unknown run {run_id}")
        format_value(1.0 if spec != "word" else "ok", spec)
    quoted = {m[2] for m in markers}
    for rel, number, claim_id, _ in markers:
        if claim_id not in claims:
            problems.append(f"{rel}:{number}: unknown claim id {claim_id}")
    for claim_id in claims:
        if claim_id not in quoted:
            problems.append(f"claim {claim_id} is defined but quoted nowhere")
    for table_id in modules:
        if table_id not in doc_tables:
            problems.append(f"table {table_id} has no <!--table:{table_id}--> marker")
    for table_id in doc_tables:
        if table_id not in modules:
            problems.append(f"{doc_tables[table_id][0]}: unknown table {table_id}")

    if opts.list:
        for claim_id, run_id, path, spec in CLAIMS:
            values = sorted({m[3] for m in markers if m[2] == claim_id})
            slow = " (slow)" if RUNS[run_id].slow else ""
            print(f"{claim_id}{slow}: {', '.join(values) or '(not quoted)'}  [{path}, {spec}]\n"
                  f"    {command_text(RUNS[run_id].args)}")
        for table_id, module in modules.items():
            slow = " (slow)" if module.SLOW else ""
            print(f"table {table_id}{slow} in {module.DOC}: {len(module.rows(cmbench))} rows, "
                  f"columns {', '.join(split_row(module.HEADER[0]))}; timing columns not "
                  f"checked: {sorted(module.EXEMPT) or 'none'}")
        for p in problems:
            print("problem: " + p)
        return 1 if problems else 0

    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 1

    # What to run
    wanted = [RUNS[c[1]] for c in CLAIMS if opts.all or not RUNS[c[1]].slow]
    skipped_claims = [c[0] for c in CLAIMS if RUNS[c[1]].slow and not opts.all]
    table_rows = {}
    skipped_tables = []
    for table_id, module in modules.items():
        if module.SLOW and not opts.all:
            skipped_tables.append(table_id)
            continue
        table_rows[table_id] = module.rows(cmbench)
        for _, arg_lists in table_rows[table_id]:
            wanted += [Run(args, cost=1) for args in arg_lists]
    records = run_all(cmbench, wanted, opts.jobs, opts.verbose)

    mismatches = []
    edits = {}  # file -> {old marker text: new marker text}

    def record_of(args):
        return records.get(canonical(args))

    checked = 0
    for rel, number, claim_id, text_value in markers:
        _, run_id, path, spec = claims[claim_id]
        run = RUNS[run_id]
        if run.slow and not opts.all:
            continue
        checked += 1
        record = record_of(run.args)
        measured = "(no record)" if record is None else format_value(lookup(record, path), spec)
        if measured != text_value:
            mismatches.append(f"{rel}:{number}: claim {claim_id}: text {text_value!r}, measured "
                              f"{measured!r}  ({path} of {command_text(run.args)})")
            if opts.write and record is not None:
                edits.setdefault(rel, {})[f"<!--n:{claim_id}-->{text_value}<!--/n-->"] = \
                    f"<!--n:{claim_id}-->{measured}<!--/n-->"

    table_cells = 0
    table_writes = []
    for table_id, rows in table_rows.items():
        module = modules[table_id]
        rel, body = doc_tables[table_id]
        committed = {}
        for _, raw in body[2:]:
            cells = split_row(raw)
            committed[tuple(cells[:module.KEY_COLUMNS])] = cells
        header = [raw for _, raw in body[:2]]
        if header != module.HEADER:
            mismatches.append(f"{rel}: table {table_id}: header differs from "
                              f"{module.__name__}")
        new_lines = list(module.HEADER)
        for key, arg_lists in rows:
            measured = module.cells(key, [record_of(a) for a in arg_lists])
            old = committed.pop(tuple(key), None)
            label = f"table {table_id} [{' | '.join(key)}]"
            if old is None:
                mismatches.append(f"{rel}: {label}: row missing; measured {measured}")
            else:
                for col, (a, b) in enumerate(zip(old + [""] * len(measured), measured)):
                    if col in module.EXEMPT:
                        measured[col] = a
                        continue
                    table_cells += 1
                    if a != b:
                        column = split_row(module.HEADER[0])[col]
                        mismatches.append(f"{rel}: {label} column '{column}': text {a!r}, "
                                          f"measured {b!r}  ({command_text(arg_lists[0])})")
                if len(old) != len(measured):
                    mismatches.append(f"{rel}: {label}: {len(old)} cells, expected {len(measured)}")
            new_lines.append(table_line(measured))
        for key in committed:
            mismatches.append(f"{rel}: table {table_id}: row {' | '.join(key)} is not produced "
                              f"by {module.__name__}")
        if opts.write:
            table_writes.append((rel, table_id, new_lines))

    if opts.write:
        # Re-read each file just before writing and substitute the exact marker text, so that
        # edits made to the file while the runs went on are kept.
        for rel, changed in edits.items():
            with open(doc_path(rel), encoding="utf-8") as f:
                current = f.read()
            for old, new in changed.items():
                current = current.replace(old, new)
            write_atomic(doc_path(rel), current)
        for rel, table_id, new_lines in table_writes:
            replace_table(rel, table_id, new_lines)

    elapsed = time.monotonic() - started
    summary = (f"{checked} quoted values and {table_cells} table cells from "
               f"{len(records)} cmbench runs in {elapsed:.1f} s")
    if skipped_claims or skipped_tables:
        summary += ("; skipped (slow, use --all): " + ", ".join(
            [f"table {t}" for t in skipped_tables] + skipped_claims))
    if mismatches:
        print(("rewrote" if opts.write else "out of date") + f" ({len(mismatches)}):")
        print("\n".join(mismatches))
    print(summary)
    return 1 if mismatches and opts.check else 0


if __name__ == "__main__":
    sys.exit(exit_status("cmbench.docs.numbers", main))
