// Joining the results of campaign shards (`cmbench merge`).
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/results_file.hpp"

namespace cmb {

// Joins the results.json of several result directories (shards) into out_dir/results.json.
// Every input is validated first (harness/results_file.hpp: a malformed file, or a run key
// recorded twice in one file, is an InputError naming the file and the JSON path). Refuses
// inputs from different campaign files or builds (git sha, build type, compiler, flags) unless
// `force`. A run in several inputs (a shard merged twice, an earlier merge merged again, two
// campaigns sharing runs) is kept once, the first record, if its records are identical apart
// from timing and context (when, where and how fast it ran); records that differ otherwise are
// an InputError naming the key and both files, even with `force`, since nothing says which one
// is right. Returns the number of runs.
//
// out_dir receives results.json only and is checked before anything is read or written:
// - not a directory (a regular file, /dev/null), or not creatable (a path under a file, /proc):
//   InputError (exit 2);
// - a campaign's directory (campaign.json or runs/ in it, e.g. one of the inputs): refused even
//   with `force`, so a campaign's own results are never replaced by a merge (its --resume would
//   rebuild them from runs/ anyway);
// - holding a results.json that merge did not write (no "merged_from"): refused even with
//   `force`, as it may be another campaign's only copy;
// - holding an earlier merge's results.json: replaced only with `force` (a new merge of more
//   shards; the inputs may include out_dir itself, since all are read before writing).
std::size_t merge_results(const std::vector<std::string>& dirs, const std::string& out_dir,
                          bool force);

// The merge of validated inputs, without writing it: the first input's document with the union
// of the runs (in input order) and "shard" null. Throws InputError as merge_results does.
nlohmann::json merge_documents(const std::vector<ResultsFile>& inputs, bool force);

}  // namespace cmb
