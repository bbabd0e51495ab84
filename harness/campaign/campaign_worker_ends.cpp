// What the parent of a campaign commits for a worker that ended without committing its run (a
// time limit, a crash, an internal error) or its timing, and how it reads a run's status.
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <sstream>

#include "core/errors.hpp"
#include "harness/campaign/campaign_store.hpp"
#include "harness/campaign/campaign_workers.hpp"
#include "harness/run/context.hpp"
#include "harness/run/timing.hpp"

namespace cmb::workers {

namespace fs = std::filesystem;

RunRecord crash_record(const CampaignRun& run, const std::string& why, RunStatus status) {
  const RunConfig& c = run.config;
  RunRecord record;
  record.key = run.key;
  record.status = status;
  record.message = why;
  record.problem.id = c.problem;
  record.problem.params = c.problem_params;
  record.method.id = c.formulation_id();
  record.method.params = c.method_params;
  record.stepper.id = c.stepper_id();
  record.files = RunFiles{"runs/" + run.file + ".json", std::nullopt};
  record.context = run_context();
  return record;
}

namespace {

// The status the ended worker reported on its pipe after its commit (closing the pipe), or
// nullopt when it reported none (it died before, or is a timing worker).
std::optional<std::string> reported_status(const Worker& worker) {
  if (worker.status_fd < 0) return std::nullopt;
  char text[64];
  ssize_t n = -1;
  do {
    n = ::read(worker.status_fd, text, sizeof text);
  } while (n < 0 && errno == EINTR);
  ::close(worker.status_fd);
  if (n <= 0) return std::nullopt;
  return std::string(text, static_cast<std::size_t>(n));
}

}  // namespace

bool record_ended_worker(const Worker& worker, int wstatus, const fs::path& out,
                         std::string& status) {
  const CampaignRun& run = *worker.run;
  const bool internal_error = WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == kInternalError;
  const auto commit = [&](const RunRecord& record) {
    campaign_store::commit_run(out, record, std::nullopt);
    status = to_string(record.status);
  };
  if (worker.killed) {
    const double limit = run.config.limits.wall_time_limit;
    std::ostringstream why;
    why << "wall-time limit reached: the worker was stopped " << limit + time_limit_margin(limit)
        << " s after it started (limit " << limit << " s plus margin; the limit is otherwise "
        << "checked between steps)";
    commit(crash_record(run, why.str(), RunStatus::time_limit));
    return false;
  }
  if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == kOutOfMemory) {
    commit(crash_record(run, "out of memory while committing the run's results",
                        RunStatus::out_of_memory));
    return false;
  }
  std::optional<std::string> committed = reported_status(worker);
  if (!committed) committed = campaign_store::committed_status(out, run.key);
  status = committed.value_or("unrecorded");
  if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0 && committed) return false;
  if (!internal_error || !committed) {
    const std::string why = WIFSIGNALED(wstatus)
                                ? "worker crashed with signal " + std::to_string(WTERMSIG(wstatus))
                                : "worker exited with code " + std::to_string(WEXITSTATUS(wstatus));
    commit(crash_record(run, why));
  }
  return true;
}

bool note_failed_timing(const fs::path& out, const std::string& key, int wstatus) {
  std::optional<RunRecord> committed;
  try {
    committed = campaign_store::committed_record(out, key);
  } catch (const InputError&) {
    return true;  // a damaged row: the next --resume redoes the run
  }
  if (!committed || !committed->timing) return false;
  RunRecord record = *committed;
  const int signal = WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0;
  // Stopped from outside (the OOM killer, a user's kill): nothing says the next attempt fails.
  const bool from_outside =
      signal == SIGKILL || signal == SIGTERM || signal == SIGINT || signal == SIGHUP;
  record.timing->pending = from_outside;
  record.timing->note =
      from_outside ? "timing stopped from outside by signal " + std::to_string(signal) +
                         ": --resume times it"
      : signal
          ? "not timed: the timing worker died of signal " + std::to_string(signal)
          : "not timed: the timing worker exited with code " + std::to_string(WEXITSTATUS(wstatus));
  campaign_store::update_record(out, record);
  return from_outside;
}

}  // namespace cmb::workers
