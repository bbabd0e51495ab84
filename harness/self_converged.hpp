// Self-converged references: for problems without an analytic or published reference (or when
// a run asks for one), the harness integrates the problem with two independent configurations
// (different methods and steppers, tight tolerance) on a fixed grid, takes the first as the
// reference and the largest difference between the two as its estimated accuracy. Results are
// cached under results/references/ with their provenance and reused.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/problem.hpp"

namespace cmb {

struct SelfConvergedReference {
  std::vector<double> grid;  // t = 0 … t_end
  Mat outputs;               // one row per grid time
  double agreement = 0.0;    // max |A − B| over grid and outputs
  nlohmann::json provenance;
  std::string cache_file;
  bool from_cache = false;
};

// The default pair: augmented_lagrangian + fehlberg78 against svd_null_space with Baumgarte
// terms + bulirsch_stoer, both at tolerance 1e-12 — different formulations and different
// integrators, and both handle redundant and singular configurations.
nlohmann::json default_reference_recipe();

// Computes (or loads from cache_dir) the reference of problem `id` with `params` up to t_end.
SelfConvergedReference self_converged_reference(const std::string& id, const nlohmann::json& params,
                                                double t_end, const nlohmann::json& recipe,
                                                const std::string& cache_dir);

// Reference values at the given times: grid values where a time matches a grid time (to
// 1e-9·t_end), NaN elsewhere.
Mat sample_reference(const SelfConvergedReference& reference, const std::vector<double>& times);

}  // namespace cmb
