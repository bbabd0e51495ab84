// A campaign computes the self-converged references its runs need before any run starts, outside
// the runs' limits: a run's status, metrics and work do not depend on which references were
// cached, result sets made with a cold and a warm cache merge, and --prepare-references
// --dry-run lists the references without computing them.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <sstream>
#include <string>

#include "campaign_support.hpp"
#include "cli_runner.hpp"

namespace cmb::test {
namespace {

// About a dozen references are computed cold across the trials: a fifth of the horizon under the
// sanitizers.
json reference_campaign() {
  const double t_end = horizon(1.0, 0.2);
  return {{"name", "warmth"},
          {"repeat", 0},
          {"reference", "self_converged"},
          {"problems",
           {{{"id", "crank_rocker"}, {"t_end", t_end}},
            {{"id", "slider_crank"}, {"t_end", t_end}},
            {{"id", "simple_pendulum"}, {"t_end", t_end}}}},
          {"methods", {{{"id", "index1"}}, {{"id", "baumgarte"}}}},
          {"steppers", {{{"id", "rk4"}, {"dt", {1e-3}}}}}};
}

std::size_t files_in(const fs::path& dir) {
  std::size_t count = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    count += entry.path().extension() == ".json";
  return count;
}

// Generated cache states: each trial warms a random subset of the problems' references first
// (--prepare-references with a filter), then runs the campaign: every record equals the cold
// run's, and the two result sets merge (whether a reference was read or computed is no
// difference between them).
TEST(ReferencePass, ResultsDoNotDependOnWhichReferencesWereCached) {
  const fs::path dir = scratch("reference_warmth");
  const fs::path file = write_campaign(dir, reference_campaign());
  const CliResult cold =
      cli("campaign " + file.string() + " --jobs 2 --out " + (dir / "cold").string() +
          " --reference-cache " + (dir / "cold-refs").string());
  ASSERT_EQ(cold.exit_code, 0) << cold.output;
  const auto reference = comparable(dir / "cold" / "results.json");
  const std::vector<std::string> problems = {"crank_rocker", "slider_crank", "simple_pendulum"};
  std::mt19937 random(31);
  for (int trial = 0; trial < 3; ++trial) {
    const std::string tag = std::to_string(trial);
    const fs::path refs = dir / ("refs-" + tag);
    std::string warmed;
    for (const auto& problem : problems)
      if (random() % 2) warmed += (warmed.empty() ? "" : "|") + problem;
    if (!warmed.empty()) {
      ASSERT_EQ(cli("campaign " + file.string() + " --prepare-references --filter '^(" + warmed +
                    ")/' --reference-cache " + refs.string())
                    .exit_code,
                0);
    }
    const fs::path out = dir / ("warm-" + tag);
    ASSERT_EQ(cli("campaign " + file.string() + " --jobs 2 --out " + out.string() +
                  " --reference-cache " + refs.string())
                  .exit_code,
              0);
    EXPECT_EQ(comparable(out / "results.json"), reference) << "warmed: " << warmed;
    const CliResult merged = cli("merge " + (dir / "cold").string() + " " + out.string() +
                                 " --force --out " + (dir / ("merged-" + tag)).string());
    EXPECT_EQ(merged.exit_code, 0) << "warmed: " << warmed << "\n" << merged.output;
  }
  fs::remove_all(dir);
}

// --prepare-references --dry-run names what it would compute and computes nothing.
TEST(ReferencePass, ADryRunListsReferencesWithoutComputingThem) {
  const fs::path dir = scratch("reference_dry_run");
  const fs::path file = write_campaign(dir, reference_campaign());
  const CliResult listed =
      cli("campaign " + file.string() + " --prepare-references --dry-run --reference-cache " +
          (dir / "refs").string());
  ASSERT_EQ(listed.exit_code, 0) << listed.output;
  EXPECT_NE(listed.output.find("3 self-converged reference(s)"), std::string::npos)
      << listed.output;
  EXPECT_NE(listed.output.find("to compute into"), std::string::npos) << listed.output;
  EXPECT_EQ(files_in(dir / "refs"), 0u);
  fs::remove_all(dir);
}

// flyball_governor's reference over 10 s takes seconds (over its first second, under the
// sanitizers, too); its index1/rk4 run diverges within a few steps. With a 1 s time limit the run
// ends diverged, as with a warm cache: the reference is not computed inside the run's limit (it
// ended time_limit when it was, with a cold cache).
TEST(ReferencePass, AReferenceIsComputedOutsideTheRunsTimeLimit) {
  const fs::path dir = scratch("reference_outside_limit");
  const double t_end = horizon(10.0, 1.0);
  json campaign = {{"name", "outside"},
                   {"repeat", 0},
                   {"time_limit", 1},
                   {"problems", {{{"id", "flyball_governor"}, {"t_end", t_end}}}},
                   {"methods", {{{"id", "index1"}}}},
                   {"steppers", {{{"id", "rk4"}, {"dt", {1e-3}}}}}};
  const fs::path file = write_campaign(dir, campaign);
  const CliResult run = cli("campaign " + file.string() + " --out " + (dir / "out").string() +
                            " --reference-cache " + (dir / "refs").string());
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const auto results = comparable(dir / "out" / "results.json");
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results.begin()->second[0], "diverged") << run.output;
  // Computed by the campaign before its run started (said so), not by the run's worker.
  std::ostringstream said;  // as the campaign prints the horizon
  said << "reference of flyball_governor to t = " << t_end << ": computed in";
  EXPECT_NE(run.output.find(said.str()), std::string::npos) << run.output;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cmb::test
