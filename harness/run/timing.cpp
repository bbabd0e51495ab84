#include "harness/run/timing.hpp"

#include <sched.h>
#include <time.h>

#include <algorithm>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "harness/run/initial_state.hpp"

namespace cmb {

namespace {

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// CPU time of this thread: the run executes in it, and a watchdog or another process on the
// same core does not count.
double thread_cpu_seconds() {
  timespec now{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

// The p-quantile of sorted values (linear between neighbours).
double quantile(const std::vector<double>& sorted, double p) {
  const double position = p * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(position);
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  return sorted[below] + (position - static_cast<double>(below)) * (sorted[above] - sorted[below]);
}

// min, median, max and spread of one clock. The spread is the interquartile range over the
// median (the range over the median below 4 repetitions): the first repetition's cold caches
// and a rare interruption do not make it.
TimingRecord::Clock summarize(std::vector<double> seconds) {
  std::sort(seconds.begin(), seconds.end());
  const double mid = median(seconds);
  const double width = seconds.size() < 4 ? seconds.back() - seconds.front()
                                          : quantile(seconds, 0.75) - quantile(seconds, 0.25);
  return {seconds.front(), mid, seconds.back(), mid > 0 ? width / mid : 0.0};
}

// Whether to start another repetition of a block that aims at `wanted` repetitions and
// `min_seconds` of timed work, with at most `most` of them (its share of kMaxRepeat, so that a
// fast run reaching the cap is still timed on every core): none past timing_max_s in all or the
// wall-time limit.
struct BlockGoal {
  std::size_t wanted;
  double min_seconds;
  std::size_t most;
};
bool another(const BlockGoal& goal, std::size_t done, double block_total, std::size_t all_done,
             double all_total, double longest, double cap_seconds, double limit_left) {
  if (done >= goal.most) return false;
  if (all_done > 0 && all_total + longest > cap_seconds) return false;
  if (limit_left <= 0) return false;
  return done < goal.wanted || block_total < goal.min_seconds;
}

// Why fewer repetitions were timed than `repeat` asked for, when the time limit did not stop
// them: the timing_max_s cap (`projected`: the total had one more repetition started) or the
// cap on their number.
std::string fewer_repetitions_note(std::size_t done, const RunConfig& config, double projected,
                                   std::size_t cap) {
  std::ostringstream note;
  note << done << " of the " << config.repeat << " repetitions asked for: ";
  if (projected > config.timing_max_s)
    note << "none starts past timing_max_s = " << config.timing_max_s << " s of repetitions";
  else
    note << "at most " << cap << " are timed (" << kMaxRepeat << " shared by the cores)";
  return note.str();
}

// The cores the calling thread may run on (its affinity mask), at most kMaxTimingCores of them;
// empty when the mask cannot be read.
constexpr int kMaxTimingCores = 8;
std::vector<int> allowed_cores() {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  std::vector<int> cores;
  if (::sched_getaffinity(0, sizeof(mask), &mask) != 0) return cores;
  for (int c = 0; c < CPU_SETSIZE && static_cast<int>(cores.size()) < kMaxTimingCores; ++c)
    if (CPU_ISSET(c, &mask)) cores.push_back(c);
  return cores;
}

// Pins the calling thread to one core while it lives, then gives it its former mask back.
class PinnedToCore {
 public:
  explicit PinnedToCore(int core) {
    CPU_ZERO(&previous_);
    pinned_ = ::sched_getaffinity(0, sizeof(previous_), &previous_) == 0;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(core, &one);
    pinned_ = pinned_ && ::sched_setaffinity(0, sizeof(one), &one) == 0;
  }
  ~PinnedToCore() {
    if (pinned_) ::sched_setaffinity(0, sizeof(previous_), &previous_);
  }
  PinnedToCore(const PinnedToCore&) = delete;
  PinnedToCore& operator=(const PinnedToCore&) = delete;

 private:
  cpu_set_t previous_;
  bool pinned_ = false;
};

// A block's summary: its core, how many repetitions and the minimum of each clock.
TimingRecord::CoreBlock core_block(int core, const std::vector<double>& wall,
                                   const std::vector<double>& cpu, std::size_t first) {
  return {core, static_cast<std::int64_t>(wall.size() - first),
          *std::min_element(wall.begin() + first, wall.end()),
          *std::min_element(cpu.begin() + first, cpu.end())};
}

}  // namespace

TimingRecord untimed(double instrumented_seconds) {
  TimingRecord timing;
  timing.instrumented_s = instrumented_seconds;
  timing.min_s = timing.median_s = std::numeric_limits<double>::quiet_NaN();
  return timing;
}

namespace {

// "" when a repetition's outcome is the instrumented run's, else how it differs.
std::string repetition_difference(const LoopOutcome& outcome, const RepeatedWork& expected) {
  const LoopCounters& c = outcome.counters;
  if (outcome.status == RunStatus::ok && c.rhs_calls == expected.rhs_calls &&
      c.steps_accepted == expected.steps_accepted && c.steps_rejected == expected.steps_rejected)
    return "";
  std::ostringstream note;
  note << "not timed: a repetition ended " << to_string(outcome.status) << " after " << c.rhs_calls
       << " RHS calls and " << c.steps_accepted << " + " << c.steps_rejected
       << " steps, the instrumented run ok after " << expected.rhs_calls << " and "
       << expected.steps_accepted << " + " << expected.steps_rejected
       << ": the formulation did not repeat its run";
  return note.str();
}

// One repetition from a formulation bound anew, its clocks appended to wall and cpu; how it
// differed from the instrumented run ("" when it did not).
std::string repeat_once(PreparedRun& run, const Vec& q0, const Vec& v0,
                        const RepeatedWork& expected, Vec& x, std::vector<double>& wall,
                        std::vector<double>& cpu) {
  Formulation& method = run.formulation();
  try {  // the instrumented run got through both: a repetition that does not is not timed
    method.bind(*run.problem);
    method.pack(0.0, q0, v0, x);
  } catch (const NumericalFailure& failure) {
    return std::string("not timed: a repetition ended ") + to_string(failure.status()) +
           " before its first step: " + failure.what();
  }
  const double cpu0 = thread_cpu_seconds();
  const auto t0 = std::chrono::steady_clock::now();
  const LoopOutcome outcome = integrate_run(run, x, nullptr, run.config.limits);
  wall.push_back(seconds_since(t0));
  cpu.push_back(thread_cpu_seconds() - cpu0);
  return repetition_difference(outcome, expected);
}

// The record's summary of the repetitions' clocks.
void summarize_into(TimingRecord& timing, const std::vector<double>& wall,
                    const std::vector<double>& cpu, double total) {
  timing.repetitions = static_cast<std::int64_t>(wall.size());
  if (wall.empty()) return;
  timing.total_s = total;
  const TimingRecord::Clock on_wall = summarize(wall);
  timing.min_s = on_wall.min_s;
  timing.median_s = on_wall.median_s;
  timing.max_s = on_wall.max_s;
  timing.spread = on_wall.spread;
  timing.cpu = summarize(cpu);
}

}  // namespace

TimingRecord timed_repetitions(PreparedRun& run, const Vec& q0, const Vec& v0,
                               double instrumented_seconds, const RepeatedWork& expected,
                               std::chrono::steady_clock::time_point start) {
  TimingRecord timing = untimed(instrumented_seconds);
  if (run.config.repeat == 0) return timing;
  Formulation& method = run.formulation();
  Vec x(method.state_size());
  std::vector<double> wall, cpu;
  double total = 0.0, longest = 0.0;
  const double limit = run.config.limits.wall_time_limit;
  auto limit_left = [&] { return limit > 0 ? limit - seconds_since(start) : 1.0; };
  // One block of repetitions per core the thread may use, each pinned to its core: a core that
  // another guest's load slows down for seconds (seen on this project's 2-core machines: one
  // core 1.5× slower than the other for minutes) cannot make every repetition slow.
  const std::vector<int> cores = allowed_cores();
  const std::size_t blocks = std::max<std::size_t>(1, cores.size());
  const BlockGoal goal{(static_cast<std::size_t>(run.config.repeat) + blocks - 1) / blocks,
                       run.config.timing_min_s / static_cast<double>(blocks),
                       static_cast<std::size_t>(kMaxRepeat) / blocks};
  method.stats().set_enabled(false);
  for (std::size_t b = 0; b < blocks; ++b) {
    std::optional<PinnedToCore> pin;
    if (cores.size() > 1) pin.emplace(cores[b]);
    const std::size_t first = wall.size();
    double block_total = 0.0;
    while (another(goal, wall.size() - first, block_total, wall.size(), total, longest,
                   run.config.timing_max_s, limit_left())) {
      const std::string difference = repeat_once(run, q0, v0, expected, x, wall, cpu);
      if (!difference.empty()) {
        method.stats().set_enabled(true);
        timing.note = difference;
        return timing;
      }
      total += wall.back();
      block_total += wall.back();
      longest = std::max(longest, wall.back());
    }
    if (cores.size() > 1 && wall.size() > first) {
      if (!timing.cores) timing.cores.emplace();
      timing.cores->push_back(core_block(cores[b], wall, cpu, first));
    }
  }
  method.stats().set_enabled(true);
  if (limit > 0 && limit_left() <= 0)
    timing.note = "repetitions stopped by the time limit after " + std::to_string(wall.size());
  else if (wall.size() < static_cast<std::size_t>(run.config.repeat))
    timing.note =
        fewer_repetitions_note(wall.size(), run.config, total + longest, goal.most * blocks);
  summarize_into(timing, wall, cpu, total);
  return timing;
}

TimingRecord time_prepared_run(PreparedRun& run, double instrumented_seconds,
                               const RepeatedWork& expected) {
  const auto start = std::chrono::steady_clock::now();
  const Sizes sizes = run.problem->sizes();
  Vec q0(sizes.nq), v0(sizes.nq);
  try {
    make_initial_state(*run.problem, run.config.initial, q0, v0);
    run.formulation().bind(*run.problem);
  } catch (const std::exception& e) {
    TimingRecord timing = untimed(instrumented_seconds);
    timing.note = std::string("not timed: the run did not start again: ") + e.what();
    return timing;
  }
  return timed_repetitions(run, q0, v0, instrumented_seconds, expected, start);
}

}  // namespace cmb
