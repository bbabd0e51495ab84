#include "records/merge.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <set>

#include "core/errors.hpp"
#include "core/json_input.hpp"
#include "core/params.hpp"
#include "records/merge_inputs.hpp"
#include "records/output.hpp"
#include "records/result_set.hpp"
#include "records/store.hpp"

namespace cmb {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Whether `file` is a results.json written by merge (an earlier merge, safe to replace).
bool written_by_merge(const fs::path& file) {
  try {
    const json doc = read_json_file(file.string(), "'" + file.string() + "'");
    return doc.is_object() && doc.contains("merged_from");
  } catch (const InputError&) {
    return false;  // unreadable: not a merge's, so never replaced
  }
}

// Present in --out from the start of a merge's writing to its end: a directory holding it is an
// unfinished merge's, which a retry may replace.
constexpr const char* kMergingMarker = ".cmbench-merging";

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
    check_writable(target.string());  // first: a FIFO or a device there is named as what it is
    const bool unfinished = fs::exists(dir / kMergingMarker, ec);
    const bool merged = unfinished || (fs::exists(target, ec) && written_by_merge(target));
    if (fs::exists(dir / "campaign.json", ec) || (fs::exists(dir / "runs", ec) && !merged))
      throw InputError("--out '" + out_dir +
                       "' is a campaign's directory (campaign.json or "
                       "runs/), which merge never writes into: choose another --out");
    if (!unfinished && fs::exists(target, ec) && !written_by_merge(target))
      throw InputError("--out '" + out_dir +
                       "' already holds a results.json that merge did not "
                       "write: choose another --out");
    if (merged && !force)
      throw InputError("--out '" + out_dir + "' already holds " +
                       (unfinished ? "an unfinished merge (it stopped before its results.json "
                                     "was written)"
                                   : "merged results") +
                       ": use --force to replace it, or choose another --out");
  }
  check_writable(target.string());  // a path under a file, a directory that cannot be written
}

// A run record without when, where and how long it ran (timing, context) and without where and
// when its reference was computed and whether it was read from a cache (the reference itself,
// its recipe and accuracy, stays): two campaigns that share a run record it the same way
// apart from these.
json outcome(json run) {
  run.erase("timing");
  run.erase("context");
  if (run.contains("reference") && run["reference"].is_object()) {
    json& reference = run["reference"];
    reference.erase("from_cache");
    reference.erase("cache_file");
    if (reference.contains("provenance") && reference["provenance"].is_object())
      reference["provenance"].erase("context");
  }
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

// Whether `path` (which exists) resolves, through any symbolic links, to a place inside `dir`:
// a run file that is a link out of its result directory is not that set's file.
bool resolves_inside(const fs::path& path, const fs::path& dir) {
  std::error_code ec;
  const fs::path real = fs::canonical(path, ec), root = fs::canonical(dir, ec);
  if (ec) return false;
  const auto [end, unused] = std::mismatch(root.begin(), root.end(), real.begin(), real.end());
  return end == root.end();
}

struct FileCopy {
  fs::path from, to;
};

// The run files to copy: each kept run's record and series from the input it came from, under
// the names its record gives ("files", already confined to runs/ and series/ by the results
// reader); a file the input does not hold is counted as missing. Nothing is copied before every
// file is checked: a source that is a link out of its set, or a destination folder of --out that
// is a link elsewhere, stops the merge with nothing written.
std::vector<FileCopy> run_files(const json& runs, const std::vector<std::size_t>& origins,
                                const std::vector<std::string>& dirs, const std::string& out_dir,
                                MergeSummary& summary) {
  std::vector<FileCopy> copies;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const json files = runs[r].value("files", json());
    if (!files.is_object()) continue;
    for (const auto& [kind, name] : files.items()) {
      if (!name.is_string()) continue;
      const fs::path from = fs::path(dirs[origins[r]]) / name.get<std::string>();
      const fs::path to = fs::path(out_dir) / name.get<std::string>();
      std::error_code ec;
      const fs::file_status source = fs::status(from, ec);
      if (fs::exists(source) && !fs::is_regular_file(source))
        throw InputError("'" + from.string() +
                         "' is not a regular file (a FIFO, a device or a directory where a "
                         "run's file belongs): merge copies only a set's own files");
      if (!fs::is_regular_file(source)) {
        ++summary.files_missing;
        continue;
      }
      if (!resolves_inside(from, dirs[origins[r]]))
        throw InputError("'" + from.string() + "' is a link out of its result directory '" +
                         dirs[origins[r]] + "': merge copies only a set's own files");
      if (fs::exists(to.parent_path(), ec) && !resolves_inside(to.parent_path(), out_dir))
        throw InputError("'" + to.parent_path().string() + "' leads out of --out '" + out_dir +
                         "' (a symbolic link): merge writes only inside --out");
      copies.push_back({from, to});
    }
  }
  return copies;
}

// The inputs' stores (null for an input without one: a committed set, exported files).
std::vector<std::unique_ptr<ResultStore>> input_stores(const std::vector<std::string>& dirs) {
  std::vector<std::unique_ptr<ResultStore>> stores;
  for (const auto& dir : dirs) {
    std::error_code ec;
    stores.push_back(fs::exists(store_path(dir), ec)
                         ? std::make_unique<ResultStore>(store_path(dir), journal_for(dir),
                                                         ResultStore::Access::read)
                         : nullptr);
  }
  return stores;
}

