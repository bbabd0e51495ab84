// The command line as a user meets it: bad input gives exit code 2 and a message that names the
// offending value and lists the valid ones; nothing is written. A good run writes its record.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.hpp"
#include "test_support.hpp"

namespace {

using cmb::test::cli;
using cmb::test::cli_cpu_limited;
using cmb::test::CliResult;

std::string temp_path(const std::string& name) {
  return cmb::test::scratch_path("cli_" + name).string();
}

void expect_input_error(const std::string& args, const std::vector<std::string>& mentions) {
  const std::string out = temp_path("should_not_exist.json");
  std::filesystem::remove(out);
  const CliResult r = cli(args + " --out " + out);
  EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
  for (const auto& m : mentions)
    EXPECT_NE(r.output.find(m), std::string::npos) << m << "\n" << r.output;
  EXPECT_FALSE(std::filesystem::exists(out)) << args;
}

const std::string kGood = "run --problem simple_pendulum --method index1 --stepper rk4 --dt 0.01";

TEST(Cli, UnknownIdsListTheValidOnes) {
  expect_input_error("run --problem pendulum --method index1 --stepper rk4 --dt 0.01",
                     {"unknown problem 'pendulum'", "simple_pendulum", "crank_rocker"});
  expect_input_error("run --problem simple_pendulum --method baumgart --stepper rk4 --dt 0.01",
                     {"unknown method 'baumgart'", "baumgarte", "index1"});
  expect_input_error("run --problem simple_pendulum --method index1 --stepper rk5 --dt 0.01",
                     {"unknown stepper 'rk5'", "rk4", "dopri5"});
}

TEST(Cli, BadParametersNameTheKeyAndTheValidOnes) {
  expect_input_error(kGood + " --param method.alpah=3", {"'alpah'", "pivot_tol"});
  expect_input_error(kGood + " --param gamma=3", {"'gamma'", "t_end", "pivot_tol"});
  expect_input_error(kGood + " --param method.pivot_tol=abc", {"pivot_tol", "expects a number"});
  expect_input_error(kGood + " --param method.rank_policy=maybe", {"fail, truncate"});
  expect_input_error(kGood + " --param N", {"key=value"});
  expect_input_error("run --problem n_four_bar --method index1 --stepper rk4 --dt 0.01 --param N=0",
                     {">= 1"});
}

TEST(Cli, MissingOrInconsistentValuesAreInputErrors) {
  expect_input_error("run --problem simple_pendulum --method index1 --stepper rk4",
                     {"fixed-step", "--dt"});
  expect_input_error("run --problem simple_pendulum --method index1 --stepper dopri5",
                     {"adaptive", "--tol"});
  expect_input_error(kGood + " --dt", {"dt"});
  expect_input_error("run --problem simple_pendulum --method index1 --stepper rk4 --dt abc",
                     {"dt"});
  expect_input_error("run --problem simple_pendulum --method index1 --stepper rk4 --dt -1",
                     {"--dt -1: expected a finite number > 0"});
  expect_input_error("run --problem simple_pendulum --method index1 --stepper rk4 --dt 0.003",
                     {"not a whole number of fixed steps"});
  expect_input_error("run --method index1 --stepper rk4 --dt 0.01", {"--problem"});
  expect_input_error("frobnicate", {"frobnicate"});
}

TEST(Cli, GoodRunWritesRecordAndSeries) {
  const std::string out = temp_path("good.json"), series = temp_path("good.csv");
  const CliResult r =
      cli(kGood + " --repeat 2 --timing-min 0 --out " + out + " --series " + series);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(out);
  const auto record = nlohmann::json::parse(in);
  EXPECT_EQ(record["status"], "ok");
  EXPECT_EQ(record["timing"]["repetitions"], 2);
  EXPECT_TRUE(record["context"]["git_sha"].is_string());
  std::ifstream csv(series);
  std::string header;
  std::getline(csv, header);
  EXPECT_EQ(header.rfind("t,position_residual,velocity_residual,energy_error", 0), 0u);
}

TEST(Cli, NumericalFailureIsARecordedStatusWithExitCode1) {
  const std::string out = temp_path("singular.json");
  const CliResult r =
      cli("run --problem n_four_bar --param N=2 --method index1 --stepper fehlberg78 --tol 1e-12 "
          "--param pivot_tol=1e-10 --repeat 0 --out " +
          out);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  std::ifstream in(out);
  EXPECT_EQ(nlohmann::json::parse(in)["status"], "singular");
}

TEST(Cli, DescribeReportsCountsRankAndReference) {
  const CliResult r = cli("describe n_four_bar --param N=3");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // 2N+1 = 7 links × 3 coordinates, 3N+1 = 10 pins × 2 rows, full rank at the start.
  EXPECT_NE(r.output.find("coordinates:  21"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("20 holonomic"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("rank of J at t = 0: 20 of 20"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("reduced_ode"), std::string::npos) << r.output;
  const CliResult bad = cli("describe pendulum");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.output.find("simple_pendulum"), std::string::npos);
}

// describe is cheap at any size: every problem with every integer parameter at its largest
// allowed value (a Jacobi SVD of n_four_bar's dense 6002 × 6003 J at N = 1000 took minutes and
// gigabytes). Under a CPU-time cap far above the fraction of a second it takes.
TEST(Cli, DescribeIsCheapAtEveryProblemsLargestSize) {
  const CliResult list = cli("list --json");
  ASSERT_EQ(list.exit_code, 0) << list.output;
  const nlohmann::json catalog = nlohmann::json::parse(list.output);
  int sized = 0;
  for (const auto& problem : catalog["problems"]) {
    std::string params;
    for (const auto& p : problem["params"])
      if (p["type"] == "integer" && !p["max"].is_null())
        params +=
            " --param " + p["name"].get<std::string>() + "=" + std::to_string(p["max"].get<long>());
    if (params.empty()) continue;
    ++sized;
    const std::string id = problem["id"].get<std::string>();
    const CliResult r = cli_cpu_limited(60, "describe " + id + params);
    EXPECT_EQ(r.exit_code, 0) << id << params << ": " << r.output;
    EXPECT_NE(r.output.find("rank of J at t = 0"), std::string::npos) << r.output;
  }
  EXPECT_GE(sized, 3);  // n_four_bar, n_pendulum, spatial_chain at least
}

TEST(Cli, ListShowsEverything) {
  const CliResult r = cli("list");
  EXPECT_EQ(r.exit_code, 0);
  for (const std::string id :
       {"simple_pendulum", "n_four_bar", "baumgarte", "omega0", "rk_gill", "rosenbrock4"})
    EXPECT_NE(r.output.find(id), std::string::npos) << id;
  EXPECT_EQ(cli("run --help").exit_code, 0);
}

}  // namespace

namespace {

// A method that fails at a sampled state (the multipliers' RHS call at the sample throws) must
// leave every series column at the same length: the run ends `diverged`, writes its record and
// series, exits 1. It used to leave t, residuals and outputs one sample longer than the
// multipliers, which the metrics and the CSV writer then read past (exit 139).
TEST(Cli, DivergenceAtASampleWritesTheRecordAndExits1) {
  for (const std::string method : {"index1", "baumgarte", "svd_null_space"}) {
    const std::string out = temp_path("diverged.json"), series = temp_path("diverged.csv");
    std::filesystem::remove(out);
    std::filesystem::remove(series);
    const CliResult r =
        cli("run --problem andrews_squeezer --method " + method +
            " --stepper rk_gill --dt 0.01 --repeat 0 --out " + out + " --series " + series);
    EXPECT_EQ(r.exit_code, 1) << method << "\n" << r.output;
    std::ifstream in(out);
    ASSERT_TRUE(in.good()) << method;
    const auto record = nlohmann::json::parse(in);
    EXPECT_NE(record["status"], "ok") << method;
    std::ifstream csv(series);
    std::string header, row;
    ASSERT_TRUE(std::getline(csv, header)) << method;
    const auto columns = std::count(header.begin(), header.end(), ',');
    int rows = 0;
    while (std::getline(csv, row)) {
      EXPECT_EQ(std::count(row.begin(), row.end(), ','), columns) << method << ": " << row;
      ++rows;
    }
    EXPECT_GE(rows, 1) << method;  // at least the initial state
    EXPECT_LE(rows, record["samples"].get<int>() + 1) << method;
  }
}

}  // namespace

namespace {

// Output paths: a special file is written in place (never replaced by a regular file), a write
// error names the path and the system's reason, a symbolic link is followed and stays a link,
// the record and the series never share a file, a directory is refused before the run and
// nothing is created, a 255-byte file name (NAME_MAX) works.
// A run whose first RHS call fails (Bricard's redundant rows with a full-rank method: singular at
// t = 0) still measures the state it stopped at: residuals and energy of the initial sample are
// recorded; only λ, which could not be computed, is missing.
TEST(Cli, ARunFailingAtItsFirstSampleStillMeasuresThatState) {
  const std::string out = temp_path("first_sample.json");
  const CliResult r =
      cli("run --problem bricard --method baumgarte --stepper dopri5 --tol 1e-5 "
          "--repeat 0 --out " +
          out);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  std::ifstream in(out);
  const auto record = nlohmann::json::parse(in);
  EXPECT_EQ(record["status"], "singular");
  const auto& m = record["metrics"];
  ASSERT_TRUE(m["drift"]["position"]["initial"].is_number()) << m.dump();
  EXPECT_LE(m["drift"]["position"]["initial"].get<double>(), 1e-10);  // initial_tol
  EXPECT_TRUE(m["energy"]["E0"].is_number()) << m.dump();
  EXPECT_TRUE(m["multipliers"].is_null()) << m.dump();
}

// Methods that factorize dense n×n matrices at every RHS call refuse problems beyond 1000
// coordinates (`unsupported`, naming the size they accept) instead of running for days; the
// pseudo-inverse methods do so on their dense path only.
TEST(Cli, DenseMethodsRefuseProblemsBeyondTheirSize) {
  for (const std::string method : {"svd_null_space", "udwadia_kalaba", "coordinate_partitioning"}) {
    const std::string dense =
        method == "coordinate_partitioning" ? "" : " --param linear_solver=dense";
    const CliResult r = cli("run --problem n_pendulum --param N=1000 --method " + method + dense +
                            " --stepper rk4 --dt 0.001 --repeat 0");
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find(": unsupported (" + method +
                            " factorizes dense n×n matrices at every "
                            "RHS call: n = 2000 coordinates is beyond the 1000 it accepts"),
              std::string::npos)
        << r.output;
  }
}

// When their sparse path cannot certify J's rank and the model is beyond what the dense SVD that
// would decide it accepts, the pseudo-inverse methods end the run with a recorded status at its
// first evaluation (spatial_chain N = 84: n = 1008), which packs the state outside the stepping
// loop; it was reported as an internal error (exit 3), again at every --resume.
TEST(Cli, ARankThePseudoInverseMethodsCannotDecideIsARecordedStatus) {
  for (const std::string method : {"svd_null_space", "udwadia_kalaba"}) {
    const std::string out = temp_path("uncertified_" + method + ".json");
    const CliResult r = cli("run --problem spatial_chain --param N=84 --method " + method +
                            " --stepper rk4 --dt 0.001 --t-end 0.001 --repeat 0 --out " + out);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    std::ifstream in(out);
    const auto record = nlohmann::json::parse(in);
    EXPECT_EQ(record["status"], "singular") << r.output;
    EXPECT_NE(record["message"].get<std::string>().find("limited to 1000 coordinates"),
              std::string::npos)
        << record["message"];
  }
}

// A step too small to change t (here the first trial step, 1e-4·t_end, underflows to 0) ends the
// run at once with step_limit, instead of after max_steps steps that go nowhere.
TEST(Cli, AStepThatDoesNotAdvanceTimeEndsTheRunAtOnce) {
  const CliResult r =
      cli("run --problem simple_pendulum --method index1 --stepper dopri5 "
          "--tol 1e-6 --t-end 5e-324 --sample-dt 5e-324 --repeat 0");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("step_limit (step size underflow (the step did not advance t)"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("1 steps accepted"), std::string::npos) << r.output;
}

// A run stuck inside its first step (the test-only method stuck_in_step sleeps there for 60 s) is
// stopped by the watchdog at limit + margin (1 s + 2.05 s): record written with status
// time_limit, exit 1. Nothing depends on the machine's speed: the watchdog must not fire before
// 3.05 s, and it fired before the step ended when the record carries its message (a run that got
// past the step would have been stopped by the check between steps, with another message). An
// earlier run's series at --series is removed: this run has none, and the old one is not its.
TEST(Cli, TheWatchdogStopsARunStuckInsideAStep) {
  const std::filesystem::path dir = temp_path("watchdog");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "series.csv") << "t,position_residual\n0,0\n";
  const auto start = std::chrono::steady_clock::now();
  const CliResult r = cmb::test::cli_of(
      CMB_STUCK_CLI_PATH,
      "run --problem simple_pendulum --method stuck_in_step --param seconds=60 --stepper rk4 "
      "--dt 0.001 --time-limit 1 --out " +
          (dir / "record.json").string() + " --series " + (dir / "series.csv").string());
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("stuck_in_step: blocking inside the first step"), std::string::npos)
      << r.output;
  EXPECT_GE(took.count(), 3.05) << "stopped before limit + margin";
  std::ifstream in(dir / "record.json");
  const auto record = nlohmann::json::parse(in);
  EXPECT_EQ(record["status"], "time_limit");
  EXPECT_EQ(record["key"], "simple_pendulum/stuck_in_step[seconds=60]/rk4/dt=0.001");
  EXPECT_NE(
      record["message"].get<std::string>().find("the run was stopped 3.05 s after it started"),
      std::string::npos)
      << record["message"];
  EXPECT_FALSE(record.contains("metrics")) << "the run got past its stuck step";
  EXPECT_FALSE(std::filesystem::exists(dir / "series.csv")) << "an earlier run's series is left";
  std::filesystem::remove_all(dir);
}

