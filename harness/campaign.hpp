// Campaigns: a declarative JSON file expands into runs (problems × methods × steppers × step
// sizes or tolerances), which run in parallel worker processes (a crash is one run's recorded
// status, not the campaign's end), each written atomically as soon as it finishes, so an
// interrupted campaign resumes without redoing finished runs. Schema: docs/campaigns.md.
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/run.hpp"

namespace cmb {

struct CampaignRun {
  RunConfig config;
  std::string key;   // the run key (harness/run.hpp)
  std::string file;  // stable file stem derived from the key
};

struct Campaign {
  std::string name;
  nlohmann::json source;  // the campaign file as read
  std::vector<CampaignRun> runs;
};

// Reads and validates a campaign file: every run is prepared once, so a bad id, parameter or
// value fails here with the JSON path of the offending entry (InputError), before anything runs.
Campaign load_campaign(const std::string& path);
// The same from the file's text; `origin` names it in messages.
Campaign parse_campaign(const std::string& text, const std::string& origin);

// Worker processes when none are asked for: one per hardware thread.
int default_jobs();

// What a running campaign reports, run by run. The command line supplies a console reporter
// (cli/progress.hpp); without one a campaign runs silently apart from its summary line.
class CampaignProgress {
 public:
  virtual ~CampaignProgress() = default;
  virtual void started(std::size_t pending_runs) = 0;
  virtual void finished(const CampaignRun& run, const std::string& status) = 0;
  virtual void ended() = 0;  // after the last run, or before the message of a stop
};

struct CampaignOptions {
  int jobs = default_jobs();
  std::string out_dir;  // empty: results/<name>/<date>_<git sha>
  std::string filter;   // ECMAScript regex on run keys
  bool resume = false;
  bool force = false;  // with resume: continue although the stored campaign file differs
  int shard_index = 1, shard_count = 1;  // run the runs with position % count == index − 1
  bool dry_run = false;
  CampaignProgress* progress = nullptr;  // not owned; null: no progress lines
};

// Sets the shard from its text "I/N" (two whole numbers, 1 <= I <= N); InputError otherwise.
void set_shard(CampaignOptions& options, const std::string& text);

// Thrown after a campaign finished and wrote its results when some runs crashed or hit an
// internal error (a bug, not a numerical outcome): `cmbench campaign` exits 3.
class InternalRunErrors : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Runs the campaign and writes <out>/runs/*.json, <out>/series/*.csv and <out>/results.json.
// Returns the number of runs whose status is not ok.
int run_campaign(const Campaign& campaign, const CampaignOptions& options);

}  // namespace cmb
