// Joining the results of campaign shards (`cmbench merge`).
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "records/results_file.hpp"

namespace cmb {

struct MergeOptions {
  bool force = false;          // different campaign files or builds; replace an earlier merge
  bool allow_partial = false;  // merge an incomplete set of shards, recording what is missing
  // The campaign file the shards were submitted with (--campaign): every input must hold its
  // results, even with `force`, so that a shard left from an earlier submission of an edited
  // file is refused instead of merged as fresh. Empty: not checked.
  std::string campaign;
};

struct MergeSummary {
  std::size_t runs = 0;
  std::size_t files_copied = 0;   // run records and series
  std::size_t files_missing = 0;  // named by a record but absent from its input (not copied)
  std::vector<int> missing_shards;
};

// Joins result directories — the shards of a campaign, or campaigns sharing runs — into out_dir:
// a results.json with every run, and each run's record (runs/) and series (series/) copied from
// its input, so that out_dir is a complete result set that every figure can be drawn from.
// Every input is validated first (records/results_file.hpp: a malformed file, or a run key
// recorded twice in one file, is an InputError naming the file and the JSON path). Refuses
// inputs from different campaign files or builds (git sha; build type, compiler and flags of the
// program and of the cmbench libraries it links) unless
// `force`. A run in several inputs (a shard merged twice, an earlier merge merged again, two
// campaigns sharing runs) is kept once, the first record, if its records are identical apart
// from timing and context (when, where and how fast it ran); records that differ otherwise are
// an InputError naming the key and both files, even with `force`, since nothing says which one
// is right.
//
// Shards: inputs that are shards of N (their "shard" block) must all be of the same N, and
// together hold shards 1..N; a missing shard is an InputError naming its number, unless
// `allow_partial`, which merges what there is and records "missing_shards" in results.json.
//
// out_dir is checked before anything is read or written:
// - not a directory (a regular file, /dev/null), or not creatable (a path under a file, /proc):
//   InputError (exit 2);
// - a campaign's directory (campaign.json in it, or runs/ without a merged results.json, e.g.
//   one of the inputs): refused even with `force`, so a campaign's own results are never
//   replaced by a merge (its --resume would rebuild them from runs/ anyway);
// - holding a results.json that merge did not write (no "merged_from"): refused even with
//   `force`, as it may be another campaign's only copy;
// - holding an earlier merge: replaced only with `force` (a new merge of more shards; the inputs
//   may include out_dir itself, since all are read before writing); files of the earlier merge
//   that no merged run names are removed;
// - holding an unfinished merge (it stopped on a full disk or a signal: its marker
//   .cmbench-merging is still there): replaced only with `force`, like an earlier merge.
MergeSummary merge_results(const std::vector<std::string>& dirs, const std::string& out_dir,
                           const MergeOptions& options);

// The merge of validated inputs, without writing it: the first input's document with the union
// of the runs (in input order) and "shard" null. Throws InputError as merge_results does. With
// `origins`, receives the input each kept run came from.
nlohmann::json merge_documents(const std::vector<ResultsFile>& inputs, bool force,
                               std::vector<std::size_t>* origins = nullptr);

}  // namespace cmb
