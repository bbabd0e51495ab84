// --filter is matched by RE2, in time linear in the key whatever the pattern, and compiled
// within a memory budget: over generated patterns, those with a backreference (the construct
// that makes matching exponential) are refused with a message that says so, and patterns of
// nested counted repetitions and stars end in a selection or a refusal (exit 0 or 2) within a
// CPU-time cap that a backtracking or unbounded compiler exceeds.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "core/errors.hpp"
#include "harness/campaign/campaign.hpp"
#include "harness/campaign/campaign_plan.hpp"
#include "test_support.hpp"

namespace cmb::test {
namespace {

namespace fs = std::filesystem;

const char* const kCampaign = R"({"name": "f", "repeat": 0,
  "problems": [{"id": "simple_pendulum", "t_end": 0.1}],
  "methods": [{"id": "index1"}, {"id": "baumgarte"}],
  "steppers": [{"id": "rk4", "dt": [0.01, 0.02]}]})";

// A pattern of `pieces` random pieces of regular-expression syntax (no quote: shell-safe).
std::string random_pattern(std::mt19937_64& rng, int pieces) {
  static const std::vector<std::string> kPieces = {".*",    "(",   ")",     "(.*)", "|", "a",
                                                   "x",     "rk4", "[a-z]", "+",    "?", "{2}",
                                                   "(a*)*", "/",   "\\.",   "dt=0", "^", "$"};
  std::uniform_int_distribution<std::size_t> pick(0, kPieces.size() - 1);
  std::string out;
  for (int i = 0; i < pieces; ++i) out += kPieces[pick(rng)];
  return out;
}

TEST(Filter, APatternWithABackreferenceIsRefusedSayingSo) {
  const Campaign campaign = parse_campaign(kCampaign, "f");
  std::mt19937_64 rng(20261127);
  std::uniform_int_distribution<int> digit(1, 9), length(0, 8);
  for (int n = 0; n < 200; ++n) {
    const std::string pattern = "(.*)" + random_pattern(rng, length(rng)) + "\\" +
                                std::to_string(digit(rng)) + random_pattern(rng, length(rng));
    CampaignOptions options;
    options.filter = pattern;
    try {
      select_runs(campaign, options);
      ADD_FAILURE() << pattern << ": accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("no backreferences"), std::string::npos)
          << pattern << ": " << e.what();
    }
  }
}

TEST(Filter, GeneratedPatternsEndInASelectionOrARefusalWithinACpuCap) {
  const fs::path dir = scratch_path("filter");
  fs::create_directories(dir);
  std::ofstream(dir / "f.json") << kCampaign;
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> count(2, 999), length(1, 12);
  std::vector<std::string> patterns = {"(((.{255}){255}){255})", "((((.*)*)*)*)*X", "(x+x+)+y",
                                       "(.{999}){999}"};
  for (int n = 0; n < 12; ++n)
    patterns.push_back("((" + random_pattern(rng, length(rng)) + "){" + std::to_string(count(rng)) +
                       "}){" + std::to_string(count(rng)) + "}");
  for (int n = 0; n < 12; ++n) patterns.push_back(random_pattern(rng, length(rng)));
  for (const auto& pattern : patterns) {
    const CliResult r = cli_cpu_limited(
        20, "campaign " + (dir / "f.json").string() + " --dry-run --filter '" + pattern + "'");
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 2) << pattern << ": " << r.output;
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cmb::test
