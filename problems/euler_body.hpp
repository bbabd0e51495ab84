// A spatial rigid body in Euler parameters, shared by the problems that use them (lagrange_top,
// spatial_slider_crank; [Haug1989] ch. 11): the rotation A(p), the map G(p) from parameter rates
// to the body angular velocity, the Jacobian of a body-fixed vector A(p) s̄ with respect to p,
// and the rotational mass matrix, quadratic-velocity forces and kinetic energy of Lagrange's
// equations in p.
// A(p) = (e0² − eᵀe) I + 2 e eᵀ + 2 e0 ẽ is quadratic in p (a rotation times |p|²), so
// A(p) s̄ has the Jacobian B(p, s̄), linear in p, with B(p, s̄) p = 2 A(p) s̄; its second time
// derivative is B(p, s̄) p̈ + 2 A(ṗ) s̄ — the γ term of every row built from it is −2 A(ṗ) s̄.
// Kinetic energy ω̄ᵀJ̄ω̄/2 with ω̄ = 2 G(p) ṗ gives 4 GᵀJ̄G p̈ = 8 G(ṗ)ᵀJ̄G(ṗ) p + constraint
// forces. 4GᵀJ̄G is singular along p (G p = 0); the mass matrix adds 4 j·p pᵀ (j the smallest
// principal inertia), which only moves the multiplier of the normalization row (pᵀp − 1)/2
// (its Jᵀ is p), so M is positive definite and the motion unchanged.
// Header-only: it needs no build rule of its own.
#pragma once

#include <Eigen/Dense>

namespace cmb::euler_body {

using Quaternion = Eigen::Vector4d;
using Matrix34 = Eigen::Matrix<double, 3, 4>;

inline Eigen::Matrix3d skew(const Eigen::Vector3d& a) {
  Eigen::Matrix3d s;
  s << 0.0, -a.z(), a.y(), a.z(), 0.0, -a.x(), -a.y(), a.x(), 0.0;
  return s;
}

// A(p), a rotation for |p| = 1 (quadratic in p otherwise).
inline Eigen::Matrix3d rotation(const Quaternion& p) {
  const Eigen::Vector3d e = p.tail<3>();
  return (p(0) * p(0) - e.squaredNorm()) * Eigen::Matrix3d::Identity() + 2.0 * e * e.transpose() +
         2.0 * p(0) * skew(e);
}

// G(p) = [−e, e0 I − ẽ]: ω̄ = 2 G(p) ṗ.
inline Matrix34 rate_map(const Quaternion& p) {
  Matrix34 G;
  G.col(0) = -p.tail<3>();
  G.rightCols<3>() = p(0) * Eigen::Matrix3d::Identity() - skew(p.tail<3>());
  return G;
}

// B(p, s̄) = ∂(A(p) s̄)/∂p = 2 [e0 s̄ + e × s̄, (eᵀs̄) I + e s̄ᵀ − s̄ eᵀ − e0 s̃].
inline Matrix34 point_jacobian(const Quaternion& p, const Eigen::Vector3d& s) {
  const Eigen::Vector3d e = p.tail<3>();
  Matrix34 B;
  B.col(0) = 2.0 * (p(0) * s + e.cross(s));
  B.rightCols<3>() = 2.0 * (e.dot(s) * Eigen::Matrix3d::Identity() + e * s.transpose() -
                            s * e.transpose() - p(0) * skew(s));
  return B;
}

// The rotational block of M for principal inertias J̄ (body frame): 4GᵀJ̄G + 4 j·p pᵀ, j = min J̄.
inline Eigen::Matrix4d rotational_mass(const Quaternion& p, const Eigen::Vector3d& inertia) {
  const Matrix34 G = rate_map(p);
  return 4.0 * G.transpose() * inertia.asDiagonal() * G +
         (4.0 * inertia.minCoeff()) * p * p.transpose();
}

// The quadratic-velocity forces of Lagrange's equations in p: 8 G(ṗ)ᵀJ̄G(ṗ) p.
inline Eigen::Vector4d rotational_forces(const Quaternion& p, const Quaternion& p_rate,
                                         const Eigen::Vector3d& inertia) {
  const Matrix34 G_rate = rate_map(p_rate);
  return 8.0 * G_rate.transpose() * inertia.asDiagonal() * (G_rate * p);
}

// ω̄ᵀJ̄ω̄/2.
inline double rotational_energy(const Quaternion& p, const Quaternion& p_rate,
                                const Eigen::Vector3d& inertia) {
  const Eigen::Vector3d body_rate = 2.0 * rate_map(p) * p_rate;
  return 0.5 * body_rate.dot(inertia.asDiagonal() * body_rate);
}

// ṗ = G(p)ᵀ ω̄ / 2 for a body angular velocity ω̄ (unit p: it keeps pᵀṗ = 0).
inline Quaternion parameter_rates(const Quaternion& p, const Eigen::Vector3d& body_rate) {
  return 0.5 * rate_map(p).transpose() * body_rate;
}

// The unit Euler parameters of a rotation matrix (e0 ≥ 0).
inline Quaternion parameters_of(const Eigen::Matrix3d& R) {
  const Eigen::Quaterniond q(R);
  Quaternion p(q.w(), q.x(), q.y(), q.z());
  return p(0) < 0.0 ? Quaternion(-p) : p;
}

}  // namespace cmb::euler_body
