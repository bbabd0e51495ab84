// Watches the assembly branch of a run: evaluates the problem's branch indicators
// (core/problem.hpp) at every accepted step and compares them with their values at t = 0. A run
// whose state satisfies the constraints on another branch (a different assembly mode, or the
// folded branch of IFToMM A02 after a singular position) would otherwise end `ok` with an error
// that only a reference reveals. Value indicators that declare a rate tolerance are also checked
// through their rate along the motion: a jump at a singular passage sends the velocity off the
// branch at once, while the indicator's value needs a while to follow.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/formulation.hpp"
#include "core/problem.hpp"
#include "records/run_record.hpp"

namespace cmb {

class BranchMonitor {
 public:
  BranchMonitor(const Problem& problem, Formulation& method);

  bool active() const { return !indicators_.empty(); }
  // Records the indicators at the initial state; a sign indicator that is zero there cannot
  // tell branches apart (the problem's definition is at fault): it throws std::logic_error.
  void start(double t, CVecRef x);
  // False when an indicator (or its rate) left its branch; `message` then names it, its value
  // and t.
  bool on_branch(double t, CVecRef x, std::string& message);
  // {"indicators": K, "min_margin", "at", "t"}: the smallest margin seen (1 at t = 0, < 0 off
  // the branch; sign: b·sign(b0)/|b0|, value: 1 − |b − b0|/tolerance, rate:
  // 1 − |db/dt|/rate_tolerance), the indicator and t; null if none. Where rates are checked,
  // "of" says whether the smallest margin was the indicator's "value" or its "rate".
  std::optional<BranchMetrics> summary() const;

 private:
  struct Worst {
    double margin;
    Eigen::Index index;
    bool rate;
  };
  double margin(Eigen::Index i) const;
  double rate_margin(Eigen::Index i) const;
  Worst worst_margin() const;
  void evaluate_rates(double t);
  std::string describe(double t, const Worst& worst) const;

  const Problem& problem_;
  Formulation& method_;
  std::vector<BranchIndicator> indicators_;
  bool checks_rates_ = false;
  Vec q_, v_, b0_, b_, q_shift_, b_plus_, b_minus_, rate_;
  double min_margin_ = 1.0;
  Eigen::Index worst_ = 0;
  bool worst_is_rate_ = false;
  double worst_t_ = 0.0;
};

}  // namespace cmb
