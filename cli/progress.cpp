#include "cli/progress.hpp"

#include <unistd.h>

#include <cmath>
#include <iostream>
#include <limits>
#include <sstream>

#include "harness/run/run.hpp"
#include "steppers/steppers.hpp"

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
  for (const CampaignRun* run : pending) left_[run] = true;
}

std::string EtaEstimate::kind_of(const CampaignRun& run) {
  const RunConfig& c = run.config;
  return c.problem + c.problem_params.dump() + "/" + c.formulation_id() + c.method_params.dump() +
         "/" + c.stepper_id();
}

double EtaEstimate::work_scale(const CampaignRun& run) {
  const RunConfig& c = run.config;
  const StepperSpec& stepper = stepper_of(c);
  if (stepper.kind == StepperKind::fixed) return c.dt ? 1.0 / *c.dt : 1.0;
  const int order = std::max(1, stepper.order);
  const double tol = c.rel_tol ? *c.rel_tol : (c.abs_tol ? *c.abs_tol : 1.0);
  return std::pow(tol, -1.0 / order);
}

void EtaEstimate::finished(const CampaignRun& run, double seconds) {
  left_.erase(&run);
  const std::string pair =
      run.config.problem + run.config.problem_params.dump() + "/" + run.config.formulation_id();
  Mean& per_work = per_work_[kind_of(run)];
  per_work.sum += seconds / work_scale(run);
  ++per_work.count;
  for (Mean* mean : {&by_pair_[pair], &by_problem_[run.config.problem], &all_}) {
    mean->sum += seconds;
    ++mean->count;
  }
}

double EtaEstimate::expected_seconds(const CampaignRun& run) const {
  if (const auto it = per_work_.find(kind_of(run)); it != per_work_.end())
    return it->second.value() * work_scale(run);
  const std::string pair =
      run.config.problem + run.config.problem_params.dump() + "/" + run.config.formulation_id();
  if (const auto it = by_pair_.find(pair); it != by_pair_.end()) return it->second.value();
  if (const auto it = by_problem_.find(run.config.problem); it != by_problem_.end())
    return it->second.value();
  return all_.value();
}

double EtaEstimate::remaining_seconds() const {
  if (all_.count == 0) return std::numeric_limits<double>::quiet_NaN();
  double work = 0.0;
  for (const auto& [run, pending] : left_) work += expected_seconds(*run);
  return work / jobs_;
}

void ConsoleProgress::started(const std::vector<const CampaignRun*>& pending, int jobs) {
  total_ = pending.size();
  finished_ = unsupported_ = not_ok_ = 0;
  tty_ = ::isatty(STDOUT_FILENO);
  start_ = std::chrono::steady_clock::now();
  eta_.start(pending, jobs);
  std::cout << pending.size() << " run(s) to do on " << jobs << " worker(s)" << std::endl;
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

void ConsoleProgress::timed(const CampaignRun& run, std::size_t done, std::size_t total,
                            double seconds) {
  if (done == 1) {
    if (tty_) std::cout << "\n";
    std::cout << "timing " << total << " run(s) one at a time" << std::endl;
  }
  std::ostringstream line;
  line << "[timed " << done << "/" << total << "] " << run.key << "  (" << format_seconds(seconds)
       << ")";
  if (tty_)
    std::cout << "\r\033[K" << line.str() << (done == total ? "\n" : "") << std::flush;
  else
    std::cout << line.str() << "\n" << std::flush;
}

void ConsoleProgress::ended() {
  if (tty_) std::cout << "\n";
}

}  // namespace cmb::cli
