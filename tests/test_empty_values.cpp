// An empty value for any option that takes one is refused by name (exit 2, nothing written):
// read as the option left out, it changed what ran (`merge --campaign ''` skipped the stale-shard
// check, `campaign --filter ''` ran every run, `compare --rel-tol ''` compared exactly). The
// options come from each command's own --help, so an option added later is covered too.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cli_runner.hpp"
#include "test_support.hpp"

namespace {

namespace fs = std::filesystem;

// The options of `command` that take a value, as its --help lists them ("  --dt NUMBER  ...":
// a type in capitals after the name; a flag has its description there instead).
std::vector<std::string> options_taking_a_value(const std::string& command) {
  const std::string help = cmb::test::cli(command + " --help").output;
  const std::regex option(R"(^\s+(?:-\w,)?(--[a-z][a-z-]*)\s+[A-Z][A-Z:]*\b)");
  std::vector<std::string> found;
  std::istringstream lines(help);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_search(line, m, option) && m[1] != "--help") found.push_back(m[1]);
  }
  return found;
}

// What each command needs besides the option under test: its positional arguments and the
// options it requires (left out when they are the one under test).
struct Invocation {
  std::string positionals;
  std::vector<std::pair<std::string, std::string>> required;
};

const std::map<std::string, Invocation>& invocations() {
  static const std::map<std::string, Invocation> table = {
      {"list", {"", {}}},
      {"describe", {"simple_pendulum", {}}},
      {"run",
       {"", {{"--problem", "simple_pendulum"}, {"--method", "index1"}, {"--stepper", "rk4"}}}},
      {"campaign", {"c.json", {}}},
      {"merge", {"shard", {{"--out", "merged"}}}},
      {"compare", {"a b", {}}}};
  return table;
}

std::string with_empty(const std::string& command, const std::string& empty_option) {
  const Invocation& how = invocations().at(command);
  std::string args = command + " " + how.positionals;
  for (const auto& [option, value] : how.required)
    if (option != empty_option) args += " " + option + " " + value;
  return args + " " + empty_option + " ''";
}

std::vector<fs::path> entries(const fs::path& dir) {
  std::vector<fs::path> found;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) found.push_back(entry.path());
  std::sort(found.begin(), found.end());
  return found;
}

TEST(EmptyValues, EveryOptionThatTakesAValueRefusesAnEmptyOneByName) {
  const fs::path dir = cmb::test::fresh_scratch_dir("empty_values");
  // A campaign that would run (quickly) if an empty option were taken as left out.
  std::ofstream(dir / "c.json")
      << R"({"name": "empty", "repeat": 0, "problems": [{"id": "simple_pendulum", "t_end": 0.1}],
            "methods": [{"id": "index1"}], "steppers": [{"id": "rk4", "dt": [0.01]}]})";
  const std::vector<fs::path> inputs = entries(dir);
  std::size_t checked = 0;
  for (const auto& [command, how] : invocations()) {
    for (const std::string& option : options_taking_a_value(command)) {
      const std::string args = with_empty(command, option);
      const cmb::test::CliResult r = cmb::test::cli_in(dir.string(), args);
      EXPECT_EQ(r.exit_code, 2) << args << ": " << r.output;
      EXPECT_NE(r.output.find(option), std::string::npos) << args << ": " << r.output;
      EXPECT_NE(r.output.find("''"), std::string::npos) << args << ": " << r.output;
      EXPECT_EQ(entries(dir), inputs) << args << " wrote something";
      ++checked;
    }
  }
  EXPECT_GE(checked, 30u) << "the --help pages list fewer options than the commands have";
  fs::remove_all(dir);
}

}  // namespace
