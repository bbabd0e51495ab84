// The DAE that integrators/ida.cpp hands to SUNDIALS IDA, in residual form F(t, y, y') = 0,
// with its iteration matrix ∂F/∂y + c_j ∂F/∂y' and its consistent start. Dense: M and J as
// matrices, the iteration matrix by difference quotients that use the structure (only the q
// columns need whole residuals). Sparse (problems with sparse entries and residual tangents,
// holonomic rows only): the residual from the entries at O(nonzeros), the start by the sparse KKT
// solver, the iteration matrix by IdaSparseMatrix. Plain arrays in and out (IDA's N_Vector data),
// Eigen inside; nothing here knows SUNDIALS.
//
// ggl (stabilized index 2 [GearGuptaLeimkuhler1985]), y = [q; v; λ; μ], N = 2n + m + mh:
//   rows 0..n       q' − v + J_hᵀμ        rows n..2n          M v' − Q + Jᵀλ
//   rows 2n..2n+mh  Φ(t, q)               rows 2n+mh..N       J v − ν          (all m rows)
// index1, y = [q; v; λ], N = 2n + m:
//   rows 0..n  q' − v     rows n..2n  M v' − Q + Jᵀλ     rows 2n..N  J v' − γ
#pragma once

#include "core/problem.hpp"
#include "core/schur_kkt.hpp"
#include "core/sparse_kkt.hpp"
#include "core/types.hpp"
#include "integrators/base/ida_dae.hpp"
#include "integrators/base/ida_sparse_matrix.hpp"

namespace cmb {

class IdaResidual {
 public:
  // Sizes the workspace; allocation happens here only. sparse: the sparse path (the caller has
  // checked that the problem allows it).
  void bind(const Problem& problem, IdaFormulation formulation, bool sparse = false);
  bool sparse() const { return sparse_; }

  int size() const { return size_; }  // N
  int n() const { return n_; }
  int m() const { return m_; }
  IdaFormulation formulation() const { return formulation_; }
  // 1 for the differential components (q, v), 0 for the algebraic ones (λ, μ): IDA's id vector.
  void component_ids(double* id) const;

  // r = F(t, y, y'). Returns false when r is not finite (IDA then retries with a smaller step).
  bool residual(double t, const double* y, const double* yp, double* r);

  // jac (column-major N × N) = ∂F/∂y + cj ∂F/∂y' at (t, y, y'), r0 = F(t, y, y'); ewt are the
  // error weights and h the step, which set the difference increments as IDA sets its own.
  // Returns false when an entry is not finite.
  bool iteration_matrix(double t, double cj, const double* y, const double* yp, const double* r0,
                        const double* ewt, double h, double* jac);
  // Sparse path: the same matrix into sparse_matrix(). Returns false when an entry is not finite.
  bool sparse_iteration_matrix(double t, double cj, const double* y, const double* yp,
                               const double* ewt, double h) {
    return sparse_matrix_.assemble(t, cj, y, yp, ewt, h);
  }
  const SparseAssembly& sparse_matrix() const { return sparse_matrix_.matrix(); }
  int colours() const { return sparse_matrix_.colours(); }

  // y and y' consistent with (q, v) at t: v̇ and λ of the KKT solve, μ = 0, λ' = μ' = 0.
  // Returns false (y' and λ then NaN) when the KKT matrix is singular or M not positive definite.
  bool consistent_start(double t, CVecRef q, CVecRef v, VecRef y, VecRef yp);
  // The largest |Φ(q)| and |J v − ν| of y at t: what the GGL equations hold at 0 (not counted
  // as work: it is a check of the start, not a step).
  double constraint_violation(double t, CVecRef y);

  // Work done so far: whole residuals (IDA's and, dense, those of the q columns), and partial
  // ones: of Q (and γ) alone for the dense v columns, of the constraint rows for each colour on
  // the sparse path.
  long residual_evaluations() const { return residuals_; }
  long partial_evaluations() const { return partials_ + sparse_matrix_.evaluations(); }

 private:
  // Q (and, for index1, γ) at (t, q, v) into Q_, gamma_.
  void velocity_dependent_terms(double t, CVecRef q, CVecRef v);
  // The residual, start and violation from the problem's entries (sparse path).
  void sparse_residual(double t, const double* y, const double* yp, double* r);
  bool sparse_start(double t, CVecRef q, CVecRef v);
  bool dense_start(double t, CVecRef q, CVecRef v);

  const Problem* problem_ = nullptr;
  IdaFormulation formulation_ = IdaFormulation::ggl;
  int n_ = 0, m_ = 0, mh_ = 0, size_ = 0;
  bool sparse_ = false;
  Mat M_, J_;
  Vec Q_, gamma_, nu_, Q0_, gamma0_;  // the *0 hold the unperturbed values in the v columns
  Vec y_work_, r_work_, v_work_, qdd_, lambda_, vp_work_, lambda_work_, mu_work_, phi_;
  SchurKktSolver schur_;
  SparseKktSolver kkt_;
  IdaSparseMatrix sparse_matrix_;
  long residuals_ = 0, partials_ = 0;
};

}  // namespace cmb
