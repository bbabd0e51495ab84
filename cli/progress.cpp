#include "cli/progress.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <sstream>

#include "harness/run/run.hpp"

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

void EtaEstimate::start(std::size_t runs, int jobs, bool timing_pass, int timing_cores) {
  *this = EtaEstimate();
  runs_ = runs;
  jobs_ = std::max(1, jobs);
  timing_pass_ = timing_pass;
  timing_cores_ = std::max(1, timing_cores);
}

int EtaEstimate::timing_cores() {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (::sched_getaffinity(0, sizeof mask, &mask) != 0) return 1;
  return std::clamp(CPU_COUNT(&mask), 1, 8);
}

double EtaEstimate::predicted_timing(const CampaignRun& run, double seconds) const {
  const RunConfig& c = run.config;
  const int blocks = timing_cores_;
  const double repetitions = blocks * ((c.repeat + blocks - 1) / blocks);
  const double one = std::max(0.0, seconds - fastest_);
  return fastest_ + std::min(std::max(repetitions * one, c.timing_min_s), c.timing_max_s + one);
}

double EtaEstimate::mean_predicted_timing() const {
  if (!to_time_.empty()) return predicted_sum_ / static_cast<double>(to_time_.size());
  if (timed_ > 0) return timed_actual_ / static_cast<double>(timed_);
  return std::numeric_limits<double>::quiet_NaN();
}

// The predictions again with a new fixed cost (the fastest run so far): rarely, in a shuffle.
void EtaEstimate::refresh_predictions() {
  predicted_sum_ = waiting_sum_ = 0.0;
  for (const auto& [run, seconds] : to_time_) {
    const double predicted = predicted_timing(*run, seconds);
    predicted_sum_ += predicted;
    if (waiting_.count(run)) waiting_sum_ += predicted;
  }
}

void EtaEstimate::finished(const CampaignRun& run, double seconds, bool ok) {
  const bool faster = finished_ == 0 || seconds < fastest_;
  if (faster) fastest_ = seconds;
  ++finished_;
  worker_seconds_ += seconds;
  if (ok && timing_pass_ && run.config.repeat > 0) {
    to_time_[&run] = seconds;
    waiting_.insert(&run);
    if (!faster) {
      const double predicted = predicted_timing(run, seconds);
      predicted_sum_ += predicted;
      waiting_sum_ += predicted;
    }
  }
  if (faster) refresh_predictions();
}

void EtaEstimate::timed(const CampaignRun& run, std::size_t done, std::size_t total,
                        double seconds) {
  double predicted = mean_predicted_timing();  // a run left waiting by an earlier session
  timed_ = done;
  timing_total_ = total;
  if (waiting_.erase(&run)) {
    predicted = predicted_timing(run, to_time_.at(&run));
    waiting_sum_ = waiting_.empty() ? 0.0 : waiting_sum_ - predicted;
  }
  timed_actual_ += seconds;
  timed_predicted_ += std::isfinite(predicted) ? predicted : seconds;
}

double EtaEstimate::remaining_seconds() const {
  if (finished_ == 0 && timed_ == 0) return std::numeric_limits<double>::quiet_NaN();
  const std::size_t left = runs_ > finished_ ? runs_ - finished_ : 0;
  const double parallel = left == 0 ? 0.0
                                    : static_cast<double>(left) * worker_seconds_ /
                                          static_cast<double>(finished_) /
                                          static_cast<double>(std::min<std::size_t>(jobs_, left));
  const double mean = mean_predicted_timing();
  double timing = waiting_sum_;
  if (left > 0 && !to_time_.empty())  // the runs to finish, as many to time as so far
    timing += static_cast<double>(left * to_time_.size()) / static_cast<double>(finished_) * mean;
  if (timing_total_ > 0) {  // timing: the runs left, of this session or an earlier one
    const std::size_t waiting = timing_total_ - std::min(timed_, timing_total_);
    if (waiting >= waiting_.size())
      timing += static_cast<double>(waiting - waiting_.size()) * mean;
    else
      timing = static_cast<double>(waiting) * waiting_sum_ / static_cast<double>(waiting_.size());
  }
  if (timing == 0.0) return parallel;
  const double weight = 3.0 * mean;  // the predictions' say against the runs timed so far
  const double scale = timed_ > 0 ? (timed_actual_ + weight) / (timed_predicted_ + weight) : 1.0;
  return parallel + scale * timing;
}

void ConsoleProgress::started(const std::vector<const CampaignRun*>& pending, int jobs) {
  total_ = pending.size();
  finished_ = unsupported_ = not_ok_ = 0;
  tty_ = ::isatty(STDOUT_FILENO);
  start_ = std::chrono::steady_clock::now();
  eta_.start(pending.size(), jobs, timing_pass_, EtaEstimate::timing_cores());
  std::cout << pending.size() << " run(s) to do on " << jobs << " worker(s)" << std::endl;
}

double ConsoleProgress::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void ConsoleProgress::finished(const CampaignRun& run, const std::string& status, double seconds) {
  ++finished_;
  if (is_expected_status(status))
    ++unsupported_;
  else if (status != "ok")
    ++not_ok_;
  eta_.finished(run, seconds, status == "ok");
  std::ostringstream line;
  line << "[" << finished_ << "/" << total_ << "] " << status << "  " << run.key << "  ("
       << format_seconds(seconds) << "; elapsed " << format_seconds(elapsed()) << ", ETA "
       << format_seconds(eta_.remaining_seconds()) << "; not ok " << not_ok_ << ", unsupported "
       << unsupported_ << ")";
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
  eta_.timed(run, done, total, seconds);
  std::ostringstream line;
  line << "[timed " << done << "/" << total << "] " << run.key << "  (" << format_seconds(seconds)
       << "; elapsed " << format_seconds(elapsed()) << ", ETA "
       << format_seconds(eta_.remaining_seconds()) << ")";
  if (tty_)
    std::cout << "\r\033[K" << line.str() << (done == total ? "\n" : "") << std::flush;
  else
    std::cout << line.str() << "\n" << std::flush;
}

void ConsoleProgress::ended() {
  if (tty_) std::cout << "\n";
}

}  // namespace cmb::cli
