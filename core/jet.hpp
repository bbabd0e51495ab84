/// \file
/// Second-order forward-mode differentiation in one scalar parameter: a Jet2 carries f, df/dφ and
/// d²f/dφ². Problems with one degree of freedom write their closed-form kinematics q(φ) once with
/// Jet2 and get the tangent q'(φ) and curvature q''(φ) exactly, which is what the reduced
/// one-coordinate reference ODE needs (core/chart_reference.hpp).
#pragma once

#include <cmath>

namespace cmb {

/// A value with its first and second derivatives in one parameter φ.
struct Jet2 {
  double v = 0.0;   ///< value
  double d = 0.0;   ///< first derivative
  double dd = 0.0;  ///< second derivative

  /// Zero.
  Jet2() = default;
  Jet2(double value) : v(value) {}  ///< constants: implicit on purpose, so formulas read naturally
  /// A value with its first and second derivatives.
  Jet2(double value, double first, double second) : v(value), d(first), dd(second) {}

  /// The parameter φ itself at `value` (dφ/dφ = 1).
  static Jet2 variable(double value) { return {value, 1.0, 0.0}; }
};

/// f(a) given f(a.v), f'(a.v), f''(a.v): the chain rule to second order.
inline Jet2 chain(const Jet2& a, double f, double df, double ddf) {
  return {f, df * a.d, ddf * a.d * a.d + df * a.dd};
}

/// Sum.
inline Jet2 operator+(const Jet2& a, const Jet2& b) { return {a.v + b.v, a.d + b.d, a.dd + b.dd}; }
/// Difference.
inline Jet2 operator-(const Jet2& a, const Jet2& b) { return {a.v - b.v, a.d - b.d, a.dd - b.dd}; }
/// Negation.
inline Jet2 operator-(const Jet2& a) { return {-a.v, -a.d, -a.dd}; }
/// Product (Leibniz rule to second order).
inline Jet2 operator*(const Jet2& a, const Jet2& b) {
  return {a.v * b.v, a.d * b.v + a.v * b.d, a.dd * b.v + 2.0 * a.d * b.d + a.v * b.dd};
}
/// 1 / b.
inline Jet2 reciprocal(const Jet2& b) {
  const double r = 1.0 / b.v;
  return chain(b, r, -r * r, 2.0 * r * r * r);
}
/// Quotient.
inline Jet2 operator/(const Jet2& a, const Jet2& b) { return a * reciprocal(b); }

/// Sine.
inline Jet2 sin(const Jet2& a) { return chain(a, std::sin(a.v), std::cos(a.v), -std::sin(a.v)); }
/// Cosine.
inline Jet2 cos(const Jet2& a) { return chain(a, std::cos(a.v), -std::sin(a.v), -std::cos(a.v)); }
/// Square root (a.v > 0).
inline Jet2 sqrt(const Jet2& a) {
  const double s = std::sqrt(a.v);
  return chain(a, s, 0.5 / s, -0.25 / (s * a.v));
}
/// Arc sine (|a.v| < 1).
inline Jet2 asin(const Jet2& a) {
  const double c2 = 1.0 - a.v * a.v;
  const double c = std::sqrt(c2);
  return chain(a, std::asin(a.v), 1.0 / c, a.v / (c2 * c));
}
/// The angle of (x, y), as std::atan2.
inline Jet2 atan2(const Jet2& y, const Jet2& x) {
  const double r2 = x.v * x.v + y.v * y.v;
  const double n = x.v * y.d - y.v * x.d;  // r² θ'
  const double dn = x.v * y.dd - y.v * x.dd;
  const double dr2 = 2.0 * (x.v * x.d + y.v * y.d);
  return {std::atan2(y.v, x.v), n / r2, (dn * r2 - n * dr2) / (r2 * r2)};
}

}  // namespace cmb
