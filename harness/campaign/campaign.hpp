// Campaigns: a declarative JSON file expands into runs (problems × methods × steppers × step
// sizes or tolerances), which run in parallel worker processes (a crash is one run's recorded
// status, not the campaign's end), each written atomically as soon as it finishes, so an
// interrupted campaign resumes without redoing finished runs. Schema: docs/campaigns.md.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/run/run.hpp"
#include "harness/run/self_converged.hpp"

namespace cmb {

struct CampaignRun {
  RunConfig config;
  std::string key;   // the run key (harness/run/run.hpp)
  std::string file;  // stable file stem derived from the key
};

struct Campaign {
  std::string name;
  nlohmann::json source;  // the campaign file as read
  std::vector<CampaignRun> runs;
  std::string reference_cache;
  // Timed repetitions after the parallel pass, one run at a time with nothing else running
  // (harness/run/timing.hpp); false: each worker times its run beside the others (faster, noisier).
  bool serial_timing = true;  // the file's "reference_cache"; empty: not given
};

// Reads and validates a campaign file: every run is prepared once, so a bad id, parameter or
// value fails here with the JSON path of the offending entry (InputError), before anything runs.
Campaign load_campaign(const std::string& path);
// The same from the file's text; `origin` names it in messages.
Campaign parse_campaign(const std::string& text, const std::string& origin);
// The same from a parsed document (read with the limits of core/json_input.hpp).
Campaign campaign_from_document(nlohmann::json doc);

// Worker processes when none are asked for: one per CPU this process may use (its affinity mask:
// taskset, cgroups, a batch allocation), at most SLURM_CPUS_PER_TASK when that is set.
int default_jobs();

// What a running campaign reports, run by run. The command line supplies a console reporter
// (cli/progress.hpp); without one a campaign runs silently.
class CampaignProgress {
 public:
  virtual ~CampaignProgress() = default;
  // Before started(), when a timing pass (CampaignOptions::serial_timing) follows the parallel
  // one: the ok runs will be timed again then, one at a time.
  virtual void timing_pass_follows() {}
  // The runs still to do (in the order they start) and how many run at once.
  virtual void started(const std::vector<const CampaignRun*>& pending, int jobs) = 0;
  // A run ended with `status` after `seconds` of wall time in its worker. An exception thrown
  // here (or by timed()) stops the campaign as a stop signal does: the workers are stopped, the
  // finished records kept for --resume, and the exception goes on to the caller.
  virtual void finished(const CampaignRun& run, const std::string& status, double seconds) = 0;
  virtual void ended() = 0;  // after the last run, or before a stop
  // The timing pass (CampaignOptions::serial_timing) timed `run`, the done-th of `total`.
  virtual void timed(const CampaignRun& run, std::size_t done, std::size_t total, double seconds) {}
};

struct CampaignOptions {
  int jobs = default_jobs();
  std::string out_dir;  // empty: results/<name>/<date>_<git sha>
  std::string filter;   // ECMAScript regex on run keys
  bool resume = false;
  bool force = false;  // with resume: continue although the stored campaign file differs
  int shard_index = 1, shard_count = 1;  // run the runs with position % count == index − 1
  // Where self-converged references are cached, shared by every shard and run of the campaign.
  // Empty: the campaign file's reference_cache, else <the output directory's parent>/references.
  std::string reference_cache;
  // Timed repetitions after the parallel pass, one run at a time with nothing else running
  // (harness/run/timing.hpp); false: each worker times its run beside the others (faster, noisier).
  bool serial_timing = true;
  bool dry_run = false;
  CampaignProgress* progress = nullptr;  // not owned; null: no progress lines
  // How messages name the options: --resume (command line), resume= (Python).
  SettingSurface surface = SettingSurface::command_line;
};

// The options of cmbench.campaign as its Python keywords give them (JSON: jobs, out, filter,
// resume, force, shard, dry_run; progress is the caller's): each checked for its type, an
// InputError naming it as written there (resume="yes": expected true or false).
CampaignOptions campaign_options_from_json(const nlohmann::json& options);

// Sets the shard from its text: "I/N" (two whole numbers, 1 <= I <= N), or "slurm": this task's
// place in its Slurm job array (SLURM_ARRAY_TASK_ID among the array's ids, whatever its first id
// and step; CMB_SHARD_COUNT, CMB_SHARD_BASE, CMB_SHARD_STEP describe the whole array when a
// resubmission runs only some ids). InputError otherwise.
void set_shard(CampaignOptions& options, const std::string& text);

// The directory of self-converged references for a campaign written into `out_dir`.
std::string reference_cache_dir(const Campaign& campaign, const CampaignOptions& options,
                                const std::string& out_dir);

// The self-converged references `runs` need, computed into `cache` before any of the runs starts
// (or only listed, when `list_only`): outside every run's limits, so that a run's status never
// depends on whether its reference was cached. A reference is bounded by its own runs' step
// limit; one that cannot be computed is returned (cache file → why) for its runs to end
// reference_failed without trying again. One process computes each (others wait for it and
// read it: the shards of a job array share the cache). Writes a line per reference to `log`.
ReferenceFailures resolve_campaign_references(const std::vector<const CampaignRun*>& runs,
                                              const std::string& cache, bool list_only,
                                              std::ostream* log);

// --prepare-references: resolve_campaign_references for the selected runs into the campaign's
// cache, listing them only with dry_run, so that the shards of a job array start with all of
// them in place. Returns how many could not be computed.
std::size_t prepare_references(const Campaign& campaign, const CampaignOptions& options);

// Statuses that say a run was not attempted for a reason its method or problem declares
// (unsupported): expected, unlike a numerical outcome (singular, diverged, ...) or a crash.
bool is_expected_status(const std::string& status);

// What a campaign did: the runs of its selection by status, and where results.json went.
struct CampaignSummary {
  std::size_t runs = 0;
  std::map<std::string, std::size_t> statuses;
  std::filesystem::path results;  // empty after a dry run
  std::size_t not_ok() const;
};
// One line: "714 runs: 590 ok, 20 unsupported (expected), 104 with a numerical status
// (43 singular, 42 branch_switch, ...); results in DIR/results.json".
std::string summary_line(const CampaignSummary& summary);

// Thrown after a campaign finished and wrote its results when some runs crashed or hit an
// internal error (a bug, not a numerical outcome): `cmbench campaign` exits 3.
class InternalRunErrors : public std::runtime_error {
 public:
  InternalRunErrors(const std::string& message, CampaignSummary summary)
      : std::runtime_error(message), summary_(std::move(summary)) {}
  const CampaignSummary& summary() const { return summary_; }

 private:
  CampaignSummary summary_;
};

// Thrown by run_campaign when SIGINT, SIGTERM or SIGHUP stopped it: the workers are stopped and
// reaped, their temporaries removed, the finished records kept (--resume completes the set) and
// the signal handlers the caller had are back. The command line then dies of the same signal.
class CampaignStopped : public std::runtime_error {
 public:
  CampaignStopped(int signal, const std::string& message)
      : std::runtime_error(message), signal_(signal) {}
  int signal() const { return signal_; }

 private:
  int signal_;
};

// Runs the campaign and writes <out>/runs/*.json, <out>/series/*.csv and <out>/results.json.
// A dry run lists the selected keys on standard output and writes nothing.
CampaignSummary run_campaign(const Campaign& campaign, const CampaignOptions& options);

}  // namespace cmb
