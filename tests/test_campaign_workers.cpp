// A campaign's worker processes end when they must: one past its time limit is killed by the
// parent and recorded, and every worker dies with a parent killed by a signal it cannot catch.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "campaign_support.hpp"
#include "cli_runner.hpp"

namespace {

using cmb::test::cli_of;
using cmb::test::CliResult;
using namespace cmb::test;

// A worker stuck inside one step past its time limit (the test-only method stuck_in_step sleeps
// 60 s in its first step) is killed by the parent at limit + margin (0.5 s + 2.025 s) and recorded
// as time_limit with the parent's message; the campaign goes on with the next run. No bound on
// the machine's speed: the kill must not come before 2.525 s, and it came before the step ended
// when the record carries the parent's message (past the step, the run would have stopped itself).
TEST(Campaign, AWorkerPastItsTimeLimitIsKilledAndRecorded) {
  const fs::path dir = scratch("killed");
  const json campaign = {
      {"name", "stuck"},
      {"repeat", 0},
      {"time_limit", 0.5},
      {"problems", {{{"id", "simple_pendulum"}, {"t_end", 0.1}}}},
      {"methods", {{{"id", "stuck_in_step"}, {"params", {{"seconds", 60}}}}, {{"id", "index1"}}}},
      {"steppers", {{{"id", "rk4"}, {"dt", 0.001}}}}};
  const fs::path file = write_campaign(dir, campaign);
  const auto start = std::chrono::steady_clock::now();
  const CliResult r = cli_of(
      CMB_STUCK_CLI_PATH, "campaign " + file.string() + " --jobs 1 --out " + (dir / "r").string());
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_GE(took.count(), 2.525) << "killed before limit + margin";
  std::ifstream in(dir / "r" / "results.json");
  const json results = json::parse(in);
  std::map<std::string, json> runs;
  for (const json& run : results["runs"]) runs[run["key"].get<std::string>()] = run;
  const json& stuck = runs.at("simple_pendulum/stuck_in_step[seconds=60]/rk4/dt=0.001/t_end=0.1");
  EXPECT_EQ(stuck["status"], "time_limit");
  EXPECT_NE(stuck["message"].get<std::string>().find("the worker was stopped 2.525 s after it"),
            std::string::npos)
      << stuck["message"];
  EXPECT_EQ(runs.at("simple_pendulum/index1/rk4/dt=0.001/t_end=0.1")["status"], "ok");
  fs::remove_all(dir);
}

// Whether `pid` has ended (gone, or a zombie nobody reaped).
bool ended(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;
  const auto close = line.rfind(')');
  return close != std::string::npos && line.size() > close + 2 && line[close + 2] == 'Z';
}

// Polls `done` every 50 ms for up to `seconds`; whether it became true.
template <class Done>
bool within(double seconds, Done done) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return done();
}

// A campaign's parent killed with SIGKILL (which it cannot catch to stop its workers) takes its
// worker with it: the worker, stuck for 60 s in a step, is gone well before it would have ended
// by itself. The bounds are waits, not speeds: the worker must appear within 60 s and end within
// 30 s of its parent, where without the kernel's parent-death signal it runs the full 60 s.
TEST(Campaign, AWorkerDiesWithItsKilledParent) {
  const fs::path dir = scratch("orphan");
  const json campaign = {{"name", "orphan"},
                         {"repeat", 0},
                         {"problems", {{{"id", "simple_pendulum"}, {"t_end", 0.1}}}},
                         {"methods", {{{"id", "stuck_in_step"}, {"params", {{"seconds", 60}}}}}},
                         {"steppers", {{{"id", "rk4"}, {"dt", 0.001}}}}};
  const std::string file = write_campaign(dir, campaign).string();
  const std::string out = (dir / "r").string();
  const pid_t parent = ::fork();
  ASSERT_GE(parent, 0);
  if (parent == 0) {
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, STDOUT_FILENO);
    ::execl(CMB_STUCK_CLI_PATH, CMB_STUCK_CLI_PATH, "campaign", file.c_str(), "--jobs", "1",
            "--out", out.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  std::vector<pid_t> workers;
  const bool started = within(60.0, [&] { return !(workers = children_of(parent)).empty(); });
  ::kill(parent, SIGKILL);
  ::waitpid(parent, nullptr, 0);
  ASSERT_TRUE(started) << "the campaign started no worker";
  for (const pid_t worker : workers) {
    const bool gone = within(30.0, [&] { return ended(worker); });
    EXPECT_TRUE(gone) << "worker " << worker << " outlived its parent";
    if (!gone) ::kill(worker, SIGKILL);
  }
  fs::remove_all(dir);
}

}  // namespace
