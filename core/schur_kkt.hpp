// Range-space (Schur complement) solve of the KKT system, the workhorse of index1 and baumgarte:
//   M = LLᵀ,  a_f = M⁻¹Q,  S = J M⁻¹ Jᵀ,  S λ = J a_f − γ,  q̈ = a_f − M⁻¹Jᵀλ.
// Allocation-free after bind. S loses definiteness when J loses row rank; that is reported as
// RunStatus::singular instead of returning an arbitrary λ.
#pragma once

#include <Eigen/Cholesky>

#include "core/acceleration_method.hpp"
#include "core/params.hpp"
#include "core/types.hpp"

namespace cmb {

// The `pivot_tol`, `rank_policy` and `linear_solver` parameters of the methods that use it.
std::vector<ParamSpec> schur_param_specs();

// What to do when J M⁻¹Jᵀ has pivots below pivot_tol: stop with `singular` (the honest default
// for a method that assumes full row rank), or drop those pivots (minimum-norm-like λ, flagged
// non-unique) to pass isolated singular configurations such as IFToMM A02's horizontal rockers.
enum class RankPolicy { fail, truncate };

enum class SchurOutcome { full_rank, truncated, rank_deficient, mass_not_positive_definite };

// The same solve written as plain loops over fixed-capacity storage, for n, m ≤ kMaxSize.
// Eigen's dynamic-size kernels spend more in dispatch than in arithmetic at these sizes (a
// profile of the pendulum's index1 call put ~75 % of it there). S is factorized by a
// right-looking LDLᵀ with diagonal pivoting on the updated diagonal (rank-revealing: |L| ≤ 1 on
// a positive semi-definite S), then treated exactly as the generic path treats its pivots.
class SmallSchurKernel {
 public:
  static constexpr int kMaxSize = 16;
  static bool fits(int n, int m) { return n <= kMaxSize && m <= kMaxSize; }
  SmallSchurKernel();  // sized 0 × 0 until bind
  void bind(int n, int m);
  SchurOutcome solve(CMatRef M, CMatRef J, CVecRef Q, CVecRef gamma, double pivot_tol,
                     RankPolicy policy, VecRef qdd, VecRef lambda, double softness,
                     double& pivot_ratio);

 private:
  static constexpr int kCap = kMaxSize * kMaxSize;
  // Each step is a template on the sizes: N, Mc > 0 are compile-time (the loops of the smallest
  // systems unroll: bind picks an instance for n ≤ 4), 0 means n_, m_ at run time.
  template <int N, int Mc>
  SchurOutcome solve_sized(CMatRef M, CMatRef J, CVecRef Q, CVecRef gamma, double pivot_tol,
                           RankPolicy policy, VecRef qdd, VecRef lambda, double softness,
                           double& pivot_ratio);
  template <int N>
  bool factor_mass(CMatRef M);
  template <int N>
  void solve_mass_lower(double* x) const;  // x ← L⁻¹x (L unit lower)
  template <int N>
  void solve_mass_upper(double* x) const;  // x ← L⁻ᵀx
  template <int N>
  void solve_mass(double* x) const;  // x ← M⁻¹x
  template <int N, int Mc>
  void form_schur(CMatRef J);  // Y_ = L⁻¹Jᵀ, S_ = Yᵀ D⁻¹ Y
  template <int Mc>
  void factor_schur();  // S ← P(LDLᵀ)Pᵀ in place, pivots in d_
  template <int Mc>
  void solve_schur(double cutoff);  // r_ ← S⁺ r_, pivots below cutoff dropped

  using SolveFn = SchurOutcome (SmallSchurKernel::*)(CMatRef, CMatRef, CVecRef, CVecRef, double,
                                                     RankPolicy, VecRef, VecRef, double, double&);
  static SolveFn sized_instance(int n, int m);
  SolveFn solve_fn_;
  int n_ = 0, m_ = 0;
  double L_[kCap];  // M = L D Lᵀ: unit lower L below the diagonal, column-major, n_ × n_
  double Y_[kCap];  // L⁻¹Jᵀ, n_ × m_, row-major
  double S_[kCap];  // J M⁻¹Jᵀ, then its unit lower factor (below the diagonal), m_ × m_
  double inv_d_[kMaxSize];  // 1 / D_jj
  double a_f_[kMaxSize], r_[kMaxSize], d_[kMaxSize], w_[kMaxSize];
  int swap_with_[kMaxSize];  // step k exchanged rows/columns k and swap_with_[k]
};

class SchurKktSolver {
 public:
  // Small systems take SmallSchurKernel unless generic_only (tests compare the two).
  void bind(int n, int m, bool generic_only = false);
  // pivot_tol: S counts as singular when min|D_ii| < pivot_tol · max|D_ii| in S = PᵀLDLᵀP.
  // The solve without exceptions (they allocate: callers with a fallback use this one).
  SchurOutcome try_solve(CMatRef M, CMatRef J, CVecRef Q, CVecRef gamma, double pivot_tol,
                         RankPolicy policy, VecRef qdd, VecRef lambda, double softness = 0.0);
  double last_pivot_ratio() const { return last_pivot_ratio_; }
  // Returns false when pivots were truncated (λ then not unique). softness s ≥ 0 adds the
  // MuJoCo-style regularization R = s·diag(J M⁻¹Jᵀ) to the Schur complement (soft constraints).
  bool solve(CMatRef M, CMatRef J, CVecRef Q, CVecRef gamma, double pivot_tol, RankPolicy policy,
             double t, VecRef qdd, VecRef lambda, double softness = 0.0);

 private:
  bool small_ = false;
  SmallSchurKernel small_kernel_;
  Eigen::LLT<Mat> llt_M_;
  Eigen::LDLT<Mat> ldlt_S_;
  Mat Y_;  // L⁻¹ Jᵀ
  Mat S_;
  Vec a_f_, r_;
  double last_pivot_ratio_ = 1.0;
};

// index1, baumgarte and projection: the Schur-complement solve (dense) or the sparse LDLᵀ of
// the whole KKT matrix (core/sparse_kkt.hpp), with or without Baumgarte terms in γ.
class SchurKktMethod : public AccelerationMethod {
 public:
  SchurKktMethod(Params params, BaumgarteGains gains);
  bool multipliers_unique() const override { return unique_; }

 protected:
  bool uses_dense_matrices(const Problem& problem) const override;
  void bind_solver() override;
  void solve_accelerations(double t) override;
  double pivot_tol() const { return pivot_tol_; }
  RankPolicy rank_policy() const { return policy_; }

 private:
  SchurKktSolver solver_;
  double pivot_tol_;
  RankPolicy policy_;
  std::string linear_solver_;
  bool unique_ = true;
};

}  // namespace cmb
