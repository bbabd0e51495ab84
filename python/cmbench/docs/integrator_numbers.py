"""The claims of docs/integrators.md (and the README's lines on the DAE integrators), merged into
cmbench.docs.numbers: the runs that measure them and the record paths of the quoted values.
Timings are not claims (the text keeps their commands). RUNS maps a run id to the keyword
arguments of numbers.Run (this module is imported by numbers.py, so it cannot import Run)."""


def _Run(args, slow=False, cost=0.1):
    return {"args": args, "slow": slow, "cost": cost}


ANDREWS = "--problem andrews_squeezer "
A02_N40 = "--problem n_four_bar --param N=40 "
PENDULUM_10 = "--problem simple_pendulum --t-end 10 "
A02_N40_ALI3P_2S = A02_N40 + "--integrator ali3p --param alpha_rel=1e6 --dt 1e-3 --t-end 2 "

RUNS = {
    "int_andrews_ida_7": _Run(ANDREWS + "--integrator ida --tol 1e-7"),
    "int_andrews_ida_8": _Run(ANDREWS + "--integrator ida --tol 1e-8"),
    "int_andrews_ida_10": _Run(ANDREWS + "--integrator ida --tol 1e-10"),
    "int_andrews_ga_2e-6": _Run(ANDREWS + "--integrator generalized_alpha --dt 2e-6", cost=0.1),
    "int_andrews_ga_2.5e-7": _Run(ANDREWS + "--integrator generalized_alpha --dt 2.5e-7", cost=0.5),
    "int_andrews_ali3p_2e-6": _Run(ANDREWS + "--integrator ali3p --dt 2e-6", cost=0.1),
    "int_andrews_ali3p_1e-6": _Run(ANDREWS + "--integrator ali3p --dt 1e-6", cost=0.2),
    "int_andrews_ali3p_2.5e-7": _Run(ANDREWS + "--integrator ali3p --dt 2.5e-7", cost=0.5),
    "int_andrews_f78_7": _Run(ANDREWS + "--method index1 --stepper fehlberg78 --tol 1e-7"),
    "int_andrews_f78_9": _Run(ANDREWS + "--method index1 --stepper fehlberg78 --tol 1e-9"),
    "int_pendulum_ida_12": _Run(PENDULUM_10 + "--integrator ida --tol 1e-12"),
    "int_pendulum_ga_4": _Run(PENDULUM_10 + "--integrator generalized_alpha --dt 1e-4"),
    "int_pendulum_ali3p_4": _Run(PENDULUM_10 + "--integrator ali3p --dt 1e-4"),
    "int_a02_ida_8": _Run(A02_N40 + "--integrator ida --tol 1e-8", cost=6),
    "int_a02_ali3p_3": _Run(A02_N40 + "--integrator ali3p --dt 1e-3", cost=6),
    "int_a02_ga_3": _Run(A02_N40 + "--integrator generalized_alpha --dt 1e-3", cost=2),
    "int_a02_ga_5e-4": _Run(A02_N40 + "--integrator generalized_alpha --dt 5e-4", cost=2),
    "int_a02_ali3p_a6_3": _Run(A02_N40 + "--integrator ali3p --param alpha_rel=1e6 --dt 1e-3",
                               cost=2),
    "int_a02_ali3p_a6_5e-4": _Run(A02_N40 + "--integrator ali3p --param alpha_rel=1e6 --dt 5e-4",
                                  cost=8),
    # ali3p over 2 s on both linear solvers, at the default tol and at 1e-12 (docs/integrators.md,
    # "Sparse iteration matrices"): its Newton stop makes the result depend on the solver's rounding.
    "int_a02_ali3p_2s_dense": _Run(A02_N40_ALI3P_2S + "--param linear_solver=dense", slow=True, cost=7),
    "int_a02_ali3p_2s_sparse": _Run(A02_N40_ALI3P_2S + "--param linear_solver=sparse", cost=0.3),
    "int_a02_ali3p_2s_dense_12": _Run(A02_N40_ALI3P_2S + "--param linear_solver=dense --param tol=1e-12",
                                      slow=True, cost=13),
    "int_a02_ali3p_2s_sparse_12": _Run(A02_N40_ALI3P_2S + "--param linear_solver=sparse --param tol=1e-12",
                                       cost=0.4),

}

