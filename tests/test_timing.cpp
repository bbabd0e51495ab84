// Timings a reader can reproduce (harness/run/timing.hpp): repetitions until a minimum total,
// capped, on the wall and CPU clocks; a campaign takes them one run at a time after its parallel
// pass, and a stop during that pass loses nothing.
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <thread>
#include <vector>

#include "campaign_support.hpp"
#include "catalog/catalog.hpp"
#include "cli_runner.hpp"
#include "test_support.hpp"

namespace cmb::test {
namespace {

// Timed repetitions: at least --repeat, then more until --timing-min seconds of them, none
// started past --timing-max; wall and CPU clocks, each with min <= median <= max.
TEST(Timing, RepetitionsRunUntilTheMinimumTimeAndStopAtTheCap) {
  auto timing = [](const std::string& options) {
    const std::string out = scratch_path("timing.json").string();
    const CliResult r =
        cli("run --problem simple_pendulum --method index1 --stepper rk4 --dt 0.01 " + options +
            " --out " + out);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    std::ifstream in(out);
    return nlohmann::json::parse(in)["timing"];
  };
  const auto until = timing("--repeat 1 --timing-min 0.05");
  EXPECT_GE(until["total_s"].get<double>(), 0.05);
  // More than --repeat, unless the one repetition took the minimum by itself (a loaded machine).
  EXPECT_TRUE(until["repetitions"].get<int>() > 1 || until["min_s"].get<double>() >= 0.05) << until;
  for (const char* clock : {"", "cpu_"}) {
    const std::string c = clock;
    EXPECT_LE(until[c + "min_s"].get<double>(), until[c + "median_s"].get<double>());
    EXPECT_LE(until[c + "median_s"].get<double>(), until[c + "max_s"].get<double>());
    EXPECT_GE(until[c + "spread"].get<double>(), 0.0);
  }
  EXPECT_EQ(timing("--repeat 5 --timing-max 0")["repetitions"], 1);  // the cap: one, no more
  EXPECT_EQ(timing("--repeat 0")["repetitions"], 0);
}

// The repetitions come in one block per core the thread may use, each block pinned to its core
// (so that a core slowed down by another guest's load cannot make all of them slow); the record
// gives each block's core, repetitions and minima, the overall minima are the smallest of them,
// and the thread's affinity mask is what it was before. With one core there are no blocks.
TEST(Timing, RepetitionsAreSplitOverTheCoresAndTheMaskIsRestored) {
  cpu_set_t before;
  ASSERT_EQ(::sched_getaffinity(0, sizeof(before), &before), 0);
  RunConfig c;
  c.problem = "simple_pendulum";
  c.method = "index1";
  c.stepper = "rk4";
  c.dt = 0.01;
  c.repeat = 4;
  c.timing_min_s = 0.02;
  auto timing_of = [&] {
    PreparedRun run = prepare_run(c);
    return cmb::to_json(run_with_reference(run).record)["timing"];
  };
  const json timing = timing_of();
  cpu_set_t after;
  ASSERT_EQ(::sched_getaffinity(0, sizeof(after), &after), 0);
  EXPECT_TRUE(CPU_EQUAL(&before, &after));

  cpu_set_t first_only;
  CPU_ZERO(&first_only);
  for (int core = 0; core < CPU_SETSIZE; ++core)
    if (CPU_ISSET(core, &before)) {
      CPU_SET(core, &first_only);
      break;
    }
  ASSERT_EQ(::sched_setaffinity(0, sizeof(first_only), &first_only), 0);
  const json pinned = timing_of();
  ::sched_setaffinity(0, sizeof(before), &before);
  EXPECT_FALSE(pinned.contains("cores"));
  EXPECT_GE(pinned["repetitions"].get<int>(), 4);

  const int cores = CPU_COUNT(&before);
  if (cores < 2) GTEST_SKIP() << "one core: no blocks to compare";
  ASSERT_TRUE(timing.contains("cores"));
  ASSERT_EQ(timing["cores"].size(), static_cast<std::size_t>(std::min(cores, 8)));
  int repetitions = 0;
  double wall_min = 1e300, cpu_min = 1e300;
  for (const json& block : timing["cores"]) {
    EXPECT_GE(block["repetitions"].get<int>(), 4 / cores);  // each its share of --repeat
    repetitions += block["repetitions"].get<int>();
    wall_min = std::min(wall_min, block["min_s"].get<double>());
    cpu_min = std::min(cpu_min, block["cpu_min_s"].get<double>());
  }
  EXPECT_EQ(repetitions, timing["repetitions"].get<int>());
  EXPECT_EQ(wall_min, timing["min_s"].get<double>());
  EXPECT_EQ(cpu_min, timing["cpu_min_s"].get<double>());

  // A run so short that the repetition cap (kMaxRepeat = 1000) comes before --timing-min: every
  // core still gets its equal share of the cap, not the first core all of it.
  c.t_end = 0.1;
  c.timing_min_s = 10.0;
  const json capped = timing_of();
  ASSERT_TRUE(capped.contains("cores"));
  for (const json& block : capped["cores"])
    EXPECT_EQ(block["repetitions"].get<int>(), kMaxRepeat / std::min(cores, 8));
}

// Each repetition starts from a formulation bound anew and must repeat the instrumented run. The
// reported case: coordinate_partitioning keeps its partition from one run to the next, so with
// repartition_tol = 1 (the pivoted LU's choice at every step) a repetition started in the
// partition the last run ended in, tripped its root guard at the first step and ended there: the
// record gave 3.5 µs per run for a run of 14 ms.
TEST(Timing, ARepetitionStartsAsTheRunDidAndRepeatsItsWork) {
  RunConfig c;
  c.problem = "simple_pendulum";
  c.method = "coordinate_partitioning";
  c.method_params = {{"repartition_tol", 1.0}};
  c.stepper = "rk4";
  c.dt = 0.00125;
  c.repeat = 2;
  c.timing_min_s = 0.0;
  PreparedRun run = prepare_run(c);
  const json record = cmb::to_json(run_with_reference(run).record);
  ASSERT_EQ(record["status"], "ok") << record["message"];
  EXPECT_GE(record["timing"]["repetitions"].get<int>(), 2);
  EXPECT_FALSE(record["timing"].contains("note")) << record["timing"]["note"];
}

// A formulation that does not repeat its run — here its rate grows with every run it starts, so
// the adaptive stepper takes other steps — is left untimed, and the note says how it differed.
class GrowingDecay : public Method {
 public:
  GrowingDecay() : Method(Params(nlohmann::json::object(), {})) {}
  void bind(const Problem& problem) override { n_ = problem.sizes().nq; }
  int state_size() const override { return 2 * n_; }
  void pack(double, CVecRef q, CVecRef v, VecRef x) override {
    x << q, v;
    rate_ *= 2.0;  // kept across runs: bind does not reset it
  }
  void unpack(double, CVecRef x, VecRef q, VecRef v) override {
    q = x.head(n_);
    v = x.tail(n_);
  }
  void rhs(CVecRef x, VecRef dxdt, double) override { dxdt = -rate_ * x; }
  const Vec& accelerations() const override { return none_; }
  const Vec& multipliers() const override { return none_; }

