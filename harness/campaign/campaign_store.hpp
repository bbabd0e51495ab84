// A campaign's result set (records/result_set.hpp): its output directory checked before anything
// is written, its store opened for the pass, what --resume redoes (exactly what is not committed),
// each run committed with its series by the process that ends it, and the export that gathers
// the set into results.json and marks it complete.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "harness/campaign/campaign.hpp"
#include "harness/run/run_settings.hpp"
#include "records/output.hpp"
#include "records/run_record.hpp"

namespace cmb::campaign_store {

// An output directory holds at most one campaign: without --resume it must hold none; with it,
// the same campaign file (the records were made with its settings), unless --force. Throws
// InputError (OutputError when `out` is not a directory).
void check_output_dir(const Campaign& campaign, const CampaignOptions& options,
                      const std::filesystem::path& out);

// Opens the store of `out` for a pass (creating it), marks the set unfinished until the export,
// and returns the selected runs it does not hold committed: never run, stopped before their
// commit, damaged rows, runs that ran out of memory (the machine, or its share of it, may have
// more now) or whose worker crashed (a signal from outside, the kernel's OOM killer: not
// necessarily the run's). Each redone run is said so on standard error. A store that fails
// SQLite's integrity check is moved aside (results.db.damaged) and every run redone.
std::vector<const CampaignRun*> runs_to_do(const std::vector<const CampaignRun*>& selected,
                                           const std::filesystem::path& out);

// Commits `record` with `series` as its run's row in the store of `out` (one transaction), then
// writes the run's exported files. OutputError when it cannot.
void commit_run(const std::filesystem::path& out, const RunRecord& record,
                std::optional<std::string> series);
// Replaces the record of a committed run, keeping its series (the timing pass).
void update_record(const std::filesystem::path& out, const RunRecord& record);
// The committed status of `key`, its row unchecked (checked where it is read); nullopt when the
// store does not hold it.
std::optional<std::string> committed_status(const std::filesystem::path& out,
                                            const std::string& key);
// The committed record of `key`; nullopt when the store does not hold it. InputError when its
// row is damaged.
std::optional<RunRecord> committed_record(const std::filesystem::path& out, const std::string& key);

// Whether the committed record of `key` still waits for its timing (true also when its row is
// damaged: the caller's note says so, and --resume redoes the run).
bool timing_still_pending(const std::filesystem::path& out, const std::string& key);
// The keys among `selected` whose committed records wait for the timing pass.
std::vector<const CampaignRun*> pending_timing(const std::vector<const CampaignRun*>& selected,
                                               const std::filesystem::path& out);

// Exports the selected runs from the store (records/result_set.hpp: their files, results.json,
// the complete mark); a selected run the store lacks is committed first as crashed (it should
// not happen: every worker's end is committed). Returns the count of each status.
CampaignSummary export_results(const Campaign& campaign, const CampaignOptions& options,
                               const std::vector<const CampaignRun*>& selected,
                               const std::filesystem::path& out);

// `job()` (the parent's own work on the store), with an OutputError (a full disk, a file-size
// limit) said to keep what is committed and to be finished with --resume.
template <class Job>
auto resumably(const CampaignOptions& options, Job job) -> decltype(job()) {
  try {
    return job();
  } catch (const OutputError& e) {
    throw OutputError(std::string(e.what()) +
                      "; the runs committed so far are kept: put right what it names and "
                      "finish with " +
                      spelled("resume", options.surface));
  }
}

}  // namespace cmb::campaign_store
