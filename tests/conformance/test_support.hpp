// Helpers shared by the tests: random consistent states, finite differences, quick runs.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "core/problem.hpp"
#include "harness/run/run.hpp"
#include "harness/run/self_converged.hpp"
#include "sanitized.hpp"

namespace cmb::test {

// The problem parameters the conformance suites use: defaults, but small sizes where a
// parameter scales the model (the physics per row is the same).
nlohmann::json conformance_params(const std::string& problem_id);

bool has_tag(const Problem& problem, const std::string& tag);

// <temp>/cmb_<name>_<pid>: a scratch path of this test process, so that test runs sharing a
// machine (two checkouts, a sanitizer build beside a release one) never write into each other.
// Whatever is left at such a path is removed when the test process exits normally, so a passing
// suite leaves nothing in the temporary directory.
std::filesystem::path scratch_path(const std::string& name);

// scratch_path(name), emptied and created.
std::filesystem::path fresh_scratch_dir(const std::string& name);

struct ConsistentState {
  double t = 0.0;
  Vec q, v;
};

// A state near the initial one, moved onto Φ = 0 and J v = ν; the random perturbation is
// deterministic for a given seed. Returns false when assembly failed or J is rank-deficient
// there (the caller draws again).
bool random_consistent_state(const Problem& problem, std::mt19937& rng, double spread,
                             ConsistentState& out, bool require_full_rank = true);

// Central differences of Φ in q (all holonomic rows), and of J v − ν along (1, v) in (t, q):
// the latter is −γ.
Mat fd_constraint_jacobian(const Problem& problem, double t, const Vec& q);
Vec fd_gamma(const Problem& problem, double t, const Vec& q, const Vec& v);

// fehlberg78 at a tight tolerance: the configuration reference tests compare with.
RunConfig tight_run(const std::string& problem, const std::string& method, double tol = 1e-12);

// Runs one configuration in-process with metrics and no timed repetitions.
nlohmann::json quick_run(RunConfig config);
// The same, keeping the sampled series (result.problem is null: the problem is gone).
RunResult run_in_process(RunConfig config);

// The same for a problem object that is not in the registry (e.g. built by a test).
RunResult run_unregistered(std::unique_ptr<Problem> problem, const std::string& method,
                           const nlohmann::json& method_params, const std::string& stepper,
                           double tol);

}  // namespace cmb::test
