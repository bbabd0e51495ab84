// Andrews' squeezer written out by hand for bench_ida_direct (no Eigen, no cmbench code): the
// data and equations of the IVP test set's andrews.f (Hairer & Wanner, Solving ODEs II, VII.7),
// as in problems/andrews_squeezer.cpp, with the GGL residual, its iteration matrix and the
// consistent start that bench_ida_direct hands to IDA. Included by exactly one file (it defines
// functions and the residual counter).
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace andrews {
// ---------------------------------------------------------------------------------------------
// The model: andrews.f's data (SI units) and equations.

// q = (β, Θ, γ, Φ, δ, Ω, ε), six loop-closure rows, N unknowns of IDA; y (and the residual
// rows) in blocks q | v | λ | μ starting at kQ, kV, kLambda, kMu.
constexpr int n = 7, m = 6, N = 2 * n + 2 * m;
constexpr int kQ = 0, kV = n, kLambda = 2 * n, kMu = 2 * n + m;
constexpr double kTEnd = 0.03;

constexpr double m1 = .04325, m2 = .00365, m3 = .02373, m4 = .00706, m5 = .07050, m6 = .00706,
                 m7 = .05498;
constexpr double i1 = 2.194e-6, i2 = 4.410e-7, i3 = 5.255e-6, i4 = 5.667e-7, i5 = 1.169e-5,
                 i6 = 5.667e-7, i7 = 1.912e-5;
constexpr double xa = -.06934, ya = -.00227, xb = -.03635, yb = .03273, xc = .014, yc = .072;
constexpr double c0 = 4530, l0 = .07785, mom = .033;
constexpr double d = .028, da = .0115, e = .02, ea = .01421, rr = .007, ra = .00092, ss = .035,
                 sa = .01874, sb = .01043, sc = .018, sd = .02, ta = .02308, tb = .00916, u = .04,
                 ua = .01228, ub = .00449, zf = .02, zt = .04, fa = .01421;

constexpr double kQ0[n] = {-0.0617138900142764496358948458001, 0.0,
                           0.455279819163070380255912382449,   0.222668390165885884674473185609,
                           0.487364979543842550225598953530,   -0.222668390165885884674473185609,
                           1.23054744454982119249735015568};

// Sines and cosines of the ten angles the model uses, taken once per q.
struct Trig {
  double sb, cb;    // β
  double sbt, cbt;  // β + Θ
  double sg, cg;    // γ
  double spd, cpd;  // Φ + δ
  double sd, cd;    // δ
  double soe, coe;  // Ω + ε
  double se, ce;    // ε
  double sth, cth;  // Θ
  double sph, cph;  // Φ
  double som, com;  // Ω
};

Trig trig(const double* q) {
  Trig t;
  auto sc = [](double angle, double& s, double& c) {
    s = std::sin(angle);
    c = std::cos(angle);
  };
  sc(q[0], t.sb, t.cb);
  sc(q[0] + q[1], t.sbt, t.cbt);
  sc(q[2], t.sg, t.cg);
  sc(q[3] + q[4], t.spd, t.cpd);
  sc(q[4], t.sd, t.cd);
  sc(q[5] + q[6], t.soe, t.coe);
  sc(q[6], t.se, t.ce);
  sc(q[1], t.sth, t.cth);
  sc(q[3], t.sph, t.cph);
  sc(q[5], t.som, t.com);
  return t;
}

// M(q), row-major n × n (block diagonal: β, Θ | γ | Φ, δ | Ω, ε).
void mass_matrix(const Trig& t, double M[n][n]) {
  std::memset(M, 0, sizeof(double) * n * n);
  M[0][0] = m1 * ra * ra + m2 * (rr * rr - 2 * da * rr * t.cth + da * da) + i1 + i2;
  M[1][0] = M[0][1] = m2 * (da * da - da * rr * t.cth) + i2;
  M[1][1] = m2 * da * da + i2;
  M[2][2] = m3 * (sa * sa + sb * sb) + i3;
  M[3][3] = m4 * (e - ea) * (e - ea) + i4;
  M[4][3] = M[3][4] = m4 * ((e - ea) * (e - ea) + zt * (e - ea) * t.sph) + i4;
  M[4][4] = m4 * (zt * zt + 2 * zt * (e - ea) * t.sph + (e - ea) * (e - ea)) +
            m5 * (ta * ta + tb * tb) + i4 + i5;
  M[5][5] = m6 * (zf - fa) * (zf - fa) + i6;
  M[6][5] = M[5][6] = m6 * ((zf - fa) * (zf - fa) - u * (zf - fa) * t.som) + i6;
  M[6][6] = m6 * ((zf - fa) * (zf - fa) - 2 * u * (zf - fa) * t.som + u * u) +
            m7 * (ua * ua + ub * ub) + i6 + i7;
}

// Q(q, v): motor torque, spring D–C, and the velocity terms.
void forces(const Trig& t, const double* v, double* Q) {
  const double xd = sd * t.cg + sc * t.sg + xb, yd = sd * t.sg - sc * t.cg + yb;
  const double length = std::hypot(xd - xc, yd - yc);
  const double f = -c0 * (length - l0) / length;
  const double fx = f * (xd - xc), fy = f * (yd - yc);
  const double bp = v[0], tp = v[1], pp = v[3], dp = v[4], op = v[5], ep = v[6];
  Q[0] = mom - m2 * da * rr * tp * (tp + 2 * bp) * t.sth;
  Q[1] = m2 * da * rr * bp * bp * t.sth;
  Q[2] = fx * (sc * t.cg - sd * t.sg) + fy * (sd * t.cg + sc * t.sg);
  Q[3] = m4 * zt * (e - ea) * dp * dp * t.cph;
  Q[4] = -m4 * zt * (e - ea) * pp * (pp + 2 * dp) * t.cph;
  Q[5] = -m6 * u * (zf - fa) * ep * ep * t.com;
  Q[6] = m6 * u * (zf - fa) * op * (op + 2 * ep) * t.com;
}

// Φ(q): the two loops closed at B (rows 0, 1) and at A (rows 2..5, two chains).
void constraints(const Trig& t, double* phi) {
  phi[0] = -xb + rr * t.cb - d * t.cbt - ss * t.sg;
  phi[1] = -yb + rr * t.sb - d * t.sbt + ss * t.cg;
  phi[2] = -xa + rr * t.cb - d * t.cbt - e * t.spd - zt * t.cd;
  phi[3] = -ya + rr * t.sb - d * t.sbt + e * t.cpd - zt * t.sd;
  phi[4] = -xa + rr * t.cb - d * t.cbt - zf * t.coe - u * t.se;
  phi[5] = -ya + rr * t.sb - d * t.sbt - zf * t.soe + u * t.ce;
}

// J = ∂Φ/∂q, row-major m × n.
void constraint_jacobian(const Trig& t, double J[m][n]) {
  std::memset(J, 0, sizeof(double) * m * n);
  for (int r = 0; r < m; r += 2) {  // the crank and coupler terms every row shares
    J[r][0] = -rr * t.sb + d * t.sbt;
    J[r][1] = d * t.sbt;
    J[r + 1][0] = rr * t.cb - d * t.cbt;
    J[r + 1][1] = -d * t.cbt;
  }
  J[0][2] = -ss * t.cg;
  J[1][2] = -ss * t.sg;
  J[2][3] = -e * t.cpd;
  J[2][4] = -e * t.cpd + zt * t.sd;
  J[3][3] = -e * t.spd;
  J[3][4] = -e * t.spd - zt * t.cd;
  J[4][5] = zf * t.soe;
  J[4][6] = zf * t.soe - u * t.ce;
  J[5][5] = -zf * t.coe;
  J[5][6] = -zf * t.coe - u * t.se;
}

// γ in J q̈ = γ: −J̇ v, every term a·cos θ or a·sin θ giving (a·cos θ or a·sin θ)·θ̇².
void acceleration_rhs(const Trig& t, const double* v, double* gamma) {
  const double b2 = v[0] * v[0], bt2 = (v[0] + v[1]) * (v[0] + v[1]), g2 = v[2] * v[2];
  const double pd2 = (v[3] + v[4]) * (v[3] + v[4]), d2 = v[4] * v[4];
  const double oe2 = (v[5] + v[6]) * (v[5] + v[6]), e2 = v[6] * v[6];
  const double x0 = rr * t.cb * b2 - d * t.cbt * bt2, y0 = rr * t.sb * b2 - d * t.sbt * bt2;
  gamma[0] = x0 - ss * t.sg * g2;
  gamma[1] = y0 + ss * t.cg * g2;
  gamma[2] = x0 - e * t.spd * pd2 - zt * t.cd * d2;
  gamma[3] = y0 + e * t.cpd * pd2 - zt * t.sd * d2;
  gamma[4] = x0 - zf * t.coe * oe2 - u * t.se * e2;
  gamma[5] = y0 - zf * t.soe * oe2 + u * t.ce * e2;
}

// ---------------------------------------------------------------------------------------------
// The GGL residual F(t, y, y') and its iteration matrix ∂F/∂y + cj ∂F/∂y'.

long g_residuals = 0;  // whole residuals evaluated (IDA's and the difference columns')

// r = F(y, y'); false when r is not finite (IDA then retries with a smaller step).
bool residual(const double* y, const double* yp, double* r) {
  ++g_residuals;
  const double *q = y + kQ, *v = y + kV, *lambda = y + kLambda, *mu = y + kMu, *vp = yp + kV;
  const Trig t = trig(q);
  double M[n][n], J[m][n], Q[n];
  mass_matrix(t, M);
  constraint_jacobian(t, J);
  forces(t, v, Q);
  for (int i = 0; i < n; ++i) {
    double kinematic = yp[kQ + i] - v[i], dynamic = -Q[i];
    for (int j = 0; j < n; ++j) dynamic += M[i][j] * vp[j];
    for (int k = 0; k < m; ++k) {
      kinematic += J[k][i] * mu[k];
      dynamic += J[k][i] * lambda[k];
    }
    r[kQ + i] = kinematic;
    r[kV + i] = dynamic;
  }
  constraints(t, r + kLambda);
  for (int k = 0; k < m; ++k) {
    double Jv = 0.0;
    for (int j = 0; j < n; ++j) Jv += J[k][j] * v[j];
    r[kMu + k] = Jv;
  }
  for (int i = 0; i < N; ++i)
    if (!std::isfinite(r[i])) return false;
  return true;
}

// A difference increment as IDA chooses its own: √ε relative to the component and to its change
// over the step, at least the component's error scale 1/ewt, rounded so that y + δ − y = δ.
double increment(double y, double yp, double h, double ewt) {
  static const double sqrt_eps = std::sqrt(std::numeric_limits<double>::epsilon());
  const double delta = std::max(sqrt_eps * std::max(std::abs(y), std::abs(h * yp)), 1.0 / ewt);
  return (y + delta) - y;
}

// jac (column-major N × N) at (y, y'), r0 = F(y, y'): difference quotients of whole residuals in
// the q columns, of Q alone in the v columns, the rest exact.
bool iteration_matrix(double cj, const double* y, const double* yp, const double* r0,
                      const double* ewt, double h, double* jac) {
  auto at = [jac](int row, int col) -> double& { return jac[row + col * N]; };
  std::fill(jac, jac + N * N, 0.0);
  double y_work[N], r_work[N];
  std::copy(y, y + N, y_work);
  for (int j = 0; j < n; ++j) {  // q columns
    const double delta = increment(y[kQ + j], yp[kQ + j], h, ewt[kQ + j]);
    y_work[kQ + j] = y[kQ + j] + delta;
    residual(y_work, yp, r_work);
    for (int i = 0; i < N; ++i) at(i, kQ + j) = (r_work[i] - r0[i]) / delta;
    y_work[kQ + j] = y[kQ + j];
  }
  const double *q = y + kQ, *v = y + kV;
  const Trig t = trig(q);
  double M[n][n], J[m][n], Q0[n], Q[n], v_work[n];
  mass_matrix(t, M);
  constraint_jacobian(t, J);
  forces(t, v, Q0);
  std::copy(v, v + n, v_work);
  for (int j = 0; j < n; ++j) {  // v columns: −I (kinematic rows), −∂Q/∂v + cj M (dynamic)
    const double delta = increment(v[j], yp[kV + j], h, ewt[kV + j]);
    v_work[j] = v[j] + delta;
    forces(t, v_work, Q);
    v_work[j] = v[j];
    at(kQ + j, kV + j) = -1.0;
    for (int i = 0; i < n; ++i) at(kV + i, kV + j) = (Q0[i] - Q[i]) / delta + cj * M[i][j];
  }
  for (int k = 0; k < m; ++k)
    for (int j = 0; j < n; ++j) {
      at(kMu + k, kV + j) = J[k][j];      // velocity rows: J v
      at(kV + j, kLambda + k) = J[k][j];  // dynamic rows: Jᵀλ
      at(kQ + j, kMu + k) = J[k][j];      // kinematic rows: Jᵀμ
    }
  for (int i = 0; i < n; ++i) at(kQ + i, kQ + i) += cj;
  for (int i = 0; i < N * N; ++i)
    if (!std::isfinite(jac[i])) return false;
  return true;
}

// Solves A x = b in place (A row-major size × size, b becomes x) by Gaussian elimination with
// partial pivoting; false when A is singular.
bool solve_dense(int size, double* A, double* b) {
  for (int c = 0; c < size; ++c) {
    int pivot = c;
    for (int r = c + 1; r < size; ++r)
      if (std::abs(A[r * size + c]) > std::abs(A[pivot * size + c])) pivot = r;
    if (A[pivot * size + c] == 0.0) return false;
    if (pivot != c) {
      std::swap_ranges(A + c * size, A + (c + 1) * size, A + pivot * size);
      std::swap(b[c], b[pivot]);
    }
    for (int r = c + 1; r < size; ++r) {
      const double f = A[r * size + c] / A[c * size + c];
      for (int k = c; k < size; ++k) A[r * size + k] -= f * A[c * size + k];
      b[r] -= f * b[c];
    }
  }
  for (int r = size - 1; r >= 0; --r) {
    for (int k = r + 1; k < size; ++k) b[r] -= A[r * size + k] * b[k];
    b[r] /= A[r * size + r];
  }
  return true;
}

// y0, y0' consistent with (q0, v0 = 0): [M Jᵀ; J 0] [v'; λ] = [Q; γ], q' = v, μ = 0, λ' = μ' = 0.
void consistent_start(double* y, double* yp) {
  std::fill(y, y + N, 0.0);
  std::fill(yp, yp + N, 0.0);
  std::copy(kQ0, kQ0 + n, y + kQ);
  const double* v = y + kV;
  std::copy(v, v + n, yp + kQ);
  const Trig t = trig(kQ0);
  double M[n][n], J[m][n], kkt[(n + m) * (n + m)] = {}, rhs[n + m];
  mass_matrix(t, M);
  constraint_jacobian(t, J);
  forces(t, v, rhs);
  acceleration_rhs(t, v, rhs + n);
  auto at = [&kkt](int r, int c) -> double& { return kkt[r * (n + m) + c]; };
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) at(i, j) = M[i][j];
  for (int k = 0; k < m; ++k)
    for (int j = 0; j < n; ++j) at(n + k, j) = at(j, n + k) = J[k][j];
  if (!solve_dense(n + m, kkt, rhs)) throw std::runtime_error("singular KKT matrix at t = 0");
  std::copy(rhs, rhs + n, yp + kV);
  std::copy(rhs + n, rhs + n + m, y + kLambda);
}

}  // namespace andrews
