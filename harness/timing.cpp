#include "harness/timing.hpp"

#include <time.h>

#include <algorithm>

#include "harness/initial_state.hpp"

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

// min, median, max and spread of one clock, under `prefix` ("" or "cpu_"). The spread is the
// interquartile range over the median (the range over the median below 4 repetitions): the
// first repetition's cold caches and a rare interruption do not make it.
void summarize(std::vector<double> seconds, const std::string& prefix, nlohmann::json& timing) {
  std::sort(seconds.begin(), seconds.end());
  const double mid = median(seconds);
  const double width = seconds.size() < 4 ? seconds.back() - seconds.front()
                                          : quantile(seconds, 0.75) - quantile(seconds, 0.25);
  timing[prefix + "min_s"] = seconds.front();
  timing[prefix + "median_s"] = mid;
  timing[prefix + "max_s"] = seconds.back();
  timing[prefix + "spread"] = mid > 0 ? width / mid : 0.0;
}

// Whether to start another repetition: at least `repeat`, then until timing_min_s of timed work,
// none started when the total would pass timing_max_s or the wall-time limit.
bool another(const RunConfig& c, std::size_t done, double total, double longest,
             double limit_left) {
  if (done >= static_cast<std::size_t>(kMaxRepeat)) return false;
  if (done > 0 && total + longest > c.timing_max_s) return false;
  if (limit_left <= 0) return false;
  return done < static_cast<std::size_t>(c.repeat) || total < c.timing_min_s;
}

}  // namespace

nlohmann::json untimed(double instrumented_seconds) {
  return {{"instrumented_s", instrumented_seconds},
          {"repetitions", 0},
          {"min_s", nullptr},
          {"median_s", nullptr}};
}

nlohmann::json timed_repetitions(PreparedRun& run, const Vec& q0, const Vec& v0,
                                 double instrumented_seconds,
                                 std::chrono::steady_clock::time_point start) {
  nlohmann::json timing = untimed(instrumented_seconds);
  if (run.config.repeat == 0) return timing;
  Method& method = *run.method;
  Vec x(method.state_size());
  std::vector<double> wall, cpu;
  double total = 0.0, longest = 0.0;
  const double limit = run.config.limits.wall_time_limit;
  auto limit_left = [&] { return limit > 0 ? limit - seconds_since(start) : 1.0; };
  method.stats().set_enabled(false);
  while (another(run.config, wall.size(), total, longest, limit_left())) {
    method.pack(0.0, q0, v0, x);
    const double cpu0 = thread_cpu_seconds();
    const auto t0 = std::chrono::steady_clock::now();
    integrate(method, *run.stepper, run.settings, x, run.sample_times, nullptr, run.config.limits);
    wall.push_back(seconds_since(t0));
    cpu.push_back(thread_cpu_seconds() - cpu0);
    total += wall.back();
    longest = std::max(longest, wall.back());
  }
  method.stats().set_enabled(true);
  if (limit > 0 && limit_left() <= 0)
    timing["note"] = "repetitions stopped by the time limit after " + std::to_string(wall.size());
  timing["repetitions"] = wall.size();
  if (wall.empty()) return timing;
  timing["total_s"] = total;
  summarize(wall, "", timing);
  summarize(cpu, "cpu_", timing);
  return timing;
}

nlohmann::json time_prepared_run(PreparedRun& run, double instrumented_seconds) {
  const auto start = std::chrono::steady_clock::now();
  const Sizes sizes = run.problem->sizes();
  Vec q0(sizes.nq), v0(sizes.nq);
  try {
    make_initial_state(*run.problem, run.config.initial, q0, v0);
    run.method->bind(*run.problem);
  } catch (const std::exception& e) {
    nlohmann::json timing = untimed(instrumented_seconds);
    timing["note"] = std::string("not timed: the run did not start again: ") + e.what();
    return timing;
  }
  return timed_repetitions(run, q0, v0, instrumented_seconds, start);
}

}  // namespace cmb
