// Results files (what `cmbench merge` and `cmbench compare` read): any bytes must either load or
// be rejected with an InputError; a file that loads then goes through compare and merge, which
// must not crash or throw anything else. A file compared with itself has no difference, and
// merged with itself keeps each run once.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "core/errors.hpp"
#include "records/compare.hpp"
#include "records/merge.hpp"
#include "records/results_file.hpp"

namespace {

// A valid file to compare and merge the input with (shares the key of fuzz/corpus/results/).
const char* const kReference = R"({"schema": "cmbench.results/1", "campaign_file": {"name": "tiny"},
  "context": {"git_sha": "x", "build_type": "Release", "compiler": "GNU-12.2.0", "flags": "-O3"},
  "runs": [{"schema": "cmbench.run/1", "key": "simple_pendulum/index1/rk4/dt=0.01/t_end=0.1",
    "status": "ok", "message": "",
    "problem": {"id": "simple_pendulum", "params": {}, "sizes": {"nq": 2, "mh": 1, "mn": 0},
                "tags": [], "outputs": ["x"]},
    "method": {"id": "index1", "params": {}},
    "stepper": {"id": "rk4", "kind": "fixed", "order": 4, "dt": 0.01, "abs_tol": null,
                "rel_tol": null, "max_dt": null},
    "t_end": 0.1, "samples": 10,
    "limits": {"max_steps": 1000, "max_rhs_calls": null, "time_limit_s": null},
    "reference": {"kind": "analytic", "provenance": "exact", "accuracy": null},
    "initial": {"assembly": "reject", "tolerance": 1e-10, "position_residual": 0.0,
                "velocity_residual": 0.0, "projected": false, "perturbation": null},
    "t_reached": 0.1,
    "metrics": {"error": {"outputs": {}, "final_abs_max": 1e-9, "final_rel_max": null,
                          "max_abs": 1e-9, "scd": null, "t": 0.1},
                "drift": {"position": {"max": 0.0, "final": 0.0, "rms": 0.0, "initial": 0.0},
                          "velocity": {"max": 0.0, "final": 0.0, "rms": 0.0, "initial": 0.0}},
                "energy": null, "multipliers": null, "branch": null},
    "work": {"rhs_calls": 40, "steps_accepted": 10, "steps_rejected": 0, "stepper_resets": 0,
             "jacobian_evaluations": 0, "method_rejections": 0, "method": {}},
    "timing": {"instrumented_s": 0.001, "repetitions": 1, "min_s": 0.001, "median_s": 0.001},
    "context": {"cmbench_version": "0.2.0", "git_sha": "x", "build_type": "Release",
                "compiler": "GNU-12.2.0", "flags": "-O3", "cpu": "x", "hardware_threads": 2,
                "libraries": {"eigen": "3.4.0", "boost": "1.74.0", "nlohmann_json": "3.11.2"},
                "date": "2026-11-27T00:00:00Z"}}]})";

void require(bool condition) {
  if (!condition) std::abort();  // an invariant broke: libFuzzer reports the input
}

void exercise(const cmb::ResultsFile& input) {
  static const cmb::ResultsFile reference = cmb::parse_results(kReference, "reference");
  std::ostringstream report;
  require(cmb::compare_results(input, input, {}, report) == 0);
  cmb::CompareOptions loose;
  loose.rel_tol = 0.1;
  loose.max_listed = 2;
  cmb::compare_results(reference, input, loose, report);
  require(cmb::merge_documents({input, input}, false)["runs"].size() == input.runs.size());
  try {
    cmb::merge_documents({reference, input}, true).dump();  // forced: reach the union of runs
  } catch (const cmb::InputError&) {                        // the same key recorded differently
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  cmb::ResultsFile input;
  try {
    input =
        cmb::parse_results(std::string(reinterpret_cast<const char*>(data), size), "fuzz input");
  } catch (const cmb::InputError&) {
    return 0;
  }
  exercise(input);  // a valid file: no exception at all
  return 0;
}
