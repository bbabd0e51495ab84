// The dopri87 stepper: Prince and Dormand's RK8(7)13M (steppers/prince_dormand87.hpp) on the
// harness's stage engine (steppers/explicit_rk.hpp), with Boost.Odeint's controller for error
// steppers — the rules dopri87 had when it ran on odeint's generic Runge–Kutta stepper:
// err = max_i |h Σ (b − b̂)_j k_j,i| / (atol + rtol (|x_i| + |h| |ẋ_i|)); a step with err > 1 is
// rejected and h shrinks by max(0.9 err^(−1/6), 0.2) (1/6 = 1/(error order − 1)); after an
// accepted step h grows by 0.9 err^(−1/8) when err < 0.5 (err floored at 5⁻⁸), else stays.
// One difference from odeint: a rejected step keeps its first stage (the derivative at the
// unchanged start), so it costs 12 RHS calls instead of odeint's 13; an accepted one costs 13.
#pragma once

#include <algorithm>
#include <boost/numeric/odeint/stepper/controlled_step_result.hpp>
#include <cmath>
#include <vector>

#include "steppers/explicit_rk.hpp"
#include "steppers/prince_dormand87.hpp"

namespace cmb::detail {

class PrinceDormand87 {
 public:
  using State = std::vector<double>;

  PrinceDormand87(double abs_tol, double rel_tol) : abs_tol_(abs_tol), rel_tol_(rel_tol) {}

  void reset() { rk_.forget_first_stage(); }

  template <class System>
  boost::numeric::odeint::controlled_step_result try_step(System system, State& x, double& t,
                                                          double& dt) {
    rk_.compute(system, x, t, dt);
    const double err = error_norm(x, dt);
    if (!(err <= 1.0)) {  // also NaN: shrink by the largest factor
      dt *= std::isfinite(err) ? std::max(0.9 * std::pow(err, -1.0 / 6.0), 0.2) : 0.2;
      return boost::numeric::odeint::fail;
    }
    rk_.advance(x);
    t += dt;
    if (err < 0.5) dt *= 0.9 * std::pow(std::max(err, std::pow(5.0, -8.0)), -1.0 / 8.0);
    return boost::numeric::odeint::success;
  }

  // One step of the 8th-order solution without error control (order tests, fixed_steps).
  template <class System>
  void do_step(System system, State& x, double t, double dt) {
    rk_.compute(system, x, t, dt);
    rk_.advance(x);
  }

 private:
  double error_norm(const State& x, double h) {
    const double* dxdt = rk_.stage(0);
    const State& difference = rk_.combination(prince_dormand87::kPair.error_weights);
    double worst = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double estimate = std::abs(h * difference[i]);
      const double scale = abs_tol_ + rel_tol_ * (std::abs(x[i]) + std::abs(h) * std::abs(dxdt[i]));
      worst = std::max(worst, estimate / scale);
    }
    return worst;
  }

  double abs_tol_, rel_tol_;
  RkStages<prince_dormand87::kStages> rk_{prince_dormand87::kPair.tableau};
};

}  // namespace cmb::detail