SCD = "metrics.error.scd"
ERR = "metrics.error.max_abs"

CLAIMS = [
    ("int_andrews_ida_7_scd", "int_andrews_ida_7", SCD, "f2"),
    ("int_andrews_ida_8_scd", "int_andrews_ida_8", SCD, "f2"),
    ("int_andrews_ida_10_scd", "int_andrews_ida_10", SCD, "f2"),
    ("int_andrews_ida_7_steps", "int_andrews_ida_7", "work.steps_accepted", "int"),
    ("int_andrews_ida_7_rhs", "int_andrews_ida_7", "work.rhs_calls", "int"),
    ("int_andrews_ida_8_steps", "int_andrews_ida_8", "work.steps_accepted", "int"),
    ("int_andrews_ida_10_steps", "int_andrews_ida_10", "work.steps_accepted", "int"),
    ("int_andrews_ida_8_rhs", "int_andrews_ida_8", "work.rhs_calls", "int"),
    ("int_andrews_ida_10_rhs", "int_andrews_ida_10", "work.rhs_calls", "int"),
    ("int_andrews_ida_10_jac", "int_andrews_ida_10", "work.jacobian_evaluations", "int"),
    ("int_andrews_ga_2e-6_steps", "int_andrews_ga_2e-6", "work.steps_accepted", "int"),
    ("int_andrews_ga_2.5e-7_steps", "int_andrews_ga_2.5e-7", "work.steps_accepted", "int"),
    ("int_andrews_ali3p_2e-6_steps", "int_andrews_ali3p_2e-6", "work.steps_accepted", "int"),
    ("int_andrews_ali3p_1e-6_steps", "int_andrews_ali3p_1e-6", "work.steps_accepted", "int"),
    ("int_andrews_ali3p_1e-6_rhs", "int_andrews_ali3p_1e-6", "work.rhs_calls", "int"),
    ("int_andrews_f78_7_steps", "int_andrews_f78_7", "work.steps_accepted", "int"),
    ("int_andrews_f78_9_steps", "int_andrews_f78_9", "work.steps_accepted", "int"),
    ("int_andrews_ga_2e-6_scd", "int_andrews_ga_2e-6", SCD, "f2"),
    ("int_andrews_ga_2e-6_rhs", "int_andrews_ga_2e-6", "work.rhs_calls", "int"),
    ("int_andrews_ga_2.5e-7_scd", "int_andrews_ga_2.5e-7", SCD, "f2"),
    ("int_andrews_ga_2.5e-7_rhs", "int_andrews_ga_2.5e-7", "work.rhs_calls", "int"),
    ("int_andrews_ali3p_2e-6_scd", "int_andrews_ali3p_2e-6", SCD, "f2"),
    ("int_andrews_ali3p_2e-6_rhs", "int_andrews_ali3p_2e-6", "work.rhs_calls", "int"),
    ("int_andrews_ali3p_1e-6_scd", "int_andrews_ali3p_1e-6", SCD, "f2"),
    ("int_andrews_ali3p_2.5e-7_scd", "int_andrews_ali3p_2.5e-7", SCD, "f2"),
    ("int_andrews_f78_7_scd", "int_andrews_f78_7", SCD, "f2"),
    ("int_andrews_f78_7_rhs", "int_andrews_f78_7", "work.rhs_calls", "int"),
    ("int_andrews_f78_9_scd", "int_andrews_f78_9", SCD, "f2"),
    ("int_andrews_f78_9_rhs", "int_andrews_f78_9", "work.rhs_calls", "int"),
    ("int_pendulum_ida_12_max", "int_pendulum_ida_12", ERR, "e2"),
    ("int_pendulum_ga_4_max", "int_pendulum_ga_4", ERR, "e2"),
    ("int_pendulum_ali3p_4_max", "int_pendulum_ali3p_4", ERR, "e2"),
    ("int_a02_ida_8_status", "int_a02_ida_8", "status", "word"),
    ("int_a02_ida_8_t", "int_a02_ida_8", "t_reached", "g3"),
    ("int_a02_ali3p_3_status", "int_a02_ali3p_3", "status", "word"),
    ("int_a02_ali3p_3_t", "int_a02_ali3p_3", "t_reached", "g3"),
    ("int_a02_ga_3_status", "int_a02_ga_3", "status", "word"),
    ("int_a02_ga_3_max", "int_a02_ga_3", ERR, "e2"),
    ("int_a02_ga_5e-4_status", "int_a02_ga_5e-4", "status", "word"),
    ("int_a02_ga_5e-4_max", "int_a02_ga_5e-4", ERR, "e2"),
    ("int_a02_ali3p_a6_3_status", "int_a02_ali3p_a6_3", "status", "word"),
    ("int_a02_ali3p_a6_3_max", "int_a02_ali3p_a6_3", ERR, "e2"),
    ("int_a02_ali3p_a6_5e-4_status", "int_a02_ali3p_a6_5e-4", "status", "word"),
    ("int_a02_ali3p_a6_5e-4_max", "int_a02_ali3p_a6_5e-4", ERR, "e2"),
    ("int_a02_ga_3_max6", "int_a02_ga_3", ERR, "e6"),
    ("int_a02_ga_5e-4_max6", "int_a02_ga_5e-4", ERR, "e6"),
    ("int_a02_ali3p_a6_3_max3", "int_a02_ali3p_a6_3", ERR, "e3"),
    ("int_a02_ga_3_rhs", "int_a02_ga_3", "work.rhs_calls", "int"),
    ("int_a02_ga_3_jac", "int_a02_ga_3", "work.jacobian_evaluations", "int"),
    ("int_a02_ga_3_newton", "int_a02_ga_3", "work.method.newton_iterations", "int"),
    ("int_a02_ali3p_2s_dense_max", "int_a02_ali3p_2s_dense", ERR, "e4"),
    ("int_a02_ali3p_2s_sparse_max", "int_a02_ali3p_2s_sparse", ERR, "e4"),
    ("int_a02_ali3p_2s_dense_12_max", "int_a02_ali3p_2s_dense_12", ERR, "e4"),
    ("int_a02_ali3p_2s_sparse_12_max", "int_a02_ali3p_2s_sparse_12", ERR, "e4"),
]