// Relative output paths in directories that do not exist yet are created (the check before the
// run must look for the nearest existing ancestor, '.' for a bare relative directory).
TEST(Cli, RelativeOutputsInNewDirectoriesAreWritten) {
  const std::filesystem::path dir = temp_path("relative");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const CliResult r = cmb::test::cli_in(dir.string(), kGood +
                                                          " --repeat 0 --out new/record.json "
                                                          "--series other/deeper/series.csv");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(std::filesystem::is_regular_file(dir / "new" / "record.json"));
  EXPECT_TRUE(std::filesystem::is_regular_file(dir / "other" / "deeper" / "series.csv"));
  std::filesystem::remove_all(dir);
}

TEST(Cli, OutputPathsAreNeverReplacedAndErrorsNameTheReason) {
  const std::string good = kGood + " --repeat 0";
  EXPECT_EQ(cli(good + " --out /dev/null").exit_code, 0);
  EXPECT_TRUE(std::filesystem::is_character_file("/dev/null"));
  if (std::filesystem::is_character_file("/dev/full")) {
    const CliResult full = cli(good + " --out /dev/full");
    EXPECT_EQ(full.exit_code, 2) << full.output;
    EXPECT_NE(full.output.find("No space left on device"), std::string::npos) << full.output;
    EXPECT_TRUE(std::filesystem::is_character_file("/dev/full"));
  }
  const std::filesystem::path dir = temp_path("outputs");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::filesystem::create_symlink("target.json", dir / "link.json");
  EXPECT_EQ(cli(good + " --out " + (dir / "link.json").string()).exit_code, 0);
  EXPECT_TRUE(std::filesystem::is_symlink(dir / "link.json"));
  EXPECT_TRUE(std::filesystem::is_regular_file(dir / "target.json"));

  const std::string same = (dir / "both").string();
  const CliResult clash = cli(good + " --out " + same + " --series " + same);
  EXPECT_EQ(clash.exit_code, 2);
  EXPECT_NE(clash.output.find("same file"), std::string::npos) << clash.output;
  EXPECT_FALSE(std::filesystem::exists(same));

  const CliResult directory = cli(good + " --out " + dir.string());
  EXPECT_EQ(directory.exit_code, 2);
  EXPECT_NE(directory.output.find("is a directory"), std::string::npos) << directory.output;
  const std::string long_name = (dir / std::string(255, 'a')).string();
  EXPECT_EQ(cli(good + " --out " + long_name).exit_code, 0);
  EXPECT_TRUE(std::filesystem::exists(long_name));
  std::filesystem::remove_all(dir);
}

}  // namespace
