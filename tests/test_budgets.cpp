// Budgets and bounds hold as stated, over generated cases: a run whose step count must pass
// its step limit is refused before it starts; no stepper calls the RHS past its budget, not even
// inside a step; fewer timed repetitions than asked for say why; ida names an inconsistent
// start instead of failing its error test at t = 0; a series beyond the memory bound is refused
// before the run, and the bound's estimate covers the memory the samples take.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <string>

#include "alloc_counter.hpp"
#include "core/errors.hpp"
#include "harness/run/run.hpp"
#include "steppers/steppers.hpp"

namespace cmb {
namespace {

RunConfig pendulum(const std::string& stepper) {
  RunConfig c;
  c.problem = "simple_pendulum";
  c.method = "index1";
  c.stepper = stepper;
  c.repeat = 0;
  return c;
}

bool refused(const RunConfig& c, std::string& message) {
  try {
    prepare_run(c);
    return false;
  } catch (const InputError& e) {
    message = e.what();
    return true;
  }
}

// Fixed steps: t_end/dt of them; adaptive ones: at least t_end/max_dt. Refused exactly when that
// passes max_steps, naming the step option and the limit.
TEST(Budgets, ARunThatMustPassItsStepLimitIsRefusedBeforeItStarts) {
  std::mt19937_64 random(9);
  int refusals = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const bool fixed = trial % 2 == 0;
    RunConfig c = pendulum(fixed ? "rk4" : "dopri5");
    c.t_end = 0.5 * (1 + random() % 8);
    c.limits.max_steps = 1 + static_cast<long>(random() % 2000);
    const long steps = 1 + static_cast<long>(random() % 4000);
    if (fixed) {
      c.dt = *c.t_end / static_cast<double>(steps);
    } else {
      c.abs_tol = c.rel_tol = 1e-6;
      c.max_dt = *c.t_end / static_cast<double>(steps);
    }
    std::string message;
    const bool was_refused = refused(c, message);
    // The loop stops when the steps taken reach max_steps, so as many steps as the limit are
    // refused; adaptive counts are t_end/max_dt unrounded, hence a margin of one there.
    if (steps >= c.limits.max_steps + (fixed ? 0 : 1)) {
      ASSERT_TRUE(was_refused) << steps << " steps, limit " << c.limits.max_steps;
      EXPECT_NE(message.find(fixed ? "t_end/dt = " : "t_end/max_dt = "), std::string::npos)
          << message;
      EXPECT_NE(message.find("as many as the step limit or more"), std::string::npos) << message;
      ++refusals;
    } else if (steps < c.limits.max_steps - (fixed ? 0 : 1)) {
      EXPECT_FALSE(was_refused) << message;
    }
  }
  EXPECT_GT(refusals, 100);
  RunConfig exact = pendulum("rk4");  // 100 steps against a limit of 100: the last one fails
  exact.t_end = 1.0;
  exact.dt = 0.01;
  exact.limits.max_steps = 100;
  std::string why;
  EXPECT_TRUE(refused(exact, why));
  exact.limits.max_steps = 101;
  EXPECT_FALSE(refused(exact, why)) << why;
  PreparedRun last_step = prepare_run(exact);
  EXPECT_EQ(execute_run(last_step).record.status, RunStatus::ok);
  RunConfig denormal = pendulum("dopri5");  // t_end/max_dt is infinite
  denormal.abs_tol = denormal.rel_tol = 1e-6;
  denormal.max_dt = 5e-324;
  std::string message;
  EXPECT_TRUE(refused(denormal, message)) << message;
}

// Every stepper, generated budgets: the record never shows more RHS calls than the budget, and a
// run stopped by it ends step_limit saying so.
TEST(Budgets, NoStepperCallsTheRhsPastItsBudget) {
  std::mt19937_64 random(11);
  for (const StepperSpec& spec : stepper_list()) {
    for (int trial = 0; trial < 6; ++trial) {
      RunConfig c = pendulum(spec.id);
      c.t_end = 0.2;
      if (spec.kind == StepperKind::fixed)
        c.dt = 1e-3;
      else
        c.abs_tol = c.rel_tol = 1e-8;
      c.limits.max_rhs_calls = 1 + static_cast<long>(random() % 400);
      PreparedRun run = prepare_run(c);
      const RunRecord record = execute_run(run).record;
      ASSERT_TRUE(record.work.has_value()) << spec.id;
      EXPECT_LE(record.work->rhs_calls, c.limits.max_rhs_calls)
          << spec.id << ": " << record.message;
      if (record.status != RunStatus::ok) {
        EXPECT_EQ(record.status, RunStatus::step_limit) << spec.id << ": " << record.message;
        EXPECT_NE(record.message.find("RHS-call budget reached"), std::string::npos)
            << record.message;
      }
    }
  }
}

// timing_max_s = 0 lets one repetition start, whatever the machine's speed: the record says why
// it has fewer than asked for.
TEST(Budgets, FewerRepetitionsThanAskedForSayWhy) {
  for (int repeat = 2; repeat <= 6; ++repeat) {
    RunConfig c = pendulum("rk4");
    c.dt = 1e-3;
    c.t_end = 0.1;
    c.repeat = repeat;
    c.timing_max_s = 0.0;
    PreparedRun run = prepare_run(c);
    const RunRecord record = execute_run(run).record;
    ASSERT_TRUE(record.timing.has_value());
    EXPECT_EQ(record.timing->repetitions, 1);
    ASSERT_TRUE(record.timing->note.has_value()) << "repeat " << repeat;
    EXPECT_EQ(record.timing->note->rfind("1 of the " + std::to_string(repeat) + " repetitions", 0),
              0u)
        << *record.timing->note;
  }
}

// ida (GGL) from generated perturbed starts: it cannot start, and says so at t = 0, never as a
// step limit; the same runs unperturbed start.
TEST(Budgets, IdaNamesAStartItCannotTakeInsteadOfFailingItsErrorTest) {
  std::mt19937_64 random(13);
  std::uniform_real_distribution<double> exponent(-5.0, -1.0);
  for (const char* problem : {"simple_pendulum", "crank_rocker", "slider_crank"}) {
    for (int trial = 0; trial < 4; ++trial) {
      RunConfig c;
      c.problem = problem;
      c.integrator = "ida";
      c.abs_tol = c.rel_tol = 1e-6;
      c.t_end = 0.1;
      c.repeat = 0;
      const double size = std::pow(10.0, exponent(random)) * (trial % 2 ? -1 : 1);
      (trial < 2 ? c.initial.perturb_position : c.initial.perturb_velocity) = size;
      PreparedRun run = prepare_run(c);
      const RunRecord record = execute_run(run).record;
      EXPECT_EQ(record.status, RunStatus::unsupported) << problem << " " << record.message;
      EXPECT_NE(record.message.find("cannot start"), std::string::npos) << record.message;
      c.initial.perturb_position = c.initial.perturb_velocity = 0.0;
      PreparedRun consistent = prepare_run(c);
      EXPECT_NE(execute_run(consistent).record.status, RunStatus::unsupported) << problem;
    }
  }
}

// Generated sizes and sample intervals: a run whose series would pass kMaxSeriesBytes is refused
// before it starts, naming a sample_dt that fits; every other one is prepared.
TEST(Budgets, ASeriesBeyondTheMemoryBoundIsRefusedBeforeTheRun) {
  std::mt19937_64 random(17);
  int refusals = 0;
  for (int trial = 0; trial < 60; ++trial) {
    RunConfig c = pendulum("rk4");
    c.problem = "n_four_bar";
    const long n = 1 + static_cast<long>(random() % 1000);
    c.problem_params = {{"N", n}};
    c.t_end = 1.0;
    c.dt = 1e-6;
    c.limits.max_steps = 2'000'000;
    c.sample_dt = std::pow(10.0, -1.0 - static_cast<double>(random() % 6));
    std::string message;
    bool was_refused = false;
    std::size_t bytes = 0;
    try {
      const PreparedRun run = prepare_run(c);
      bytes = series_bytes(run);
    } catch (const InputError& e) {
      was_refused = true;
      message = e.what();
    }
    if (was_refused) {
      ++refusals;
      const std::string choose = "GB a run may record: choose --sample-dt ";
      const auto at = message.find(choose);
      ASSERT_NE(at, std::string::npos) << message;
      c.sample_dt = std::strtod(message.c_str() + at + choose.size(), nullptr);  // as suggested
      EXPECT_NO_THROW(prepare_run(c)) << message;
    } else {
      EXPECT_LE(static_cast<double>(bytes), kMaxSeriesBytes) << "N = " << n;
    }
  }
  EXPECT_GT(refusals, 5);
}

// Resident memory of a child process that executes `c` (KiB, the high-water mark), or -1 when
// the run did not end ok.
long resident_kib_of_run(const RunConfig& c) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return -1;
  const pid_t pid = ::fork();
  if (pid == 0) {  // never back into the test runner, whatever happens here
    ::close(pipe_fds[0]);
    long kib = -1;
    try {
      PreparedRun run = prepare_run(c);
      const RunResult result = execute_run(run);
      rusage usage{};
      ::getrusage(RUSAGE_SELF, &usage);
      if (result.record.status == RunStatus::ok) kib = usage.ru_maxrss;
    } catch (...) {
    }
    const bool sent = ::write(pipe_fds[1], &kib, sizeof kib) == sizeof kib;
    _exit(sent ? 0 : 1);
  }
  ::close(pipe_fds[1]);
  long kib = -1;
  if (::read(pipe_fds[0], &kib, sizeof kib) != sizeof kib) kib = -1;
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return kib;
}

