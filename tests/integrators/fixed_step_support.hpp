// Shared checks of the fixed-step DAE integrators (generalized_alpha, ali3p) on
// simple_pendulum, whose reference is its exact solution.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "harness/run/run.hpp"
#include "steppers/steppers.hpp"
#include "test_support.hpp"

namespace cmb::test {

// The record of one pendulum run, checked to have ended ok as the integrator's second-order run.
inline nlohmann::json pendulum_run(const std::string& integrator, double dt, double t_end,
                                   const nlohmann::json& params = nlohmann::json::object()) {
  RunConfig c;
  c.problem = "simple_pendulum";
  c.integrator = integrator;
  c.method_params = params;
  c.dt = dt;
  c.t_end = t_end;
  const auto r = quick_run(c);
  EXPECT_EQ(r["status"], "ok") << integrator << " dt=" << dt << ": " << r["message"];
  EXPECT_EQ(r["method"]["id"], integrator);
  EXPECT_EQ(r["stepper"]["order"], 2);
  return r;
}

// Largest error of the positions x, y over the samples (1 when the run failed).
inline double position_error(const nlohmann::json& record) {
  if (record["status"] != "ok") return 1.0;
  const auto& outputs = record["metrics"]["error"]["outputs"];
  return std::max(outputs["x"]["max_abs"].get<double>(), outputs["y"]["max_abs"].get<double>());
}

}  // namespace cmb::test
