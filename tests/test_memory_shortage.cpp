// A memory shortage in the command's own process (not a run's worker) ends with a message naming
// it and exit code 2, never SIGABRT: a clean-up that allocates (nlohmann::json's destructor) once
// called std::terminate when the allocation that failed left nothing. Generated address-space
// limits (ulimit -v) between what cmbench needs to start and that plus 64 MiB, on --resume of a
// finished campaign, merge of its shards and compare of a committed result set; each command
// either succeeds or fails this way, and leaves its output whole or absent.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

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

}  // namespace
