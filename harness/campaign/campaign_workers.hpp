// The worker processes of a campaign (harness/campaign/campaign_runner.cpp): one forked process per
// run, so a crash or a runaway allocation ends only that run. The parent waits for them, kills
// those past their time limit plus margin, records what it knows of workers that left no record,
// and stops them all on SIGINT/SIGTERM/SIGHUP.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "harness/campaign/campaign.hpp"
#include "records/run_record.hpp"

namespace cmb::workers {

// A worker that could not write its record or series exits with this code: the parent stops the
// campaign (the run is not recorded, so --resume redoes it) instead of recording a status.
constexpr int kOutputFailed = 4;
// A worker whose run threw something unexpected records it and exits with this code, so the
// campaign can end with a non-zero exit code after recording everything else.
constexpr int kInternalError = 5;
// A worker that ran out of memory committing its run exits with this code: the parent commits
// the run as out_of_memory, which --resume runs again.
constexpr int kOutOfMemory = 6;

struct Worker {
  const CampaignRun* run;
  std::chrono::steady_clock::time_point started;
  bool killed = false;  // by the parent, past its time limit
  // The read end of the pipe on which the worker reports the status it committed (-1: none), so
  // that the parent need not open the store after every run to learn it.
  int status_fd = -1;
};
using Active = std::map<pid_t, Worker>;

// The record of a run whose worker died: what was asked (the metrics are gone with it).
RunRecord crash_record(const CampaignRun& run, const std::string& why,
                       RunStatus status = RunStatus::crashed);

// SIGINT, SIGTERM and SIGHUP stop a campaign the same way: the parent notices (the handler only
// sets a flag and interrupts the wait), stops and reaps its workers, removes their temporary files
// and gives the caller back its own handlers (CampaignStopped); --resume finishes the rest.
class StopSignals {
 public:
  StopSignals();   // catches them, keeping the handlers it replaces
  ~StopSignals();  // puts those back
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
};
void default_stop_signals();  // in a worker: the default actions
int stop_signal_received();   // 0 while none arrived

// One campaign at a time per process: the stop signals' handlers and the wait for workers are
// the process's, so a second campaign started from the first one's progress callback (or another
// thread) would take over the first one's Ctrl-C and leave its time limits unenforced. Held for
// a campaign's whole run; a second one throws InputError saying so.
class OnlyCampaign {
 public:
  OnlyCampaign();
  ~OnlyCampaign();
  OnlyCampaign(const OnlyCampaign&) = delete;
  OnlyCampaign& operator=(const OnlyCampaign&) = delete;
};

struct WorkerSettings {
  std::string reference_cache;  // where a self-converged reference comes from (or goes to)
  // References the campaign's reference pass could not compute: their runs end
  // reference_failed at once.
  ReferenceFailures reference_failures;
  // The run's timed repetitions are left to the campaign's timing pass: the worker records the
  // instrumented run only and marks an ok record "timing": {"pending": true}.
  bool defer_timing = false;
};

// Forks a worker that executes `run` and commits its record and series into the store of `out`;
// `status_fd` receives the read end of the pipe the worker reports its committed status on.
pid_t start_worker(const CampaignRun& run, const std::filesystem::path& out,
                   const WorkerSettings& settings, int& status_fd);

// Forks a worker that times `run` (harness/run/timing.hpp) and commits its record back into the
// store of `out` with the timing block (marked one_at_a_time).
pid_t start_timing_worker(const CampaignRun& run, const std::filesystem::path& out);
// A timing worker that ended without writing the timing: the record keeps its instrumented time
// with a note saying why. Stopped from outside (SIGKILL, SIGTERM, SIGINT, SIGHUP: the OOM killer,
// a user), it stays pending, so --resume times it; returns whether it does.
bool note_failed_timing(const std::filesystem::path& out, const std::string& key, int wstatus);

// Waits for one of `active` to end (no other child of the process is reaped), killing those past
// their time limit plus margin meanwhile. Returns -1 with errno EINTR when a stop signal arrived.
pid_t wait_for_worker(Active& active, int& wstatus);

// Stops the other workers after one could not write (they would meet the same full disk), waits
// for them and removes what they may have left half-written.
void stop_workers(Active& active, const std::filesystem::path& out);

// Records what the parent knows of a worker that did not leave a normal record: killed past
// its time limit (time_limit), crashed or failed internally (crashed, with the reason). Returns
// true for a crash or an internal error.
// `status` receives the run's status as now committed ("unrecorded" when nothing is).
bool record_ended_worker(const Worker& worker, int wstatus, const std::filesystem::path& out,
                         std::string& status);

}  // namespace cmb::workers
