#include "core/kkt.hpp"

#include <Eigen/SVD>

namespace cmb {

int row_rank(CMatRef J, double rel_tol) {
  if (J.rows() == 0) return 0;
  Eigen::JacobiSVD<Mat> svd(J);
  const auto& s = svd.singularValues();
  int rank = 0;
  for (Eigen::Index i = 0; i < s.size(); ++i)
    if (s(i) > rel_tol * s(0)) ++rank;
  return rank;
}

KktSolution kkt_oracle(CMatRef M, CMatRef J, CVecRef Q, CVecRef gamma) {
  const Eigen::Index n = M.rows();
  const Eigen::Index m = J.rows();
  Mat K = Mat::Zero(n + m, n + m);
  K.topLeftCorner(n, n) = M;
  K.topRightCorner(n, m) = J.transpose();
  K.bottomLeftCorner(m, n) = J;
  Vec rhs(n + m);
  rhs << Q, gamma;
  Eigen::CompleteOrthogonalDecomposition<Mat> cod(K);
  const Vec sol = cod.solve(rhs);
  KktSolution out;
  out.qdd = sol.head(n);
  out.lambda = sol.tail(m);
  out.rank_J = row_rank(J);
  out.lambda_unique = out.rank_J == m;
  return out;
}

KktSolution kkt_oracle(const Problem& problem, double t, CVecRef q, CVecRef v) {
  const Sizes s = problem.sizes();
  Mat M(s.nq, s.nq), J(s.m(), s.nq);
  Vec Q(s.nq), gamma(s.m());
  problem.mass_matrix(t, q, M);
  problem.forces(t, q, v, Q);
  problem.jacobian(t, q, J);
  problem.acceleration_rhs(t, q, v, gamma);
  return kkt_oracle(M, J, Q, gamma);
}

}  // namespace cmb
