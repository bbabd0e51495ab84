// A partition q = [z; q_i] of the n coordinates into m dependent ones z and k = n − m independent
// ones q_i, with the LU of the dependent column block Φ_z of J: the coordinate-partitioning
// method's bookkeeping, apart from its dynamics. No call allocates once bound.
#pragma once

#include <Eigen/LU>
#include <string>
#include <vector>

#include "core/types.hpp"

namespace cmb {

// The one spelling of a user's choice of independent coordinates: "auto", or decimal indices
// separated by commas (spaces around them allowed), written in increasing order without spaces
// or leading zeros ("3, 1" → "1,3"). Anything else ("1x", "1.9", "1e3", "-1", "", a repeated
// index) is an InputError saying what is wrong. Ranges are checked by set_from_text, which
// knows n.
std::string canonical_index_list(const std::string& text);

class CoordinatePartition {
 public:
  void bind(int n, int m);

  // The largest pivots of a fully pivoted LU of J mark the best-conditioned dependent set.
  void choose(CMatRef J);
  // A user's choice of independent coordinates, "i,j,...": k distinct indices in 0..n−1, else an
  // InputError naming `param` of `owner`.
  void set_from_text(const std::string& text, const std::string& param, const std::string& owner);

  // Splits J into Φ_z and Φ_i and factorizes Φ_z.
  void split(CMatRef J);
  void solve(VecRef b);             // b ← Φ_z⁻¹ b
  void solve_transposed(VecRef b);  // b ← Φ_z⁻ᵀ b
  double rcond() const { return lu_.rcond(); }
  // 1/(‖Φ_z⁻¹‖·‖J‖) in the 1-norm, i.e. rcond(Φ_z) scaled by ‖Φ_z‖/‖J‖, so that a 1 × 1 block
  // (whose rcond is always 1) is still judged against the whole Jacobian.
  double quality(CMatRef J) const;

  const std::vector<int>& dependent() const { return dep_; }
  const std::vector<int>& independent() const { return indep_; }
  const Mat& independent_block() const { return Ji_; }  // Φ_i

 private:
  void set(const std::vector<int>& independent);

  int n_ = 0, m_ = 0;
  std::vector<int> dep_, indep_;
  Mat Jz_, Ji_;
  Vec permuted_;
  Eigen::PartialPivLU<Mat> lu_;
  Eigen::FullPivLU<Mat> full_lu_;  // choose()'s
  std::vector<int> chosen_;
};

}  // namespace cmb
