// Running a campaign: worker processes, their limits and signals, progress, resume, and the
// results.json that gathers the records.
#include <regex.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "core/errors.hpp"
#include "core/json_input.hpp"
#include "harness/campaign.hpp"
#include "harness/context.hpp"
#include "harness/output.hpp"

namespace cmb {

namespace build_info {
extern const char* const git_sha;
}

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The record of a run whose worker died: what was asked (the metrics are gone with it).
json crash_record(const CampaignRun& run, const std::string& why,
                  RunStatus status = RunStatus::diverged) {
  const RunConfig& c = run.config;
  return {{"schema", "cmbench.run/1"},
          {"key", run.key},
          {"status", to_string(status)},
          {"message", why},
          {"problem", {{"id", c.problem}, {"params", c.problem_params}}},
          {"method", {{"id", c.method}, {"params", c.method_params}}},
          {"stepper", {{"id", c.stepper}}},
          {"context", run_context()}};
}

// A worker that could not write its record or series exits with this code: the parent stops the
// campaign (the run is not recorded, so --resume redoes it) instead of recording a status.
constexpr int kWorkerOutputFailed = 4;
// A worker whose run threw something unexpected records it and exits with this code, so the
// campaign can end with a non-zero exit code after recording everything else.
constexpr int kWorkerInternalError = 5;

// SIGINT, SIGTERM and SIGHUP stop a campaign the same way: the parent notices (the handler only
// sets a flag and interrupts waitpid), stops and reaps its workers, removes their temporary files
// and then dies of the same signal, so the shell sees how it ended; --resume finishes the rest.
volatile std::sig_atomic_t stop_signal = 0;
extern "C" void note_stop_signal(int signal) { stop_signal = signal; }
constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};

void catch_stop_signals() {
  stop_signal = 0;
  struct sigaction action {};
  action.sa_handler = note_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: waitpid returns EINTR
  for (int signal : kStopSignals) ::sigaction(signal, &action, nullptr);
}

void default_stop_signals() {
  for (int signal : kStopSignals) std::signal(signal, SIG_DFL);
}

struct Worker {
  const CampaignRun* run;
  std::chrono::steady_clock::time_point started;
  bool killed = false;  // by the parent, past its time limit
};

// Waits for a worker to end, killing those past their time limit plus margin meanwhile. Returns
// -1 with errno EINTR when a stop signal arrived.
pid_t wait_for_worker(std::map<pid_t, Worker>& active, int& wstatus) {
  for (;;) {
    bool limited = false;
    const auto now = std::chrono::steady_clock::now();
    for (auto& [pid, worker] : active) {
      const double limit = worker.run->config.limits.wall_time_limit;
      if (limit <= 0) continue;
      limited = true;
      const std::chrono::duration<double> used = now - worker.started;
      if (!worker.killed && used.count() > limit + time_limit_margin(limit)) {
        ::kill(pid, SIGKILL);
        worker.killed = true;
      }
    }
    const pid_t pid = ::waitpid(-1, &wstatus, limited ? WNOHANG : 0);
    if (pid != 0) return pid;
    if (stop_signal) {
      errno = EINTR;
      return -1;
    }
    ::usleep(20000);  // 20 ms: a negligible load, and a negligible addition to the overshoot
  }
}

// Executes one run in a worker process; never returns.
[[noreturn]] void work(const CampaignRun& run, const fs::path& out) {
  int code = 0;
  try {
    PreparedRun prepared = prepare_run(run.config);
    const RunResult result = execute_run(prepared);
    write_file_atomically((out / "series" / (run.file + ".csv")).string(), [&](const Emit& emit) {
      stream_series_csv(*result.problem, result.series, result.reference, emit);
    });
    write_file_atomically((out / "runs" / (run.file + ".json")).string(),
                          result.record.dump(1) + "\n");
  } catch (const OutputError& e) {
    std::cerr << "cmbench: error: " << e.what() << "\n";
    code = kWorkerOutputFailed;
  } catch (const std::exception& e) {
    code = kWorkerInternalError;
    try {
      write_file_atomically((out / "runs" / (run.file + ".json")).string(),
                            crash_record(run, std::string("internal error: ") + e.what()).dump(1));
    } catch (const OutputError& e) {
      std::cerr << "cmbench: error: " << e.what() << "\n";
      code = kWorkerOutputFailed;
    } catch (...) {
      code = 3;
    }
  }
  std::fflush(nullptr);
  _exit(code);
}

