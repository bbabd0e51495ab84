// Memory shortages, wherever they strike, under generated address-space limits (ulimit -v). In a
// run or a self-converged reference: the run ends out_of_memory and --resume runs it again. In
// the command's own process (--resume of a finished campaign, merge of its shards, compare of a
// committed result set): a message naming it and exit code 2, never SIGABRT (a clean-up that
// allocates, nlohmann::json's destructor, once called std::terminate when the allocation that
// failed left nothing), and the output whole or absent.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "alloc_counter.hpp"
#include "campaign_support.hpp"
#include "cli_runner.hpp"

namespace {

namespace fs = std::filesystem;
using cmb::test::AllocationCounter;
using cmb::test::CliResult;
using nlohmann::json;

// The smallest address-space limit (KiB, to 256 KiB) under which `cmbench --version` starts:
// below it the loader or the runtime's own start fails before cmbench runs.
long smallest_starting_limit(const std::string& dir) {
  long fails = 1 << 12, starts = 1 << 20;
  if (cmb::test::cli_memory_limited(dir, starts, "--version").exit_code != 0) return -1;
  while (starts - fails > 256) {
    const long middle = (fails + starts) / 2;
    (cmb::test::cli_memory_limited(dir, middle, "--version").exit_code == 0 ? starts : fails) =
        middle;
  }
  return starts;
}

// Files a writer left half-done (its temporary names), anywhere under `dir`.
int temporary_files(const fs::path& dir) {
  int count = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    count += entry.path().filename().string().rfind(".cmb-", 0) == 0;
  return count;
}

// What a command under a limit may do: succeed, or say that memory ran short (exit 2).
void expect_success_or_shortage(const CliResult& r, const std::string& what) {
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 2) << what << ": exit " << r.exit_code << "\n"
                                                    << r.output;
  if (r.exit_code == 2) {
    EXPECT_NE(r.output.find("not enough memory"), std::string::npos) << what << ": " << r.output;
  }
  EXPECT_EQ(r.output.find("internal error"), std::string::npos) << what << ": " << r.output;
  EXPECT_EQ(r.output.find("terminate"), std::string::npos) << what << ": " << r.output;
}

fs::path newest_committed_default_set() {
  fs::path newest;
  for (const auto& entry : fs::directory_iterator(fs::path(CMB_SOURCE_DIR) / "results/default"))
    if (fs::exists(entry.path() / "results.json") && entry.path() > newest) newest = entry.path();
  return newest;
}

TEST(MemoryShortage, ResumeMergeAndCompareEndWithAMessageUnderAnyLimit) {
  if (!AllocationCounter::available())
    GTEST_SKIP() << "sanitizers reserve more address space than the limits leave";
  const fs::path dir = cmb::test::scratch("memory_shortage");
  const json campaign = {
      {"name", "memory_shortage"},
      {"repeat", 0},
      {"problems", {{{"id", "simple_pendulum"}, {"t_end", 0.36}}}},
      {"methods", {{{"id", "index1"}}, {{"id", "baumgarte"}}, {{"id", "projection"}}}},
      {"steppers", {{{"id", "rk4"}, {"dt", {0.01, 0.009, 0.006, 0.004, 0.003, 0.002}}}}}};
  const std::string file = cmb::test::write_campaign(dir, campaign).string();
  for (const char* shard : {"1", "2"})
    ASSERT_EQ(cmb::test::cli("campaign " + file + " --jobs 2 --shard " + shard + "/2 --out " +
                             (dir / ("s" + std::string(shard))).string())
                  .exit_code,
              0);
  const auto shard_one = cmb::test::comparable(dir / "s1" / "results.json");
  ASSERT_EQ(cmb::test::cli_in(dir.string(), "merge s1 s2 --out merged").exit_code, 0);
  const auto merged = cmb::test::comparable(dir / "merged" / "results.json");
  const fs::path committed = newest_committed_default_set();
  ASSERT_FALSE(committed.empty()) << "no committed default result set";

  const long start = smallest_starting_limit(dir.string());
  ASSERT_GT(start, 0) << "cmbench does not start even with 1 GiB of address space";
  std::mt19937 random(48);
  std::uniform_int_distribution<long> extra(0, 64 << 10);
  int shortages = 0;
  for (int trial = 0; trial < 12; ++trial) {
    const long kib = start + extra(random);
    const std::string at = std::to_string(kib) + " KiB";

    const CliResult resumed = cmb::test::cli_memory_limited(
        dir.string(), kib, "campaign " + file + " --shard 1/2 --resume --out s1");
    expect_success_or_shortage(resumed, "--resume at " + at);
    EXPECT_EQ(cmb::test::comparable(dir / "s1" / "results.json"), shard_one) << at;

    const std::string out = "merged-" + std::to_string(trial);
    const CliResult merge =
        cmb::test::cli_memory_limited(dir.string(), kib, "merge s1 s2 --out " + out);
    expect_success_or_shortage(merge, "merge at " + at);
    if (fs::exists(dir / out / "results.json")) {
      EXPECT_EQ(cmb::test::comparable(dir / out / "results.json"), merged) << at;
    } else {
      EXPECT_NE(merge.exit_code, 0) << at;
    }

    const CliResult compare = cmb::test::cli_memory_limited(
        dir.string(), kib, "compare " + committed.string() + " " + committed.string());
    expect_success_or_shortage(compare, "compare at " + at);
    shortages += (resumed.exit_code == 2) + (merge.exit_code == 2) + (compare.exit_code == 2);
  }
  EXPECT_EQ(temporary_files(dir), 0);
  EXPECT_GT(shortages, 0) << "the limits never reached the commands";
  fs::remove_all(dir);
}

