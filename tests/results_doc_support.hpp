// A minimal valid results document (what a campaign writes, trimmed to what merge and compare
// read) and a valid run record, shared by the tests of result-set input.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace cmb::test {

inline nlohmann::json results_doc(const std::vector<nlohmann::json>& runs) {
  return {{"schema", "cmbench.results/1"},
          {"campaign", "t"},
          {"campaign_file", {{"name", "t"}}},
          {"shard", nullptr},
          {"context",
           {{"git_sha", "abc"}, {"build_type", "Release"}, {"compiler", "GNU"}, {"flags", "-O3"}}},
          {"runs", runs}};
}

// A complete record of a run that reached its horizon (every block a prepared run has), with
// made-up values: what merge and compare see of a run, with `status` as given.
inline nlohmann::json run_record(const std::string& key, const std::string& status = "ok") {
  const nlohmann::json residual = {{"max", 0.0}, {"final", 0.0}, {"rms", 0.0}, {"initial", 0.0}};
  return {{"schema", "cmbench.run/1"},
          {"key", key},
          {"status", status},
          {"message", ""},
          {"problem",
           {{"id", "p"},
            {"params", nlohmann::json::object()},
            {"sizes", {{"nq", 1}, {"mh", 0}, {"mn", 0}}},
            {"tags", nlohmann::json::array()},
            {"outputs", {"x"}}}},
          {"method", {{"id", "m"}, {"params", nlohmann::json::object()}}},
          {"stepper",
           {{"id", "s"},
            {"kind", "fixed"},
            {"order", 1},
            {"dt", 0.01},
            {"abs_tol", nullptr},
            {"rel_tol", nullptr},
            {"max_dt", nullptr}}},
          {"t_end", 1.0},
          {"samples", 100},
          {"limits", {{"max_steps", 1000}, {"max_rhs_calls", nullptr}, {"time_limit_s", nullptr}}},
          {"reference", {{"kind", "analytic"}, {"provenance", "test"}, {"accuracy", nullptr}}},
          {"initial",
           {{"assembly", "reject"},
            {"tolerance", 1e-10},
            {"position_residual", 0.0},
            {"velocity_residual", 0.0},
            {"projected", false},
            {"perturbation", nullptr}}},
          {"t_reached", 1.0},
          {"metrics",
           {{"error",
             {{"outputs", nlohmann::json::object()},
              {"final_abs_max", 1e-9},
              {"final_rel_max", nullptr},
              {"max_abs", 1e-9},
              {"scd", nullptr},
              {"t", 1.0}}},
            {"drift", {{"position", residual}, {"velocity", residual}}},
            {"energy", nullptr},
            {"multipliers", nullptr},
            {"branch", nullptr}}},
          {"work",
           {{"rhs_calls", 40},
            {"steps_accepted", 10},
            {"steps_rejected", 0},
            {"stepper_resets", 0},
            {"jacobian_evaluations", 0},
            {"method_rejections", 0},
            {"method", nlohmann::json::object()}}},
          {"timing",
           {{"instrumented_s", 0.001}, {"repetitions", 3}, {"min_s", 0.001}, {"median_s", 0.001}}},
          {"context",
           {{"cmbench_version", "0.2.0"},
            {"git_sha", "abc"},
            {"build_type", "Release"},
            {"compiler", "GNU"},
            {"flags", "-O3"},
            {"cpu", "test"},
            {"hardware_threads", 2},
            {"libraries", {{"eigen", "3.4.0"}, {"boost", "1.74.0"}, {"nlohmann_json", "3.11.2"}}},
            {"date", "2026-11-27T00:00:00Z"}}}};
}

}  // namespace cmb::test