// Stops the other workers after one could not write (they would meet the same full disk), waits
// for them and removes what they may have left half-written.
void stop_workers(std::map<pid_t, Worker>& active, const fs::path& out) {
  for (const auto& [pid, run] : active) ::kill(pid, SIGTERM);
  for (const auto& [pid, run] : active) ::waitpid(pid, nullptr, 0);
  active.clear();
  std::error_code ec;
  for (const char* sub : {"runs", "series"})
    for (const auto& entry : fs::directory_iterator(out / sub, ec))
      if (entry.path().filename().string().rfind(".cmb-", 0) == 0) fs::remove(entry.path(), ec);
}

void make_directory(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw OutputError("cannot create the directory '" + dir.string() + "': " + ec.message());
}

// The top-level keys in which two campaign files differ.
std::vector<std::string> differing_keys(const json& a, const json& b) {
  std::set<std::string> keys;
  for (const auto& [k, v] : a.items()) keys.insert(k);
  for (const auto& [k, v] : b.items()) keys.insert(k);
  std::vector<std::string> out;
  for (const auto& k : keys)
    if (!a.contains(k) || !b.contains(k) || a[k] != b[k]) out.push_back(k);
  return out;
}

// An output directory holds at most one campaign: without --resume it must hold none; with it,
// the same campaign file (the records were made with its settings), unless --force.
void check_output_dir(const Campaign& campaign, const CampaignOptions& options,
                      const fs::path& out) {
  const fs::path stored_file = out / "campaign.json";
  std::error_code ec;
  if (fs::exists(out, ec) && !fs::is_directory(out, ec))
    throw OutputError("--out '" + out.string() + "' exists and is not a directory");
  if (!fs::exists(stored_file, ec)) {
    if (fs::exists(out / "results.json", ec) || fs::exists(out / "runs", ec))
      throw InputError("output directory '" + out.string() +
                       "' holds results without a "
                       "campaign.json: choose another --out");
    return;
  }
  if (!options.resume)
    throw InputError("output directory '" + out.string() +
                     "' already holds a campaign's results: "
                     "use --resume to finish it or --out for a fresh directory");
  std::ifstream in(stored_file);
  const json stored = json::parse(in, nullptr, false);
  if (stored.is_discarded())
    throw InputError("'" + stored_file.string() +
                     "' is not valid JSON: cannot tell which "
                     "campaign the directory holds (choose another --out)");
  if (stored == campaign.source || options.force) return;
  throw InputError(
      "--resume: '" + out.string() + "' holds campaign '" + stored.value("name", std::string("?")) +
      "' with other settings (differs in: " + join(differing_keys(stored, campaign.source), ", ") +
      "); its records were made with those: use a fresh --out, or --force to "
      "resume anyway");
}

// The runs without a valid record. A record counts only if it parses and holds this run's key:
// a truncated file or one copied over another run's name is redone (and said so).
std::vector<const CampaignRun*> runs_to_do(const std::vector<const CampaignRun*>& selected,
                                           const fs::path& out) {
  std::vector<const CampaignRun*> pending;
  std::size_t redone = 0;
  for (const auto* run : selected) {
    const fs::path record = out / "runs" / (run->file + ".json");
    std::error_code ec;
    if (!fs::exists(record, ec)) {
      pending.push_back(run);
      continue;
    }
    std::ifstream in(record);
    const json doc = json::parse(in, nullptr, false);
    if (doc.is_object() && doc.value("key", std::string()) == run->key) continue;
    std::cerr << "cmbench: redoing " << run->key << ": its record '" << record.string()
              << (doc.is_discarded() ? "' is unreadable" : "' holds another run") << "\n";
    fs::remove(record, ec);
    pending.push_back(run);
    ++redone;
  }
  if (redone) std::cerr << "cmbench: " << redone << " record(s) redone\n";
  return pending;
}

// --filter as a POSIX extended regular expression. glibc matches these without backtracking
// (std::regex's ECMAScript matcher takes exponential time on patterns like '(.*)*X').
class KeyFilter {
 public:
  explicit KeyFilter(const std::string& pattern) : active_(!pattern.empty()) {
    if (!active_) return;
    const int error = ::regcomp(&regex_, pattern.c_str(), REG_EXTENDED | REG_NOSUB);
    if (error != 0) {
      char reason[256];
      ::regerror(error, &regex_, reason, sizeof reason);
      throw InputError("--filter " + excerpt(json(pattern)) +
                       " is not a valid (POSIX extended) regular expression: " + reason);
    }
  }
  ~KeyFilter() {
    if (active_) ::regfree(&regex_);
  }
  KeyFilter(const KeyFilter&) = delete;
  KeyFilter& operator=(const KeyFilter&) = delete;

