// Which inputs `cmbench merge` may join (records/merge.hpp says what each check refuses): the
// campaign they were submitted with, one campaign file and build, one selection, every shard.
#pragma once

#include <string>
#include <vector>

#include "records/results_file.hpp"

namespace cmb::merge_inputs {

// --campaign: every input holds the results of the campaign document in `file`.
void check_submitted_campaign(const std::vector<ResultsFile>& inputs, const std::string& file);
// One campaign file and one build (unless --force).
void check_same_origin(const std::vector<ResultsFile>& inputs);
// The shard numbers the shard inputs leave out; InputError for shards of different splits.
std::vector<int> missing_shards(const std::vector<ResultsFile>& inputs);
std::string incomplete_message(const std::vector<ResultsFile>& inputs,
                               const std::vector<int>& missing);

}  // namespace cmb::merge_inputs
