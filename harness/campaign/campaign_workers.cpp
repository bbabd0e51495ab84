#include "harness/campaign/campaign_workers.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "core/errors.hpp"
#include "harness/campaign/campaign_store.hpp"
#include "harness/run/context.hpp"
#include "harness/run/self_converged.hpp"
#include "harness/run/timing.hpp"
#include "records/output.hpp"
#include "records/results_file.hpp"

namespace cmb::workers {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The run's files, relative to the results directory, as its record names them: readers find a
// run's series through this, never by recomputing the name.
RunFiles run_files(const CampaignRun& run) {
  return {"runs/" + run.file + ".json", "series/" + run.file + ".csv"};
}

}  // namespace

namespace {

volatile std::sig_atomic_t stop_signal = 0;
extern "C" void note_stop_signal(int signal) { stop_signal = signal; }
constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};
struct sigaction saved_actions[3];

}  // namespace

StopSignals::StopSignals() {
  stop_signal = 0;
  struct sigaction action {};
  action.sa_handler = note_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: the wait returns EINTR
  for (int i = 0; i < 3; ++i) ::sigaction(kStopSignals[i], &action, &saved_actions[i]);
}

StopSignals::~StopSignals() {
  for (int i = 0; i < 3; ++i) ::sigaction(kStopSignals[i], &saved_actions[i], nullptr);
}

void default_stop_signals() {
  for (int signal : kStopSignals) std::signal(signal, SIG_DFL);
}

int stop_signal_received() { return stop_signal; }

namespace {
std::atomic<bool> campaign_running{false};
}  // namespace

OnlyCampaign::OnlyCampaign() {
  if (campaign_running.exchange(true))
    throw InputError(
        "a campaign is already running in this process (a campaign started from another one's "
        "progress callback or from a second thread): start it after the first one returns, or "
        "in a separate process");
}

OnlyCampaign::~OnlyCampaign() { campaign_running = false; }

namespace {

// A worker of ours that has ended, reaped; 0 while all still run. Only our own pids are waited
// for: a process that embeds cmbench (Python, a test) may have children of its own whose exit
// status is theirs to read.
pid_t reap_ended_worker(const Active& active, int& wstatus) {
  for (const auto& [pid, worker] : active) {
    const pid_t reaped = ::waitpid(pid, &wstatus, WNOHANG);
    if (reaped == pid) return pid;
    if (reaped < 0 && errno == ECHILD) {  // reaped by someone else: its record tells what it did
      wstatus = 0;
      return pid;
    }
  }
  return 0;
}

// Kills the workers past their time limit plus margin; returns how long until the next one is
// due (a day when none has a limit).
std::chrono::duration<double> enforce_time_limits(Active& active) {
  std::chrono::duration<double> next_due = std::chrono::hours(24);
  const auto now = std::chrono::steady_clock::now();
  for (auto& [pid, worker] : active) {
    const double limit = worker.run->config.limits.wall_time_limit;
    if (limit <= 0 || worker.killed) continue;
    const std::chrono::duration<double> left =
        std::chrono::duration<double>(limit + time_limit_margin(limit)) - (now - worker.started);
    if (left.count() <= 0) {
      ::kill(pid, SIGKILL);
      worker.killed = true;
    } else {
      next_due = std::min(next_due, left);
    }
  }
  return next_due;
}

// Sleeps until one of the workers ends, a signal arrives or `timeout_ms` passes: poll() on a
// pidfd per worker, so the wait needs neither waitpid(-1) nor a busy loop. Without pidfds (a
// kernel before 5.3) it sleeps 20 ms.
void sleep_until_a_worker_ends(const Active& active, int timeout_ms) {
  std::vector<pollfd> fds;
  fds.reserve(active.size());
  for (const auto& [pid, worker] : active) {
    const int fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
    if (fd >= 0) fds.push_back(pollfd{fd, POLLIN, 0});
  }
  if (fds.size() == active.size())
    ::poll(fds.data(), fds.size(), timeout_ms);  // EINTR on a stop signal: the caller looks
  else
    ::usleep(static_cast<useconds_t>(std::min(timeout_ms, 20)) * 1000);
  for (const pollfd& p : fds) ::close(p.fd);
}

}  // namespace

pid_t wait_for_worker(Active& active, int& wstatus) {
  if (active.empty()) {
    errno = ECHILD;
    return -1;
  }
  for (;;) {
    if (const pid_t pid = reap_ended_worker(active, wstatus)) return pid;
    const std::chrono::duration<double> next_due = enforce_time_limits(active);
    if (stop_signal) {
      errno = EINTR;
      return -1;
    }
    // At most 250 ms, so a stop signal that lands just before the poll is seen soon after.
    const double ms = std::clamp(next_due.count() * 1000.0, 1.0, 250.0);
    sleep_until_a_worker_ends(active, static_cast<int>(ms));
  }
}

