#include "integrators/base/jacobian_entries.hpp"

#include <sstream>
#include <stdexcept>

namespace cmb {

void JacobianEntries::record(const Problem& problem, double t, CVecRef q) {
  rows_.clear();
  cols_.clear();
  values_.clear();
  recording_ = true;
  problem.jacobian_entries(t, q, *this);
  recording_ = false;
}

void JacobianEntries::evaluate(const Problem& problem, double t, CVecRef q) {
  next_ = 0;
  problem.jacobian_entries(t, q, *this);
  if (next_ != values_.size()) {
    std::ostringstream msg;
    msg << problem.info().id << ": jacobian_entries sent " << next_ << " entries, the pattern has "
        << values_.size();
    throw std::logic_error(msg.str());
  }
}

void JacobianEntries::put(int row, int col, double value) {
  if (recording_) {
    rows_.push_back(row);
    cols_.push_back(col);
    values_.push_back(value);
    return;
  }
  if (next_ >= values_.size() || rows_[next_] != row || cols_[next_] != col)
    throw std::logic_error("jacobian_entries: the (row, col) sequence changed between calls");
  values_[next_++] = value;
}

void JacobianEntries::multiply(CVecRef x, VecRef out) const {
  out.setZero();
  for (std::size_t e = 0; e < values_.size(); ++e) out(rows_[e]) += values_[e] * x(cols_[e]);
}

void JacobianEntries::multiply_transpose(CVecRef y, VecRef out) const {
  out.setZero();
  for (std::size_t e = 0; e < values_.size(); ++e) out(cols_[e]) += values_[e] * y(rows_[e]);
}

void DiagonalProductPlan::build(const JacobianEntries& pattern) {
  const std::vector<int>& cols = pattern.cols();
  int n = 0;
  for (const int c : cols) n = std::max(n, c + 1);
  std::vector<std::vector<int>> by_column(n);
  for (std::size_t e = 0; e < cols.size(); ++e) by_column[cols[e]].push_back(static_cast<int>(e));
  terms_.clear();
  for (int k = 0; k < n; ++k)
    for (const int e : by_column[k])
      for (const int f : by_column[k]) terms_.push_back({e, f, k});
  rows_ = pattern.rows();
}

double DiagonalProductPlan::factorize(const JacobianEntries& a, CVecRef d, const JacobianEntries& b,
                                      SparseLu& lu) const {
  lu.begin();
  const std::vector<double>&va = a.values(), &vb = b.values();
  for (const Term& term : terms_)
    lu.add(rows_[term.e], rows_[term.f], va[term.e] * d(term.column) * vb[term.f]);
  return lu.factorize();
}

}  // namespace cmb