// The row a merged run is committed as: its input store's row, or for an input without a store
// its record as results.json holds it and its series file as the copy check found it.
StoredRun merged_row(const RunRecord& record, const ResultStore* store,
                     const std::map<fs::path, fs::path>& sources, const std::string& out_dir) {
  if (store) {
    std::optional<StoredRun> row = store->run(record.key);
    if (!row)
      throw InputError("run '" + record.key + "' is not in the store '" + store->path() + "'");
    return *row;
  }
  std::optional<std::string> series;
  if (record.files && record.files->series) {
    const auto source = sources.find(fs::path(out_dir) / *record.files->series);
    if (source != sources.end())
      series = read_text_file(source->second.string(), "'" + source->second.string() + "'");
  }
  return stored_run(record, std::move(series));
}

// Commits the merged runs into the store of `out_dir` in one transaction, replacing an earlier
// merge's, then exports them; counts the files exported.
void commit_and_export(const std::vector<RunRecord>& runs, const std::vector<std::size_t>& origins,
                       const std::vector<std::string>& dirs, const std::vector<FileCopy>& copies,
                       json header, const std::string& out_dir, MergeSummary& summary) {
  std::map<fs::path, fs::path> sources;  // each file of --out and where it comes from
  for (const FileCopy& copy : copies) sources.emplace(copy.to, copy.from);
  ResultStore store(store_path(out_dir), journal_for(out_dir), ResultStore::Access::create);
  std::vector<std::string> keys;
  auto stores = input_stores(dirs);  // closed before the export settles the store
  store.commit_each(
      [&](const ResultStore::Put& put) {
        for (std::size_t r = 0; r < runs.size(); ++r) {
          const StoredRun row = merged_row(runs[r], stores[origins[r]].get(), sources, out_dir);
          summary.files_copied += (runs[r].files ? 1 : 0) + (row.series ? 1 : 0);
          keys.push_back(row.key);
          put(row);
        }
      },
      true);
  stores.clear();
  header.erase("runs");
  export_set(store, out_dir, keys, std::move(header));
}

// After a merge replaced an earlier one in out_dir: the files no merged run names.
void remove_unnamed_files(const json& runs, const std::string& out_dir) {
  std::set<fs::path> named;
  for (const auto& run : runs) {
    const json files = run.value("files", json::object());  // a copy: items() must not dangle
    for (const auto& [kind, name] : files.items())
      if (name.is_string()) named.insert(fs::path(out_dir) / name.get<std::string>());
  }
  std::error_code ec;
  for (const char* sub : {"runs", "series"})
    for (const auto& entry : fs::directory_iterator(fs::path(out_dir) / sub, ec))
      if (!named.count(entry.path())) fs::remove(entry.path(), ec);
}

}  // namespace

json merge_documents(const std::vector<ResultsFile>& inputs, bool force,
                     std::vector<std::size_t>* origins) {
  if (inputs.empty()) throw InputError("merge needs at least one results file");
  if (!force) merge_inputs::check_same_origin(inputs);
  json runs = json::array();
  struct Kept {
    json outcome;       // of the first record of the run
    std::size_t input;  // where it came from, for the message
  };
  std::map<std::string, Kept> kept;
  for (std::size_t i = 0; i < inputs.size(); ++i)
    for (const RunRecord& run : inputs[i].runs) {
      json record = to_json(run);
      const auto found = kept.find(run.key);
      if (found == kept.end()) {
        kept.emplace(run.key, Kept{outcome(record), i});
        runs.push_back(std::move(record));
        if (origins) origins->push_back(i);
        continue;
      }
      const json second = outcome(std::move(record));
      if (found->second.outcome != second)
        throw InputError("run '" + run.key + "' is recorded differently in '" +
                         inputs[found->second.input].name + "' and '" + inputs[i].name +
                         "' (differs in: " + differing_fields(found->second.outcome, second) +
                         "): merge only one of those inputs");
    }
  json merged = inputs.front().doc;
  merged["runs"] = std::move(runs);
  merged["shard"] = nullptr;
  return merged;
}

MergeSummary merge_results(const std::vector<std::string>& dirs, const std::string& out_dir,
                           const MergeOptions& options) {
  if (dirs.empty()) throw InputError("merge needs at least one result directory");
  check_out_dir(out_dir, options.force);
  std::vector<ResultsFile> inputs;
  for (const auto& dir : dirs)
    inputs.push_back(load_results((fs::path(dir) / "results.json").string(),
                                  "'" + dir + "' holds no results.json"));
  if (!options.campaign.empty()) merge_inputs::check_submitted_campaign(inputs, options.campaign);
  if (!options.force)
    merge_inputs::check_same_origin(inputs);  // first: shards of different campaigns
  MergeSummary summary;
  summary.missing_shards = merge_inputs::missing_shards(inputs);
  if (!summary.missing_shards.empty() && !options.allow_partial)
    throw InputError(merge_inputs::incomplete_message(inputs, summary.missing_shards));
  std::vector<std::size_t> origins;
  json merged = merge_documents(inputs, options.force, &origins);
  merged["merged_from"] = dirs;
  if (!summary.missing_shards.empty()) merged["missing_shards"] = summary.missing_shards;
  std::vector<RunRecord> merged_runs;
  for (const auto& run : merged["runs"])
    merged_runs.push_back(read_run_record(run, "the merged record"));
  const std::vector<FileCopy> copies = run_files(merged["runs"], origins, dirs, out_dir, summary);
  // From here on this merge alone writes into --out; what the checks above saw may have changed
  // while it read its inputs (another merge finished), so they are made again.
  const DirectoryLock in_use(out_dir, "merge");
  check_out_dir(out_dir, options.force);
  const fs::path marker = fs::path(out_dir) / kMergingMarker;
  write_file_atomically(marker.string(), "a cmbench merge is writing here\n");
  commit_and_export(merged_runs, origins, dirs, copies, merged, out_dir, summary);
  remove_unnamed_files(merged["runs"], out_dir);
  std::error_code ec;
  fs::remove(marker, ec);
  summary.runs = merged["runs"].size();
  return summary;
}

}  // namespace cmb
