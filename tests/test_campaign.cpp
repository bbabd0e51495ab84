// Campaigns through the command line: validation with JSON paths, parallel runs, resume after a
// SIGKILL, shards, and identical metrics whichever way the runs were scheduled.
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
#include <sstream>
#include <thread>

#include "cli_runner.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using cmb::test::cli;
using cmb::test::CliResult;

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("cmb_campaign_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

fs::path write_campaign(const fs::path& dir, const json& campaign) {
  const fs::path file = dir / "campaign.json";
  std::ofstream(file) << campaign.dump(2);
  return file;
}

// Key → the parts of a record that must not depend on scheduling (timings and dates excluded).
std::map<std::string, json> comparable(const fs::path& results) {
  std::ifstream in(results);
  const json doc = json::parse(in);
  std::map<std::string, json> out;
  for (const auto& run : doc["runs"])
    out[run["key"].get<std::string>()] = {run["status"], run["metrics"], run["work"]};
  return out;
}

json campaign_of(double t_end, double dt) {
  return {{"name", "test"},
          {"repeat", 0},
          {"problems", {{{"id", "simple_pendulum"}, {"t_end", t_end}}, {{"id", "slider_crank"}}}},
          {"methods", {{{"id", "index1"}}, {{"id", "baumgarte"}}, {{"id", "projection"}}}},
          {"steppers", {{{"id", "rk4"}, {"dt", {dt, dt / 2}}}, {{"id", "dopri5"}, {"tol", 1e-8}}}}};
}

TEST(Campaign, SmokeCampaignRunsAndRecordsEveryRun) {
  const fs::path out = scratch("smoke");
  const CliResult r = cli("campaign " + std::string(CMB_SOURCE_DIR) +
                          "/campaigns/smoke.json --jobs 2 --out " + (out / "r").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto runs = comparable(out / "r" / "results.json");
  EXPECT_EQ(runs.size(), 24u);
  for (const auto& [key, record] : runs) EXPECT_EQ(record[0], "ok") << key;
  fs::remove_all(out);
}

TEST(Campaign, EveryCommittedCampaignFileIsValid) {
  int checked = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(CMB_SOURCE_DIR) / "campaigns")) {
    if (entry.path().extension() != ".json") continue;
    const CliResult r = cli("campaign " + entry.path().string() + " --dry-run");
    EXPECT_EQ(r.exit_code, 0) << entry.path() << "\n" << r.output;
    ++checked;
  }
  EXPECT_GE(checked, 5);  // smoke, default, work_precision, scaling, baumgarte_study
}

TEST(Campaign, BadFilesAreRejectedWithTheJsonPathAndNothingIsWritten) {
  const fs::path dir = scratch("bad");
  const std::vector<std::pair<json, std::string>> cases = {
      {{{"name", "x"},
        {"problems", {{{"id", "pendulum"}}}},
        {"methods", {{{"id", "index1"}}}},
        {"steppers", {{{"id", "rk4"}, {"dt", 0.01}}}}},
       "/problems/0: unknown problem 'pendulum'"},
      {{{"name", "x"},
        {"problems", {{{"id", "simple_pendulum"}}}},
        {"methods", {{{"id", "baumgarte"}, {"params", {{"alpah", 1}}}}}},
        {"steppers", {{{"id", "rk4"}, {"dt", 0.01}}}}},
       "/methods/0: unknown parameter 'alpah'"},
      {{{"name", "x"},
        {"problems", {{{"id", "simple_pendulum"}}}},
        {"methods", {{{"id", "index1"}}}},
        {"steppers", {{{"id", "dopri5"}, {"dt", 0.01}}}}},
       "/steppers/0: stepper 'dopri5' is adaptive"},
      {{{"name", "x"},
        {"problems", {{{"id", "simple_pendulum"}}}},
        {"methods", {{{"id", "index1"}}}},
        {"steppers", {{{"id", "rk4"}, {"dt", {0.01, -1}}}}}},
       "/steppers/0/dt/1: expected a number > 0"},
      {{{"name", "x"}, {"problemz", json::array()}}, "/problemz: unknown key"},
      {{{"name", "x"},
        {"problems", {{{"id", "simple_pendulum"}, {"perturbations", {{{"position", "big"}}}}}}},
        {"methods", {{{"id", "index1"}}}},
        {"steppers", {{{"id", "rk4"}, {"dt", 0.01}}}}},
       "/problems/0/perturbations/0/position: expected a finite number"},
      {{{"name", "x"},
        {"initial_assembly", "fix"},
        {"problems", {{{"id", "simple_pendulum"}}}},
        {"methods", {{{"id", "index1"}}}},
        {"steppers", {{{"id", "rk4"}, {"dt", 0.01}}}}},
       "/initial_assembly: initial_assembly must be 'reject' or 'project'"},
  };
  for (const auto& [campaign, expected] : cases) {
    const fs::path file = write_campaign(dir, campaign);
    const CliResult r = cli("campaign " + file.string() + " --out " + (dir / "out").string());
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find(expected), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(dir / "out")) << expected;
  }
  std::ofstream(dir / "broken.json") << "{\"name\": \"x\", ";
  const CliResult broken = cli("campaign " + (dir / "broken.json").string());
  EXPECT_EQ(broken.exit_code, 2);
  EXPECT_NE(broken.output.find("not valid JSON"), std::string::npos) << broken.output;
  fs::remove_all(dir);
}

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

