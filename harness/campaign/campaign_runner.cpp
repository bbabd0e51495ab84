// Running a campaign: run selection (filter, shard), the output directory and resume, progress,
// the pool of worker processes (harness/campaign/campaign_workers.hpp), and the results.json that
// gathers the records.
#include <regex.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "core/errors.hpp"
#include "core/json_input.hpp"
#include "harness/campaign/campaign.hpp"
#include "harness/campaign/campaign_plan.hpp"
#include "harness/campaign/campaign_workers.hpp"
#include "harness/run/context.hpp"
#include "harness/run/run_settings.hpp"
#include "records/output.hpp"
#include "records/results_file.hpp"

namespace cmb {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

void make_directory(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw OutputError("cannot create the directory '" + dir.string() + "': " + ec.message());
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

// An output directory holds at most one campaign: without --resume it must hold none; with it,
// the same campaign file (the records were made with its settings), unless --force.
void check_output_dir(const Campaign& campaign, const CampaignOptions& options,
                      const fs::path& out) {
  const fs::path stored_file = out / "campaign.json";
  std::error_code ec;
  if (fs::exists(out, ec) && !fs::is_directory(out, ec))
    throw OutputError(spelled("out", options.surface) + " '" + out.string() +
                      "' exists and is not a directory");
  if (!fs::exists(stored_file, ec)) {
    if (fs::exists(out / "results.json", ec) || fs::exists(out / "runs", ec))
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

// The runs without a valid record. A record counts only if it parses and holds this run's key:
// a truncated file or one copied over another run's name is redone (and said so), and so is a
// run that ran out of memory (the machine, or its share of it, may have more now) or whose
// worker crashed (a signal from outside, the kernel's OOM killer: not necessarily the run's).
std::vector<const CampaignRun*> runs_to_do(const std::vector<const CampaignRun*>& selected,
                                           const fs::path& out) {
  std::vector<const CampaignRun*> pending;
  std::size_t redone = 0;
  for (const auto* run : selected) {
    const fs::path record = out / "runs" / (run->file + ".json");
    std::error_code ec;
    if (!fs::exists(record, ec)) {
      pending.push_back(run);
      continue;
    }
    std::string why;
    try {
      const RunRecord held = load_record(record.string());
      if (held.key != run->key)
        why = "it holds another run";
      else if (held.status == RunStatus::out_of_memory)
        why = "it ran out of memory, which another attempt may not";
      else if (held.status == RunStatus::crashed)
        why = "its worker crashed (" + held.message + "), perhaps killed from outside";
      else
        continue;
    } catch (const InputError& e) {
      why = e.what();
    }
    std::cerr << "cmbench: redoing " << run->key << ": " << why << "\n";
    fs::remove(record, ec);
    pending.push_back(run);
    ++redone;
  }
  if (redone) std::cerr << "cmbench: " << redone << " record(s) redone\n";
  return pending;
}

}  // namespace

namespace {

// Counts the finished runs for the stop message and forwards to the reporter, if any.
class Progress {
 public:
  Progress(CampaignProgress* reporter, const std::vector<const CampaignRun*>& pending, int jobs,
           bool timing_pass)
      : reporter_(reporter), total_(pending.size()) {
    if (reporter_ && timing_pass) reporter_->timing_pass_follows();
    if (reporter_) reporter_->started(pending, jobs);
  }
  void finished(const CampaignRun& run, const std::string& status, double seconds) {
    ++finished_;
    if (reporter_) reporter_->finished(run, status, seconds);
  }
  void end_line() const {
    if (reporter_) reporter_->ended();
  }
  std::size_t count() const { return finished_; }
  std::size_t total() const { return total_; }

 private:
  CampaignProgress* reporter_;
  std::size_t total_, finished_ = 0;
};

// Gathers the selected runs' records into results.json; returns the count of each status.
CampaignSummary write_results(const Campaign& campaign, const CampaignOptions& options,
                              const std::vector<const CampaignRun*>& selected,
                              const fs::path& out) {
  json runs = json::array();
  CampaignSummary summary;
  summary.runs = selected.size();
  summary.results = out / "results.json";
  for (const auto* run : selected) {
    RunRecord record;
    try {
      record = load_record((out / "runs" / (run->file + ".json")).string());
    } catch (const InputError& e) {
      record = workers::crash_record(*run, std::string("record unreadable: ") + e.what());
    }
    ++summary.statuses[to_string(record.status)];
    runs.push_back(to_json(record));
  }
  const json results = {{"schema", "cmbench.results/1"},
                        {"campaign", campaign.name},
                        {"campaign_file", campaign.source},
                        {"shard", {{"index", options.shard_index}, {"count", options.shard_count}}},
                        {"filter", options.filter},
                        {"context", to_json(run_context())},
                        {"runs", runs}};
  // A crash record's message may quote bytes of a damaged record that are not UTF-8.
  write_file_atomically(summary.results.string(),
                        results.dump(1, ' ', false, json::error_handler_t::replace) + "\n");
  return summary;
}

[[noreturn]] void stop_by_signal(workers::Active& active, const fs::path& out,
                                 const Progress& progress, SettingSurface surface) {
  const int signal = workers::stop_signal_received();
  workers::stop_workers(active, out);
  progress.end_line();
  throw CampaignStopped(signal, "campaign stopped by signal " + std::to_string(signal) + " after " +
                                    std::to_string(progress.count()) + " of " +
                                    std::to_string(progress.total()) + " runs; finish it with " +
                                    spelled("resume", surface));
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

// Runs the pending runs in a pool of `options.jobs` workers; returns the number that crashed or
// hit an internal error. Throws CampaignStopped on a stop signal, OutputError when a worker
// could not write.
std::size_t run_pool(const std::vector<const CampaignRun*>& pending, const fs::path& out,
                     const workers::WorkerSettings& settings, const CampaignOptions& options) {
  Progress progress(options.progress, pending, options.jobs, options.serial_timing);
  workers::Active active;
  std::size_t next = 0, internal_errors = 0;
  while (next < pending.size() || !active.empty()) {
    while (!workers::stop_signal_received() && next < pending.size() &&
           static_cast<int>(active.size()) < options.jobs) {
      const pid_t pid = workers::start_worker(*pending[next], out, settings);
      active[pid] = workers::Worker{pending[next++], std::chrono::steady_clock::now()};
    }
    int wstatus = 0;
    const pid_t pid =
        workers::stop_signal_received() ? -1 : workers::wait_for_worker(active, wstatus);
    if (workers::stop_signal_received()) stop_by_signal(active, out, progress, options.surface);
    if (pid < 0 && errno == EINTR) continue;
    if (pid < 0) break;
    const workers::Worker worker = active.at(pid);
    active.erase(pid);
    if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == workers::kOutputFailed) {
      workers::stop_workers(active, out);
      progress.end_line();
      throw OutputError(
          "campaign stopped: a worker could not write the results of " + worker.run->key +
          " into '" + out.string() +
          "' (its message is above); "
          "the runs recorded so far are kept: put right what it names (room on the disk, "
          "permissions, a file in the way) and finish with " +
          spelled("resume", options.surface));
    }
    const fs::path record = out / "runs" / (worker.run->file + ".json");
    internal_errors += workers::record_ended_worker(worker, wstatus, record);
    try {
      progress.finished(*worker.run, workers::status_in(record), seconds_since(worker.started));
    } catch (...) {  // the reporter stops the campaign (a Python callback raised, say)
      workers::stop_workers(active, out);
      throw;
    }
  }
  progress.end_line();
  return internal_errors;
}

bool timing_pending(const fs::path& record_file) {
  try {
    const RunRecord record = load_record(record_file.string());
    return record.timing && record.timing->pending;
  } catch (const InputError&) {
    return false;  // redone by the next --resume, which times it then
  }
}

// The timing pass: the selected runs whose records wait for their timed repetitions, timed one
// at a time with nothing else running (harness/run/timing.hpp), each record written back. A run
// whose timing worker died keeps its instrumented time and says so.
void time_one_at_a_time(const std::vector<const CampaignRun*>& selected, const fs::path& out,
                        const CampaignOptions& options) {
  std::vector<const CampaignRun*> waiting;
  for (const auto* run : selected)
    if (timing_pending(out / "runs" / (run->file + ".json"))) waiting.push_back(run);
  waiting = execution_order(waiting);  // as the parallel pass: the ETA learns from a fair sample
  std::size_t left_pending = 0;
  for (std::size_t i = 0; i < waiting.size(); ++i) {
    const CampaignRun& run = *waiting[i];
    const fs::path record = out / "runs" / (run.file + ".json");
    workers::Active active;
    active[workers::start_timing_worker(run, out)] = {&run, std::chrono::steady_clock::now()};
    int wstatus = 0;
    pid_t pid = -1;
    do {
      pid = workers::wait_for_worker(active, wstatus);
    } while (pid < 0 && errno == EINTR && !workers::stop_signal_received());
    if (workers::stop_signal_received()) {
      const int signal = workers::stop_signal_received();
      workers::stop_workers(active, out);
      throw CampaignStopped(signal, "campaign stopped by signal " + std::to_string(signal) +
                                        " while timing run " + std::to_string(i + 1) + " of " +
                                        std::to_string(waiting.size()) + "; finish it with " +
                                        spelled("resume", options.surface) +
                                        " (it times the rest)");
    }
    if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == workers::kOutputFailed)
      throw OutputError("campaign stopped: the timing of " + run.key + " could not be written");
    if (pid < 0 || timing_pending(record))
      left_pending += workers::note_failed_timing(record, wstatus);
    if (options.progress)
      options.progress->timed(run, i + 1, waiting.size(),
                              seconds_since(active.begin()->second.started));
  }
  if (left_pending > 0)
    std::cerr << "cmbench: " << left_pending
              << " run(s) not timed: their timing worker was stopped from outside; "
              << spelled("resume", options.surface) << " times them\n";
}

CampaignSummary run_campaign(const Campaign& campaign, const CampaignOptions& options) {
  const std::vector<const CampaignRun*> selected = select_runs(campaign, options);
  if (options.dry_run) {
    for (const auto* run : selected) std::cout << run->key << "\n";
    std::cout << selected.size() << " runs (of " << campaign.runs.size() << " in campaign '"
              << campaign.name << "')\n";
    CampaignSummary summary;
    summary.runs = selected.size();
    return summary;
  }
  const workers::OnlyCampaign only_campaign;
  const fs::path out = campaign_out_dir(campaign, options);
  check_output_dir(campaign, options, out);
  const std::string reference_cache = reference_cache_dir(campaign, options, out.string());
  check_directory_path(reference_cache, "reference cache");  // before anything is written
  // From here on this campaign alone writes into `out` (another one is refused); what the check
  // above saw may have changed until then, so it is made again.
  const DirectoryLock in_use(out.string(), "campaign");
  check_output_dir(campaign, options, out);
  const std::vector<const CampaignRun*> pending = execution_order(runs_to_do(selected, out));
  // campaign.json first: a directory with runs/ but without it is refused by --resume, so a
  // campaign killed here must not leave one.
  write_file_atomically((out / "campaign.json").string(), campaign.source.dump(2) + "\n");
  make_directory(out / "runs");
  make_directory(out / "series");

  // Before the pool and its stop signals: a Ctrl-C here ends the process, and the cache is
  // written whole or not at all.
  workers::WorkerSettings settings{reference_cache, {}, options.serial_timing};
  settings.reference_failures = resolve_campaign_references(
      pending, reference_cache, false, options.progress ? &std::cout : nullptr);
  const workers::StopSignals stop_signals;  // caught until the pool is done, however it ends
  const std::size_t internal_errors = run_pool(pending, out, settings, options);
  if (options.serial_timing) time_one_at_a_time(selected, out, options);

  const CampaignSummary summary = write_results(campaign, options, selected, out);
  if (internal_errors > 0)
    throw InternalRunErrors(std::to_string(internal_errors) +
                                " run(s) ended in a crash or an internal error (status crashed, "
                                "the message says which): please report them",
                            summary);
  return summary;
}

}  // namespace cmb
