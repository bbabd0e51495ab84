// The console reporter of `cmbench campaign`: one line per finished run (rewritten in place on
// a terminal) with the count, status, key, its time, elapsed time, an ETA and the not-ok runs
// so far; then one per run of the timing pass.
#pragma once

#include <chrono>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "harness/campaign/campaign.hpp"

namespace cmb::cli {

// The remaining wall time of a campaign, for display only, from what the campaign has observed
// so far. The workers take the runs in a fixed shuffle (execution_order), so at any point the
// finished runs are a fair sample of those left, and the timing pass times them in that order:
//  - parallel pass: each run not finished yet costs the mean worker time of the finished ones
//    (fork, reference, run, record: what the machine's load makes of them), shared by the
//    workers: left × mean / min(jobs, left).
//  - timing pass: an ok run is timed again alone, `repetitions` times (repeat rounded up to a
//    block per timing core), at least timing_min_s of them, none started past timing_max_s, plus
//    a fixed cost. One repetition is taken to cost the run's worker time s less the fixed cost,
//    taken as the fastest run's s (o): T = o + min(max(R·(s − o), timing_min_s), timing_max_s +
//    s − o). Runs not finished count with the ok fraction so far and the mean T. Once runs are
//    timed, every prediction is scaled by their actual over predicted time (the predictions
//    weighing as much as three runs more, so that the first one timed does not swing it).
class EtaEstimate {
 public:
  // `runs` to do on `jobs` workers; with `timing_pass`, ok runs are timed after them on
  // `timing_cores` cores (the blocks of harness/run/timing.hpp).
  void start(std::size_t runs, int jobs, bool timing_pass, int timing_cores);
  // A run of the parallel pass ended after `seconds` in its worker, ok or not.
  void finished(const CampaignRun& run, double seconds, bool ok);
  // The timing pass timed `run` in `seconds`, the done-th of `total`.
  void timed(const CampaignRun& run, std::size_t done, std::size_t total, double seconds);
  double remaining_seconds() const;  // NaN until a run has finished
  // The cores the timing of one run spreads over: this process's, at most 8 (timing.cpp).
  static int timing_cores();

 private:
  double predicted_timing(const CampaignRun& run, double seconds) const;
  double mean_predicted_timing() const;
  void refresh_predictions();
  std::size_t runs_ = 0, finished_ = 0;
  int jobs_ = 1, timing_cores_ = 1;
  bool timing_pass_ = false;
  double worker_seconds_ = 0.0, fastest_ = 0.0;
  std::map<const CampaignRun*, double> to_time_;    // this session's runs to time: worker seconds
  std::set<const CampaignRun*> waiting_;            // those not timed yet
  double predicted_sum_ = 0.0, waiting_sum_ = 0.0;  // their predicted timing, all and waiting
  double timed_actual_ = 0.0, timed_predicted_ = 0.0;  // the runs timed so far
  std::size_t timed_ = 0, timing_total_ = 0;
};

class ConsoleProgress : public CampaignProgress {
 public:
  void timing_pass_follows() override { timing_pass_ = true; }
  void started(const std::vector<const CampaignRun*>& pending, int jobs) override;
  void finished(const CampaignRun& run, const std::string& status, double seconds) override;
  void ended() override;
  void timed(const CampaignRun& run, std::size_t done, std::size_t total, double seconds) override;

 private:
  double elapsed() const;
  std::size_t total_ = 0, finished_ = 0, unsupported_ = 0, not_ok_ = 0;
  bool tty_ = false, timing_pass_ = false;
  std::chrono::steady_clock::time_point start_;
  EtaEstimate eta_;
};

}  // namespace cmb::cli