# docs/integrators.md, "ida's error against its tolerance": each problem at tolerances 1e-6 …
# 1e-12 in three variants of ida.
IDA_SWEEP_PROBLEMS = ["simple_pendulum", "lagrange_top", "lagrange_top_natural",
                      "spatial_slider_crank", "spatial_chain"]
IDA_SWEEP_VARIANTS = {"fixed": "", "step": "--param multiplier_scaling=step ",
                      "index1": "--param formulation=index1 "}
IDA_SWEEP_TOLS = ["1e-6", "1e-8", "1e-10", "1e-12"]
for _problem in IDA_SWEEP_PROBLEMS:
    for _variant, _params in IDA_SWEEP_VARIANTS.items():
        for _tol in IDA_SWEEP_TOLS:
            _id = f"int_sweep_{_problem}_{_variant}_{_tol}"
            RUNS[_id] = _Run(f"--problem {_problem} --integrator ida {_params}--tol {_tol}",
                             cost=0.3)
            CLAIMS.append((_id + "_max", _id, ERR, "e1"))
for _problem in ("lagrange_top", "spatial_slider_crank", "spatial_chain"):
    _id = f"int_sweep_{_problem}_fixed_1e-12"
    CLAIMS.append((_id + "_status", _id, "status", "word"))

# docs/integrators.md, "rattle on a fast spin": the natural-coordinate top at three spin rates
# and spatial_chain over steps of 0.25 … 4 ms.
RATTLE_CASES = {"spin10": "--problem lagrange_top_natural --param spin=10 ",
                "spin50": "--problem lagrange_top_natural ",
                "spin200": "--problem lagrange_top_natural --param spin=200 ",
                "chain": "--problem spatial_chain "}
RATTLE_STEPS = ["2.5e-4", "5e-4", "1e-3", "2e-3", "4e-3"]
for _case, _args in RATTLE_CASES.items():
    for _dt in RATTLE_STEPS:
        _id = f"int_rattle_{_case}_{_dt}"
        RUNS[_id] = _Run(_args + f"--integrator rattle --dt {_dt}", cost=0.3)
        CLAIMS.append((_id + "_max", _id, ERR, "e1"))
    CLAIMS.append((f"int_rattle_{_case}_4e-3_energy", f"int_rattle_{_case}_4e-3",
                   "metrics.energy.max_rel", "e1"))

