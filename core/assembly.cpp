#include "core/assembly.hpp"

#include <Eigen/SVD>

namespace cmb {

namespace {

// Directions with relative pivots below 1e-8 count as rank loss: near a redundant configuration
// (Bricard) J is only numerically rank-deficient, and inverting its tiny pivots would throw the
// correction far along them.
Mat pseudo_inverse_solve_basis(CMatRef A) {
  Eigen::JacobiSVD<Mat> svd(A, Eigen::ComputeThinU | Eigen::ComputeThinV);
  const auto& s = svd.singularValues();
  Vec inverse = Vec::Zero(s.size());
  for (Eigen::Index i = 0; i < s.size(); ++i)
    if (s(i) > 1e-8 * s(0)) inverse(i) = 1.0 / s(i);
  return svd.matrixV() * inverse.asDiagonal() * svd.matrixU().transpose();
}

}  // namespace

double position_residual(const Problem& problem, double t, CVecRef q) {
  const int mh = problem.sizes().mh;
  if (mh == 0) return 0.0;
  Vec Phi(mh);
  problem.constraints(t, q, Phi);
  return Phi.lpNorm<Eigen::Infinity>();
}

double velocity_residual(const Problem& problem, double t, CVecRef q, CVecRef v) {
  const Sizes s = problem.sizes();
  if (s.m() == 0) return 0.0;
  Mat J(s.m(), s.nq);
  Vec nu(s.m());
  problem.jacobian(t, q, J);
  problem.velocity_rhs(t, q, nu);
  return (J * v - nu).lpNorm<Eigen::Infinity>();
}

AssemblyResult assemble_positions(const Problem& problem, double t, VecRef q, double tol,
                                  int max_iterations, double offset) {
  const Sizes s = problem.sizes();
  AssemblyResult result;
  if (s.mh == 0) {
    result.converged = true;
    return result;
  }
  Vec Phi(s.mh);
  Mat J(s.m(), s.nq);
  for (result.iterations = 0; result.iterations <= max_iterations; ++result.iterations) {
    problem.constraints(t, q, Phi);
    Phi.array() -= offset;
    result.residual = Phi.lpNorm<Eigen::Infinity>();
    if (!(result.residual == result.residual)) return result;  // NaN: give up
    if (result.residual <= tol) {
      result.converged = true;
      return result;
    }
    if (result.iterations == max_iterations) break;
    problem.jacobian(t, q, J);
    q -= pseudo_inverse_solve_basis(J.topRows(s.mh)) * Phi;
  }
  return result;
}

double assemble_velocities(const Problem& problem, double t, CVecRef q, VecRef v,
                           double holonomic_rate) {
  const Sizes s = problem.sizes();
  if (s.m() == 0) return 0.0;
  Mat J(s.m(), s.nq);
  Vec nu(s.m());
  problem.jacobian(t, q, J);
  problem.velocity_rhs(t, q, nu);
  nu.head(s.mh).array() += holonomic_rate;
  v -= pseudo_inverse_solve_basis(J) * (J * v - nu);
  return (J * v - nu).lpNorm<Eigen::Infinity>();
}

}  // namespace cmb
