#include "cli/progress.hpp"

#include <unistd.h>

#include <iostream>
#include <sstream>

namespace cmb::cli {

namespace {

std::string format_seconds(double s) {
  std::ostringstream out;
  out.precision(s < 10 ? 2 : 0);
  out << std::fixed << s << " s";
  return out.str();
}

}  // namespace

void ConsoleProgress::started(std::size_t pending_runs) {
  total_ = pending_runs;
  finished_ = failures_ = 0;
  tty_ = ::isatty(STDOUT_FILENO);
  start_ = std::chrono::steady_clock::now();
}

void ConsoleProgress::finished(const CampaignRun& run, const std::string& status) {
  ++finished_;
  if (status != "ok") ++failures_;
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double eta = elapsed / finished_ * (total_ - finished_);
  std::ostringstream line;
  line << "[" << finished_ << "/" << total_ << "] " << status << "  " << run.key << "  (elapsed "
       << format_seconds(elapsed) << ", ETA " << format_seconds(eta) << ", failures " << failures_
       << ")";
  if (tty_)
    std::cout << "\r\033[K" << line.str() << std::flush;
  else
    std::cout << line.str() << "\n" << std::flush;
}

void ConsoleProgress::ended() {
  if (tty_) std::cout << "\n";
}

}  // namespace cmb::cli
