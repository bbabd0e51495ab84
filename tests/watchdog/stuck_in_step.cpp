// stuck_in_step — a test-only method that blocks inside the first step of a run, so that the
// tests of the run watchdog and of the campaign parent's kill see a run stuck past its time limit
// on any machine, however fast or loaded, instead of relying on a problem being slow there.
// The first RHS call at t > 0 (a stage inside the first step: the recorder's call at t = 0 comes
// before any step) announces itself on stderr and sleeps `seconds` (default 600); every other call
// returns at once. Accelerations and multipliers are zero: there is no physics here, only a step
// that does not end. Built only into tests/CMakeLists.txt's cmbench_stuck (the full cmbench command
// line plus this method), never into cmbench itself.
#include <chrono>
#include <cstdio>
#include <thread>

#include "core/registry.hpp"
#include "methods/base/acceleration_method.hpp"

namespace cmb {
namespace {

class StuckInStep : public AccelerationMethod {
 public:
  explicit StuckInStep(const Params& params)
      : AccelerationMethod(params, {}), seconds_(params.number("seconds")) {}

 private:
  void solve_accelerations(double t) override {
    if (t > 0.0 && !blocked_) {
      blocked_ = true;  // once per process: a limit's stop must come while this call sleeps
      std::fprintf(stderr, "stuck_in_step: blocking inside the first step at t = %g\n", t);
      std::fflush(stderr);
      std::this_thread::sleep_for(std::chrono::duration<double>(seconds_));
    }
    qdd_.setZero();
    lambda_.setZero();
  }

  double seconds_;
  bool blocked_ = false;
};

}  // namespace
}  // namespace cmb

CMB_DEFINE_METHOD(stuck_in_step) {
  cmb::MethodEntry entry;
  entry.id = "stuck_in_step";
  entry.display_name = "Stuck in step (test)";
  entry.summary = "test only: the first step of a run blocks for `seconds` (no physics)";
  entry.params = {cmb::positive_number("seconds", 600.0,
                                       "how long the first RHS call inside a step sleeps [s]")};
  entry.make = [](const cmb::Params& p) { return std::make_unique<cmb::StuckInStep>(p); };
  return entry;
}