  bool matches(const std::string& key) const {
    return !active_ || ::regexec(&regex_, key.c_str(), 0, nullptr, 0) == 0;
  }

 private:
  bool active_;
  regex_t regex_{};
};

std::string default_out_dir(const std::string& name) {
  std::string date = utc_timestamp().substr(0, 10);
  return (fs::path("results") / name / (date + "_" + build_info::git_sha)).string();
}

std::string format_seconds(double s) {
  std::ostringstream out;
  out.precision(s < 10 ? 2 : 0);
  out << std::fixed << s << " s";
  return out.str();
}

}  // namespace

int default_jobs() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

void set_shard(CampaignOptions& options, const std::string& text) {
  const auto slash = text.find('/');
  auto whole = [](const std::string& part) {
    return !part.empty() && part.size() < 7 &&
           part.find_first_not_of("0123456789") == std::string::npos;
  };
  if (slash == std::string::npos || !whole(text.substr(0, slash)) || !whole(text.substr(slash + 1)))
    throw InputError("--shard expects I/N with 1 <= I <= N, got '" + text + "'");
  options.shard_index = std::stoi(text.substr(0, slash));
  options.shard_count = std::stoi(text.substr(slash + 1));
  if (options.shard_count < 1 || options.shard_index < 1 ||
      options.shard_index > options.shard_count)
    throw InputError("--shard expects I/N with 1 <= I <= N, got '" + text + "'");
}

