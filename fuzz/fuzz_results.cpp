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
  "runs": [{"key": "simple_pendulum/index1/rk4/dt=0.01/t_end=0.1", "status": "ok",
            "metrics": {"error": {"max_abs": 1e-9}}, "work": {"rhs_calls": 40},
            "timing": {"min_s": 0.001}}]})";

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
  require(cmb::merge_documents({input, input}, false)["runs"].size() == input.doc["runs"].size());
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