// Processes whose command line mentions `text` (a campaign's workers are forks of it and carry
// its command line, including the unique --out path).
int processes_mentioning(const std::string& text) {
  int count = 0;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    std::ifstream in(entry.path() / "cmdline");
    std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    count += cmdline.find(text) != std::string::npos;
  }
  return count;
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

// --resume trusts no file for its name: a truncated record and a record copied over another
// run's file are both redone (and said so), so every run appears once with its own metrics.
TEST(Campaign, ResumeRedoesTruncatedAndSwappedRecords) {
  const fs::path dir = scratch("records");
  const fs::path file = write_campaign(dir, campaign_of(2.0, 1e-3));
  ASSERT_EQ(
      cli("campaign " + file.string() + " --jobs 2 --out " + (dir / "full").string()).exit_code, 0);
  const auto reference = comparable(dir / "full" / "results.json");

  fs::copy(dir / "full", dir / "damaged", fs::copy_options::recursive);
  fs::remove(dir / "damaged" / "results.json");
  std::vector<fs::path> records;
  for (const auto& entry : fs::directory_iterator(dir / "damaged" / "runs"))
    records.push_back(entry.path());
  std::sort(records.begin(), records.end());
  ASSERT_GE(records.size(), 3u);
  fs::resize_file(records[0], fs::file_size(records[0]) / 2);
  fs::copy_file(records[1], records[2], fs::copy_options::overwrite_existing);

  const CliResult resumed =
      cli("campaign " + file.string() + " --jobs 2 --resume --out " + (dir / "damaged").string());
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("is unreadable"), std::string::npos) << resumed.output;
  EXPECT_NE(resumed.output.find("holds another run"), std::string::npos) << resumed.output;
  EXPECT_NE(resumed.output.find("2 record(s) redone"), std::string::npos) << resumed.output;
  std::ifstream in(dir / "damaged" / "results.json");
  const json results = json::parse(in);
  EXPECT_EQ(results["runs"].size(), reference.size());
  EXPECT_EQ(comparable(dir / "damaged" / "results.json"), reference);
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

// A worker stuck inside one step past its time limit is killed by the parent at limit + margin
// (0.5 s + 2.025 s) and recorded as time_limit; the campaign goes on with the next run.
TEST(Campaign, AWorkerPastItsTimeLimitIsKilledAndRecorded) {
  const fs::path dir = scratch("killed");
  const json campaign = {{"name", "stuck"},
                         {"repeat", 0},
                         {"time_limit", 0.5},
                         {"problems",
                          {{{"id", "n_pendulum"}, {"params", {{"N", 500}}}},
                           {{"id", "simple_pendulum"}, {"t_end", 0.1}}}},
                         {"methods", {{{"id", "svd_null_space"}}}},
                         {"steppers", {{{"id", "rk4"}, {"dt", 0.001}}}}};
  const fs::path file = write_campaign(dir, campaign);
  const auto start = std::chrono::steady_clock::now();
  const CliResult r = cli("campaign " + file.string() + " --jobs 1 --out " + (dir / "r").string());
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto runs = comparable(dir / "r" / "results.json");
  EXPECT_EQ(runs.at("n_pendulum[N=500]/svd_null_space/rk4/dt=0.001")[0], "time_limit");
  EXPECT_EQ(runs.at("simple_pendulum/svd_null_space/rk4/dt=0.001/t_end=0.1")[0], "ok");
  EXPECT_LT(took.count(), 2.525 + 0.5 + 3.0) << r.output;  // the killed run, startup, the other
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
  if (resumed.exit_code == 0) EXPECT_EQ(comparable(mnt / "r" / "results.json"), reference);
  std::system(("umount " + mnt.string()).c_str());
  fs::remove_all(dir);
}

