#include "harness/merge.hpp"

#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "harness/output.hpp"

namespace cmb {

namespace fs = std::filesystem;
using nlohmann::json;

std::size_t merge_results(const std::vector<std::string>& dirs, const std::string& out_dir,
                          bool force) {
  if (dirs.size() < 2) throw InputError("merge needs at least two result directories");
  std::vector<json> docs;
  for (const auto& dir : dirs) {
    std::ifstream in(fs::path(dir) / "results.json");
    if (!in) throw InputError("'" + dir + "' holds no results.json");
    json doc = json::parse(in, nullptr, false);
    if (doc.is_discarded() || doc.value("schema", "") != "cmbench.results/1")
      throw InputError("'" + dir + "/results.json' is not a cmbench results file");
    docs.push_back(std::move(doc));
  }
  const json& first = docs.front();
  for (std::size_t i = 1; i < docs.size(); ++i) {
    if (docs[i]["campaign_file"] != first["campaign_file"] && !force)
      throw InputError("'" + dirs[i] + "' comes from a different campaign file than '" + dirs[0] +
                       "' (use --force to merge anyway)");
    for (const char* key : {"git_sha", "build_type", "compiler", "flags"})
      if (docs[i]["context"][key] != first["context"][key] && !force)
        throw InputError("'" + dirs[i] + "' was produced by a different build (" + key + ": " +
                         docs[i]["context"][key].dump() + " vs " + first["context"][key].dump() +
                         "; use --force to merge anyway)");
  }
  json runs = json::array();
  std::set<std::string> seen;
  for (const auto& doc : docs)
    for (const auto& run : doc["runs"])
      if (seen.insert(run.value("key", "")).second) runs.push_back(run);
  json merged = first;
  merged["runs"] = runs;
  merged["shard"] = nullptr;
  merged["merged_from"] = dirs;
  fs::create_directories(out_dir);
  write_file_atomically((fs::path(out_dir) / "results.json").string(), merged.dump(1) + "\n");
  return runs.size();
}

}  // namespace cmb
