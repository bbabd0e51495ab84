/// \file
/// Vocabulary types shared by every layer. Hot-path functions take Eigen::Ref so that callers can
/// pass blocks and maps of preallocated storage without copies or allocation.
#pragma once

#include <Eigen/Dense>

/// cmbench's C++ library: the problem, method and integrator interfaces, the catalog's entries and
/// the numerics they share.
namespace cmb {

/// A dense vector (states, q, v, λ).
using Vec = Eigen::VectorXd;
/// A dense matrix (M, J).
using Mat = Eigen::MatrixXd;
/// A writable view of a vector or a block of one, without copy.
using VecRef = Eigen::Ref<Vec>;
/// A read-only view of a vector or a block of one, without copy.
using CVecRef = const Eigen::Ref<const Vec>&;
/// A writable view of a matrix or a block of one, without copy.
using MatRef = Eigen::Ref<Mat>;
/// A read-only view of a matrix or a block of one, without copy.
using CMatRef = const Eigen::Ref<const Mat>&;

/// Sizes of a constrained model: nq coordinates (= nv speeds), mh holonomic rows Φ(t,q) = 0,
/// mn nonholonomic rows A_nh(t,q) v = c(t,q). All m = mh + mn rows stack in J. Separately, mu
/// unilateral rows g(t,q) ≥ 0 (supports, joint stops), which only methods that declare the
/// `inequality` capability accept.
struct Sizes {
  /// The sizes nq, mh, mn and mu.
  constexpr Sizes(int nq_ = 0, int mh_ = 0, int mn_ = 0, int mu_ = 0)
      : nq(nq_), mh(mh_), mn(mn_), mu(mu_) {}
  int nq;  ///< coordinates (and speeds)
  int mh;  ///< holonomic rows
  int mn;  ///< nonholonomic rows
  int mu;  ///< unilateral rows
  /// All equality rows, m = mh + mn.
  int m() const { return mh + mn; }
};

}  // namespace cmb
