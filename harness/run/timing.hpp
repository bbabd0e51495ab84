// How long a run takes, measured so that a reader can reproduce it: repetitions of the run
// without observer (the same step sequence as the instrumented run), on the wall clock and on
// the thread's CPU clock, at least `repeat` of them and more until they add up to timing_min_s
// (so that fast runs are timed over many repetitions, as benchmark tools do), none started past
// timing_max_s. They come in one block per core the thread may use, each pinned to its core (a
// core slowed by another guest's load cannot slow them all). The record's timing block gives
// minimum, median and maximum of each clock and their spread, the interquartile range over the
// median (the range below 4 repetitions), and each block's core and minima. A campaign
// takes them one run at a time after its parallel pass (harness/campaign/campaign_runner.cpp), so
// that no other work shares the machine.
#pragma once

#include <chrono>

#include "harness/run/run.hpp"

namespace cmb {

// The timing block of a run that is not repeated: the instrumented run only.
TimingRecord untimed(double instrumented_seconds);

// What a repetition must do again: the instrumented run ended ok after this much work.
struct RepeatedWork {
  long rhs_calls = 0, steps_accepted = 0, steps_rejected = 0;
};

// The timing block of an ok run from its initial state (q0, v0); the repetitions share the run's
// wall-time limit, counted from `start`. Each repetition starts from a formulation bound anew (a
// method may keep state from one run to the next: a partition, a warm start) and must end ok
// after exactly the instrumented run's work, since it is the time of that run that is recorded;
// one that does not leaves the run untimed, with a note saying how it differed.
TimingRecord timed_repetitions(PreparedRun& run, const Vec& q0, const Vec& v0,
                               double instrumented_seconds, const RepeatedWork& expected,
                               std::chrono::steady_clock::time_point start);

// The timing block of a prepared run computed on its own (a campaign's timing pass), whose
// instrumented run did `expected`: its initial state, then timed_repetitions. Numerical trouble
// (the run does not start as it did) gives an untimed block with a note.
TimingRecord time_prepared_run(PreparedRun& run, double instrumented_seconds,
                               const RepeatedWork& expected);

}  // namespace cmb
