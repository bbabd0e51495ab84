// The console reporter of `cmbench campaign`: one line per finished run (rewritten in place on
// a terminal) with the count, status, key, elapsed time, ETA and failures so far.
#pragma once

#include <chrono>

#include "harness/campaign.hpp"

namespace cmb::cli {

class ConsoleProgress : public CampaignProgress {
 public:
  void started(std::size_t pending_runs) override;
  void finished(const CampaignRun& run, const std::string& status) override;
  void ended() override;

 private:
  std::size_t total_ = 0, finished_ = 0, failures_ = 0;
  bool tty_ = false;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace cmb::cli
