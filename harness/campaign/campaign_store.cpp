#include "harness/campaign/campaign_store.hpp"

#include <iostream>
#include <map>
#include <set>

#include "core/errors.hpp"
#include "core/json_input.hpp"
#include "harness/campaign/campaign_workers.hpp"
#include "harness/run/context.hpp"
#include "records/output.hpp"
#include "records/result_set.hpp"
#include "records/results_file.hpp"

namespace cmb::campaign_store {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The store of `out`, opened for one job and closed after it: a campaign's parent never holds it
// open across the fork of a worker (SQLite's connections must not cross a fork).
ResultStore open_store(const fs::path& out, ResultStore::Access access) {
  return ResultStore(store_path(out.string()), journal_for(out.string()), access);
}

// The top-level keys in which two campaign files differ.
std::vector<std::string> differing_keys(const json& a, const json& b) {
  std::set<std::string> keys;
  for (const auto& [k, v] : a.items()) keys.insert(k);
  for (const auto& [k, v] : b.items()) keys.insert(k);
  std::vector<std::string> out;
  for (const auto& k : keys)
    if (!a.contains(k) || !b.contains(k) || a[k] != b[k]) out.push_back(k);
  return out;
}

// Why a committed run is redone, or "" when it is kept.
std::string redo_reason(const RowCheck& row) {
  if (!row.problem.empty()) return "its stored row is damaged (" + row.problem + ")";
  if (row.status == to_string(RunStatus::out_of_memory))
    return "it ran out of memory, which another attempt may not";
  if (row.status == to_string(RunStatus::crashed))
    return "its worker crashed, perhaps killed from outside";
  return "";
}

// The rows of the store, or none after moving a damaged store aside.
std::vector<RowCheck> committed_rows(const fs::path& out) {
  const std::string path = store_path(out.string());
  try {
    return open_store(out, ResultStore::Access::create).check_rows();
  } catch (const StoreDamaged& e) {
    std::cerr << "cmbench: " << e.what() << ": moved to " << kStoreFile
              << ".damaged; every run is redone\n";
  }
  std::error_code ec;
  fs::rename(path + "-journal", path + ".damaged-journal", ec);  // if any: it goes with its file
  fs::rename(path, path + ".damaged", ec);
  if (ec) throw OutputError("cannot move the damaged store '" + path + "' aside: " + ec.message());
  open_store(out, ResultStore::Access::create);
  return {};
}

}  // namespace

void check_output_dir(const Campaign& campaign, const CampaignOptions& options,
                      const fs::path& out) {
  const fs::path stored_file = out / "campaign.json";
  std::error_code ec;
  if (fs::exists(out, ec) && !fs::is_directory(out, ec))
    throw OutputError(spelled("out", options.surface) + " '" + out.string() +
                      "' exists and is not a directory");
  if (!fs::exists(stored_file, ec)) {
    if (fs::exists(out / "results.json", ec) || fs::exists(out / "runs", ec) ||
        fs::exists(out / kStoreFile, ec))
      throw InputError("output directory '" + out.string() +
                       "' holds results without a campaign.json: choose another " +
                       spelled("out", options.surface));
    return;
  }
  const std::string resume = spelled("resume", options.surface);
  const std::string other_out = spelled("out", options.surface);
  if (!options.resume)
    throw InputError("output directory '" + out.string() +
                     "' already holds a campaign's results: use " + resume + " to finish it or " +
                     other_out + " for a fresh directory");
  json stored;
  try {
    stored = read_json_file(stored_file.string(), "'" + stored_file.string() + "'");
  } catch (const InputError& e) {
    throw InputError(std::string(e.what()) +
                     ": cannot tell which campaign the directory holds (choose another " +
                     other_out + ")");
  }
  if (stored == campaign.source || options.force) return;
  throw InputError("cannot resume: '" + out.string() + "' holds campaign '" +
                   stored.value("name", std::string("?")) + "' with other settings (differs in: " +
                   join(differing_keys(stored, campaign.source), ", ") +
                   "); its records were made with those: use a fresh " + other_out + ", or " +
                   spelled("force", options.surface) + " to resume anyway");
}

