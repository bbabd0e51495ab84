// Every option naming a file or directory cmbench writes refuses an empty path (which would
// mean the current directory or the default, by accident) and "-" (which would create a file
// named "-"), with exit 2, a message naming the option, and nothing written; and `cmbench run`
// refuses a record and a series that are one file however the two paths spell it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "cli_runner.hpp"
#include "test_support.hpp"

namespace {

namespace fs = std::filesystem;
using cmb::test::cli_in;
using cmb::test::CliResult;

bool empty_dir(const fs::path& dir) {
  return fs::directory_iterator(dir) == fs::directory_iterator();
}

const std::string kRun =
    "run --problem simple_pendulum --method index1 --stepper rk4 --dt 0.01 --t-end 0.1 "
    "--repeat 0";

TEST(OutputPaths, EveryOutputOptionRefusesAnEmptyPathAndADash) {
  const fs::path inputs = cmb::test::fresh_scratch_dir("output_paths_inputs");
  const fs::path campaign = inputs / "c.json";
  std::ofstream(campaign) << R"({"name": "c", "problems": [{"id": "simple_pendulum"}],
    "methods": [{"id": "index1"}], "steppers": [{"id": "rk4", "dt": 0.01}]})";
  const std::string set =
      (fs::path(CMB_SOURCE_DIR) / "results" / "scaling" / "2026-11-27_24879888e99b").string();
  const std::vector<std::pair<std::string, std::string>> options = {
      {kRun, "--out"},
      {kRun, "--series"},
      {"campaign " + campaign.string() + " --dry-run", "--out"},
      {"campaign " + campaign.string() + " --dry-run", "--reference-cache"},
      {"merge " + set, "--out"},
      {"compare " + set + " " + set, "--json"},
      {kRun, "--reference-cache"}};
  for (const auto& [command, option] : options)
    for (const std::string value : {"''", "-"}) {
      const fs::path work = cmb::test::fresh_scratch_dir("output_paths_work");
      const CliResult r = cli_in(work.string(), command + " " + option + " " + value);
      EXPECT_EQ(r.exit_code, 2) << command << " " << option << " " << value << ": " << r.output;
      EXPECT_NE(r.output.find(option), std::string::npos) << r.output;
      EXPECT_TRUE(empty_dir(work))
          << command << " " << option << " " << value << ": wrote into the working directory";
    }
  fs::remove_all(inputs);
}

TEST(OutputPaths, RunRefusesARecordAndASeriesThatAreOneFile) {
  const fs::path work = cmb::test::fresh_scratch_dir("output_paths_same");
  fs::create_directories(work / "sub");
  fs::create_symlink("record.json", work / "link.csv");  // dangling: the record is not written yet
  const std::vector<std::string> spellings = {"./record.json", "sub/../record.json", "link.csv",
                                              (work / "record.json").string()};
  for (const std::string& series : spellings) {
    const CliResult r = cli_in(work.string(), kRun + " --out record.json --series " + series);
    EXPECT_EQ(r.exit_code, 2) << series << ": " << r.output;
    EXPECT_NE(r.output.find("name the same file"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(work / "record.json")) << series;
  }
  fs::remove_all(work);
}

}  // namespace
