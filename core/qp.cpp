#include "core/qp.hpp"

#include <limits>
#include <stdexcept>

#ifdef CMB_HAVE_ALGLIB
#include <libalglib/optimization.h>
#endif

namespace cmb {

#ifdef CMB_HAVE_ALGLIB

struct DenseQp::State {
  alglib::real_2d_array H, A;
  alglib::real_1d_array a, lo, hi, x;
  alglib::minqpreport report;
};

DenseQp::DenseQp() : state_(std::make_unique<State>()) {}
DenseQp::~DenseQp() = default;
bool DenseQp::available() { return true; }

QpResult DenseQp::solve(CMatRef H, CVecRef a, CMatRef A_eq, CVecRef b_eq, CMatRef A_in,
                        CVecRef b_in, double tol, VecRef x, VecRef lambda_eq, VecRef lambda_in) {
  const int n = static_cast<int>(H.rows());
  const int me = static_cast<int>(A_eq.rows()), mi = static_cast<int>(A_in.rows());
  State& s = *state_;
  s.H.setlength(n, n);
  s.a.setlength(n);
  for (int i = 0; i < n; ++i) {
    s.a[i] = a(i);
    for (int j = 0; j < n; ++j) s.H[i][j] = H(i, j);
  }
  const int rows = me + mi;
  s.A.setlength(rows > 0 ? rows : 1, n);
  s.lo.setlength(rows > 0 ? rows : 1);
  s.hi.setlength(rows > 0 ? rows : 1);
  for (int r = 0; r < me; ++r) {
    for (int j = 0; j < n; ++j) s.A[r][j] = A_eq(r, j);
    s.lo[r] = s.hi[r] = b_eq(r);  // lo == hi: an equality row
  }
  for (int r = 0; r < mi; ++r) {
    for (int j = 0; j < n; ++j) s.A[me + r][j] = A_in(r, j);
    s.lo[me + r] = b_in(r);
    s.hi[me + r] = std::numeric_limits<double>::infinity();
  }
  alglib::minqpstate state;
  alglib::minqpcreate(n, state);
  alglib::minqpsetquadraticterm(state, s.H, true);
  alglib::minqpsetorigin(state, s.a);
  if (rows > 0) alglib::minqpsetlc2dense(state, s.A, s.lo, s.hi, rows);
  alglib::minqpsetscaleautodiag(state);
  alglib::minqpsetalgodenseaul(state, tol, 1e4, 10);
  alglib::minqpoptimize(state);
  alglib::minqpresultsbuf(state, s.x, s.report);
  QpResult result;
  result.termination = static_cast<int>(s.report.terminationtype);
  result.ok = result.termination > 0;
  if (!result.ok) return result;
  for (int i = 0; i < n; ++i) x(i) = s.x[i];
  // ALGLIB: H (x − a) + Aᵀ laglc = 0, which is cmbench's sign convention as it stands.
  for (int r = 0; r < me; ++r) lambda_eq(r) = s.report.laglc[r];
  for (int r = 0; r < mi; ++r) lambda_in(r) = s.report.laglc[me + r];
  return result;
}

#else

struct DenseQp::State {};
DenseQp::DenseQp() = default;
DenseQp::~DenseQp() = default;
bool DenseQp::available() { return false; }
QpResult DenseQp::solve(CMatRef, CVecRef, CMatRef, CVecRef, CMatRef, CVecRef, double, VecRef,
                        VecRef, VecRef) {
  throw std::logic_error("DenseQp::solve called in a build without ALGLIB (CMB_ALGLIB=OFF)");
}

#endif

}  // namespace cmb
