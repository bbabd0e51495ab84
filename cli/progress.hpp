// The console reporter of `cmbench campaign`: one line per finished run (rewritten in place on
// a terminal) with the count, status, key, elapsed time, an ETA and the not-ok runs so far.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "harness/campaign/campaign.hpp"

namespace cmb::cli {

// The remaining wall time of a campaign, from its own finished runs. A run still to do is expected
// to cost what the finished runs of its kind (problem case × method × stepper) cost, each scaled
// by the work its step size or tolerance implies: time ∝ 1/dt at a fixed step, ∝ tol^(−1/p) for an
// adaptive stepper of order p (its steps shrink like that). Kinds not yet seen take the mean of
// their problem and method, else of their problem, else of all runs. `jobs` run at once.
class EtaEstimate {
 public:
  void start(const std::vector<const CampaignRun*>& pending, int jobs);
  void finished(const CampaignRun& run, double seconds);
  double remaining_seconds() const;  // NaN until a run has finished

 private:
  struct Mean {
    double sum = 0.0;
    long count = 0;
    double value() const { return sum / count; }
  };
  static std::string kind_of(const CampaignRun& run);
  static double work_scale(const CampaignRun& run);
  double expected_seconds(const CampaignRun& run) const;
  std::map<const CampaignRun*, bool> left_;  // runs still to finish
  std::map<std::string, Mean> per_work_;     // by kind: seconds / work_scale
  std::map<std::string, Mean> by_pair_;      // by problem case and method
  std::map<std::string, Mean> by_problem_;
  Mean all_;
  int jobs_ = 1;
};

class ConsoleProgress : public CampaignProgress {
 public:
  void started(const std::vector<const CampaignRun*>& pending, int jobs) override;
  void finished(const CampaignRun& run, const std::string& status, double seconds) override;
  void ended() override;
  void timed(const CampaignRun& run, std::size_t done, std::size_t total, double seconds) override;

 private:
  std::size_t total_ = 0, finished_ = 0, unsupported_ = 0, not_ok_ = 0;
  bool tty_ = false;
  std::chrono::steady_clock::time_point start_;
  EtaEstimate eta_;
};

}  // namespace cmb::cli