// Keys tell configurations apart exactly (as many digits as the value needs) and name equal
// ones once (a parameter given with its default value is the default configuration).
TEST(Campaign, KeysAreExactAndCanonical) {
  const fs::path dir = scratch("keys");
  const json campaign = {
      {"name", "keys"},
      {"problems", {{{"id", "simple_pendulum"}}, {{"id", "n_pendulum"}, {"params", {{"N", 3}}}}}},
      {"methods", {{{"id", "baumgarte"}, {"params", {{"omega0", 10}, {"zeta", 2}}}}}},
      {"steppers", {{{"id", "dopri5"}, {"tol", {1e-6, 1.000001e-6}}}}}};
  const CliResult r = cli("campaign " + write_campaign(dir, campaign).string() + " --dry-run");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("simple_pendulum/baumgarte[zeta=2]/dopri5/tol=1e-06\n"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("simple_pendulum/baumgarte[zeta=2]/dopri5/tol=1.000001e-06\n"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("n_pendulum[N=3]/baumgarte[zeta=2]/"), std::string::npos) << r.output;
  fs::remove_all(dir);
}

// --filter is matched in linear time: a pattern that makes a backtracking matcher take
// exponential time on the run keys returns at once.
TEST(Campaign, FilterPatternsCannotHang) {
  const std::string smoke = std::string(CMB_SOURCE_DIR) + "/campaigns/smoke.json";
  const auto start = std::chrono::steady_clock::now();
  const CliResult hostile = cli("campaign " + smoke + " --dry-run --filter '(.*)*X'");
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(hostile.exit_code, 0) << hostile.output;
  EXPECT_NE(hostile.output.find("0 runs (of 24"), std::string::npos) << hostile.output;
  EXPECT_LT(took.count(), 5.0);
  const CliResult some =
      cli("campaign " + smoke + " --dry-run --filter '/(index1|projection)/rk4/'");
  EXPECT_NE(some.output.find("runs (of 24"), std::string::npos) << some.output;
  EXPECT_EQ(some.output.find("/baumgarte/"), std::string::npos) << some.output;
  EXPECT_NE(some.output.find("/projection/rk4/"), std::string::npos) << some.output;
}

TEST(Campaign, ShardsTogetherEqualTheWholeCampaign) {
  const fs::path dir = scratch("shards");
  const fs::path file = write_campaign(dir, campaign_of(2.0, 1e-3));
  ASSERT_EQ(
      cli("campaign " + file.string() + " --jobs 2 --out " + (dir / "all").string()).exit_code, 0);
  const auto whole = comparable(dir / "all" / "results.json");
  std::map<std::string, json> merged;
  for (int i = 1; i <= 3; ++i) {
    const std::string out = (dir / ("shard" + std::to_string(i))).string();
    ASSERT_EQ(cli("campaign " + file.string() + " --jobs 1 --shard " + std::to_string(i) +
                  "/3 --out " + out)
                  .exit_code,
              0);
    for (const auto& [key, record] : comparable(fs::path(out) / "results.json"))
      EXPECT_TRUE(merged.emplace(key, record).second) << "run in two shards: " << key;
  }
  EXPECT_EQ(merged, whole);
  EXPECT_EQ(cli("campaign " + file.string() + " --shard 4/3").exit_code, 2);
  // cmbench merge joins the shards into the same set of runs...
  const std::string shards =
      (dir / "shard1").string() + " " + (dir / "shard2").string() + " " + (dir / "shard3").string();
  ASSERT_EQ(cli("merge " + shards + " --out " + (dir / "merged").string()).exit_code, 0);
  EXPECT_EQ(comparable(dir / "merged" / "results.json"), whole);
  // ...and refuses results of another campaign file unless forced.
  fs::create_directories(dir / "other");
  const fs::path other = write_campaign(dir / "other", campaign_of(1.0, 1e-3));
  ASSERT_EQ(cli("campaign " + other.string() + " --jobs 2 --out " + (dir / "other_out").string())
                .exit_code,
            0);
  const CliResult refused = cli("merge " + (dir / "shard1").string() + " " +
                                (dir / "other_out").string() + " --out " + (dir / "bad").string());
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.output.find("different campaign file"), std::string::npos) << refused.output;
  EXPECT_FALSE(fs::exists(dir / "bad" / "results.json"));
  EXPECT_EQ(cli("merge " + (dir / "shard1").string() + " " + (dir / "other_out").string() +
                " --force --out " + (dir / "forced").string())
                .exit_code,
            0);
  fs::remove_all(dir);
}

