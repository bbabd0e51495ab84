// Campaigns through the command line: validation with JSON paths, keys, filters, shards,
// perturbations, identical metrics whichever way the runs were scheduled, and compare. Faults
// (signals, full disks, time limits, damaged records): test_campaign_faults.cpp.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "campaign_support.hpp"
#include "cli_runner.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using cmb::test::cli;
using cmb::test::CliResult;
using namespace cmb::test;

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
       "/steppers/0/dt/1: expected a finite number > 0, got -1"},
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
       "/initial_assembly: expected one of reject, project, got \"fix\""},
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
// exponential time on the run keys (centuries) returns at once. The dry run gets 60 s of CPU time
// (it needs well under 1 s, sanitized), not a wall-clock bound: the machine's load does not count.
TEST(Campaign, FilterPatternsCannotHang) {
  const std::string smoke = std::string(CMB_SOURCE_DIR) + "/campaigns/smoke.json";
  const CliResult hostile =
      cli_cpu_limited(60, "campaign " + smoke + " --dry-run --filter '(.*)*X'");
  EXPECT_EQ(hostile.exit_code, 0) << hostile.output;
  EXPECT_NE(hostile.output.find("0 runs (of 24"), std::string::npos) << hostile.output;
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
  EXPECT_EQ(cli("merge " + shards + " " + (dir / "other_out").string() + " --force --out " +
                (dir / "forced").string())
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
// removed: timings and dates (and the records' digests, which cover them).
json without_timings_and_dates(json doc) {
  doc["context"].erase("date");
  for (auto& run : doc["runs"]) {
    run.erase("timing");
    run.erase("digest");
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
  doc["runs"][0].erase("digest");  // an edited record that keeps its digest is refused
  doc["runs"].erase(1);
  std::ofstream(dir / "b" / "results.json") << doc.dump();
  // Beside its store an edited results.json is refused; as plain files (a copy of the exported
  // set without its store) it is compared.
  const CliResult edited = cli("compare " + (dir / "a").string() + " " + (dir / "b").string());
  EXPECT_EQ(edited.exit_code, 2) << edited.output;
  EXPECT_NE(edited.output.find("is not the one its store exported"), std::string::npos)
      << edited.output;
  fs::remove(dir / "b" / "results.db");
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
