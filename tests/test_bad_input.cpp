// Every bad-input case of tests/bad_inputs.json (the table in docs/bad_input.md): exit code 2, a
// message containing the expected text (which names the value and what is valid), and nothing
// written where the command was told to write.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "test_support.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json load_cases() {
  std::ifstream in(std::string(CMB_SOURCE_DIR) + "/tests/bad_inputs.json");
  return json::parse(in);
}

const json& cases() {
  static const json all = load_cases();
  return all;
}

// Where the command is told to write, so the test can check that nothing appeared there.
std::string with_output_target(const std::string& args) {
  const std::string command = args.substr(0, args.find(' '));
  if (args.find("--out") != std::string::npos) return args;
  if (command == "run") return args + " --out out/record.json --series out/series.csv";
  if (command == "campaign") return args + " --out out";
  return args;
}

// The result directories a merge case starts from: shards of a committed campaign.
void make_shards(const json& shards, const fs::path& dir) {
  for (const auto& i : shards["keep"]) {
    const std::string index = std::to_string(i.get<int>());
    const auto r = cmb::test::cli_in(
        dir.string(), "campaign " + std::string(CMB_SOURCE_DIR) + "/campaigns/" +
                          shards["campaign"].get<std::string>() + ".json --shard " + index + "/" +
                          std::to_string(shards["of"].get<int>()) + " --out shard-" + index);
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
}

class BadInput : public ::testing::TestWithParam<std::size_t> {};

TEST_P(BadInput, ExitsWithCode2AndAMessageAndWritesNothing) {
  const json& c = cases()[GetParam()];
  const fs::path dir = cmb::test::scratch_path("bad_input_" + std::to_string(GetParam()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  if (c.contains("shards")) make_shards(c["shards"], dir);
  if (c.contains("campaign"))
    std::ofstream(dir / "campaign.json")
        << (c["campaign"].is_string() ? c["campaign"].get<std::string>() : c["campaign"].dump());
  const auto r = cmb::test::cli_in(dir.string(), with_output_target(c["args"]));
  EXPECT_EQ(r.exit_code, 2) << c["case"] << "\n" << r.output;
  EXPECT_NE(r.output.find(c["expect"].get<std::string>()), std::string::npos)
      << c["case"] << ": expected '" << c["expect"].get<std::string>() << "' in\n"
      << r.output;
  EXPECT_FALSE(fs::exists(dir / "out")) << c["case"] << ": something was written";
  EXPECT_FALSE(fs::exists(dir / "merged")) << c["case"] << ": something was written";
  fs::remove_all(dir);
}

std::string case_name(const ::testing::TestParamInfo<std::size_t>& info) {
  std::string name = cases()[info.param]["case"];
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return std::to_string(info.param) + "_" + name;
}

INSTANTIATE_TEST_SUITE_P(Table, BadInput, ::testing::Range<std::size_t>(0, cases().size()),
                         case_name);

TEST(BadInputTable, HasAtLeast25Cases) { EXPECT_GE(cases().size(), 25u); }

}  // namespace
