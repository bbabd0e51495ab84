#include "harness/merge.hpp"

#include <filesystem>
#include <fstream>
#include <map>

#include "core/errors.hpp"
#include "harness/output.hpp"

namespace cmb {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Whether `file` is a results.json written by merge (an earlier merge, safe to replace).
bool written_by_merge(const fs::path& file) {
  std::ifstream in(file);
  const json doc = json::parse(in, nullptr, false);
  return doc.is_object() && doc.contains("merged_from");
}

// See merge.hpp: what --out may be. Throws before anything is written.
void check_out_dir(const std::string& out_dir, bool force) {
  const fs::path dir(out_dir);
  const fs::path target = dir / "results.json";
  std::error_code ec;
  const auto status = fs::status(dir, ec);
  if (fs::exists(status) && !fs::is_directory(status))
    throw OutputError("--out '" + out_dir +
                      "' is not a directory (merge writes results.json into it)");
  if (fs::is_directory(status)) {
    if (fs::exists(dir / "campaign.json", ec) || fs::exists(dir / "runs", ec))
      throw InputError("--out '" + out_dir +
                       "' is a campaign's directory (campaign.json or "
                       "runs/), which merge never writes into: choose another --out");
    if (fs::exists(target, ec) && !written_by_merge(target))
      throw InputError("--out '" + out_dir +
                       "' already holds a results.json that merge did not "
                       "write: choose another --out");
    if (fs::exists(target, ec) && !force)
      throw InputError("--out '" + out_dir +
                       "' already holds merged results: use --force to "
                       "replace them, or choose another --out");
  }
  check_writable(target.string());  // a path under a file, a directory that cannot be written
}

void check_same_origin(const std::vector<ResultsFile>& inputs) {
  const json& first = inputs.front().doc;
  for (std::size_t i = 1; i < inputs.size(); ++i) {
    const json& doc = inputs[i].doc;
    if (doc["campaign_file"] != first["campaign_file"])
      throw InputError("'" + inputs[i].name + "' comes from a different campaign file than '" +
                       inputs.front().name + "' (use --force to merge anyway)");
    for (const char* key : {"git_sha", "build_type", "compiler", "flags"})
      if (doc["context"][key] != first["context"][key])
        throw InputError("'" + inputs[i].name + "' was produced by a different build (" + key +
                         ": " + doc["context"][key].dump() + " vs " + first["context"][key].dump() +
                         "; use --force to merge anyway)");
  }
}

// A run record without when, where and how long it ran (timing, context): two campaigns that
// share a run record it the same way apart from these.
json outcome(json run) {
  run.erase("timing");
  run.erase("context");
  return run;
}

// The top-level fields in which two outcomes differ, for the message.
std::string differing_fields(const json& a, const json& b) {
  std::string out;
  for (const auto& [k, v] : a.items())
    if (!b.contains(k) || b[k] != v) out += (out.empty() ? "" : ", ") + k;
  for (const auto& [k, v] : b.items())
    if (!a.contains(k)) out += (out.empty() ? "" : ", ") + k;
  return out;
}

}  // namespace

json merge_documents(const std::vector<ResultsFile>& inputs, bool force) {
  if (inputs.empty()) throw InputError("merge needs at least one results file");
  if (!force) check_same_origin(inputs);
  json runs = json::array();
  struct Kept {
    std::size_t position;  // in runs
    std::size_t input;     // where it came from, for the message
  };
  std::map<std::string, Kept> kept;
  for (std::size_t i = 0; i < inputs.size(); ++i)
    for (const auto& run : inputs[i].doc["runs"]) {
      const std::string& key = run["key"].get_ref<const std::string&>();
      const auto [found, inserted] = kept.emplace(key, Kept{runs.size(), i});
      if (inserted) {
        runs.push_back(run);
        continue;
      }
      const json first = outcome(runs[found->second.position]), second = outcome(run);
      if (first != second)
        throw InputError("run '" + key + "' is recorded differently in '" +
                         inputs[found->second.input].name + "' and '" + inputs[i].name +
                         "' (differs in: " + differing_fields(first, second) +
                         "): merge only one of those inputs");
    }
  json merged = inputs.front().doc;
  merged["runs"] = std::move(runs);
  merged["shard"] = nullptr;
  return merged;
}

std::size_t merge_results(const std::vector<std::string>& dirs, const std::string& out_dir,
                          bool force) {
  if (dirs.size() < 2) throw InputError("merge needs at least two result directories");
  check_out_dir(out_dir, force);
  std::vector<ResultsFile> inputs;
  for (const auto& dir : dirs)
    inputs.push_back(load_results((fs::path(dir) / "results.json").string(),
                                  "'" + dir + "' holds no results.json"));
  json merged = merge_documents(inputs, force);
  merged["merged_from"] = dirs;
  write_file_atomically((fs::path(out_dir) / "results.json").string(), merged.dump(1) + "\n");
  return merged["runs"].size();
}

}  // namespace cmb
