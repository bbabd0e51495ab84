// Campaigns split over a cluster: a Slurm array task finds its shard whatever the array's first id
// and step, the default number of workers follows the CPUs the process may use, merging shards
// gives a complete result set (or names the shards that are missing), and the shards of a
// campaign share one reference cache that concurrent runs neither recompute nor corrupt.
// (A real Slurm is exercised by tests/slurm/test_local_cluster.sh.)
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <random>

#include "campaign_support.hpp"
#include "cli_runner.hpp"
#include "harness/campaign/campaign.hpp"

namespace cmb::test {
namespace {

// Sets the given environment variables for the life of the object, unsetting the Slurm ones the
// test does not name.
class SlurmEnvironment {
 public:
  explicit SlurmEnvironment(const std::map<std::string, std::string>& values) {
    for (const char* name : kNames) {
      if (const char* old = std::getenv(name)) saved_[name] = old;
      ::unsetenv(name);
    }
    for (const auto& [name, value] : values) ::setenv(name.c_str(), value.c_str(), 1);
  }
  ~SlurmEnvironment() {
    for (const char* name : kNames) ::unsetenv(name);
    for (const auto& [name, value] : saved_) ::setenv(name.c_str(), value.c_str(), 1);
  }

 private:
  static constexpr const char* kNames[] = {
      "SLURM_ARRAY_TASK_ID",   "SLURM_ARRAY_TASK_MIN",   "SLURM_ARRAY_TASK_MAX",
      "SLURM_ARRAY_TASK_STEP", "SLURM_ARRAY_TASK_COUNT", "CMB_SHARD_COUNT",
      "CMB_SHARD_BASE",        "CMB_SHARD_STEP",         "SLURM_CPUS_PER_TASK"};
  std::map<std::string, std::string> saved_;
};

std::pair<int, int> slurm_shard(const std::map<std::string, std::string>& env) {
  const SlurmEnvironment scope(env);
  CampaignOptions options;
  set_shard(options, "slurm");
  return {options.shard_index, options.shard_count};
}

TEST(Cluster, ASlurmArrayTaskFindsItsShardWhateverTheArraysIdsAre) {
  using Env = std::map<std::string, std::string>;
  // --array=0-3: task 2 is the third of four.
  EXPECT_EQ(slurm_shard(Env{{"SLURM_ARRAY_TASK_ID", "2"},
                            {"SLURM_ARRAY_TASK_MIN", "0"},
                            {"SLURM_ARRAY_TASK_COUNT", "4"}}),
            std::make_pair(3, 4));
  // --array=1-4: task 1 is the first.
  EXPECT_EQ(slurm_shard(Env{{"SLURM_ARRAY_TASK_ID", "1"},
                            {"SLURM_ARRAY_TASK_MIN", "1"},
                            {"SLURM_ARRAY_TASK_COUNT", "4"}}),
            std::make_pair(1, 4));
  // --array=10-16:2 (ids 10, 12, 14, 16): task 14 is the third.
  EXPECT_EQ(slurm_shard(Env{{"SLURM_ARRAY_TASK_ID", "14"},
                            {"SLURM_ARRAY_TASK_MIN", "10"},
                            {"SLURM_ARRAY_TASK_STEP", "2"},
                            {"SLURM_ARRAY_TASK_COUNT", "4"}}),
            std::make_pair(3, 4));
  // A resubmission of id 2 alone (--array=2) keeps its place in the whole array of four.
  EXPECT_EQ(slurm_shard(Env{{"SLURM_ARRAY_TASK_ID", "2"},
                            {"SLURM_ARRAY_TASK_MIN", "2"},
                            {"SLURM_ARRAY_TASK_COUNT", "1"},
                            {"CMB_SHARD_COUNT", "4"},
                            {"CMB_SHARD_BASE", "0"}}),
            std::make_pair(3, 4));
  // Not an id of the array, or no array at all: an input error, not a silent wrong shard.
  EXPECT_THROW(slurm_shard(Env{{"SLURM_ARRAY_TASK_ID", "13"},
                               {"SLURM_ARRAY_TASK_MIN", "10"},
                               {"SLURM_ARRAY_TASK_STEP", "2"},
                               {"SLURM_ARRAY_TASK_COUNT", "4"}}),
               InputError);
  EXPECT_THROW(slurm_shard(Env{}), InputError);
}

// default_jobs() in a child process whose CPUs are limited as `limit` says; its exit code.
int jobs_in_child(bool pin_to_cpu0, const char* cpus_per_task) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (pin_to_cpu0) {
      cpu_set_t set;
      CPU_ZERO(&set);
      CPU_SET(0, &set);
      if (::sched_setaffinity(0, sizeof set, &set) != 0) _exit(100);
    }
    if (cpus_per_task) ::setenv("SLURM_CPUS_PER_TASK", cpus_per_task, 1);
    _exit(default_jobs());
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(Cluster, TheDefaultWorkerCountIsWhatTheProcessMayUse) {
  const SlurmEnvironment scope({});
  cpu_set_t set;
  ASSERT_EQ(::sched_getaffinity(0, sizeof set, &set), 0);
  EXPECT_EQ(jobs_in_child(false, nullptr), CPU_COUNT(&set));
  EXPECT_EQ(jobs_in_child(true, nullptr), 1);  // taskset -c 0
  EXPECT_EQ(jobs_in_child(false, "1"), 1);     // SLURM_CPUS_PER_TASK=1
  EXPECT_EQ(jobs_in_child(false, "64"), CPU_COUNT(&set));
}

json read_json(const fs::path& file) {
  std::ifstream in(file);
  return json::parse(in);
}

// Merging the three shards of a campaign gives the whole campaign's result set: results, and
// every run's record and series copied, so figures can be drawn from the merged directory alone.
TEST(Cluster, AMergeOfAllShardsIsACompleteResultSet) {
  const fs::path dir = scratch("cluster_merge");
  const fs::path file = write_campaign(dir, campaign_of(1.0, 1e-3));
  ASSERT_EQ(
      cli("campaign " + file.string() + " --jobs 2 --out " + (dir / "whole").string()).exit_code,
      0);
  const std::string shards = run_shards(file, dir, 3, 1);
  ASSERT_FALSE(shards.empty());
  const CliResult partial =
      cli("merge" + shards.substr(0, shards.rfind(' ')) + " --out " + (dir / "partial").string());
  EXPECT_EQ(partial.exit_code, 2);
  EXPECT_NE(partial.output.find("shard(s) 3 of 3 missing"), std::string::npos) << partial.output;
  ASSERT_EQ(cli("merge" + shards + " --out " + (dir / "merged").string()).exit_code, 0);
  EXPECT_EQ(comparable(dir / "merged" / "results.json"),
            comparable(dir / "whole" / "results.json"));
  const json merged = read_json(dir / "merged" / "results.json");
  for (const auto& run : merged["runs"]) {
    for (const char* kind : {"record", "series"}) {
      const fs::path copy = dir / "merged" / run["files"][kind].get<std::string>();
      const fs::path original = dir / "whole" / run["files"][kind].get<std::string>();
      ASSERT_TRUE(fs::exists(copy)) << copy;
      if (std::string(kind) == "series") {  // the same samples as the unsharded run's
        std::ifstream a(copy), b(original);
        std::string line_a, line_b;
        std::getline(a, line_a);
        std::getline(b, line_b);
        EXPECT_EQ(line_a, line_b) << copy;
      }
    }
  }
  // --allow-partial merges two of the three and says which one is missing.
  ASSERT_EQ(cli("merge" + shards.substr(0, shards.rfind(' ')) + " --allow-partial --out " +
                (dir / "partial").string())
                .exit_code,
            0);
  EXPECT_EQ(read_json(dir / "partial" / "results.json")["missing_shards"], json({3}));
  fs::remove_all(dir);
}

// `cmbench merge` under generated file-size limits (ulimit -f, 1 to 96 KiB): it succeeds with the
// whole merge, or fails leaving an unfinished merge that a plain retry refuses by name and a
// retry with --force completes, equal to an undisturbed merge. And --campaign refuses a shard
// of another campaign file (a stale shard), even with --force.
TEST(Cluster, AMergeStoppedByAFileSizeLimitIsCompletedByARetry) {
  const fs::path dir = scratch("cluster_merge_faults");
  const fs::path file = write_campaign(dir, campaign_of(1.0, 1e-3));
  const std::string shards = run_shards(file, dir, 2, 2);
  ASSERT_FALSE(shards.empty());
  ASSERT_EQ(cli("merge" + shards + " --out " + (dir / "clean").string()).exit_code, 0);
  const auto clean = comparable(dir / "clean" / "results.json");
  std::mt19937 random(2027);
  int stopped = 0;
  for (int trial = 0; trial < 8; ++trial) {
    const int kib = 1 + static_cast<int>(random() % 96);
    const fs::path out = dir / ("limited-" + std::to_string(trial));
    const std::string merge = "merge" + shards + " --out " + out.string();
    const int status = std::system(("bash -c 'ulimit -f " + std::to_string(kib) + "; exec " +
                                    std::string(CMB_CLI_PATH) + " " + merge + "' >/dev/null 2>&1")
                                       .c_str());
    if (status != 0) {
      ++stopped;
      // What the stopped merge left is no set to read: refused by name, never read half new.
      if (fs::exists(out / "results.db")) {
        const CliResult read = cli("compare " + (dir / "clean").string() + " " + out.string());
        EXPECT_EQ(read.exit_code, 2) << kib << " KiB: " << read.output;
      }
      const CliResult plain = cli(merge);
      EXPECT_EQ(plain.exit_code, 2) << kib << " KiB: " << plain.output;
      EXPECT_NE(plain.output.find("an unfinished merge"), std::string::npos) << plain.output;
      ASSERT_EQ(cli(merge + " --force").exit_code, 0) << kib << " KiB";
    }
    EXPECT_EQ(comparable(out / "results.json"), clean) << kib << " KiB";
    EXPECT_FALSE(fs::exists(out / ".cmbench-merging")) << kib << " KiB";
  }
  EXPECT_GT(stopped, 2);  // the limits reach both outcomes

  json edited = campaign_of(1.0, 1e-3);
  edited["repeat"] = 1;
  const fs::path other = dir / "other";
  fs::create_directories(other);
  const fs::path edited_file = write_campaign(other, edited);
  for (const char* force : {"", " --force"}) {
    const CliResult stale = cli("merge" + shards + " --campaign " + edited_file.string() +
                                " --out " + (dir / "stale").string() + force);
    EXPECT_EQ(stale.exit_code, 2) << stale.output;
    EXPECT_NE(stale.output.find("holds the results of another campaign than --campaign"),
              std::string::npos)
        << stale.output;
    EXPECT_NE(stale.output.find("(differs in: repeat)"), std::string::npos) << stale.output;
    EXPECT_FALSE(fs::exists(dir / "stale"));
  }
  EXPECT_EQ(
      cli("merge" + shards + " --campaign " + file.string() + " --out " + (dir / "fresh").string())
          .exit_code,
      0);
  fs::remove_all(dir);
}

// How many records computed their self-converged reference (the others read it from the cache).
int computed_references(const fs::path& results) {
  int computed = 0;
  const json doc = read_json(results);  // kept: a temporary's ["runs"] would dangle in the loop
  for (const auto& run : doc["runs"])
    if (run["reference"].value("from_cache", true) == false) ++computed;
  return computed;
}

int lines_with(const fs::path& file, const std::string& text) {
  std::ifstream in(file);
  int count = 0;
  for (std::string line; std::getline(in, line);) count += line.find(text) != std::string::npos;
  return count;
}

json reference_campaign() {
  // Two runs per shard need the same self-converged reference (crank_rocker over 30 s: long
  // enough, about a second, that two shards starting together meet while it is computed).
  return {{"name", "references"},
          {"repeat", 0},
          {"reference", "self_converged"},
          {"problems", {{{"id", "crank_rocker"}, {"t_end", 30.0}}}},
          {"methods", {{{"id", "index1"}}, {{"id", "baumgarte"}}}},
          {"steppers", {{{"id", "dopri5"}, {"tol", {1e-6, 1e-8}}}}}};
}

// Two shards started at the same moment need the same reference: one computes it, the other
// waits for it and reads it; the cache file is whole. With --prepare-references first, neither
// shard computes it.
TEST(Cluster, ShardsShareTheirReferenceCacheWithoutRecomputingOrCorruptingIt) {
  const fs::path dir = scratch("cluster_references");
  const fs::path file = write_campaign(dir, reference_campaign());
  const std::string cache = (dir / "cache").string();
  auto start_shard = [&](int i, const std::string& out) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      const std::string shard = std::to_string(i) + "/2";
      const int log =
          ::open((out + ".log").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      if (log < 0 || ::dup2(log, STDOUT_FILENO) < 0) _exit(126);
      ::close(log);
      ::execl(CMB_CLI_PATH, CMB_CLI_PATH, "campaign", file.c_str(), "--jobs", "2", "--shard",
              shard.c_str(), "--reference-cache", cache.c_str(), "--out", out.c_str(),
              static_cast<char*>(nullptr));
      _exit(127);
    }
    return pid;
  };
  const pid_t a = start_shard(1, (dir / "a1").string()), b = start_shard(2, (dir / "a2").string());
  int status_a = 0, status_b = 0;
  ::waitpid(a, &status_a, 0);
  ::waitpid(b, &status_b, 0);
  ASSERT_TRUE(WIFEXITED(status_a) && WEXITSTATUS(status_a) == 0);
  ASSERT_TRUE(WIFEXITED(status_b) && WEXITSTATUS(status_b) == 0);
  // Each shard's reference pass says whether it computed the reference or found it cached.
  EXPECT_EQ(lines_with(dir / "a1.log", "computed in") + lines_with(dir / "a2.log", "computed in"),
            1);
  EXPECT_EQ(lines_with(dir / "a1.log", "already in") + lines_with(dir / "a2.log", "already in"), 1);
  int references = 0;
  for (const auto& entry : fs::directory_iterator(cache))
    if (entry.path().extension() == ".json") {
      ++references;
      EXPECT_NO_THROW(read_json(entry.path())["outputs"].at(100)) << entry.path();
    }
  EXPECT_EQ(references, 1);

