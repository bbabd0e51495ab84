// Self-converged references: for problems without an analytic or published reference (or when
// a run asks for one), the harness integrates the problem with two independent configurations
// (different methods and steppers, tight tolerance) landing on a uniform grid, takes the first as
// the reference and the largest difference between the two as its estimated accuracy; the grid
// is refined until values read between grid times (harness/run/grid_reference.hpp) are within
// that accuracy too. Results are
// cached under results/references/ with their provenance and reused. This layer sits above one
// run (harness/run/run.hpp): it runs runs, and resolves a run's reference before the run starts.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/problem.hpp"
#include "harness/run/run.hpp"

namespace cmb {

struct SelfConvergedReference : GridReference {
  double agreement = 0.0;  // max |A − B| over grid and outputs
  nlohmann::json provenance;
  std::string cache_file;
  bool from_cache = false;
};

// The default pair: augmented_lagrangian + fehlberg78 against svd_null_space with Baumgarte
// terms + bulirsch_stoer, both at tolerance 1e-12 — different formulations and different
// integrators, and both handle redundant and singular configurations.
nlohmann::json default_reference_recipe();

// Computes (or loads from cache_dir) the reference of `problem` (its id and parameters) up to
// t_end. A cache entry is used only when it is exactly this reference, whole
// (records/reference_cache.hpp); any other file under its name is recomputed and replaced.
SelfConvergedReference self_converged_reference(const Problem& problem, double t_end,
                                                const nlohmann::json& recipe,
                                                const std::string& cache_dir);

// The cache file the self-converged reference of `run` is read from and written to (in
// run.config.reference_cache; its name follows from the problem, its parameters, the horizon
// and the recipe).
std::string reference_cache_file(const PreparedRun& run);

// Why a reference could not be computed, and the status its runs end with: reference_failed,
// or out_of_memory when an allocation failed (another attempt, with more memory, may succeed:
// --resume runs them again).
struct ReferenceFailure {
  std::string why;
  RunStatus status = RunStatus::reference_failed;
};
// References found not computable (by a campaign's reference pass): cache file → why.
using ReferenceFailures = std::map<std::string, ReferenceFailure>;

// Resolves the reference of a prepared run before it executes: when needs_grid_reference(run),
// computes or loads the self-converged reference into run.grid_reference and the record's
// reference block, or notes why it could not be computed (the run then ends reference_failed, or
// out_of_memory when that was why).
// A reference in `known_failures` is not tried again: the run gets the failure noted there.
// Its own work limit bounds a reference (the reference runs' step limit, not the run's limits),
// so whether it can be computed depends on the reference alone.
void resolve_reference(PreparedRun& run, const ReferenceFailures& known_failures = {});

// resolve_reference, then execute_run: what a caller that runs a configuration uses.
RunResult run_with_reference(PreparedRun& run);

}  // namespace cmb
