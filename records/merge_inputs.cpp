// Which inputs `cmbench merge` may join (records/merge_inputs.hpp).
#include "records/merge_inputs.hpp"

#include <set>

#include "core/errors.hpp"
#include "core/json_input.hpp"
#include "core/params.hpp"

namespace cmb::merge_inputs {

using nlohmann::json;

namespace {

// --campaign: every input holds the results of the campaign document in `file`.
}  // namespace

void check_submitted_campaign(const std::vector<ResultsFile>& inputs, const std::string& file) {
  const json submitted = read_json_file(file, "--campaign '" + file + "'");
  for (const ResultsFile& input : inputs) {
    const json& held = input.doc["campaign_file"];
    if (held == submitted) continue;
    std::vector<std::string> differing;
    if (held.is_object() && submitted.is_object()) {
      std::set<std::string> keys;
      for (const auto& [k, v] : held.items()) keys.insert(k);
      for (const auto& [k, v] : submitted.items()) keys.insert(k);
      for (const auto& k : keys)
        if (held.value(k, json()) != submitted.value(k, json())) differing.push_back(k);
    }
    throw InputError(
        "'" + input.name + "' holds the results of another campaign than --campaign '" + file +
        "'" + (differing.empty() ? std::string() : " (differs in: " + join(differing, ", ") + ")") +
        ": a shard left from an earlier submission (submit.sh moves those to stale/); move or "
        "remove it, then run that shard again with this file");
  }
}

void check_same_origin(const std::vector<ResultsFile>& inputs) {
  const json& first = inputs.front().doc;
  for (std::size_t i = 1; i < inputs.size(); ++i) {
    const json& doc = inputs[i].doc;
    if (doc["campaign_file"] != first["campaign_file"])
      throw InputError("'" + inputs[i].name + "' comes from a different campaign file than '" +
                       inputs.front().name + "' (use --force to merge anyway)");
    // cmbench_build is optional (older records, hand-made files): absent reads as null.
    for (const char* key : {"git_sha", "build_type", "compiler", "flags", "cmbench_build"}) {
      const json here = doc["context"].value(key, json()),
                 there = first["context"].value(key, json());
      if (here != there)
        throw InputError("'" + inputs[i].name + "' was produced by a different build (" + key +
                         ": " + here.dump() + " vs " + there.dump() +
                         "; use --force to merge anyway)");
    }
  }
}

namespace {

// The selection a results file holds ("filter": the regular expression its runs were chosen
// by; "" when all were, or when an older file does not say).
std::string selection_of(const ResultsFile& input) {
  const json filter = input.doc.value("filter", json(""));
  return filter.is_string() ? filter.get<std::string>() : filter.dump();
}

// Shards split one selection: a shard of another selection (a different --filter) would make
// "all N shards present" mean nothing, so it is refused, even with --force.
void check_same_selection(const ResultsFile& shard, const std::vector<ResultsFile>& inputs) {
  for (const auto& other : inputs) {
    const json& block = other.doc.value("shard", json());
    if (!block.is_object() || block.value("count", 1) <= 1) continue;
    if (selection_of(other) != selection_of(shard))
      throw InputError("'" + shard.name + "' and '" + other.name +
                       "' are shards of different selections (--filter " +
                       excerpt(json(selection_of(shard)), 60) + " vs " +
                       excerpt(json(selection_of(other)), 60) +
                       "): together they are not the campaign's runs; run every shard with the "
                       "same --filter");
    return;  // the first shard input: all others are checked against it
  }
}

}  // namespace

// The shard numbers that the shard inputs leave out (none when no input is a shard of N > 1).
std::vector<int> missing_shards(const std::vector<ResultsFile>& inputs) {
  int count = 0;
  std::set<int> present;
  for (const auto& input : inputs) {
    const json& shard = input.doc.value("shard", json());
    if (!shard.is_object() || shard.value("count", 1) <= 1) continue;
    const int n = shard.value("count", 1), index = shard.value("index", 0);
    if (count != 0 && n != count)
      throw InputError("'" + input.name + "' is shard " + std::to_string(index) + " of " +
                       std::to_string(n) + ", another input a shard of " + std::to_string(count) +
                       ": merge the shards of one split");
    count = n;
    check_same_selection(input, inputs);
    present.insert(index);
  }
  std::vector<int> missing;
  for (int i = 1; i <= count; ++i)
    if (!present.count(i)) missing.push_back(i);
  return missing;
}

std::string incomplete_message(const std::vector<ResultsFile>& inputs,
                               const std::vector<int>& missing) {
  int count = 0;
  for (const auto& input : inputs)
    if (input.doc.value("shard", json()).is_object())
      count = std::max(count, input.doc["shard"].value("count", 1));
  std::string numbers;
  for (const int i : missing) numbers += (numbers.empty() ? "" : ", ") + std::to_string(i);
  return "the inputs are an incomplete set of shards: shard(s) " + numbers + " of " +
         std::to_string(count) +
         " missing; merge them all, or give --allow-partial to merge these (recorded as "
         "missing_shards in results.json)";
}

}  // namespace cmb::merge_inputs
