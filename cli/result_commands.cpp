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
#include "harness/campaign/campaign.hpp"
#include "records/compare.hpp"
#include "records/merge.hpp"

namespace cmb::cli {

namespace {

struct CampaignCommand {
  std::string file, shard;
  CampaignOptions campaign;
  bool prepare_references = false;
};

// The shard: as given; else, inside a Slurm job array, this task's (said so); else all runs.
void choose_shard(CampaignCommand& o) {
  if (o.shard.empty() && std::getenv("SLURM_ARRAY_TASK_ID") && !o.prepare_references) {
    set_shard(o.campaign, "slurm");
    std::cerr << "cmbench: shard " << o.campaign.shard_index << "/" << o.campaign.shard_count
              << " of the campaign (from SLURM_ARRAY_TASK_ID=" << std::getenv("SLURM_ARRAY_TASK_ID")
              << "; --shard 1/1 runs all)\n";
    return;
  }
  set_shard(o.campaign, o.shard.empty() ? "1/1" : o.shard);
}

int run_campaign_command(CampaignCommand& o) {
  choose_shard(o);
  const Campaign campaign = load_campaign(o.file);
  if (o.prepare_references) {
    prepare_references(campaign, o.campaign);
    return 0;
  }
  ConsoleProgress progress;
  o.campaign.progress = &progress;
  try {
    const CampaignSummary summary = run_campaign(campaign, o.campaign);
    if (!o.campaign.dry_run) std::cout << summary_line(summary) << "\n";
  } catch (const InternalRunErrors& errors) {
    std::cout << summary_line(errors.summary()) << "\n";
    throw;  // exit 3: an internal error
  } catch (const CampaignStopped& stopped) {
    // Die of the same signal (its default action, restored), so that the shell or the batch
    // system sees how the campaign ended.
    std::cerr << "cmbench: " << stopped.what() << "\n";
    std::fflush(nullptr);
    std::raise(stopped.signal());
    std::_Exit(128 + stopped.signal());
  }
  return 0;
}

}  // namespace

Command add_campaign_command(CLI::App& app) {
  auto o = std::make_shared<CampaignCommand>();
  auto* campaign = app.add_subcommand(
      "campaign", "Run a declared comparison (docs/campaigns.md) in parallel worker processes");
  campaign->add_option("file", o->file, "campaign JSON file")->required();
  campaign
      ->add_option("--jobs", o->campaign.jobs,
                   "worker processes (default: the CPUs this process may use, at most "
                   "SLURM_CPUS_PER_TASK)")
      ->check(integer_at_least(1));
  campaign
      ->add_option("--out", o->campaign.out_dir,
                   "output directory (default results/<name>/<date>_<git sha>)")
      ->check(output_path());
  campaign
      ->add_option("--filter", o->campaign.filter,
                   "only runs whose key matches this regular expression (RE2 syntax)")
      ->check(not_empty("a regular expression (leave --filter out to keep every run)"));
  campaign->add_flag("--resume", o->campaign.resume, "finish an interrupted campaign in --out");
  campaign->add_flag("--force", o->campaign.force,
                     "with --resume: continue although --out holds a different campaign file");
  campaign
      ->add_option("--shard", o->shard,
                   "run slice I of N (I/N, e.g. 2/3), or 'slurm': this task's slice of its "
                   "Slurm job array (the default inside one)")
      ->check(not_empty("I/N or 'slurm'"));
  campaign
      ->add_option("--reference-cache", o->campaign.reference_cache,
                   "directory of self-converged references shared by every run and shard "
                   "(default: the file's reference_cache, else references/ beside --out)")
      ->check(output_path());
  campaign->add_flag("--prepare-references", o->prepare_references,
                     "compute the self-converged references the runs need into the cache, then "
                     "stop (before a job array starts)");
  campaign->add_flag("--dry-run", o->campaign.dry_run, "list the runs and stop");
  auto* parallel = campaign->add_flag(
      "--parallel-timing",
      "time each run in its worker beside the others instead of one at a time after them "
      "(faster, noisier timings)");
  parallel->each([o](const std::string&) { o->campaign.serial_timing = false; });
  return {campaign, [o] { return run_campaign_command(*o); }};
}

Command add_merge_command(CLI::App& app) {
  struct Options {
    std::vector<std::string> dirs;
    std::string out;
    MergeOptions merge;
  };
  auto o = std::make_shared<Options>();
  auto* merge = app.add_subcommand(
      "merge",
      "Join the result directories of campaign shards into one complete result set (results, "
      "run records and series)");
  merge->add_option("dirs", o->dirs, "result directories (each with a results.json)")->required();
  merge->add_option("--out", o->out, "directory of the merged result set")
      ->required()
      ->check(output_path());
  merge->add_flag("--force", o->merge.force,
                  "merge results of different campaign files or builds, or replace an earlier "
                  "merge in --out");
  merge
      ->add_option("--campaign", o->merge.campaign,
                   "the campaign file the shards were submitted with: refuse any input that "
                   "holds the results of another (a stale shard), even with --force")
      ->check(not_empty("the campaign file"));
  merge->add_flag("--allow-partial", o->merge.allow_partial,
                  "merge an incomplete set of shards (the missing ones are recorded in "
                  "results.json as missing_shards)");
  return {merge, [o] {
            const MergeSummary summary = merge_results(o->dirs, o->out, o->merge);
            std::cout << summary.runs << " runs merged into " << o->out << "/results.json ("
                      << summary.files_copied << " record and series files copied";
            if (summary.files_missing)
              std::cout << "; " << summary.files_missing << " named by records but absent";
            if (!summary.missing_shards.empty())
              std::cout << "; " << summary.missing_shards.size() << " shard(s) missing";
            std::cout << ")\n";
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
  compare
      ->add_option("--rel-tol", o->compare.rel_tol,
                   "numbers within this relative difference count as equal (default 0: exact)")
      ->check(not_empty("a number >= 0 (0: exact)"));
  compare->add_option("--json", o->compare.json_out, "also write the comparison as JSON here")
      ->check(output_path());
  return {compare, [o] {
            return compare_results(o->inputs[0], o->inputs[1], o->compare, std::cout) ? 1 : 0;
          }};
}

}  // namespace cmb::cli
