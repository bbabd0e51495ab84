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
  constexpr Sizes(int nq_ = 0, int mh_ = 0, int mn_ = 0, int mu_ = 0)
      : nq(nq_), mh(mh_), mn(mn_), mu(mu_) {}
  int nq;
  int mh;
  int mn;
  int mu;
  int m() const { return mh + mn; }
};

}  // namespace cmb
