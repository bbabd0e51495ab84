#include "methods/base/coordinate_partition.hpp"

#include <algorithm>
#include <set>
#include <sstream>

#include "core/errors.hpp"

namespace cmb {

std::string canonical_index_list(const std::string& text) {
  if (text == "auto") return text;
  constexpr int kMaxDigits = 9;  // far beyond any model's size, and inside an int
  std::vector<long> indices;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    const auto first = item.find_first_not_of(' ');
    const auto last = item.find_last_not_of(' ');
    const std::string digits =
        first == std::string::npos ? std::string() : item.substr(first, last - first + 1);
    const bool decimal = !digits.empty() && digits.size() <= kMaxDigits &&
                         digits.find_first_not_of("0123456789") == std::string::npos;
    if (!decimal)
      throw InputError("'" + item + "' is not a coordinate index (write \"auto\" or indices " +
                       "such as \"0,2\")");
    indices.push_back(std::stol(digits));
  }
  if (indices.empty() || text.back() == ',')
    throw InputError("'" + text + "' " +
                     (indices.empty() ? "names no coordinate" : "ends with a comma") +
                     " (write \"auto\" or indices such as \"0,2\")");
  std::sort(indices.begin(), indices.end());
  if (std::adjacent_find(indices.begin(), indices.end()) != indices.end())
    throw InputError("'" + text + "' names a coordinate twice");
  std::string out;
  for (long index : indices) out += (out.empty() ? "" : ",") + std::to_string(index);
  return out;
}

void CoordinatePartition::bind(int n, int m) {
  n_ = n;
  m_ = m;
  Jz_.setZero(m, m);
  Ji_.setZero(m, n - m);
  permuted_.setZero(m);
  lu_ = Eigen::PartialPivLU<Mat>(m);
  full_lu_ = Eigen::FullPivLU<Mat>(m, n);
  chosen_.reserve(n - m);
  indep_.reserve(n - m);
  dep_.reserve(m);
}

void CoordinatePartition::set(const std::vector<int>& independent) {
  indep_ = independent;
  std::sort(indep_.begin(), indep_.end());
  dep_.clear();
  for (int i = 0; i < n_; ++i)
    if (!std::binary_search(indep_.begin(), indep_.end(), i)) dep_.push_back(i);
}

void CoordinatePartition::choose(CMatRef J) {
  full_lu_.compute(J);  // reuses its storage: choose runs at every accepted step by default
  chosen_.clear();
  for (int j = m_; j < n_; ++j) chosen_.push_back(full_lu_.permutationQ().indices()(j));
  set(chosen_);
}

void CoordinatePartition::set_from_text(const std::string& text, const std::string& param,
                                        const std::string& owner) {
  const std::string where = "parameter '" + param + "' of method '" + owner + "'";
  std::vector<int> chosen;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    std::size_t used = 0;
    int index = -1;
    try {
      index = std::stoi(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || index < 0 || index >= n_)
      throw InputError(where + ": '" + item + "' is not a coordinate index 0.." +
                       std::to_string(n_ - 1));
    chosen.push_back(index);
  }
  const auto k = static_cast<std::size_t>(n_ - m_);
  if (std::set<int>(chosen.begin(), chosen.end()).size() != k || chosen.size() != k)
    throw InputError(where + " needs " + std::to_string(k) + " distinct indices (n − m), got '" +
                     text + "'");
  set(std::move(chosen));
}

void CoordinatePartition::split(CMatRef J) {
  for (int j = 0; j < m_; ++j) Jz_.col(j) = J.col(dep_[j]);
  for (int j = 0; j < n_ - m_; ++j) Ji_.col(j) = J.col(indep_[j]);
  lu_.compute(Jz_);
}

// Eigen's solve() and in-place permutations take heap temporaries, so the permutation goes
// through a member buffer.
void CoordinatePartition::solve(VecRef b) {
  permuted_.noalias() = lu_.permutationP() * b;
  b = permuted_;
  lu_.matrixLU().triangularView<Eigen::UnitLower>().solveInPlace(b);
  lu_.matrixLU().triangularView<Eigen::Upper>().solveInPlace(b);
}

void CoordinatePartition::solve_transposed(VecRef b) {
  lu_.matrixLU().triangularView<Eigen::Upper>().transpose().solveInPlace(b);
  lu_.matrixLU().triangularView<Eigen::UnitLower>().transpose().solveInPlace(b);
  permuted_.noalias() = lu_.permutationP().transpose() * b;
  b = permuted_;
}

double CoordinatePartition::quality(CMatRef J) const {
  return lu_.rcond() * Jz_.cwiseAbs().colwise().sum().maxCoeff() /
         J.cwiseAbs().colwise().sum().maxCoeff();
}

}  // namespace cmb
