// Every option naming a file or directory cmbench writes refuses an empty path (which would
// mean the current directory or the default, by accident) and "-" (which would create a file
// named "-"), with exit 2, a message naming the option, and nothing written; and `cmbench run`
// refuses a record and a series that are one file however the two paths spell it. What a command
// prints is part of its result: on a full or closed standard output it fails.
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
using cmb::test::cli_with_stdout;
using cmb::test::CliResult;

bool empty_dir(const fs::path& dir) {
  return fs::directory_iterator(dir) == fs::directory_iterator();
}

const std::string kRun =
    "run --problem simple_pendulum --method index1 --stepper rk4 --dt 0.01 --t-end 0.1 "
    "--repeat 0";

// A one-run campaign file in a fresh scratch directory `name`, and a committed result set: the
// inputs of the commands these tests try.
struct Inputs {
  fs::path dir, campaign;
  std::string set;
};

Inputs command_inputs(const std::string& name) {
  Inputs in;
  in.dir = cmb::test::fresh_scratch_dir(name);
  in.campaign = in.dir / "c.json";
  std::ofstream(in.campaign) << R"({"name": "c", "problems": [{"id": "simple_pendulum"}],
    "methods": [{"id": "index1"}], "steppers": [{"id": "rk4", "dt": 0.01}]})";
  in.set = (fs::path(CMB_SOURCE_DIR) / "results" / "scaling" / "2026-11-27_24879888e99b").string();
  return in;
}

TEST(OutputPaths, EveryOutputOptionRefusesAnEmptyPathAndADash) {
  const auto [inputs, campaign, set] = command_inputs("output_paths_inputs");
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

// Every command, and every command's --help, with standard output on a full device and closed:
// a non-zero exit and a message on standard error that names standard output. A closed one
// would otherwise be the descriptor of the next file opened (a record), so nothing is written.
TEST(OutputPaths, EveryCommandFailsWhenItsStandardOutputCannotBeWritten) {
  const auto [inputs, campaign, set] = command_inputs("stdout_inputs");
  std::vector<std::string> commands = {"list",
                                       "list --json",
                                       "describe simple_pendulum",
                                       "describe n_four_bar --param N=3",
                                       kRun,
                                       "campaign " + campaign.string() + " --dry-run",
                                       "compare " + set + " " + set,
                                       "--version",
                                       "--help"};
  for (const std::string command : {"list", "describe", "run", "campaign", "merge", "compare"})
    commands.push_back(command + " --help");
  for (const auto& command : commands)
    for (const std::string redirection : {">/dev/full", ">&-"}) {
      const fs::path work = cmb::test::fresh_scratch_dir("stdout_work");
      const CliResult r = cli_with_stdout(work.string(), redirection, command);
      EXPECT_NE(r.exit_code, 0) << command << " " << redirection << ": " << r.output;
      EXPECT_NE(r.output.find("standard output"), std::string::npos)
          << command << " " << redirection << ": " << r.output;
      if (redirection == ">&-") {
        EXPECT_TRUE(empty_dir(work)) << command << " with standard output closed wrote a file";
      }
    }
  fs::remove_all(inputs);
}

}  // namespace