TEST(Campaign, PerturbationsAreProblemVariantsWithTheirOwnKeys) {
  const fs::path dir = scratch("perturbations");
  json campaign = campaign_of(1.0, 1e-3);
  campaign["problems"] = {
      {{"id", "simple_pendulum"},
       {"perturbations", {json::object(), {{"position", 1e-3}}, {{"velocity", 0.01}}}}}};
  const fs::path file = write_campaign(dir, campaign);
  ASSERT_EQ(cli("campaign " + file.string() + " --jobs 2 --out " + (dir / "r").string()).exit_code,
            0);
  std::ifstream in(dir / "r" / "results.json");
  const json doc = json::parse(in);
  ASSERT_EQ(doc["runs"].size(), 3u * 3u * 3u);  // 3 variants × 3 methods × (2 dt + 1 tol)
  int perturbed = 0;
  for (const auto& run : doc["runs"]) {
    const json& p = run["initial"]["perturbation"];
    if (p.is_null()) continue;
    ++perturbed;
    EXPECT_NE(run["key"].get<std::string>().find("/perturb=p"), std::string::npos);
    if (p["position"] != 0.0) {
      EXPECT_NEAR(run["metrics"]["drift"]["position"]["initial"].get<double>(), 1e-3,
                  1e-13);  // assembly tol
    }
  }
  EXPECT_EQ(perturbed, 2 * 3 * 3);
  fs::remove_all(dir);
}

// A results document with what may legitimately differ between two runs of the same build
// removed: timings and dates.
json without_timings_and_dates(json doc) {
  doc["context"].erase("date");
  for (auto& run : doc["runs"]) {
    run.erase("timing");
    run["context"].erase("date");
  }
  return doc;
}

std::string file_text(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Determinism: the smoke campaign run twice, and with one or two workers, gives the same
// results file apart from timings and dates, and byte-identical series.
TEST(Campaign, SmokeCampaignIsDeterministicAcrossRepeatsAndWorkerCounts) {
  const fs::path dir = scratch("determinism");
  const std::string smoke = std::string(CMB_SOURCE_DIR) + "/campaigns/smoke.json";
  const std::vector<std::pair<std::string, std::string>> runs = {
      {"a", "--jobs 1"}, {"b", "--jobs 1"}, {"c", "--jobs 2"}};
  for (const auto& [name, jobs] : runs)
    ASSERT_EQ(cli("campaign " + smoke + " " + jobs + " --out " + (dir / name).string()).exit_code,
              0);
  auto load = [&](const std::string& name) {
    std::ifstream in(dir / name / "results.json");
    return without_timings_and_dates(json::parse(in));
  };
  const json a = load("a");
  ASSERT_EQ(a["runs"].size(), 24u);
  for (const std::string other : {"b", "c"}) {
    EXPECT_EQ(load(other), a) << "results of run " << other << " differ from run a";
    for (const auto& entry : fs::directory_iterator(dir / "a" / "series"))
      EXPECT_EQ(file_text(dir / other / "series" / entry.path().filename()),
                file_text(entry.path()))
          << entry.path().filename();
  }
  fs::remove_all(dir);
}

// `cmbench compare`: agreeing result sets exit 0; a changed metric or a missing run exits 1 and
// is named; an unreadable input exits 2.
TEST(Campaign, CompareFindsChangedAndMissingRuns) {
  const fs::path dir = scratch("compare");
  const fs::path file = write_campaign(dir, campaign_of(1.0, 1e-3));
  ASSERT_EQ(cli("campaign " + file.string() + " --jobs 1 --out " + (dir / "a").string()).exit_code,
            0);
  ASSERT_EQ(cli("campaign " + file.string() + " --jobs 2 --out " + (dir / "b").string()).exit_code,
            0);
  const CliResult same = cli("compare " + (dir / "a").string() + " " + (dir / "b").string());
  EXPECT_EQ(same.exit_code, 0) << same.output;
  EXPECT_NE(same.output.find("same status, metrics and work: 18"), std::string::npos)
      << same.output;

  std::ifstream in(dir / "b" / "results.json");
  json doc = json::parse(in);
  in.close();
  const std::string changed = doc["runs"][0]["key"];
  const std::string dropped = doc["runs"][1]["key"];
  doc["runs"][0]["metrics"]["error"]["max_abs"] = 1.0;
  doc["runs"].erase(1);
  std::ofstream(dir / "b" / "results.json") << doc.dump();
  const CliResult diff = cli("compare " + (dir / "a").string() + " " + (dir / "b").string() +
                             " --json " + (dir / "c.json").string());
  EXPECT_EQ(diff.exit_code, 1) << diff.output;
  EXPECT_NE(diff.output.find("different: 1"), std::string::npos) << diff.output;
  EXPECT_NE(diff.output.find(changed), std::string::npos) << diff.output;
  EXPECT_NE(diff.output.find("only in A: " + dropped), std::string::npos) << diff.output;
  std::ifstream json_in(dir / "c.json");
  EXPECT_EQ(json::parse(json_in)["different"][0]["key"], changed);

  const CliResult missing =
      cli("compare " + (dir / "a").string() + " " + (dir / "nowhere").string());
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.output.find("cannot read"), std::string::npos) << missing.output;
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

  // 16 KiB: the records fit, the pendulum's series CSVs (~20 KB) do not.
  const std::string limited = "bash -c 'ulimit -f 16; exec " + std::string(CMB_CLI_PATH) +
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