namespace {

// Executes one run in a worker process and commits it with its series; never returns.
[[noreturn]] void work(const CampaignRun& run, const fs::path& out, const WorkerSettings& settings,
                       int status_fd) {
  int code = 0;
  const auto report = [status_fd](RunStatus status) {  // after the commit: the parent's to read
    const std::string text = to_string(status);
    if (::write(status_fd, text.data(), text.size()) < 0) return;  // the parent asks the store
  };
  try {
    PreparedRun prepared = prepare_run(run.config);
    prepared.config.reference_cache = settings.reference_cache;
    if (settings.defer_timing) prepared.config.repeat = 0;
    resolve_reference(prepared, settings.reference_failures);  // cached by the reference pass
    RunResult result = execute_run(prepared);
    result.record.files = run_files(run);
    if (settings.defer_timing && run.config.repeat > 0 && result.record.status == RunStatus::ok)
      result.record.timing->pending = true;  // the campaign's timing pass times it
    std::string series;
    stream_series_csv(*result.problem, result.series, result.reference,
                      [&series](const std::string& piece) { series += piece; });
    campaign_store::commit_run(out, result.record, std::move(series));
    report(result.record.status);
  } catch (const OutputError& e) {
    std::cerr << "cmbench: error: " << e.what() << "\n";
    code = kOutputFailed;
  } catch (const std::bad_alloc&) {  // a run's own shortage is its record's status: this is after
    code = kOutOfMemory;
  } catch (const std::exception& e) {
    code = kInternalError;
    try {
      campaign_store::commit_run(out, crash_record(run, std::string("internal error: ") + e.what()),
                                 std::nullopt);
      report(RunStatus::crashed);
    } catch (const OutputError& e) {
      std::cerr << "cmbench: error: " << e.what() << "\n";
      code = kOutputFailed;
    } catch (...) {
      code = 3;
    }
  }
  std::fflush(nullptr);
  _exit(code);
}

}  // namespace

namespace {

// In a worker just forked from `parent`: the kernel kills it when the parent dies, whatever
// kills the parent (SIGKILL included, which the parent cannot catch to stop its workers); and it
// ends at once if the parent died before that was arranged. An orphan would run on past its time
// limit, which only the parent enforces, and write into a result set nobody gathers.
void die_with_parent(pid_t parent) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) _exit(kInternalError);
}

}  // namespace

pid_t start_worker(const CampaignRun& run, const fs::path& out, const WorkerSettings& settings,
                   int& status_fd) {
  std::fflush(nullptr);
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    throw std::runtime_error("fork failed");
  }
  if (pid == 0) {
    ::close(pipe_fds[0]);
    die_with_parent(parent);
    default_stop_signals();
    work(run, out, settings, pipe_fds[1]);
  }
  ::close(pipe_fds[1]);  // so that later workers do not hold it open
  status_fd = pipe_fds[0];
  return pid;
}

namespace {

// Times one run whose committed record is pending timing, and commits the record with it.
[[noreturn]] void time_run(const CampaignRun& run, const fs::path& out) {
  int code = 0;
  try {
    const std::optional<RunRecord> committed = campaign_store::committed_record(out, run.key);
    if (!committed) throw std::runtime_error("the run is not in the result store");
    RunRecord record = *committed;
    PreparedRun prepared = prepare_run(run.config);
    const RepeatedWork expected =
        record.work ? RepeatedWork{record.work->rhs_calls, record.work->steps_accepted,
                                   record.work->steps_rejected}
                    : RepeatedWork{};
    TimingRecord timing =
        time_prepared_run(prepared, record.timing ? record.timing->instrumented_s : 0.0, expected);
    timing.one_at_a_time = true;
    record.timing = timing;
    campaign_store::update_record(out, record);
  } catch (const OutputError& e) {
    std::cerr << "cmbench: error: " << e.what() << "\n";
    code = kOutputFailed;
  } catch (const std::exception& e) {
    std::cerr << "cmbench: internal error while timing " << run.key << ": " << e.what() << "\n";
    code = kInternalError;
  }
  std::fflush(nullptr);
  _exit(code);
}

}  // namespace

pid_t start_timing_worker(const CampaignRun& run, const fs::path& out) {
  std::fflush(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    die_with_parent(parent);
    default_stop_signals();
    time_run(run, out);
  }
  return pid;
}

void stop_workers(Active& active, const fs::path& out) {
  for (const auto& [pid, run] : active) ::kill(pid, SIGTERM);
  for (const auto& [pid, worker] : active) {
    ::waitpid(pid, nullptr, 0);
    if (worker.status_fd >= 0) ::close(worker.status_fd);
  }
  active.clear();
  std::error_code ec;
  for (const char* sub : {"runs", "series"})
    for (const auto& entry : fs::directory_iterator(out / sub, ec))
      if (entry.path().filename().string().rfind(".cmb-", 0) == 0) fs::remove(entry.path(), ec);
}

}  // namespace cmb::workers
