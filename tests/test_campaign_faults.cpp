// Campaigns under hostile conditions, through the command line: SIGKILL and SIGTERM mid-run,
// damaged records, a directory holding another campaign, a full disk, a file-size limit and a
// memory limit — each stops cleanly or records what it could, and --resume completes an
// identical set. The workers' own fate (a time
// limit, a dead parent): test_campaign_workers.cpp.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <thread>

#include "alloc_counter.hpp"
#include "campaign_support.hpp"
#include "cli_runner.hpp"
#include "store_support.hpp"

namespace {

using cmb::test::cli;
using cmb::test::CliResult;
using namespace cmb::test;

TEST(Campaign, ResumesAfterSigkillWithEveryRunOnceAndIdenticalMetrics) {
  const fs::path dir = scratch("resume");
  const fs::path file = write_campaign(dir, campaign_of(20.0, 2e-4));
  ASSERT_EQ(
      cli("campaign " + file.string() + " --jobs 1 --out " + (dir / "full").string()).exit_code, 0);
  const auto reference = comparable(dir / "full" / "results.json");

  const pid_t pid = fork();
  if (pid == 0) {
    const std::string out = (dir / "killed").string();
    execl(CMB_CLI_PATH, CMB_CLI_PATH, "campaign", file.c_str(), "--jobs", "1", "--out", out.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  // Kill once a few runs are done but before the last.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  std::size_t done = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    done = 0;
    if (fs::exists(dir / "killed" / "runs"))
      for (const auto& entry : fs::directory_iterator(dir / "killed" / "runs"))
        done += entry.path().extension() == ".json";
    if (done >= 3) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  ASSERT_GE(done, 3u);
  ASSERT_LT(done, reference.size()) << "campaign finished before it could be killed";
  EXPECT_FALSE(fs::exists(dir / "killed" / "results.json"));

  const CliResult resumed =
      cli("campaign " + file.string() + " --jobs 2 --resume --out " + (dir / "killed").string());
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  const auto after = comparable(dir / "killed" / "results.json");
  EXPECT_EQ(after, reference);
  fs::remove_all(dir);
}

// SIGTERM (the signal of kill, timeout and batch schedulers) stops a campaign as SIGINT does: its
// workers are stopped with it, nothing keeps writing, and --resume completes the set.
TEST(Campaign, SigtermStopsTheWorkersAndResumeCompletesTheCampaign) {
  const fs::path dir = scratch("sigterm");
  const fs::path file = write_campaign(dir, campaign_of(20.0, 2e-4));
  ASSERT_EQ(
      cli("campaign " + file.string() + " --jobs 2 --out " + (dir / "full").string()).exit_code, 0);
  const auto reference = comparable(dir / "full" / "results.json");

  const std::string out = (dir / "stopped").string();
  const pid_t pid = fork();
  if (pid == 0) {
    execl(CMB_CLI_PATH, CMB_CLI_PATH, "campaign", file.c_str(), "--jobs", "2", "--out", out.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  std::size_t done = 0;
  while (std::chrono::steady_clock::now() < deadline && done < 2) {
    done = 0;
    if (fs::exists(dir / "stopped" / "runs"))
      for (const auto& entry : fs::directory_iterator(dir / "stopped" / "runs"))
        done += entry.path().extension() == ".json";
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_GE(done, 2u);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << status;
  EXPECT_EQ(processes_mentioning(out), 0) << "workers outlived the campaign";
  EXPECT_FALSE(fs::exists(dir / "stopped" / "results.json"));

  const CliResult resumed = cli("campaign " + file.string() + " --jobs 2 --resume --out " + out);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_EQ(comparable(dir / "stopped" / "results.json"), reference);
  fs::remove_all(dir);
}

// --resume trusts no stored row for its key: a truncated record and a record (with its digest)
// copied over another run's row are both redone, and said so, so every run appears once with
// its own metrics.
TEST(Campaign, ResumeRedoesTruncatedAndSwappedStoredRecords) {
  const fs::path dir = scratch("records");
  const fs::path file = write_campaign(dir, campaign_of(2.0, 1e-3));
  ASSERT_EQ(
      cli("campaign " + file.string() + " --jobs 2 --out " + (dir / "full").string()).exit_code, 0);
  const auto reference = comparable(dir / "full" / "results.json");

  fs::copy(dir / "full", dir / "damaged", fs::copy_options::recursive);
  const fs::path db = dir / "damaged" / "results.db";
  execute_sql(db,
              "UPDATE runs SET record = substr(record, 1, length(record) / 2) WHERE rowid = 1;"
              "UPDATE runs SET (record, record_digest) = (SELECT record, record_digest FROM runs "
              "WHERE rowid = 2) WHERE rowid = 3;");
  const CliResult resumed =
      cli("campaign " + file.string() + " --jobs 2 --resume --out " + (dir / "damaged").string());
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("its record does not match its digest"), std::string::npos)
      << resumed.output;
  EXPECT_NE(resumed.output.find("its record holds another key"), std::string::npos)
      << resumed.output;
  EXPECT_NE(resumed.output.find("2 record(s) redone"), std::string::npos) << resumed.output;
  EXPECT_EQ(comparable(dir / "damaged" / "results.json"), reference);
  fs::remove_all(dir);
}

// A store removed from a finished set (or never written, by an earlier cmbench) holds nothing
// committed: --resume runs every run again and gives the undisturbed set, its exported files
// rewritten, not trusted.
TEST(Campaign, ResumeWithoutTheStoreRunsEverythingAgain) {
  const fs::path dir = scratch("no_store");
  const fs::path file = write_campaign(dir, campaign_of(2.0, 1e-3));
  ASSERT_EQ(
      cli("campaign " + file.string() + " --jobs 2 --out " + (dir / "full").string()).exit_code, 0);
  const auto reference = comparable(dir / "full" / "results.json");
  fs::copy(dir / "full", dir / "lost", fs::copy_options::recursive);
  fs::remove(dir / "lost" / "results.db");
  const CliResult resumed =
      cli("campaign " + file.string() + " --jobs 2 --resume --out " + (dir / "lost").string());
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find(std::to_string(reference.size()) + " run(s) to do"),
            std::string::npos)
      << resumed.output;
  EXPECT_EQ(comparable(dir / "lost" / "results.json"), reference);
  EXPECT_EQ(cli("compare " + (dir / "full").string() + " " + (dir / "lost").string()).exit_code, 0);
  fs::remove_all(dir);
}

// A results directory holds one campaign: another campaign is not written into it, and --resume
// with a changed file (other settings than its records were made with) is refused, naming what
// differs, unless forced.
TEST(Campaign, ADirectoryHoldingACampaignRefusesOtherSettings) {
  const fs::path dir = scratch("other");
  json campaign = campaign_of(2.0, 1e-3);
  const fs::path file = write_campaign(dir, campaign);
  const std::string out = " --out " + (dir / "r").string();
  ASSERT_EQ(cli("campaign " + file.string() + " --jobs 2" + out).exit_code, 0);
  const std::string before = [&] {
    std::ifstream in(dir / "r" / "results.json");
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }();

  campaign["name"] = "renamed";
  campaign["repeat"] = 1;
  write_campaign(dir, campaign);
  const CliResult fresh = cli("campaign " + file.string() + out);
  EXPECT_EQ(fresh.exit_code, 2) << fresh.output;
  EXPECT_NE(fresh.output.find("already holds a campaign's results"), std::string::npos)
      << fresh.output;
  const CliResult resumed = cli("campaign " + file.string() + " --resume" + out);
  EXPECT_EQ(resumed.exit_code, 2) << resumed.output;
  EXPECT_NE(resumed.output.find("differs in: name, repeat"), std::string::npos) << resumed.output;
  std::ifstream in(dir / "r" / "results.json");
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()),
            before);

  const CliResult forced = cli("campaign " + file.string() + " --resume --force" + out);
  EXPECT_EQ(forced.exit_code, 0) << forced.output;
  fs::remove_all(dir);
}

// A full disk mid-campaign (a 64 KiB tmpfs: a few runs fit, then ENOSPC) stops the campaign
// like the file-size limit above; once space is freed (the tmpfs grown), --resume completes a
// set equal to an undisturbed run. Needs root for mount: skipped elsewhere.
TEST(Campaign, DiskFullStopsTheCampaignAndResumeCompletesIt) {
  const fs::path dir = scratch("diskfull");
  const fs::path mnt = dir / "small";
  fs::create_directories(mnt);
  if (std::system(("mount -t tmpfs -o size=64k tmpfs " + mnt.string() + " 2>/dev/null").c_str()) !=
      0)
    GTEST_SKIP() << "cannot mount a tmpfs here (not root?)";
  const fs::path file = write_campaign(dir, campaign_of(2.0, 1e-3));
  ASSERT_EQ(
      cli("campaign " + file.string() + " --jobs 2 --out " + (dir / "full").string()).exit_code, 0);
  const auto reference = comparable(dir / "full" / "results.json");

  const std::string out = (mnt / "r").string();
  const CliResult full = cli("campaign " + file.string() + " --jobs 2 --out " + out);
  EXPECT_EQ(full.exit_code, 2) << full.output;
  EXPECT_NE(full.output.find("No space left on device"), std::string::npos) << full.output;
  EXPECT_FALSE(fs::exists(mnt / "r" / "results.json"));
  std::size_t temporaries = 0, records = 0;
  for (const auto& entry : fs::recursive_directory_iterator(mnt / "r")) {
    temporaries += entry.path().filename().string().rfind(".cmb-", 0) == 0;
    if (entry.path().parent_path().filename() == "runs") {
      ++records;
      std::ifstream in(entry.path());
      EXPECT_EQ(json::parse(in)["status"], "ok") << entry.path();
    }
  }
  EXPECT_EQ(temporaries, 0u);
  EXPECT_LT(records, reference.size());

  ASSERT_EQ(std::system(("mount -o remount,size=8m " + mnt.string()).c_str()), 0);
  const CliResult resumed = cli("campaign " + file.string() + " --jobs 2 --resume --out " + out);
  EXPECT_EQ(resumed.exit_code, 0) << resumed.output;
  if (resumed.exit_code == 0) {
    EXPECT_EQ(comparable(mnt / "r" / "results.json"), reference);
  }
  std::system(("umount " + mnt.string()).c_str());
  fs::remove_all(dir);
}

}  // namespace

namespace {

// A file-size limit (ulimit -f) hit mid-campaign is an output failure, never a run status: the
// campaign stops with the path and the system's reason, exit 2, leaves no temporary files and no
// record of the run that could not be written; --resume then completes it, every run once and
// equal to an undisturbed run.
TEST(Campaign, FileSizeLimitStopsTheCampaignAndResumeCompletesIt) {
  const fs::path dir = scratch("fsize");
  const fs::path file = write_campaign(dir, campaign_of(2.0, 1e-3));
  ASSERT_EQ(
      cli("campaign " + file.string() + " --jobs 2 --out " + (dir / "full").string()).exit_code, 0);
  const auto reference = comparable(dir / "full" / "results.json");

  // 48 KiB: the store's tables and a run or two (record and series, ~25 KB) fit, the rest not.
  const std::string limited = "bash -c 'ulimit -f 48; exec " + std::string(CMB_CLI_PATH) +
                              " campaign " + file.string() + " --jobs 2 --out " +
                              (dir / "limited").string() + "' 2>&1";
  FILE* pipe = popen(limited.c_str(), "r");
  std::string output;
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, pipe)) output += buffer;
  const int status = pclose(pipe);
  ASSERT_TRUE(WIFEXITED(status)) << output;
  EXPECT_EQ(WEXITSTATUS(status), 2) << output;
  EXPECT_NE(output.find("File too large"), std::string::npos) << output;
  EXPECT_NE(output.find("--resume"), std::string::npos) << output;
  EXPECT_FALSE(fs::exists(dir / "limited" / "results.json"));
  std::size_t temporaries = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir / "limited"))
    temporaries += entry.path().filename().string().rfind(".cmb-", 0) == 0;
  EXPECT_EQ(temporaries, 0u);
  for (const auto& entry : fs::directory_iterator(dir / "limited" / "runs")) {
    std::ifstream in(entry.path());
    EXPECT_NE(json::parse(in)["status"], "diverged") << entry.path();
  }

  const CliResult resumed =
      cli("campaign " + file.string() + " --jobs 2 --resume --out " + (dir / "limited").string());
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_EQ(comparable(dir / "limited" / "results.json"), reference);
  fs::remove_all(dir);
}

}  // namespace