 private:
  int n_ = 0;
  double rate_ = 1.0;
  Vec none_;
};

TEST(Timing, AFormulationThatDoesNotRepeatItsRunIsLeftUntimed) {
  PreparedRun run;
  run.config.repeat = 2;
  run.config.compute_reference = false;
  run.problem = make_problem("simple_pendulum", json::object());
  run.method = std::make_unique<GrowingDecay>();
  run.stepper = &find_stepper("dopri5");
  run.settings.abs_tol = run.settings.rel_tol = 1e-8;
  run.t_end = 1.0;
  run.sample_times = {0.5, 1.0};
  run.key = "simple_pendulum/growing_decay/dopri5";
  const RunRecord record = execute_run(run).record;
  ASSERT_EQ(record.status, RunStatus::ok) << record.message;
  ASSERT_TRUE(record.timing && record.timing->note);
  EXPECT_EQ(record.timing->note->rfind("not timed: a repetition ended ok after ", 0), 0u)
      << *record.timing->note;
  EXPECT_TRUE(std::isnan(record.timing->min_s));
}

// The timing pass (after the parallel one, one run at a time): every ok record ends timed on
// the wall and CPU clocks and marked one_at_a_time; a SIGTERM while it runs keeps every record
// (the untimed ones wait, marked pending) and --resume times the rest without running anything
// again.
TEST(Timing, ACampaignsTimingPassTimesEveryRunOnceAndResumesAfterAStop) {
  const fs::path dir = scratch("timing_pass");
  json campaign = campaign_of(0.5, 1e-3);
  campaign["repeat"] = 1;
  campaign["timing_min_s"] = 0.25;  // 18 runs × up to 0.25 s: a pass long enough to stop in
  const fs::path file = write_campaign(dir, campaign);
  const std::string out = (dir / "out").string();
  const pid_t pid = fork();
  if (pid == 0) {
    execl(CMB_CLI_PATH, CMB_CLI_PATH, "campaign", file.c_str(), "--jobs", "2", "--out", out.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  auto timed_records = [&] {
    int timed = 0;
    if (fs::exists(dir / "out" / "runs"))
      for (const auto& entry : fs::directory_iterator(dir / "out" / "runs")) {
        std::ifstream in(entry.path());
        const json record = json::parse(in, nullptr, false);
        if (record.is_object() && record["timing"].value("one_at_a_time", false)) ++timed;
      }
    return timed;
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (timed_records() < 2 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << status;
  const int timed_before = timed_records();
  EXPECT_GE(timed_before, 2);
  EXPECT_LT(timed_before, 18);

  const CliResult resumed = cli("campaign " + file.string() + " --jobs 2 --resume --out " + out);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_EQ(resumed.output.rfind("0 run(s) to do on", 0), 0u) << "the resume ran runs again:\n"
                                                              << resumed.output;
  std::ifstream in(dir / "out" / "results.json");
  const json results = json::parse(in);
  ASSERT_EQ(results["runs"].size(), 18u);
  for (const auto& run : results["runs"]) {
    const json& timing = run["timing"];
    EXPECT_EQ(run["status"], "ok") << run["key"];
    EXPECT_FALSE(timing.contains("pending")) << run["key"];
    EXPECT_TRUE(timing.value("one_at_a_time", false)) << run["key"];
    // Enough timed work: the minimum total, unless a core's block reached its share of the
    // 1000-repetition cap (then that block alone has hundreds of repetitions).
    bool capped = timing["repetitions"] == kMaxRepeat;
    for (const json& block : timing.value("cores", json::array()))
      capped = capped || block["repetitions"].get<int>() * timing["cores"].size() == kMaxRepeat;
    EXPECT_TRUE(timing["total_s"].get<double>() >= 0.25 || capped) << run["key"] << ": " << timing;
    EXPECT_GT(timing["cpu_min_s"].get<double>(), 0.0) << run["key"];
  }
  fs::remove_all(dir);
}

// A timing worker killed from outside (the OOM killer's SIGKILL) at a generated moment: its run
// stays pending, the campaign says so, and --resume times it without running anything again.
// It was once marked "not timed" for good, and the report then compared its instrumented wall
// time with the others' CPU times.
TEST(Timing, ATimingWorkerKilledFromOutsideIsTimedByResume) {
  const fs::path dir = scratch("timing_killed");
  json campaign = campaign_of(0.5, 1e-3);
  // 200 000 steps a run: the repetitions reach the minimum time long before their count cap.
  campaign["problems"] = {{{"id", "simple_pendulum"}, {"t_end", 20.0}}};
  campaign["methods"] = {{{"id", "index1"}}};
  campaign["steppers"] = {{{"id", "rk4"}, {"dt", {1e-4}}}};
  campaign["repeat"] = 1;
  campaign["timing_min_s"] = 1.0;  // the timing worker runs a second: time to kill it
  const fs::path file = write_campaign(dir, campaign);
  std::mt19937 random(48);
  for (int trial = 0; trial < 3; ++trial) {
    const fs::path out = dir / ("out" + std::to_string(trial));
    const std::string log = (dir / ("log" + std::to_string(trial))).string();
    const std::string command = std::string("exec ") + CMB_CLI_PATH + " campaign " + file.string() +
                                " --jobs 1 --out " + out.string() + " >" + log + " 2>&1";
    const pid_t pid = fork();
    if (pid == 0) {
      execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    auto record = [&] {
      for (const auto& entry : fs::directory_iterator(out / "runs"))
        if (entry.path().extension() == ".json") {
          std::ifstream in(entry.path());
          return json::parse(in, nullptr, false);
        }
      return json();
    };
    // The run's record written (pending timing), then the one child left is the timing worker.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    pid_t timing_worker = 0;
    while (timing_worker == 0 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      std::error_code ec;
      if (!fs::exists(out / "runs", ec) || !record().is_object()) continue;
      const std::vector<pid_t> children = children_of(pid, true);
      if (children.size() == 1) timing_worker = children.front();
    }
    ASSERT_NE(timing_worker, 0) << "no timing worker appeared";
    std::this_thread::sleep_for(std::chrono::milliseconds(50 + random() % 600));
    kill(timing_worker, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    std::ifstream said_in(log);
    const std::string said((std::istreambuf_iterator<char>(said_in)),
                           std::istreambuf_iterator<char>());
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << said;
    const json stopped = record();
    ASSERT_FALSE(stopped["timing"].value("one_at_a_time", false)) << "timed before the kill";
    EXPECT_TRUE(stopped["timing"].value("pending", false)) << stopped["timing"];
    EXPECT_NE(said.find("stopped from outside"), std::string::npos) << said;

    const CliResult resumed =
        cli("campaign " + file.string() + " --jobs 1 --resume --out " + out.string());
    ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
    EXPECT_EQ(resumed.output.rfind("0 run(s) to do on", 0), 0u) << resumed.output;
    const json timed = record();
    EXPECT_FALSE(timed["timing"].contains("pending")) << timed["timing"];
    EXPECT_TRUE(timed["timing"].value("one_at_a_time", false)) << timed["timing"];
    EXPECT_GT(timed["timing"].value("cpu_min_s", 0.0), 0.0) << timed["timing"];
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cmb::test
