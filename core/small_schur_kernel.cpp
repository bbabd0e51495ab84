// SmallSchurKernel: the range-space KKT solve of schur_kkt.hpp as plain loops (n, m ≤ 16).
// Loops are in right-looking / axpy order: at these sizes the cost is the latency of dependent
// floating-point operations, and dot-product order (one serial sum per entry) measured several
// times slower than updates that are independent across entries. For the same reason M is
// factorized without square roots (M = L D Lᵀ) and divisions become multiplications by stored
// reciprocals.
// Storage: L_ and S_ column-major (entry (i, j) at [i + j·rows]); Y_ row-major ([i·m + j]) so
// that a row update touches contiguous memory.
#include "core/small_schur_kernel.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace cmb {

// Compile-time sizes for n ≤ 4 with 1 ≤ m ≤ n (the pendulum-sized models, where loop overhead
// is most of the cost: the pendulum's index1 call went from 104 to 71 ns); run-time otherwise.
SmallSchurKernel::SolveFn SmallSchurKernel::sized_instance(int n, int m) {
  if (n > 4 || m < 1 || m > n) return &SmallSchurKernel::solve_sized<0, 0>;
  switch (n * 8 + m) {  // unique for 1 ≤ m ≤ n ≤ 4
    case 1 * 8 + 1:
      return &SmallSchurKernel::solve_sized<1, 1>;
    case 2 * 8 + 1:
      return &SmallSchurKernel::solve_sized<2, 1>;
    case 2 * 8 + 2:
      return &SmallSchurKernel::solve_sized<2, 2>;
    case 3 * 8 + 1:
      return &SmallSchurKernel::solve_sized<3, 1>;
    case 3 * 8 + 2:
      return &SmallSchurKernel::solve_sized<3, 2>;
    case 3 * 8 + 3:
      return &SmallSchurKernel::solve_sized<3, 3>;
    case 4 * 8 + 1:
      return &SmallSchurKernel::solve_sized<4, 1>;
    case 4 * 8 + 2:
      return &SmallSchurKernel::solve_sized<4, 2>;
    case 4 * 8 + 3:
      return &SmallSchurKernel::solve_sized<4, 3>;
    case 4 * 8 + 4:
      return &SmallSchurKernel::solve_sized<4, 4>;
    default:
      return &SmallSchurKernel::solve_sized<0, 0>;
  }
}

SmallSchurKernel::SmallSchurKernel() : solve_fn_(&SmallSchurKernel::solve_sized<0, 0>) {}

void SmallSchurKernel::bind(int n, int m) {
  n_ = n;
  m_ = m;
  solve_fn_ = sized_instance(n, m);
  std::fill(std::begin(L_), std::end(L_), 0.0);
  std::fill(std::begin(Y_), std::end(Y_), 0.0);
  std::fill(std::begin(S_), std::end(S_), 0.0);
}

template <int N>
bool SmallSchurKernel::factor_mass(CMatRef M) {
  const int n = N > 0 ? N : n_;
  for (int j = 0; j < n; ++j)  // lower triangle of M
    for (int i = j; i < n; ++i) L_[i + j * n] = M(i, j);
  // Root-free M = L D Lᵀ: a square root per column would lengthen the dependency chain.
  for (int k = 0; k < n; ++k) {
    const double dk = L_[k + k * n];
    if (!(dk > 0.0)) return false;  // M not positive definite; also catches NaN
    inv_d_[k] = 1.0 / dk;
    for (int j = k + 1; j < n; ++j) {
      const double f = L_[j + k * n] * inv_d_[k];
      for (int i = j; i < n; ++i) L_[i + j * n] -= L_[i + k * n] * f;
    }
    for (int i = k + 1; i < n; ++i) L_[i + k * n] *= inv_d_[k];
  }
  return true;
}

template <int N>
void SmallSchurKernel::solve_mass_lower(double* x) const {
  const int n = N > 0 ? N : n_;
  for (int k = 0; k < n; ++k)
    for (int i = k + 1; i < n; ++i) x[i] -= L_[i + k * n] * x[k];
}

template <int N>
void SmallSchurKernel::solve_mass_upper(double* x) const {
  const int n = N > 0 ? N : n_;
  for (int k = n - 1; k >= 0; --k)
    for (int i = 0; i < k; ++i) x[i] -= L_[k + i * n] * x[k];
}

template <int N>
void SmallSchurKernel::solve_mass(double* x) const {
  const int n = N > 0 ? N : n_;
  solve_mass_lower<N>(x);
  for (int i = 0; i < n; ++i) x[i] *= inv_d_[i];
  solve_mass_upper<N>(x);
}

template <int N, int Mc>
void SmallSchurKernel::form_schur(CMatRef J) {
  const int n = N > 0 ? N : n_, m = Mc > 0 ? Mc : m_;
  // Y = L⁻¹Jᵀ, all m columns at once: row k of Y is final when reached, then eliminated below.
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) Y_[i * m + j] = J(j, i);
  for (int k = 0; k < n; ++k) {
    const double* yk = Y_ + k * m;
    for (int i = k + 1; i < n; ++i) {
      const double lik = L_[i + k * n];
      double* yi = Y_ + i * m;
      for (int j = 0; j < m; ++j) yi[j] -= lik * yk[j];
    }
  }
  // S = Yᵀ D⁻¹ Y as a sum of the rank-one terms of Y's rows (full square: factor_schur pivots).
  std::fill(S_, S_ + m * m, 0.0);
  for (int k = 0; k < n; ++k) {
    const double* yk = Y_ + k * m;
    for (int j = 0; j < m; ++j) {
      const double f = yk[j] * inv_d_[k];
      for (int i = 0; i < m; ++i) S_[i + j * m] += yk[i] * f;
    }
  }
}

