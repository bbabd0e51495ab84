/// \file
/// The Schur-complement KKT solve for the smallest systems (n, m ≤ 16) as plain loops over
/// fixed-capacity storage, and the outcomes and rank policy it shares with the generic solver.
#pragma once

#include "core/types.hpp"

namespace cmb {

/// What to do when J M⁻¹Jᵀ has pivots below pivot_tol: stop with `singular` (the honest default
/// for a method that assumes full row rank), or drop those pivots (minimum-norm-like λ, flagged
/// non-unique) to pass isolated singular configurations such as IFToMM A02's horizontal rockers.
enum class RankPolicy { fail, truncate };

/// The result of a Schur-complement solve: every pivot kept, pivots dropped (RankPolicy::truncate),
/// a pivot below tolerance under RankPolicy::fail, or M not positive definite.
enum class SchurOutcome { full_rank, truncated, rank_deficient, mass_not_positive_definite };

/// The same solve written as plain loops over fixed-capacity storage, for n, m ≤ kMaxSize.
/// Eigen's dynamic-size kernels spend more in dispatch than in arithmetic at these sizes (a
/// profile of the pendulum's index1 call put ~75 % of it there). S is factorized by a
/// right-looking LDLᵀ with diagonal pivoting on the updated diagonal (rank-revealing: |L| ≤ 1 on
/// a positive semi-definite S), then treated exactly as the generic path treats its pivots.
class SmallSchurKernel {
 public:
  /// The largest n and m it handles.
  static constexpr int kMaxSize = 16;
  /// Whether a system with n coordinates and m rows fits the fixed-capacity storage.
  static bool fits(int n, int m) { return n <= kMaxSize && m <= kMaxSize; }
  SmallSchurKernel();  ///< sized 0 × 0 until bind
  /// Sets the sizes (n, m ≤ kMaxSize) and picks the compiled instance for them.
  void bind(int n, int m);
  /// Solves M q̈ = Q − Jᵀλ, J q̈ = γ as SchurKktSolver::try_solve does (softness as there);
  /// pivot_ratio receives min|D_ii| / max|D_ii| of the Schur complement.
  SchurOutcome solve(CMatRef M, CMatRef J, CVecRef Q, CVecRef gamma, double pivot_tol,
                     RankPolicy policy, VecRef qdd, VecRef lambda, double softness,
                     double& pivot_ratio);

 private:
  static constexpr int kCap = kMaxSize * kMaxSize;
  /// Each step is a template on the sizes: N, Mc > 0 are compile-time (the loops of the smallest
  /// systems unroll: bind picks an instance for n ≤ 4), 0 means n_, m_ at run time.
  template <int N, int Mc>
  SchurOutcome solve_sized(CMatRef M, CMatRef J, CVecRef Q, CVecRef gamma, double pivot_tol,
                           RankPolicy policy, VecRef qdd, VecRef lambda, double softness,
                           double& pivot_ratio);
  template <int N>
  bool factor_mass(CMatRef M);
  template <int N>
  void solve_mass_lower(double* x) const;  ///< x ← L⁻¹x (L unit lower)
  template <int N>
  void solve_mass_upper(double* x) const;  ///< x ← L⁻ᵀx
  template <int N>
  void solve_mass(double* x) const;  ///< x ← M⁻¹x
  template <int N, int Mc>
  void form_schur(CMatRef J);  ///< Y_ = L⁻¹Jᵀ, S_ = Yᵀ D⁻¹ Y
  template <int Mc>
  void factor_schur();  ///< S ← P(LDLᵀ)Pᵀ in place, pivots in d_
  template <int Mc>
  void solve_schur(double cutoff);  ///< r_ ← S⁺ r_, pivots below cutoff dropped

  using SolveFn = SchurOutcome (SmallSchurKernel::*)(CMatRef, CMatRef, CVecRef, CVecRef, double,
                                                     RankPolicy, VecRef, VecRef, double, double&);
  static SolveFn sized_instance(int n, int m);
  SolveFn solve_fn_;
  int n_ = 0, m_ = 0;
  double L_[kCap];  ///< M = L D Lᵀ: unit lower L below the diagonal, column-major, n_ × n_
  double Y_[kCap];  ///< L⁻¹Jᵀ, n_ × m_, row-major
  double S_[kCap];  ///< J M⁻¹Jᵀ, then its unit lower factor (below the diagonal), m_ × m_
  double inv_d_[kMaxSize];  ///< 1 / D_jj
  double a_f_[kMaxSize], r_[kMaxSize], d_[kMaxSize], w_[kMaxSize];
  int swap_with_[kMaxSize];  ///< step k exchanged rows/columns k and swap_with_[k]
};

}  // namespace cmb
