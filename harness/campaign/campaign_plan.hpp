// Which runs of a campaign this process runs, in which order and on how many workers: the key
// filter, the shard (I/N, or this task's share of a Slurm job array), the order the workers take
// them in, and the number of workers the process may use. Also the summary of a finished
// campaign. Used by harness/campaign_runner.cpp.
#pragma once

#include <vector>

#include "harness/campaign/campaign.hpp"

namespace cmb {

// The runs of this shard that pass the filter, in campaign order.
std::vector<const CampaignRun*> select_runs(const Campaign& campaign,
                                            const CampaignOptions& options);

// --out, or results/<name>/<date>_<git sha> when it is not given.
std::string campaign_out_dir(const Campaign& campaign, const CampaignOptions& options);

// The order the workers take the runs in, and the timing pass too: a fixed shuffle (see the
// definition).
std::vector<const CampaignRun*> execution_order(const std::vector<const CampaignRun*>& runs);

}  // namespace cmb