std::vector<const CampaignRun*> runs_to_do(const std::vector<const CampaignRun*>& selected,
                                           const fs::path& out) {
  std::map<std::string, RowCheck> committed;
  for (RowCheck& row : committed_rows(out)) committed.emplace(row.key, std::move(row));
  std::vector<const CampaignRun*> pending;
  std::vector<std::string> stale;  // rows of runs to redo: gone before any worker starts
  std::size_t redone = 0;
  for (const auto* run : selected) {
    const auto found = committed.find(run->key);
    if (found == committed.end()) {
      pending.push_back(run);
      continue;
    }
    const std::string why = redo_reason(found->second);
    if (why.empty()) continue;
    std::cerr << "cmbench: redoing " << run->key << ": " << why << "\n";
    pending.push_back(run);
    stale.push_back(run->key);
    ++redone;
  }
  ResultStore store = open_store(out, ResultStore::Access::existing);
  store.erase_fact("complete");
  store.remove(stale);
  if (redone) std::cerr << "cmbench: " << redone << " record(s) redone\n";
  return pending;
}

void commit_run(const fs::path& out, const RunRecord& record, std::optional<std::string> series) {
  const StoredRun row = stored_run(record, std::move(series));
  open_store(out, ResultStore::Access::existing).commit(row);
  export_run_files(row, record, out.string());
}

void update_record(const fs::path& out, const RunRecord& record) {
  const StoredRun row = stored_run(record, std::nullopt);
  open_store(out, ResultStore::Access::existing).update_record(row);
  const std::optional<StoredRun> updated =
      open_store(out, ResultStore::Access::read).run(record.key);
  if (updated) export_run_files(*updated, out.string());
}

std::optional<std::string> committed_status(const fs::path& out, const std::string& key) {
  return open_store(out, ResultStore::Access::read).status_of(key);
}

std::optional<RunRecord> committed_record(const fs::path& out, const std::string& key) {
  const std::optional<StoredRun> row = open_store(out, ResultStore::Access::read).run(key);
  if (!row) return std::nullopt;
  return parse_record(row->record, "the stored record of " + key);
}

bool timing_still_pending(const fs::path& out, const std::string& key) {
  try {
    const std::optional<RunRecord> record = committed_record(out, key);
    return record && record->timing && record->timing->pending;
  } catch (const StoreDamaged&) {
    return true;
  }
}

std::vector<const CampaignRun*> pending_timing(const std::vector<const CampaignRun*>& selected,
                                               const fs::path& out) {
  std::set<std::string> waiting;
  for (const RowCheck& row : open_store(out, ResultStore::Access::read).check_rows())
    if (row.problem.empty() && row.timing_pending) waiting.insert(row.key);
  std::vector<const CampaignRun*> runs;
  for (const auto* run : selected)
    if (waiting.count(run->key)) runs.push_back(run);
  return runs;
}

CampaignSummary export_results(const Campaign& campaign, const CampaignOptions& options,
                               const std::vector<const CampaignRun*>& selected,
                               const fs::path& out) {
  ResultStore store = open_store(out, ResultStore::Access::existing);
  std::vector<std::string> keys;
  for (const auto* run : selected) {
    keys.push_back(run->key);
    if (!store.run(run->key))
      store.commit(
          stored_run(workers::crash_record(*run, "no record: its worker's end was not committed"),
                     std::nullopt));
  }
  const json header = {{"schema", "cmbench.results/1"},
                       {"campaign", campaign.name},
                       {"campaign_file", campaign.source},
                       {"shard", {{"index", options.shard_index}, {"count", options.shard_count}}},
                       {"filter", options.filter},
                       {"context", to_json(run_context())}};
  CampaignSummary summary;
  summary.runs = selected.size();
  summary.results = out / "results.json";
  for (const RunRecord& record : export_set(store, out.string(), keys, header))
    ++summary.statuses[to_string(record.status)];
  return summary;
}

}  // namespace cmb::campaign_store
