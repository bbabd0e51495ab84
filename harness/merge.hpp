// Joining the results of campaign shards (`cmbench merge`).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace cmb {

// Joins the results.json of several result directories (shards) into out_dir/results.json.
// Refuses inputs from different campaign files or builds (git sha, build type, compiler, flags)
// unless `force`; a run present in several inputs is kept once. Returns the number of runs.
std::size_t merge_results(const std::vector<std::string>& dirs, const std::string& out_dir,
                          bool force);

}  // namespace cmb
