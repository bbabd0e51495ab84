// One run described as data — what `cmbench run`'s options say, as a JSON object — for callers
// that are not the command line (the Python module's cmbench.run, scripts), and the one rule for
// routing a parameter to the problem or the method (`--param`).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "harness/run/run.hpp"

namespace cmb {

// Keys: problem, method, stepper (required); dt, tol (sets abs_tol and rel_tol), abs_tol,
// rel_tol, max_dt, t_end, sample_dt, repeat, max_steps, max_rhs_calls, time_limit, reference,
// reference_cache, initial_assembly, initial_tol, perturb_position, perturb_velocity; params (an
// object whose keys are as --param's). A null value is the same as leaving the key out. Unknown
// keys and values of the wrong type are InputErrors naming the key; everything else is checked
// by prepare_run.
RunConfig run_config_from_json(const nlohmann::json& request);

// `key` = `value` as `--param` reads it: problem.KEY, method.KEY, or an unprefixed key that only
// one of the two declares (InputError otherwise, naming what each takes, or when the parameter
// was already given).
void apply_param(RunConfig& config, const std::string& key, const nlohmann::json& value);

}  // namespace cmb
