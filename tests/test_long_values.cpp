// A message quotes what it refuses briefly, however long that is: generated values of up to
// 50 000 characters (letters, digits, quotes, spaces, a two-byte character) at generated places
// of the command line and of a campaign file. The command exits 2, its message stays under
// 4 000 characters and a value appears in it at most as its first 80 characters. (A 40 kB
// parameter value was printed whole.)
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "test_support.hpp"

namespace {

namespace fs = std::filesystem;
using cmb::test::cli_in;
using cmb::test::CliResult;

std::string generated_value(std::mt19937& rng, bool with_spaces) {
  static const std::vector<std::string> pieces = {"a", "Z", "7", "_", "-", ".", "'", "\"", "é"};
  std::uniform_int_distribution<std::size_t> length(121, 50000), piece(0, pieces.size() - 1);
  std::uniform_int_distribution<int> space(0, 30);
  const std::size_t n = length(rng);
  std::string value;
  while (value.size() < n) value += with_spaces && space(rng) == 0 ? " " : pieces[piece(rng)];
  return value;
}

// The value as one word of a shell command line.
std::string shell_word(const std::string& value) {
  std::string out = "'";
  for (const char c : value) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The output shows at most the value's first 80 characters, with the quote around them (which
// may be the value's own first character): no 82-byte piece of it appears.
bool quotes_briefly(const std::string& output, const std::string& value) {
  for (std::size_t at = 0; at + 82 <= value.size(); at += 82)
    if (output.find(value.substr(at, 82)) != std::string::npos) return false;
  return true;
}

const char* const kGoodRun =
    "run --problem simple_pendulum --method index1 --stepper rk4 --dt 0.01";

TEST(LongValues, CommandLineValuesAreQuotedBriefly) {
  const std::vector<std::string> places = {
      "run --problem V --method index1 --stepper rk4 --dt 0.01",
      "run --problem simple_pendulum --method V --stepper rk4 --dt 0.01",
      "run --problem simple_pendulum --method index1 --stepper V --dt 0.01",
      "run --problem simple_pendulum --integrator V --dt 0.01",
      std::string(kGoodRun).replace(std::string(kGoodRun).find("0.01"), 4, "V"),
      std::string(kGoodRun) + " --tol V",
      std::string(kGoodRun) + " --param V=1",
      std::string(kGoodRun) + " --param rank_policy=V",
      std::string(kGoodRun) + " --param pivot_tol=V",
      std::string(kGoodRun) + " --initial-assembly V",
      "describe V",
      "describe simple_pendulum --param V=1",
      "list V"};
  std::mt19937 rng(48);
  const fs::path work = cmb::test::fresh_scratch_dir("long_values_cli");
  for (int i = 0; i < 40; ++i) {
    const std::string& place = places[i % places.size()];
    const std::string value = generated_value(rng, i % 2 == 1);
    std::string command = place;
    command.replace(command.find('V'), 1, shell_word(value));
    const CliResult r = cli_in(work.string(), command);
    const std::string where = place + " with a value of " + std::to_string(value.size()) + " bytes";
    EXPECT_EQ(r.exit_code, 2) << where << ": " << r.output.substr(0, 400);
    EXPECT_LT(r.output.size(), 4200u) << where << ": " << r.output.substr(0, 400);
    EXPECT_TRUE(quotes_briefly(r.output, value)) << where << ": " << r.output.substr(0, 400);
  }
}

TEST(LongValues, CampaignFileValuesAreQuotedBriefly) {
  const nlohmann::json good = {{"name", "c"},
                               {"problems", {{{"id", "simple_pendulum"}}}},
                               {"methods", {{{"id", "index1"}}}},
                               {"steppers", {{{"id", "rk4"}, {"dt", 0.01}}}}};
  // Where a generated value goes: an id, a parameter's key or value, a stepper's setting.
  using Place = void (*)(nlohmann::json&, const std::string&);
  const std::vector<Place> places = {
      [](nlohmann::json& c, const std::string& v) { c["problems"][0]["id"] = v; },
      [](nlohmann::json& c, const std::string& v) { c["methods"][0]["id"] = v; },
      [](nlohmann::json& c, const std::string& v) { c["steppers"][0]["id"] = v; },
      [](nlohmann::json& c, const std::string& v) { c["problems"][0]["params"][v] = 1; },
      [](nlohmann::json& c, const std::string& v) { c["methods"][0]["params"]["rank_policy"] = v; },
      [](nlohmann::json& c, const std::string& v) { c["steppers"][0]["dt"] = v; },
      [](nlohmann::json& c, const std::string& v) { c[v] = 1; }};
  std::mt19937 rng(4848);
  const fs::path work = cmb::test::fresh_scratch_dir("long_values_campaign");
  for (int i = 0; i < 28; ++i) {
    nlohmann::json campaign = good;
    const std::string value = generated_value(rng, i % 2 == 1);
    places[i % places.size()](campaign, value);
    std::ofstream(work / "c.json") << campaign.dump();
    const CliResult r = cli_in(work.string(), "campaign c.json --dry-run");
    const std::string where = "place " + std::to_string(i % places.size()) + ", " +
                              std::to_string(value.size()) + " bytes";
    EXPECT_EQ(r.exit_code, 2) << where << ": " << r.output.substr(0, 400);
    EXPECT_LT(r.output.size(), 4200u) << where << ": " << r.output.substr(0, 400);
    // A value with spaces from a file is bounded by the message's length; one without, briefly.
    if (i % 2 == 0) {
      EXPECT_TRUE(quotes_briefly(r.output, value)) << where << ": " << r.output.substr(0, 400);
    }
  }
}

}  // namespace
