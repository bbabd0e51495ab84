// The self-converged references of a campaign: one cache directory for every shard and run (by
// default beside the output directory, so the shards of a job array, each writing its own
// directory, share it), and --prepare-references, which fills it before the array starts.
#include <chrono>
#include <filesystem>
#include <iostream>
#include <ostream>
#include <set>

#include "harness/campaign/campaign.hpp"
#include "harness/campaign/campaign_plan.hpp"
#include "harness/run/self_converged.hpp"
#include "records/output.hpp"

namespace cmb {

namespace fs = std::filesystem;

std::string reference_cache_dir(const Campaign& campaign, const CampaignOptions& options,
                                const std::string& out_dir) {
  if (!options.reference_cache.empty()) return options.reference_cache;
  if (!campaign.reference_cache.empty()) return campaign.reference_cache;
  const fs::path out = fs::path(out_dir).lexically_normal();
  const fs::path parent = out.has_filename() ? out.parent_path() : out.parent_path().parent_path();
  return (parent / "references").string();
}

namespace {

// A reference the runs need, once: the first run that needs it, prepared, and its cache file.
struct NeededReference {
  PreparedRun run;
  std::string file;
};

std::vector<NeededReference> needed_references(const std::vector<const CampaignRun*>& runs,
                                               const std::string& cache) {
  std::vector<NeededReference> needed;
  std::set<std::string> seen;
  for (const CampaignRun* run : runs) {
    PreparedRun prepared = prepare_run(run->config);
    prepared.config.reference_cache = cache;
    if (!needs_grid_reference(prepared)) continue;
    std::string file = reference_cache_file(prepared);
    if (seen.insert(file).second) needed.push_back({std::move(prepared), std::move(file)});
  }
  return needed;
}

}  // namespace

ReferenceFailures resolve_campaign_references(const std::vector<const CampaignRun*>& runs,
                                              const std::string& cache, bool list_only,
                                              std::ostream* log) {
  check_directory_path(cache, "reference cache");
  ReferenceFailures failures;
  std::size_t computed = 0, needed_count = 0;
  for (NeededReference& needed : needed_references(runs, cache)) {
    ++needed_count;
    PreparedRun& prepared = needed.run;
    std::error_code ec;
    const bool cached = fs::exists(needed.file, ec);
    if (log)
      *log << "reference of " << prepared.problem->info().id << " to t = " << prepared.t_end
           << ": ";
    if (list_only) {
      if (log) *log << (cached ? "in " : "to compute into ") << needed.file << "\n";
      continue;
    }
    const auto start = std::chrono::steady_clock::now();
    resolve_reference(prepared);
    const ReferenceRecord& block = *prepared.reference_block;
    if (!prepared.reference_failure.empty()) {
      failures[needed.file] = {prepared.reference_failure, prepared.reference_failure_status};
      if (log)
        *log << "could not be computed (" << prepared.reference_failure << "): its runs will end "
             << to_string(prepared.reference_failure_status) << "\n";
    } else if (block.from_cache.value_or(false)) {
      if (log) *log << "already in " << needed.file << "\n";
    } else {
      ++computed;
      if (log)
        *log << "computed in "
             << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()
             << " s into " << needed.file << "\n";
    }
  }
  if (log && needed_count > 0)
    *log << needed_count << " self-converged reference(s) in " << cache << ", " << computed
         << (list_only ? " listed, none computed (dry run)\n" : " computed now\n");
  return failures;
}

std::size_t prepare_references(const Campaign& campaign, const CampaignOptions& options) {
  const std::string cache =
      reference_cache_dir(campaign, options, campaign_out_dir(campaign, options));
  const ReferenceFailures failures = resolve_campaign_references(
      select_runs(campaign, options), cache, options.dry_run, &std::cout);
  return failures.size();
}

}  // namespace cmb