namespace {

// The runs of this shard that pass the filter, in campaign order.
std::vector<const CampaignRun*> select_runs(const Campaign& campaign,
                                            const CampaignOptions& options) {
  std::vector<const CampaignRun*> selected;
  const KeyFilter filter(options.filter);
  std::size_t position = 0;
  for (const auto& run : campaign.runs) {
    if (!filter.matches(run.key)) continue;
    if (static_cast<int>(position++ % options.shard_count) == options.shard_index - 1)
      selected.push_back(&run);
  }
  return selected;
}

// One line per finished run (rewritten in place on a terminal): count, status, key, elapsed
// time, ETA and failures so far.
class Progress {
 public:
  explicit Progress(std::size_t total)
      : total_(total), tty_(::isatty(STDOUT_FILENO)), start_(std::chrono::steady_clock::now()) {}
  void finished(const CampaignRun& run, const std::string& status) {
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
  void end_line() const {
    if (tty_) std::cout << "\n";
  }
  std::size_t count() const { return finished_; }
  std::size_t total() const { return total_; }

 private:
  std::size_t total_, finished_ = 0, failures_ = 0;
  bool tty_;
  std::chrono::steady_clock::time_point start_;
};

// Records what the parent knows of a worker that did not leave a normal record: killed past
// its time limit (time_limit), crashed or failed internally (diverged, with the reason). Returns
// true for a crash or an internal error.
bool record_ended_worker(const Worker& worker, int wstatus, const fs::path& record) {
  const CampaignRun& run = *worker.run;
  const bool internal_error = WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == kWorkerInternalError;
  if (worker.killed) {
    const double limit = run.config.limits.wall_time_limit;
    std::ostringstream why;
    why << "wall-time limit reached: the worker was stopped " << limit + time_limit_margin(limit)
        << " s after it started (limit " << limit << " s plus margin; the limit is otherwise "
        << "checked between steps)";
    write_file_atomically(record.string(),
                          crash_record(run, why.str(), RunStatus::time_limit).dump(1) + "\n");
    return false;
  }
  const bool exited_ok = WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0 && fs::exists(record);
  if (exited_ok) return false;
  if (!internal_error || !fs::exists(record)) {
    const std::string why = WIFSIGNALED(wstatus)
                                ? "worker crashed with signal " + std::to_string(WTERMSIG(wstatus))
                                : "worker exited with code " + std::to_string(WEXITSTATUS(wstatus));
    write_file_atomically(record.string(), crash_record(run, why).dump(1) + "\n");
  }
  return true;
}

std::string status_in(const fs::path& record) {
  std::ifstream in(record);
  const json result = json::parse(in, nullptr, false);
  return result.is_discarded() ? "unreadable" : result.value("status", "?");
}

// Gathers the selected runs' records into results.json; returns how many are not ok.
std::size_t write_results(const Campaign& campaign, const CampaignOptions& options,
                          const std::vector<const CampaignRun*>& selected, const fs::path& out) {
  json runs = json::array();
  std::size_t not_ok = 0;
  for (const auto* run : selected) {
    std::ifstream in(out / "runs" / (run->file + ".json"));
    json record = json::parse(in, nullptr, false);
    if (record.is_discarded()) record = crash_record(*run, "record unreadable");
    if (record.value("status", "") != "ok") ++not_ok;
    runs.push_back(record);
  }
  const json results = {{"schema", "cmbench.results/1"},
                        {"campaign", campaign.name},
                        {"campaign_file", campaign.source},
                        {"shard", {{"index", options.shard_index}, {"count", options.shard_count}}},
                        {"filter", options.filter},
                        {"context", run_context()},
                        {"runs", runs}};
  write_file_atomically((out / "results.json").string(), results.dump(1) + "\n");
  return not_ok;
}

[[noreturn]] void stop_by_signal(std::map<pid_t, Worker>& active, const fs::path& out,
                                 const Progress& progress) {
  const int signal = stop_signal;
  stop_workers(active, out);
  progress.end_line();
  std::cerr << "cmbench: campaign stopped by signal " << signal << " after " << progress.count()
            << " of " << progress.total() << " runs; finish it with --resume\n";
  std::fflush(nullptr);
  default_stop_signals();
  std::raise(signal);
  std::_Exit(128 + signal);  // not reached: the default action of these signals ends the process
}

}  // namespace

int run_campaign(const Campaign& campaign, const CampaignOptions& options) {
  const std::vector<const CampaignRun*> selected = select_runs(campaign, options);
  if (options.dry_run) {
    for (const auto* run : selected) std::cout << run->key << "\n";
    std::cout << selected.size() << " runs (of " << campaign.runs.size() << " in campaign '"
              << campaign.name << "')\n";
    return 0;
  }
  const fs::path out = options.out_dir.empty() ? default_out_dir(campaign.name) : options.out_dir;
  check_output_dir(campaign, options, out);
  const std::vector<const CampaignRun*> pending = runs_to_do(selected, out);
  make_directory(out / "runs");
  make_directory(out / "series");
  write_file_atomically((out / "campaign.json").string(), campaign.source.dump(2) + "\n");

  catch_stop_signals();
  Progress progress(pending.size());
  std::map<pid_t, Worker> active;
  std::size_t next = 0, internal_errors = 0;
  while (next < pending.size() || !active.empty()) {
    while (!stop_signal && next < pending.size() &&
           static_cast<int>(active.size()) < options.jobs) {
      std::fflush(nullptr);
      const pid_t pid = ::fork();
      if (pid < 0) throw std::runtime_error("fork failed");
      if (pid == 0) {
        default_stop_signals();
        work(*pending[next], out);
      }
      active[pid] = Worker{pending[next++], std::chrono::steady_clock::now()};
    }
    int wstatus = 0;
    const pid_t pid = stop_signal ? -1 : wait_for_worker(active, wstatus);
    if (stop_signal) stop_by_signal(active, out, progress);
    if (pid < 0 && errno == EINTR) continue;
    if (pid < 0) break;
    const Worker worker = active.at(pid);
    active.erase(pid);
    if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == kWorkerOutputFailed) {
      stop_workers(active, out);
      progress.end_line();
      throw OutputError("campaign stopped: a worker could not write the results of " +
                        worker.run->key + " into '" + out.string() +
                        "' (its message is above); "
                        "the runs recorded so far are kept: make room and finish with --resume");
    }
    const fs::path record = out / "runs" / (worker.run->file + ".json");
    internal_errors += record_ended_worker(worker, wstatus, record);
    progress.finished(*worker.run, status_in(record));
  }
  progress.end_line();
  default_stop_signals();

  const std::size_t not_ok = write_results(campaign, options, selected, out);
  std::cout << selected.size() << " runs, " << not_ok << " not ok; results in "
            << (out / "results.json").string() << "\n";
  if (internal_errors > 0)
    throw InternalRunErrors(std::to_string(internal_errors) +
                            " run(s) ended in a crash or an "
                            "internal error (status diverged, the message says which): please "
                            "report them");
  return static_cast<int>(not_ok);
}

}  // namespace cmb
