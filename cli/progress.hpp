// The console reporter of `cmbench campaign`: one line per finished run (rewritten in place on
// a terminal) with the count, status, key, elapsed time, an ETA and the not-ok runs so far.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "harness/campaign.hpp"

namespace cmb::cli {

// The remaining wall time of a campaign, from its own finished runs: each run still to do is
// expected to take as long as the finished runs most like it — same problem, method and stepper,
// else same problem and method, else same problem, else any — and `jobs` of them run at once.
// Runs of one kind differ most by tolerance or step, which is why the ETA starts rough and
// improves as each kind's first runs finish.
class EtaEstimate {
 public:
  void start(const std::vector<const CampaignRun*>& pending, int jobs);
  void finished(const CampaignRun& run, double seconds);
  double remaining_seconds() const;  // NaN until a run has finished

 private:
  using Kind = std::tuple<std::string, std::string, std::string>;  // problem, method, stepper
  struct Mean {
    double sum = 0.0;
    long count = 0;
  };
  double expected_seconds(const Kind& kind) const;
  std::map<Kind, long> left_;  // runs of each kind still to finish
  std::map<Kind, Mean> by_kind_;
  std::map<std::pair<std::string, std::string>, Mean> by_pair_;
  std::map<std::string, Mean> by_problem_;
  Mean all_;
  int jobs_ = 1;
};

class ConsoleProgress : public CampaignProgress {
 public:
  void started(const std::vector<const CampaignRun*>& pending, int jobs) override;
  void finished(const CampaignRun& run, const std::string& status, double seconds) override;
  void ended() override;

 private:
  std::size_t total_ = 0, finished_ = 0, unsupported_ = 0, not_ok_ = 0;
  bool tty_ = false;
  std::chrono::steady_clock::time_point start_;
  EtaEstimate eta_;
};

}  // namespace cmb::cli
