// `cmbench campaign`, `merge` and `compare`: result sets.
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <thread>

#include "cli/command.hpp"
#include "cli/progress.hpp"
#include "harness/campaign.hpp"
#include "harness/compare.hpp"
#include "harness/merge.hpp"

namespace cmb::cli {

Command add_campaign_command(CLI::App& app) {
  struct Options {
    std::string file, shard = "1/1";
    CampaignOptions campaign;
    CLI::Option* out = nullptr;
  };
  auto o = std::make_shared<Options>();
  auto* campaign = app.add_subcommand(
      "campaign", "Run a declared comparison (docs/campaigns.md) in parallel worker processes");
  campaign->add_option("file", o->file, "campaign JSON file")->required();
  campaign->add_option("--jobs", o->campaign.jobs, "worker processes (default: all cores)")
      ->check(integer_at_least(1));
  o->out = campaign->add_option("--out", o->campaign.out_dir,
                                "output directory (default results/<name>/<date>_<git sha>)");
  campaign->add_option("--filter", o->campaign.filter,
                       "only runs whose key matches this POSIX extended regular expression");
  campaign->add_flag("--resume", o->campaign.resume, "finish an interrupted campaign in --out");
  campaign->add_flag("--force", o->campaign.force,
                     "with --resume: continue although --out holds a different campaign file");
  campaign->add_option("--shard", o->shard, "run slice I of N (I/N, e.g. 2/3)");
  campaign->add_flag("--dry-run", o->campaign.dry_run, "list the runs and stop");
  return {campaign, [o] {
            require_nonempty(o->out, o->campaign.out_dir);
            set_shard(o->campaign, o->shard);
            ConsoleProgress progress;
            o->campaign.progress = &progress;
            try {
              const CampaignSummary summary = run_campaign(load_campaign(o->file), o->campaign);
              if (!o->campaign.dry_run) std::cout << summary_line(summary) << "\n";
            } catch (const InternalRunErrors& errors) {
              std::cout << summary_line(errors.summary()) << "\n";
              throw;  // exit 3: an internal error
            } catch (const CampaignStopped& stopped) {
              // Die of the same signal (its default action, restored), so that the shell or the
              // batch system sees how the campaign ended.
              std::cerr << "cmbench: " << stopped.what() << "\n";
              std::fflush(nullptr);
              std::raise(stopped.signal());
              std::_Exit(128 + stopped.signal());
            }
            return 0;
          }};
}

Command add_merge_command(CLI::App& app) {
  struct Options {
    std::vector<std::string> dirs;
    std::string out;
    bool force = false;
  };
  auto o = std::make_shared<Options>();
  auto* merge = app.add_subcommand("merge", "Join the results of campaign shards into one set");
  merge->add_option("dirs", o->dirs, "result directories (each with a results.json)")->required();
  merge->add_option("--out", o->out, "directory for the merged results.json")->required();
  merge->add_flag("--force", o->force,
                  "merge results of different campaign files or builds, or replace an earlier "
                  "merge's results.json in --out");
  return {merge, [o] {
            const std::size_t count = merge_results(o->dirs, o->out, o->force);
            std::cout << count << " runs merged into " << o->out << "/results.json\n";
            return 0;
          }};
}

Command add_compare_command(CLI::App& app) {
  struct Options {
    std::vector<std::string> inputs;
    CompareOptions compare;
  };
  auto o = std::make_shared<Options>();
  auto* compare = app.add_subcommand(
      "compare",
      "Compare two result sets run by run (status, metrics, work; timing ratios). "
      "Exit 0 when they agree, 1 when runs differ or are missing");
  compare->add_option("results", o->inputs, "two result directories (or results.json files): A B")
      ->required()
      ->expected(2);
  compare->add_option("--rel-tol", o->compare.rel_tol,
                      "numbers within this relative difference count as equal (default 0: exact)");
  compare->add_option("--json", o->compare.json_out, "also write the comparison as JSON here");
  return {compare, [o] {
            return compare_results(o->inputs[0], o->inputs[1], o->compare, std::cout) ? 1 : 0;
          }};
}

}  // namespace cmb::cli
