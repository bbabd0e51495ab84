#include "harness/run/branch_monitor.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "harness/run/metrics.hpp"

namespace cmb {

BranchMonitor::BranchMonitor(const Problem& problem, Formulation& method)
    : problem_(problem), method_(method), indicators_(problem.branch_indicators()) {
  const Eigen::Index nq = problem.sizes().nq;
  const auto k = static_cast<Eigen::Index>(indicators_.size());
  for (const BranchIndicator& ind : indicators_)
    if (ind.kind == BranchIndicator::Kind::value && ind.rate_tolerance > 0.0) checks_rates_ = true;
  for (Vec* v : {&q_, &v_, &q_shift_}) v->setZero(nq);
  for (Vec* v : {&b0_, &b_, &b_plus_, &b_minus_, &rate_}) v->setZero(k);
}

void BranchMonitor::start(double t, CVecRef x) {
  if (!active()) return;
  method_.unpack(t, x, q_, v_);
  problem_.branch_indicator_values(t, q_, b0_);
  for (std::size_t i = 0; i < indicators_.size(); ++i)
    if (indicators_[i].kind == BranchIndicator::Kind::sign && !(std::abs(b0_(i)) > 0.0))
      throw std::logic_error("branch indicator '" + indicators_[i].name + "' of problem '" +
                             problem_.info().id + "' is zero at the initial state");
  min_margin_ = 1.0;
  worst_ = 0;
  worst_is_rate_ = false;
  worst_t_ = t;
}

double BranchMonitor::margin(Eigen::Index i) const {
  const BranchIndicator& ind = indicators_[i];
  if (ind.kind == BranchIndicator::Kind::sign)
    return b_(i) * std::copysign(1.0, b0_(i)) / std::abs(b0_(i));
  return 1.0 - std::abs(b_(i) - b0_(i)) / ind.tolerance;
}

double BranchMonitor::rate_margin(Eigen::Index i) const {
  const BranchIndicator& ind = indicators_[i];
  if (ind.kind != BranchIndicator::Kind::value || !(ind.rate_tolerance > 0.0)) return 1.0;
  return 1.0 - std::abs(rate_(i)) / ind.rate_tolerance;
}

// db/dt along the motion by a central difference in (t, q) along (1, v): every indicator the
// catalog declares is smooth (affine in q for A02), so the difference error is far below any
// rate tolerance. The shift moves q by 1e-6 of the mechanism's size.
void BranchMonitor::evaluate_rates(double t) {
  const double speed = v_.lpNorm<Eigen::Infinity>();
  const double size = std::max(1.0, q_.lpNorm<Eigen::Infinity>());
  const double dt = speed > 0.0 ? 1e-6 * size / speed : 1e-6;
  q_shift_ = q_ + dt * v_;
  problem_.branch_indicator_values(t + dt, q_shift_, b_plus_);
  q_shift_ = q_ - dt * v_;
  problem_.branch_indicator_values(t - dt, q_shift_, b_minus_);
  rate_ = (b_plus_ - b_minus_) / (2.0 * dt);
}

BranchMonitor::Worst BranchMonitor::worst_margin() const {
  Worst worst{margin(0), 0, false};
  auto consider = [&worst](double m, Eigen::Index i, bool rate) {
    if (m < worst.margin || std::isnan(m)) worst = {m, i, rate};
  };
  for (Eigen::Index i = 0; i < b_.size(); ++i) {
    consider(margin(i), i, false);
    if (checks_rates_) consider(rate_margin(i), i, true);
  }
  return worst;
}

bool BranchMonitor::on_branch(double t, CVecRef x, std::string& message) {
  if (!active()) return true;
  method_.unpack(t, x, q_, v_);
  problem_.branch_indicator_values(t, q_, b_);
  if (checks_rates_) evaluate_rates(t);
  const Worst worst = worst_margin();
  if (worst.margin < min_margin_ || std::isnan(worst.margin)) {
    min_margin_ = worst.margin;
    worst_ = worst.index;
    worst_is_rate_ = worst.rate;
    worst_t_ = t;
  }
  if (worst.margin >= 0.0) return true;
  message = describe(t, worst);
  return false;
}

std::string BranchMonitor::describe(double t, const Worst& worst) const {
  const BranchIndicator& ind = indicators_[worst.index];
  const Eigen::Index i = worst.index;
  std::ostringstream msg;
  msg.precision(6);
  msg << "left the reference's assembly branch at t = " << t << ": indicator '" << ind.name << "' ("
      << ind.meaning << ") ";
  if (worst.rate)
    msg << "changes at " << rate_(i) << " per s, faster than " << ind.rate_tolerance
        << " (on the branch it stays at " << b0_(i) << "; now " << b_(i) << ")";
  else if (ind.kind == BranchIndicator::Kind::sign)
    msg << "changed sign, " << b0_(i) << " at t = 0, " << b_(i) << " now";
  else
    msg << "moved by " << std::abs(b_(i) - b0_(i)) << " > " << ind.tolerance
        << " from its initial value " << b0_(i);
  return msg.str();
}

std::optional<BranchMetrics> BranchMonitor::summary() const {
  if (!active()) return std::nullopt;
  BranchMetrics out{static_cast<std::int64_t>(indicators_.size()), min_margin_,
                    indicators_[worst_].name, worst_t_, std::nullopt};
  if (checks_rates_) out.of = worst_is_rate_ ? "rate" : "value";
  return out;
}

}  // namespace cmb
