#include "harness/branch_monitor.hpp"

#include <cmath>
#include <sstream>
#include <stdexcept>

#include "harness/metrics.hpp"

namespace cmb {

BranchMonitor::BranchMonitor(const Problem& problem, Method& method)
    : problem_(problem), method_(method), indicators_(problem.branch_indicators()) {
  const Eigen::Index nq = problem.sizes().nq;
  const auto k = static_cast<Eigen::Index>(indicators_.size());
  q_.setZero(nq);
  v_.setZero(nq);
  b0_.setZero(k);
  b_.setZero(k);
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
  worst_t_ = t;
}

double BranchMonitor::margin(Eigen::Index i) const {
  const BranchIndicator& ind = indicators_[i];
  if (ind.kind == BranchIndicator::Kind::sign)
    return b_(i) * std::copysign(1.0, b0_(i)) / std::abs(b0_(i));
  return 1.0 - std::abs(b_(i) - b0_(i)) / ind.tolerance;
}

bool BranchMonitor::on_branch(double t, CVecRef x, std::string& message) {
  if (!active()) return true;
  method_.unpack(t, x, q_, v_);
  problem_.branch_indicator_values(t, q_, b_);
  Eigen::Index worst = 0;
  double smallest = margin(0);
  for (Eigen::Index i = 1; i < b_.size(); ++i) {
    const double m = margin(i);
    if (m < smallest || std::isnan(m)) {
      smallest = m;
      worst = i;
    }
  }
  if (smallest < min_margin_ || std::isnan(smallest)) {
    min_margin_ = smallest;
    worst_ = worst;
    worst_t_ = t;
  }
  if (smallest >= 0.0) return true;
  const BranchIndicator& ind = indicators_[worst];
  std::ostringstream msg;
  msg.precision(6);
  msg << "left the reference's assembly branch at t = " << t << ": indicator '" << ind.name << "' ("
      << ind.meaning << ") ";
  if (ind.kind == BranchIndicator::Kind::sign)
    msg << "changed sign, " << b0_(worst) << " at t = 0, " << b_(worst) << " now";
  else
    msg << "moved by " << std::abs(b_(worst) - b0_(worst)) << " > " << ind.tolerance
        << " from its initial value " << b0_(worst);
  message = msg.str();
  return false;
}

nlohmann::json BranchMonitor::summary() const {
  if (!active()) return nullptr;
  return {{"indicators", indicators_.size()},
          {"min_margin", number_or_null(min_margin_)},
          {"at", indicators_[worst_].name},
          {"t", worst_t_}};
}

}  // namespace cmb
