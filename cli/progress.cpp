#include "cli/progress.hpp"

#include <unistd.h>

#include <cmath>
#include <iostream>
#include <limits>
#include <sstream>

namespace cmb::cli {

namespace {

std::string format_seconds(double s) {
  if (!std::isfinite(s)) return "?";
  std::ostringstream out;
  if (s >= 3600) {
    out << static_cast<long>(s / 3600) << " h " << static_cast<long>(std::fmod(s, 3600) / 60)
        << " min";
  } else if (s >= 120) {
    out << static_cast<long>(s / 60) << " min " << static_cast<long>(std::fmod(s, 60)) << " s";
  } else {
    out.precision(s < 10 ? 2 : 0);
    out << std::fixed << s << " s";
  }
  return out.str();
}

}  // namespace

void EtaEstimate::start(const std::vector<const CampaignRun*>& pending, int jobs) {
  jobs_ = std::max(1, jobs);
  for (const CampaignRun* run : pending)
    ++left_[{run->config.problem, run->config.method, run->config.stepper}];
}

void EtaEstimate::finished(const CampaignRun& run, double seconds) {
  const Kind kind{run.config.problem, run.config.method, run.config.stepper};
  if (--left_[kind] == 0) left_.erase(kind);
  for (Mean* mean : {&by_kind_[kind], &by_pair_[{run.config.problem, run.config.method}],
                     &by_problem_[run.config.problem], &all_}) {
    mean->sum += seconds;
    ++mean->count;
  }
}

double EtaEstimate::expected_seconds(const Kind& kind) const {
  const auto [problem, method, stepper] = kind;
  if (const auto it = by_kind_.find(kind); it != by_kind_.end())
    return it->second.sum / it->second.count;
  if (const auto it = by_pair_.find({problem, method}); it != by_pair_.end())
    return it->second.sum / it->second.count;
  if (const auto it = by_problem_.find(problem); it != by_problem_.end())
    return it->second.sum / it->second.count;
  return all_.sum / all_.count;
}

double EtaEstimate::remaining_seconds() const {
  if (all_.count == 0) return std::numeric_limits<double>::quiet_NaN();
  double work = 0.0;
  for (const auto& [kind, count] : left_) work += count * expected_seconds(kind);
  return work / jobs_;
}

void ConsoleProgress::started(const std::vector<const CampaignRun*>& pending, int jobs) {
  total_ = pending.size();
  finished_ = unsupported_ = not_ok_ = 0;
  tty_ = ::isatty(STDOUT_FILENO);
  start_ = std::chrono::steady_clock::now();
  eta_.start(pending, jobs);
}

void ConsoleProgress::finished(const CampaignRun& run, const std::string& status, double seconds) {
  ++finished_;
  if (is_expected_status(status))
    ++unsupported_;
  else if (status != "ok")
    ++not_ok_;
  eta_.finished(run, seconds);
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::ostringstream line;
  line << "[" << finished_ << "/" << total_ << "] " << status << "  " << run.key << "  (elapsed "
       << format_seconds(elapsed) << ", ETA " << format_seconds(eta_.remaining_seconds())
       << "; not ok " << not_ok_ << ", unsupported " << unsupported_ << ")";
  if (tty_)
    std::cout << "\r\033[K" << line.str() << std::flush;
  else
    std::cout << line.str() << "\n" << std::flush;
}

void ConsoleProgress::ended() {
  if (tty_) std::cout << "\n";
}

}  // namespace cmb::cli