// --- memory limits on the runs and their references (in workers, and the reference pass) -------

using namespace cmb::test;  // scratch, write_campaign, comparable, cli

// Runs the campaign `file` into `out` under `kib` KiB of address space, then resumes it without
// the limit, which must complete the set as an undisturbed run (`reference`) does. Returns the
// statuses the limited run recorded.
std::vector<std::string> statuses_under_limit_then_resumed(
    const fs::path& file, const fs::path& out, long kib,
    const std::map<std::string, json>& reference) {
  const std::string campaign = "campaign " + file.string() + " --jobs 1 --out " + out.string();
  cli_memory_limited(file.parent_path().string(), kib, campaign);
  std::vector<std::string> statuses;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(out / "runs", ec)) {
    std::ifstream in(entry.path());
    statuses.push_back(json::parse(in)["status"]);
  }
  const CliResult resumed = cli(campaign + " --resume");
  EXPECT_EQ(resumed.exit_code, 0) << kib << " KiB: " << resumed.output;
  EXPECT_EQ(comparable(out / "results.json"), reference) << kib << " KiB";
  return statuses;
}

// Generated memory limits (ulimit -v, 12 to 32 MiB of address space) on a campaign whose runs
// need about 25 MiB: a run whose allocation fails ends out_of_memory (never crashed), and --resume
// without the limit runs those again: the set equals an undisturbed run's.
TEST(Campaign, AMemoryLimitEndsRunsOutOfMemoryAndResumeRunsThemAgain) {
  if (!AllocationCounter::available())
    GTEST_SKIP() << "sanitizers reserve more address space than the limits leave";
  const fs::path dir = scratch("memory_limit");
  const json campaign = {
      {"name", "memory"},
      {"repeat", 0},
      {"problems",
       {{{"id", "n_pendulum"}, {"params", {{"N", 30}}}, {"t_end", 1}, {"sample_dt", 1e-4}}}},
      {"methods", {{{"id", "index1"}}}},
      {"steppers", {{{"id", "rk4"}, {"dt", {1e-4, 2e-4}}}}}};
  const fs::path file = write_campaign(dir, campaign);
  ASSERT_EQ(
      cli("campaign " + file.string() + " --jobs 2 --out " + (dir / "full").string()).exit_code, 0);
  const auto reference = comparable(dir / "full" / "results.json");
  std::mt19937 random(4);
  int out_of_memory = 0;
  for (int trial = 0; trial < 5; ++trial) {
    const int kib = 12000 + static_cast<int>(random() % 20000);
    const fs::path out = dir / ("limited-" + std::to_string(trial));
    for (const std::string& status : statuses_under_limit_then_resumed(file, out, kib, reference)) {
      EXPECT_NE(status, "crashed") << kib << " KiB";
      out_of_memory += status == "out_of_memory";
    }
  }
  EXPECT_GT(out_of_memory, 0);  // the limits reach the runs
  fs::remove_all(dir);
}

// The same for a self-converged reference (computed by the campaign's reference pass, in the
// parent): one that ran out of memory under a generated limit ends its runs out_of_memory, not
// reference_failed (which --resume keeps for good), and --resume without the limit computes it.
TEST(Campaign, AReferenceThatRanOutOfMemoryIsComputedByResume) {
  if (!AllocationCounter::available())
    GTEST_SKIP() << "sanitizers reserve more address space than the limits leave";
  const fs::path dir = scratch("reference_memory");
  const json campaign = {
      {"name", "reference_memory"},
      {"repeat", 0},
      {"reference", "self_converged"},
      {"problems", {{{"id", "n_pendulum"}, {"params", {{"N", 20}}}, {"t_end", 2}}}},
      {"methods", {{{"id", "index1"}}}},
      {"steppers", {{{"id", "rk4"}, {"dt", {1e-3}}}}}};
  const fs::path file = write_campaign(dir, campaign);
  ASSERT_EQ(cli("campaign " + file.string() + " --jobs 1 --out " + (dir / "full" / "out").string())
                .exit_code,
            0);
  const auto reference = comparable(dir / "full" / "out" / "results.json");
  std::mt19937 random(48);
  int out_of_memory = 0;
  for (int trial = 0; trial < 5; ++trial) {
    const int kib = 20000 + static_cast<int>(random() % 30000);
    const fs::path out = dir / ("limited-" + std::to_string(trial)) / "out";  // its own cache
    for (const std::string& status : statuses_under_limit_then_resumed(file, out, kib, reference)) {
      EXPECT_TRUE(status == "ok" || status == "out_of_memory") << kib << " KiB: " << status;
      out_of_memory += status == "out_of_memory";
    }
  }
  EXPECT_GT(out_of_memory, 0);  // the limits reach the reference
  fs::remove_all(dir);
}

}  // namespace
