// The campaign ETA (cli::EtaEstimate) on synthetic campaigns, independent of the machine: runs
// of random cost done by 1 to 4 simulated workers in a random order, the ok ones then timed one
// at a time as the timing pass does (repetitions per core block, a minimum and a maximum of
// timed work, a fixed cost per run). Where the model's assumptions hold (a fair order, timed
// repetitions costing about what the instrumented run cost, up to a factor the estimate learns
// from the first runs timed), the ETA stays within 0.5 to 2 times the time actually left from
// 10 % of the runs (both passes) on, while more than 20 are left.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <queue>
#include <random>
#include <sstream>
#include <vector>

#include "cli/progress.hpp"

namespace cmb::test {
namespace {

// Uniform in [0, 1), the same on every platform (std's distributions are not).
struct Random {
  std::mt19937_64 engine;
  double uniform() { return static_cast<double>(engine() >> 11) * 0x1.0p-53; }
  double between(double a, double b) { return a + (b - a) * uniform(); }
  double log_between(double a, double b) { return a * std::pow(b / a, uniform()); }
  int integer(int a, int b) { return a + static_cast<int>(uniform() * (b - a + 1)); }
};

struct Case {
  int jobs, cores, repeat;
  bool timing_pass;
  std::vector<CampaignRun> runs;
  std::vector<double> worker_s, timed_s;  // per run; timed_s < 0: not ok (not timed)
  std::string describe() const {
    std::ostringstream out;
    out << runs.size() << " runs on " << jobs << " worker(s), timing pass " << timing_pass
        << " (repeat " << repeat << ", " << cores << " core(s))";
    return out.str();
  }
};

// A campaign of 200 to 1000 runs: a fixed cost per run (the worker's), run costs spread over
// `decades` (log-uniform, as sweeps of step sizes over problems of different sizes give them: 2
// on the default campaign, worker time 0.06 to 5 s), some runs not ok, and the timing of
// the ok ones: repetitions that cost a factor (per campaign, 0.6 to 1.3, with ±20 % per run) of
// the instrumented run's cost.
Case generated(Random& random, double decades) {
  Case c;
  c.jobs = random.integer(1, 4);
  c.cores = random.integer(1, 4);
  c.repeat = random.integer(1, 5);
  c.timing_pass = random.uniform() < 0.8;
  const std::size_t n = static_cast<std::size_t>(random.integer(200, 1000));
  const double fixed = random.between(0.02, 0.1), smallest = random.log_between(1e-4, 1e-1);
  const double ok_fraction = random.between(0.5, 1.0), factor = random.between(0.6, 1.3);
  const double timing_min = random.between(0.05, 0.5), timing_max = 20.0;
  c.runs.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    c.runs[i].key = "run" + std::to_string(i);
    c.runs[i].config.repeat = c.repeat;
    c.runs[i].config.timing_min_s = timing_min;
    c.runs[i].config.timing_max_s = timing_max;
    const double cost = random.log_between(smallest, smallest * std::pow(10.0, decades));
    c.worker_s.push_back(fixed * random.between(0.9, 1.1) + cost);
    const int blocks = c.cores;
    const double repetition = cost * factor * random.between(0.8, 1.2);
    const double repetitions = blocks * ((c.repeat + blocks - 1) / blocks);
    const double timed =
        fixed + std::min(std::max(repetitions * repetition, timing_min), timing_max + repetition);
    c.timed_s.push_back(random.uniform() < ok_fraction ? timed : -1.0);
  }
  return c;
}

// Runs the case through the estimate: workers take the runs in order (each the next run when it
// is free), then the ok runs are timed one after the other. Returns the ratio ETA / time left
// at every finished run from 10 % of the runs (both passes) on, up to the last 20: there the
// few runs left decide the rest by their own costs, which no mean of the others predicts.
std::vector<double> ratios(const Case& c) {
  cli::EtaEstimate eta;
  eta.start(c.runs.size(), c.jobs, c.timing_pass, c.cores);
  struct Event {
    double time;
    std::size_t run;
    bool operator>(const Event& other) const { return time > other.time; }
  };
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> running;
  std::size_t next = 0;
  for (; next < c.runs.size() && static_cast<int>(next) < c.jobs; ++next)
    running.push({c.worker_s[next], next});
  std::vector<std::pair<double, double>> estimates;  // (time, ETA) after each event
  std::vector<std::size_t> timed;
  while (!running.empty()) {
    const Event done = running.top();
    running.pop();
    if (next < c.runs.size()) {
      running.push({done.time + c.worker_s[next], next});
      ++next;
    }
    const bool ok = c.timed_s[done.run] >= 0;
    eta.finished(c.runs[done.run], c.worker_s[done.run], ok);
    if (ok && c.timing_pass) timed.push_back(done.run);
    estimates.emplace_back(done.time, eta.remaining_seconds());
  }
  double now = estimates.back().first;
  for (std::size_t i = 0; i < timed.size(); ++i) {
    now += c.timed_s[timed[i]];
    eta.timed(c.runs[timed[i]], i + 1, timed.size(), c.timed_s[timed[i]]);
    estimates.emplace_back(now, eta.remaining_seconds());
  }
  std::vector<double> out;
  for (std::size_t i = estimates.size() / 10; i + 20 < estimates.size(); ++i)
    out.push_back(estimates[i].second / (now - estimates[i].first));
  return out;
}

TEST(Eta, WithinHalfToTwiceTheTimeLeftFromTenPercentOnSyntheticCampaigns) {
  Random random{std::mt19937_64(20261128)};
  double lowest = 1.0, highest = 1.0;
  for (int i = 0; i < 300; ++i) {
    const Case c = generated(random, 2.0);
    for (const double ratio : ratios(c)) {
      lowest = std::min(lowest, ratio);
      highest = std::max(highest, ratio);
      ASSERT_TRUE(ratio >= 0.5 && ratio <= 2.0)
          << "case " << i << ": " << c.describe() << ": ETA / time left = " << ratio;
    }
  }
  std::cout << "ETA / time left over 300 cases: " << lowest << " to " << highest << "\n";
}

// Before the first run ends there is nothing to go on; after the last nothing is left.
TEST(Eta, UnknownBeforeTheFirstRunAndZeroAfterTheLast) {
  std::vector<CampaignRun> runs(3);
  cli::EtaEstimate eta;
  eta.start(runs.size(), 2, true, 2);
  EXPECT_TRUE(std::isnan(eta.remaining_seconds()));
  eta.finished(runs[0], 1.0, true);
  eta.finished(runs[1], 1.0, false);
  EXPECT_GT(eta.remaining_seconds(), 1.0);  // one run left and the ok runs' timing
  eta.finished(runs[2], 1.0, true);
  eta.timed(runs[0], 1, 2, 2.0);
  EXPECT_GT(eta.remaining_seconds(), 0.0);
  eta.timed(runs[2], 2, 2, 2.0);
  EXPECT_EQ(eta.remaining_seconds(), 0.0);
}

// A resumed campaign may only time runs a stopped one left waiting: it learns their cost as they
// are timed.
TEST(Eta, ATimingPassAloneUsesTheRunsTimedSoFar) {
  std::vector<CampaignRun> runs(4);
  cli::EtaEstimate eta;
  eta.start(0, 2, true, 2);
  EXPECT_TRUE(std::isnan(eta.remaining_seconds()));
  eta.timed(runs[0], 1, 4, 0.5);
  EXPECT_DOUBLE_EQ(eta.remaining_seconds(), 1.5);
}

}  // namespace
}  // namespace cmb::test
