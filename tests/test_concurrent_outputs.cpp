// Two merges, or two campaigns, started together on one output directory: one whole set or a
// refusal, every time. Each pair starts with a generated delay of up to 3 ms between the two
// (either first: both pass their checks before either writes); afterwards the directory holds
// exactly one of the two results, every file it names, and no unfinished merge's marker, and the
// other process said why it did not write. Before the directory lock, two merges both exited 0 and
// left a results.json naming files the other removed.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <thread>

#include "campaign_support.hpp"
#include "cli_runner.hpp"

namespace {

namespace fs = std::filesystem;
using namespace cmb::test;

// Starts `args` (cmbench's) in `dir` with its output in `log`; returns the pid.
pid_t start(const fs::path& dir, const std::string& args, const fs::path& log) {
  const std::string command = "cd '" + dir.string() + "' && exec " + std::string(CMB_CLI_PATH) +
                              " " + args + " >'" + log.string() + "' 2>&1";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

int exit_code(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string text_of(const fs::path& file) {
  std::ifstream in(file);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Both started `delay_us` apart, `second_first` deciding which goes first; their exit codes.
std::pair<int, int> race(const fs::path& dir, const std::string& a, const std::string& b,
                         int delay_us, bool second_first, const std::string& tag) {
  const fs::path log_a = dir / ("a" + tag + ".log"), log_b = dir / ("b" + tag + ".log");
  pid_t pa = 0, pb = 0;
  if (second_first)
    pb = start(dir, b, log_b);
  else
    pa = start(dir, a, log_a);
  std::this_thread::sleep_for(std::chrono::microseconds(delay_us));
  if (second_first)
    pa = start(dir, a, log_a);
  else
    pb = start(dir, b, log_b);
  return {exit_code(pa), exit_code(pb)};
}

void expect_every_named_file(const fs::path& out, const std::string& at) {
  std::ifstream in(out / "results.json");
  const json doc = json::parse(in);
  for (const auto& run : doc["runs"]) {
    const json files = run.value("files", json::object());
    for (const auto& [kind, name] : files.items())
      if (name.is_string()) {  // null: a run without that file (a series it did not write)
        EXPECT_TRUE(fs::exists(out / name.get<std::string>())) << at << ": " << name;
      }
  }
  EXPECT_FALSE(fs::exists(out / ".cmbench-merging")) << at;
}

// Of two processes raced as `tag` (exit codes a and b), one wrote (exit 0) and the other was
// refused (exit 2), saying the directory was in use or already held a set.
void expect_one_winner(const fs::path& dir, int a, int b, const std::string& tag) {
  const std::string at = "trial " + tag;
  EXPECT_TRUE((a == 0) != (b == 0)) << at << ": exit codes " << a << " and " << b;
  EXPECT_TRUE((a == 0 || a == 2) && (b == 0 || b == 2)) << at << ": " << a << ", " << b;
  const std::string refused = text_of(dir / ((a == 0 ? "b" : "a") + tag + ".log"));
  EXPECT_TRUE(refused.find("in use") != std::string::npos ||
              refused.find("already holds") != std::string::npos)
      << at << ": " << refused;
}

json small_campaign(const std::string& name, double dt) {
  return {{"name", name},
          {"repeat", 0},
          {"problems", {{{"id", "simple_pendulum"}, {"t_end", 0.4}}}},
          {"methods", {{{"id", "index1"}}, {{"id", "baumgarte"}}, {{"id", "projection"}}}},
          {"steppers", {{{"id", "rk4"}, {"dt", {dt, dt / 2}}}}}};
}

TEST(ConcurrentOutputs, TwoMergesIntoOneOutLeaveOneWholeSetOrARefusal) {
  const fs::path dir = scratch("concurrent_merges");
  std::map<std::string, std::map<std::string, json>> whole;  // campaign → its merged set
  for (const auto& [name, dt] : {std::pair<std::string, double>{"a", 0.01}, {"b", 0.02}}) {
    const fs::path file = write_campaign(dir, small_campaign(name, dt));
    fs::rename(file, dir / (name + ".json"));
    for (const char* shard : {"1", "2"})
      ASSERT_EQ(cli_in(dir.string(), "campaign " + name + ".json --jobs 2 --shard " + shard +
                                         "/2 --out " + name + shard)
                    .exit_code,
                0);
    ASSERT_EQ(
        cli_in(dir.string(), "merge " + name + "1 " + name + "2 --out whole_" + name).exit_code, 0);
    whole[name] = comparable(dir / ("whole_" + name) / "results.json");
  }
  std::mt19937 random(48);
  for (int trial = 0; trial < 20; ++trial) {
    const std::string out = "m" + std::to_string(trial), at = "trial " + std::to_string(trial);
    const auto [a, b] =
        race(dir, "merge a1 a2 --out " + out, "merge b1 b2 --out " + out,
             static_cast<int>(random() % 3000), trial % 2 == 1, std::to_string(trial));
    expect_one_winner(dir, a, b, std::to_string(trial));
    EXPECT_EQ(comparable(dir / out / "results.json"), whole[a == 0 ? "a" : "b"]) << at;
    expect_every_named_file(dir / out, at);
  }
  fs::remove_all(dir);
}

TEST(ConcurrentOutputs, TwoCampaignsIntoOneOutLeaveOneWholeSetOrARefusal) {
  const fs::path dir = scratch("concurrent_campaigns");
  const fs::path file = write_campaign(dir, small_campaign("c", 0.01));
  ASSERT_EQ(cli_in(dir.string(), "campaign campaign.json --jobs 2 --out whole").exit_code, 0);
  const auto whole = comparable(dir / "whole" / "results.json");
  std::mt19937 random(49);
  for (int trial = 0; trial < 20; ++trial) {
    const std::string out = "c" + std::to_string(trial), at = "trial " + std::to_string(trial);
    const std::string args = "campaign campaign.json --jobs 1 --out " + out;
    const auto [a, b] =
        race(dir, args, args, static_cast<int>(random() % 3000), false, std::to_string(trial));
    expect_one_winner(dir, a, b, std::to_string(trial));
    EXPECT_EQ(comparable(dir / out / "results.json"), whole) << at;
    expect_every_named_file(dir / out, at);
  }
  fs::remove_all(dir);
}

}  // namespace