template <int Mc>
void SmallSchurKernel::factor_schur() {
  const int m = Mc > 0 ? Mc : m_;
  double* S = S_;
  for (int k = 0; k < m; ++k) {
    // Pivot: the largest remaining (updated) diagonal entry.
    int p = k;
    for (int i = k + 1; i < m; ++i)
      if (std::abs(S[i + i * m]) > std::abs(S[p + p * m])) p = i;
    swap_with_[k] = p;
    if (p != k) {
      for (int j = 0; j < m; ++j) std::swap(S[k + j * m], S[p + j * m]);  // rows (incl. L's)
      for (int i = 0; i < m; ++i) std::swap(S[i + k * m], S[i + p * m]);  // columns
    }
    const double dk = S[k + k * m];
    d_[k] = dk;
    if (dk == 0.0) {  // nothing left to eliminate with (S semi-definite): column of L is zero
      for (int i = k + 1; i < m; ++i) S[i + k * m] = 0.0;
      continue;
    }
    // Trailing update S₂₂ ← S₂₂ − s sᵀ/d_k on the full square, then l = s/d_k.
    const double inv_dk = 1.0 / dk;
    for (int j = k + 1; j < m; ++j) {
      const double f = S[j + k * m] * inv_dk;
      for (int i = k + 1; i < m; ++i) S[i + j * m] -= S[i + k * m] * f;
    }
    for (int i = k + 1; i < m; ++i) S[i + k * m] *= inv_dk;
  }
}

template <int Mc>
void SmallSchurKernel::solve_schur(double cutoff) {
  const int m = Mc > 0 ? Mc : m_;
  for (int k = 0; k < m; ++k) std::swap(r_[k], r_[swap_with_[k]]);
  for (int k = 0; k < m; ++k)
    for (int i = k + 1; i < m; ++i) r_[i] -= S_[i + k * m] * r_[k];
  for (int i = 0; i < m; ++i)
    r_[i] = (std::abs(d_[i]) >= cutoff && d_[i] != 0.0) ? r_[i] / d_[i] : 0.0;
  for (int k = m - 1; k >= 0; --k)
    for (int i = 0; i < k; ++i) r_[i] -= S_[k + i * m] * r_[k];
  for (int k = m - 1; k >= 0; --k) std::swap(r_[k], r_[swap_with_[k]]);
}

template <int N, int Mc>
SchurOutcome SmallSchurKernel::solve_sized(CMatRef M, CMatRef J, CVecRef Q, CVecRef gamma,
                                           double pivot_tol, RankPolicy policy, VecRef qdd,
                                           VecRef lambda, double softness, double& pivot_ratio) {
  const int n = N > 0 ? N : n_, m = Mc > 0 ? Mc : m_;
  if (!factor_mass<N>(M)) return SchurOutcome::mass_not_positive_definite;
  for (int i = 0; i < n; ++i) a_f_[i] = Q(i);
  solve_mass<N>(a_f_);
  if (m == 0) {
    for (int i = 0; i < n; ++i) qdd(i) = a_f_[i];
    return SchurOutcome::full_rank;
  }
  form_schur<N, Mc>(J);
  if (softness > 0.0)
    for (int i = 0; i < m; ++i) S_[i + i * m] *= 1.0 + softness;
  factor_schur<Mc>();

  double max_abs = 0.0, min_abs = INFINITY, min_signed = INFINITY;
  for (int i = 0; i < m; ++i) {
    max_abs = std::max(max_abs, std::abs(d_[i]));
    min_abs = std::min(min_abs, std::abs(d_[i]));
    min_signed = std::min(min_signed, d_[i]);
  }
  const double cutoff = pivot_tol * max_abs;
  pivot_ratio = min_abs / max_abs;
  const bool full_rank = max_abs > 0.0 && min_signed >= cutoff;
  const bool indefinite = min_signed < -cutoff;
  if (!std::isfinite(cutoff) || indefinite || (!full_rank && policy == RankPolicy::fail))
    return SchurOutcome::rank_deficient;

  for (int i = 0; i < m; ++i) r_[i] = -gamma(i);  // r = J a_f − γ
  for (int k = 0; k < n; ++k)
    for (int i = 0; i < m; ++i) r_[i] += J(i, k) * a_f_[k];
  solve_schur<Mc>(cutoff);
  for (int i = 0; i < m; ++i) lambda(i) = r_[i];
  for (int i = 0; i < n; ++i) {  // q̈ = a_f − L⁻ᵀD⁻¹(Y λ)
    const double* yi = Y_ + i * m;
    double wi = 0.0;
    for (int j = 0; j < m; ++j) wi += yi[j] * r_[j];
    w_[i] = wi * inv_d_[i];
  }
  solve_mass_upper<N>(w_);
  for (int i = 0; i < n; ++i) qdd(i) = a_f_[i] - w_[i];
  return full_rank ? SchurOutcome::full_rank : SchurOutcome::truncated;
}

SchurOutcome SmallSchurKernel::solve(CMatRef M, CMatRef J, CVecRef Q, CVecRef gamma,
                                     double pivot_tol, RankPolicy policy, VecRef qdd, VecRef lambda,
                                     double softness, double& pivot_ratio) {
  return (this->*solve_fn_)(M, J, Q, gamma, pivot_tol, policy, qdd, lambda, softness, pivot_ratio);
}

}  // namespace cmb