  // Prepared before the shards start: they only read it.
  const std::string fresh = (dir / "prepared").string();
  const CliResult prepared =
      cli("campaign " + file.string() + " --prepare-references " + "--reference-cache " + fresh);
  ASSERT_EQ(prepared.exit_code, 0) << prepared.output;
  EXPECT_NE(prepared.output.find("1 computed now"), std::string::npos) << prepared.output;
  for (int i = 1; i <= 2; ++i) {
    const fs::path out = dir / ("b" + std::to_string(i));
    ASSERT_EQ(cli("campaign " + file.string() + " --shard " + std::to_string(i) +
                  "/2 --reference-cache " + fresh + " --out " + out.string())
                  .exit_code,
              0);
    EXPECT_EQ(computed_references(out / "results.json"), 0);
  }
  fs::remove_all(dir);
}

// Without --reference-cache, a campaign keeps its references beside its output directory, so the
// shards of an array (out/shard-I) share out/references whatever the working directory.
TEST(Cluster, TheDefaultReferenceCacheIsBesideTheOutputDirectory) {
  const fs::path dir = scratch("cluster_default_cache");
  const fs::path file = write_campaign(dir, reference_campaign());
  ASSERT_EQ(cli("campaign " + file.string() + " --filter 'index1/dopri5/tol=1e-06' --out " +
                (dir / "out" / "shard-0").string())
                .exit_code,
            0);
  int references = 0;
  for (const auto& entry : fs::directory_iterator(dir / "out" / "references"))
    references += entry.path().extension() == ".json";
  EXPECT_EQ(references, 1);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cmb::test
