// Vocabulary types shared by every layer. Hot-path functions take Eigen::Ref so that callers can
// pass blocks and maps of preallocated storage without copies or allocation.
#pragma once

#include <Eigen/Dense>

namespace cmb {

using Vec = Eigen::VectorXd;
using Mat = Eigen::MatrixXd;
using VecRef = Eigen::Ref<Vec>;
using CVecRef = const Eigen::Ref<const Vec>&;
using MatRef = Eigen::Ref<Mat>;
using CMatRef = const Eigen::Ref<const Mat>&;

// Sizes of a constrained model: nq coordinates (= nv speeds), mh holonomic rows Φ(t,q) = 0,
// mn nonholonomic rows A_nh(t,q) v = c(t,q). All m = mh + mn rows stack in J. Separately, mu
// unilateral rows g(t,q) ≥ 0 (supports, joint stops), which only methods that declare the
// `inequality` capability accept.
struct Sizes {
  int nq = 0;
  int mh = 0;
  int mn = 0;
  int mu = 0;
  int m() const { return mh + mn; }
};

}  // namespace cmb
