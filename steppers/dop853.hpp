// DOP853 as a controlled stepper of the harness's step loop: Dormand and Prince's 8th-order
// method (steppers/dop853_tableau.hpp) with Hairer and Wanner's error estimate and step-size
// control ([HairerNorsettWanner1993], §II.10, and their code DOP853).
//
// Error: the 5th- and 3rd-order estimates e5, e3 are measured in the root-mean-square norm with
// weights sk_i = atol + rtol · max(|x_i|, |x_new,i|), and combined as
// err = |h| ‖e5‖² / sqrt(‖e5‖² + 0.01 ‖e3‖²): a 5th-order estimate that the 3rd-order one keeps
// from vanishing by accident, scaled so that err behaves like h⁸ for small h.
// Control: h_new = h · min(6, max(1/3, 0.9 · err^(−1/8))); a step following a rejection may not
// grow. (DOP853 has an optional PI term, β; its default is 0, used here.)
// Work: the derivative at the new state is evaluated once and serves as the next step's first
// stage, so an accepted step costs 12 RHS calls and a rejected one 11 (the first stage is kept).
// It is taken at the start of the next attempt, so a step the method rejects (StepRejected)
// leaves the stepper consistent; reset() forgets it (after a projection changed the state).
#pragma once

#include <algorithm>
#include <boost/numeric/odeint/stepper/controlled_step_result.hpp>
#include <cmath>
#include <vector>

#include "steppers/dop853_tableau.hpp"
#include "steppers/explicit_rk.hpp"

namespace cmb::detail {

class Dop853 {
 public:
  using State = std::vector<double>;

  Dop853(double abs_tol, double rel_tol) : abs_tol_(abs_tol), rel_tol_(rel_tol) {}

  void reset() {
    rk_.forget_first_stage();
    after_rejection_ = false;
  }

  // odeint's controlled-stepper call: on success x and t advance and dt becomes the proposal
  // for the next step; on failure only dt shrinks.
  template <class System>
  boost::numeric::odeint::controlled_step_result try_step(System system, State& x, double& t,
                                                          double& dt) {
    rk_.compute(system, x, t, dt);
    const double err = error_norm(x, dt);
    last_error_ = err;
    const double fac11 = std::pow(err, 1.0 / 8.0);
    if (!(err <= 1.0)) {  // also NaN: shrink by the largest factor
      dt /= std::min(kMaxShrink, fac11 / kSafety);
      after_rejection_ = true;
      return boost::numeric::odeint::fail;
    }
    double next = dt / std::max(1.0 / kMaxGrowth, std::min(kMaxShrink, fac11 / kSafety));
    if (after_rejection_) next = std::min(next, dt);
    after_rejection_ = false;
    rk_.advance(x);
    t += dt;
    dt = next;
    return boost::numeric::odeint::success;
  }

  // DOP853's err of the last attempted step (≤ 1: accepted); it scales like h⁸.
  double last_error() const { return last_error_; }

  // One step of the 8th-order method without error control (order tests, fixed_steps).
  template <class System>
  void do_step(System system, State& x, double t, double dt) {
    rk_.compute(system, x, t, dt);
    rk_.advance(x);
  }

 private:
  static constexpr double kSafety = 0.9;
  static constexpr double kMaxShrink = 3.0;  // 1 / DOP853's fac1 = 0.333
  static constexpr double kMaxGrowth = 6.0;  // DOP853's fac2

  // DOP853's err (≤ 1: accept) for the step of size h from x to x_new.
  double error_norm(const State& x, double h) {
    namespace tab = dop853;
    const State& x_new = rk_.x_new();
    const double *k1 = rk_.stage(0), *k9 = rk_.stage(8), *k12 = rk_.stage(11);
    const State& fifth = rk_.combination(tab::kE5);
    double e5 = 0.0, e3 = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double sk = abs_tol_ + rel_tol_ * std::max(std::abs(x[i]), std::abs(x_new[i]));
      const double d5 = fifth[i];
      const double d3 = rk_.slope()[i] - tab::kB3Stage1 * k1[i] - tab::kB3Stage9 * k9[i] -
                        tab::kB3Stage12 * k12[i];
      e5 += (d5 / sk) * (d5 / sk);
      e3 += (d3 / sk) * (d3 / sk);
    }
    double denominator = e5 + 0.01 * e3;
    if (denominator <= 0.0) denominator = 1.0;
    return std::abs(h) * e5 / std::sqrt(static_cast<double>(x.size()) * denominator);
  }

  double abs_tol_, rel_tol_;
  double last_error_ = 0.0;
  bool after_rejection_ = false;
  RkStages<dop853::kStages> rk_{dop853::kTableau};
};

}  // namespace cmb::detail
