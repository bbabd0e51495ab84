// The self-converged references of a campaign: one cache directory for every shard and run (by
// default beside the output directory, so the shards of a job array, each writing its own
// directory, share it), and --prepare-references, which fills it before the array starts.
#include <chrono>
#include <filesystem>
#include <iostream>
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

std::size_t prepare_references(const Campaign& campaign, const CampaignOptions& options) {
  const std::string cache =
      reference_cache_dir(campaign, options, campaign_out_dir(campaign, options));
  check_directory_path(cache, "reference cache");
  std::set<std::string> seen;  // cache files already resolved here
  std::size_t computed = 0;
  for (const CampaignRun* run : select_runs(campaign, options)) {
    PreparedRun prepared = prepare_run(run->config);
    prepared.config.reference_cache = cache;
    if (!needs_grid_reference(prepared)) continue;
    const auto start = std::chrono::steady_clock::now();
    resolve_reference(prepared);
    const ReferenceRecord& block = *prepared.reference_block;
    const std::string file = block.cache_file.value_or("");
    if (!seen.insert(file.empty() ? run->key : file).second) continue;
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cout << "reference of " << prepared.problem->info().id << " to t = " << prepared.t_end
              << ": ";
    if (!prepared.reference_failure.empty()) {
      std::cout << "could not be computed (" << prepared.reference_failure
                << "): its runs will end reference_failed\n";
    } else if (block.from_cache.value_or(false)) {
      std::cout << "already in " << file << "\n";
    } else {
      ++computed;
      std::cout << "computed in " << seconds << " s into " << file << "\n";
    }
  }
  std::cout << seen.size() << " self-converged reference(s) in " << cache << ", " << computed
            << " computed now\n";
  return computed;
}

}  // namespace cmb
