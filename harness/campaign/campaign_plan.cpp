#include "harness/campaign/campaign_plan.hpp"

#include <re2/re2.h>
#include <sched.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <sstream>
#include <thread>

#include "core/errors.hpp"
#include "core/json_input.hpp"
#include "harness/run/context.hpp"
#include "harness/run/run_settings.hpp"
#include "records/output.hpp"

namespace cmb {

namespace build_info {
extern const char* const git_sha;
}

using nlohmann::json;

namespace {

// --filter in RE2's syntax: RE2 matches in time linear in the key whatever the pattern (it has
// no backreferences, which make matching exponential), and compiles a pattern within a memory
// budget, so neither a pathological pattern nor a huge repetition can stall or exhaust a campaign.
constexpr std::size_t kMaxFilterChars = 1000;
constexpr std::int64_t kFilterMemoryBytes = std::int64_t(8) << 20;

class KeyFilter {
 public:
  KeyFilter(const std::string& pattern, SettingSurface surface) {
    if (pattern.empty()) return;
    if (pattern.size() > kMaxFilterChars)
      throw InputError(written("filter", pattern.substr(0, 40) + "...", surface) + ": " +
                       std::to_string(pattern.size()) + " characters, more than the " +
                       std::to_string(kMaxFilterChars) + " a filter may have");
    RE2::Options options;
    options.set_log_errors(false);
    options.set_max_mem(kFilterMemoryBytes);
    regex_ = std::make_unique<RE2>(pattern, options);
    if (!regex_->ok())
      throw InputError(written("filter", pattern, surface) +
                       ": not a valid regular expression (RE2 syntax, which has no "
                       "backreferences): " +
                       regex_->error());
  }

  bool matches(const std::string& key) const { return !regex_ || RE2::PartialMatch(key, *regex_); }

 private:
  std::unique_ptr<RE2> regex_;
};

// A whole number (at most 9 digits) from `text`, or -1.
long whole_number(const std::string& text) {
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos)
    return -1;
  return std::stol(text);
}

// An environment variable as a whole number; -1 when unset; InputError when set to anything else.
long env_number(const char* name, SettingSurface surface) {
  const char* value = std::getenv(name);
  if (!value) return -1;
  const long number = whole_number(value);
  if (number < 0)
    throw InputError(written("shard", "slurm", surface) + ": " + name + " = '" + value +
                     "' is not a whole number");
  return number;
}

// This task's shard of a Slurm job array: its position among the array's task ids, whatever
// the array's first id and step (--array=0-3, 1-4, 0-6:2). CMB_SHARD_COUNT, CMB_SHARD_BASE and
// CMB_SHARD_STEP stand in for the array's own size, first id and step when a resubmission runs
// only some of the original ids (--array=2): the shard must keep its place in the whole.
void set_slurm_shard(CampaignOptions& options) {
  const SettingSurface surface = options.surface;
  const std::string option = written("shard", "slurm", surface);
  const long id = env_number("SLURM_ARRAY_TASK_ID", surface);
  if (id < 0)
    throw InputError(option +
                     " needs SLURM_ARRAY_TASK_ID: run it as a task of a Slurm job array "
                     "(sbatch --array=0-3 ...), or give " +
                     written("shard", "I/N", surface));
  long base = env_number("CMB_SHARD_BASE", surface);
  if (base < 0) base = env_number("SLURM_ARRAY_TASK_MIN", surface);
  long step = env_number("CMB_SHARD_STEP", surface);
  if (step < 0) step = std::max(1L, env_number("SLURM_ARRAY_TASK_STEP", surface));
  long count = env_number("CMB_SHARD_COUNT", surface);
  if (count < 0) count = env_number("SLURM_ARRAY_TASK_COUNT", surface);
  if (base < 0 || count < 1 || step < 1)
    throw InputError(option +
                     ": the array's first task id and size are unknown (SLURM_ARRAY_TASK_MIN "
                     "and SLURM_ARRAY_TASK_COUNT, or CMB_SHARD_BASE and CMB_SHARD_COUNT)");
  if (id < base || (id - base) % step != 0 || (id - base) / step >= count) {
    std::ostringstream msg;
    msg << option << ": task id " << id << " is not one of the " << count
        << " ids of an array starting at " << base << " with step " << step
        << " (for a resubmission of some ids, set CMB_SHARD_COUNT and CMB_SHARD_BASE to those "
           "of the whole array)";
    throw InputError(msg.str());
  }
  options.shard_index = static_cast<int>((id - base) / step + 1);
  options.shard_count = static_cast<int>(count);
}

}  // namespace

std::string campaign_out_dir(const Campaign& campaign, const CampaignOptions& options) {
  if (!options.out_dir.empty()) return options.out_dir;
  return (std::filesystem::path("results") / campaign.name /
          (utc_timestamp().substr(0, 10) + "_" + build_info::git_sha))
      .string();
}

int default_jobs() {
  // The CPUs this process may run on (taskset, cgroups, a Slurm allocation), not the machine's.
  cpu_set_t set;
  int cpus = ::sched_getaffinity(0, sizeof set, &set) == 0
                 ? CPU_COUNT(&set)
                 : static_cast<int>(std::thread::hardware_concurrency());
  if (const char* slurm = std::getenv("SLURM_CPUS_PER_TASK")) {
    const long per_task = whole_number(slurm);
    if (per_task > 0) cpus = std::min<long>(cpus, per_task);
  }
  return std::max(1, cpus);
}

