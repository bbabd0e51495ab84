// Running a campaign: run selection (filter, shard), progress, the pool of worker processes
// (harness/campaign/campaign_workers.hpp) and the timing pass; the output directory, its store,
// resume and the export are harness/campaign/campaign_store.hpp's.
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
#include "harness/campaign/campaign_store.hpp"
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
      int status_fd = -1;
      const pid_t pid = workers::start_worker(*pending[next], out, settings, status_fd);
      active[pid] =
          workers::Worker{pending[next++], std::chrono::steady_clock::now(), false, status_fd};
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
    std::string status;
    internal_errors += workers::record_ended_worker(worker, wstatus, out, status);
    try {
      progress.finished(*worker.run, status, seconds_since(worker.started));
    } catch (...) {  // the reporter stops the campaign (a Python callback raised, say)
      workers::stop_workers(active, out);
      throw;
    }
  }
  progress.end_line();
  return internal_errors;
}

// The timing pass: the selected runs whose records wait for their timed repetitions, timed one
// at a time with nothing else running (harness/run/timing.hpp), each record written back. A run
// whose timing worker died keeps its instrumented time and says so.
void time_one_at_a_time(const std::vector<const CampaignRun*>& selected, const fs::path& out,
                        const CampaignOptions& options) {
  // As the parallel pass: the ETA learns from a fair sample.
  const std::vector<const CampaignRun*> waiting = execution_order(campaign_store::pending_timing(
      selected, out));  // as the parallel pass: the ETA learns from a fair sample
  std::size_t left_pending = 0;
  for (std::size_t i = 0; i < waiting.size(); ++i) {
    const CampaignRun& run = *waiting[i];
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
    if (pid < 0 || campaign_store::timing_still_pending(out, run.key))
      left_pending += workers::note_failed_timing(out, run.key, wstatus);
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
  campaign_store::check_output_dir(campaign, options, out);
  const std::string reference_cache = reference_cache_dir(campaign, options, out.string());
  check_directory_path(reference_cache, "reference cache");  // before anything is written
  // From here on this campaign alone writes into `out` (another one is refused); what the check
  // above saw may have changed until then, so it is made again.
  const DirectoryLock in_use(out.string(), "campaign");
  campaign_store::check_output_dir(campaign, options, out);
  // campaign.json first: a directory with a store or runs/ but without it is refused by
  // --resume, so a campaign killed here must not leave one.
  write_file_atomically((out / "campaign.json").string(), campaign.source.dump(2) + "\n");
  const std::vector<const CampaignRun*> pending = execution_order(campaign_store::resumably(
      options, [&] { return campaign_store::runs_to_do(selected, out); }));
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

  const CampaignSummary summary = campaign_store::resumably(
      options, [&] { return campaign_store::export_results(campaign, options, selected, out); });
  if (internal_errors > 0)
    throw InternalRunErrors(std::to_string(internal_errors) +
                                " run(s) ended in a crash or an internal error (status crashed, "
                                "the message says which): please report them",
                            summary);
  return summary;
}

}  // namespace cmb