// series_bytes is an upper estimate of what the samples take, and not a loose one: measured as
// the growth of a process's resident memory between 500 and 20 000 samples of one run.
TEST(Budgets, TheSeriesEstimateBoundsTheMemoryTheSamplesTake) {
  if (!test::AllocationCounter::available())
    GTEST_SKIP() << "sanitizers own malloc: resident memory is theirs";
  RunConfig c = pendulum("rk4");
  c.problem = "n_pendulum";
  c.problem_params = {{"N", 30}};
  c.t_end = 1.0;
  c.dt = 5e-5;
  c.sample_dt = 2e-3;
  const long few = resident_kib_of_run(c);
  const std::size_t few_bytes = series_bytes(prepare_run(c));
  c.sample_dt = 5e-5;
  const long many = resident_kib_of_run(c);
  const std::size_t many_bytes = series_bytes(prepare_run(c));
  ASSERT_GT(few, 0);
  ASSERT_GT(many, few);
  const double measured = static_cast<double>(many - few) * 1024.0;
  const double estimated = static_cast<double>(many_bytes - few_bytes);
  EXPECT_GE(estimated, measured) << "measured " << measured << " B, estimated " << estimated;
  EXPECT_LE(estimated, 4.0 * measured + 1e6) << "measured " << measured << " B";
}

}  // namespace
}  // namespace cmb