CampaignOptions campaign_options_from_json(const json& given) {
  CampaignOptions options;
  options.surface = SettingSurface::keywords;
  if (!given.is_object()) throw InputError("campaign options must be an object");
  auto refuse = [](const std::string& name, const json& value, const std::string& expected) {
    throw InputError(name + "=" + excerpt(value) + ": expected " + expected);
  };
  for (const auto& [name, value] : given.items()) {
    if (value.is_null()) continue;
    if (name == "jobs") {
      if (!value.is_number_integer() || value.get<double>() < 1 || value.get<double>() > 4096)
        refuse(name, value, "a whole number from 1 to 4096");
      options.jobs = value.get<int>();
    } else if (name == "out") {
      if (!value.is_string() || !output_path_problem(value.get<std::string>()).empty())
        refuse(name, value, "a directory path (not empty, not '-')");
    } else if (name == "filter" || name == "shard") {
      if (!value.is_string()) refuse(name, value, "a string");
    } else if (name == "resume" || name == "force" || name == "dry_run" || name == "progress") {
      if (!value.is_boolean()) refuse(name, value, "true or false");
    } else {
      throw InputError("unknown campaign option '" + name +
                       "' (valid: jobs, out, filter, resume, force, shard, dry_run, progress)");
    }
  }
  options.out_dir = given.value("out", json("")).is_string() ? given.value("out", "") : "";
  options.filter = given.value("filter", json("")).is_string() ? given.value("filter", "") : "";
  options.resume = given.value("resume", json(false)) == json(true);
  options.force = given.value("force", json(false)) == json(true);
  options.dry_run = given.value("dry_run", json(false)) == json(true);
  const json shard = given.value("shard", json("1/1"));
  set_shard(options, shard.is_string() ? shard.get<std::string>() : "1/1");
  return options;
}

void set_shard(CampaignOptions& options, const std::string& text) {
  if (text == "slurm") return set_slurm_shard(options);
  const auto slash = text.find('/');
  const long index = slash == std::string::npos ? -1 : whole_number(text.substr(0, slash));
  const long count = slash == std::string::npos ? -1 : whole_number(text.substr(slash + 1));
  if (index < 1 || count < 1 || index > count || count > 1000000)
    throw InputError(written("shard", text, options.surface) +
                     ": expected I/N with 1 <= I <= N, or slurm");
  options.shard_index = static_cast<int>(index);
  options.shard_count = static_cast<int>(count);
}

// The runs of this shard that pass the filter, in campaign order.
std::vector<const CampaignRun*> select_runs(const Campaign& campaign,
                                            const CampaignOptions& options) {
  std::vector<const CampaignRun*> selected;
  const KeyFilter filter(options.filter, options.surface);
  std::size_t position = 0;
  for (const auto& run : campaign.runs) {
    if (!filter.matches(run.key)) continue;
    if (static_cast<int>(position++ % options.shard_count) == options.shard_index - 1)
      selected.push_back(&run);
  }
  return selected;
}

// The order the workers take the runs in (and the timing pass times them in): a fixed shuffle,
// sorted by a hash of the run key. Results and records do not depend on it; the progress ETA
// does: at any point the finished runs are a fair sample of those left (every problem, method
// and step size mixed), so their mean cost is an honest guess for the rest. (In campaign order
// the costliest problems come last; one step size of each kind in turn, the finest ones last.)
std::vector<const CampaignRun*> execution_order(const std::vector<const CampaignRun*>& runs) {
  auto mixed_hash = [](const std::string& key) {
    std::uint64_t h = 14695981039346656037ull;  // FNV-1a, then splitmix64's finalizer
    for (const unsigned char c : key) h = (h ^ c) * 1099511628211ull;
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
    return h ^ (h >> 31);
  };
  std::vector<std::pair<std::uint64_t, const CampaignRun*>> keyed;
  keyed.reserve(runs.size());
  for (const auto* run : runs) keyed.emplace_back(mixed_hash(run->key), run);
  std::sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : a.second->key < b.second->key;
  });
  std::vector<const CampaignRun*> ordered;
  ordered.reserve(runs.size());
  for (const auto& [hash, run] : keyed) ordered.push_back(run);
  return ordered;
}

bool is_expected_status(const std::string& status) { return status == "unsupported"; }

std::size_t CampaignSummary::not_ok() const {
  std::size_t count = 0;
  for (const auto& [status, n] : statuses)
    if (status != "ok") count += n;
  return count;
}

std::string summary_line(const CampaignSummary& summary) {
  std::ostringstream line;
  auto count = [&](const std::string& status) {
    const auto it = summary.statuses.find(status);
    return it == summary.statuses.end() ? std::size_t{0} : it->second;
  };
  line << summary.runs << " runs: " << count("ok") << " ok";
  std::size_t expected = 0, numerical = 0, crashed = count("crashed");
  std::vector<std::pair<std::size_t, std::string>> others;
  for (const auto& [status, n] : summary.statuses) {
    if (status == "ok" || status == "crashed") continue;
    if (is_expected_status(status)) {
      expected += n;
    } else {
      numerical += n;
      others.emplace_back(n, status);
    }
  }
  if (expected > 0) line << ", " << expected << " unsupported (expected)";
  if (numerical > 0) {
    std::sort(others.rbegin(), others.rend());
    line << ", " << numerical << " with a numerical status (";
    for (std::size_t i = 0; i < others.size(); ++i)
      line << (i ? ", " : "") << others[i].first << " " << others[i].second;
    line << ")";
  }
  if (crashed > 0) line << ", " << crashed << " crashed";
  if (!summary.results.empty()) line << "; results in " << summary.results.string();
  return line.str();
}

}  // namespace cmb
