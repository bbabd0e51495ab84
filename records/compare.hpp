// Run-by-run comparison of two result sets (e.g. before and after a change, or two machines):
// runs are matched by their stable keys; status, metrics and work counts are compared (exactly,
// or within a relative tolerance), timings are summarized as ratios.
#pragma once

#include <iosfwd>
#include <string>

#include "records/results_file.hpp"

namespace cmb {

struct CompareOptions {
  double rel_tol = 0.0;  // numbers within this relative difference count as equal
  std::string json_out;  // optional: write the comparison as JSON here
  int max_listed = 40;   // changed runs listed in the text report
};

// Each input is a results directory (with results.json) or a results.json file, validated
// (records/results_file.hpp: a malformed file, a non-string status or a run key recorded twice
// is an InputError, exit 2 — a duplicate is not a difference, since a key-matched comparison
// cannot tell which record of the run to compare). Prints a text report to `out` and returns
// the number of runs that differ or are missing from one side.
int compare_results(const std::string& a, const std::string& b, const CompareOptions& options,
                    std::ostream& out);

// The same on results already loaded and validated (load_results, parse_results); the report
// names them by ResultsFile::name.
int compare_results(const ResultsFile& a, const ResultsFile& b, const CompareOptions& options,
                    std::ostream& out);

}  // namespace cmb
