// The DAE that integrators/ida.cpp hands to SUNDIALS IDA, in residual form F(t, y, y') = 0,
// with its iteration matrix ∂F/∂y + c_j ∂F/∂y' by difference quotients that use the structure
// (only the q columns need whole residuals), and its consistent start. Plain arrays in and out
// (IDA's N_Vector data), Eigen inside; nothing here knows SUNDIALS.
//
// ggl (stabilized index 2 [GearGuptaLeimkuhler1985]), y = [q; v; λ; μ], N = 2n + m + mh:
//   rows 0..n       q' − v + J_hᵀμ        rows n..2n          M v' − Q + Jᵀλ
//   rows 2n..2n+mh  Φ(t, q)               rows 2n+mh..N       J v − ν          (all m rows)
// index1, y = [q; v; λ], N = 2n + m:
//   rows 0..n  q' − v     rows n..2n  M v' − Q + Jᵀλ     rows 2n..N  J v' − γ
#pragma once

#include "core/problem.hpp"
#include "core/schur_kkt.hpp"
#include "core/types.hpp"

namespace cmb {

enum class IdaFormulation { ggl, index1 };

class IdaResidual {
 public:
  // Sizes the workspace; allocation happens here only.
  void bind(const Problem& problem, IdaFormulation formulation);

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

  // y and y' consistent with (q, v) at t: v̇ and λ of the KKT solve, μ = 0, λ' = μ' = 0.
  // Returns false (y' and λ then NaN) when the KKT matrix is singular or M not positive definite.
  bool consistent_start(double t, CVecRef q, CVecRef v, VecRef y, VecRef yp);
  // The largest |Φ(q)| and |J v − ν| of y at t: what the GGL equations hold at 0 (not counted
  // as work: it is a check of the start, not a step).
  double constraint_violation(double t, CVecRef y);

  // Work done so far: whole residuals (IDA's and those of the q columns) and evaluations of Q
  // (and γ) alone for the v columns.
  long residual_evaluations() const { return residuals_; }
  long partial_evaluations() const { return partials_; }

 private:
  // Q (and, for index1, γ) at (t, q, v) into Q_, gamma_.
  void velocity_dependent_terms(double t, CVecRef q, CVecRef v);

  const Problem* problem_ = nullptr;
  IdaFormulation formulation_ = IdaFormulation::ggl;
  int n_ = 0, m_ = 0, mh_ = 0, size_ = 0;
  Mat M_, J_;
  Vec Q_, gamma_, nu_, Q0_, gamma0_;  // the *0 hold the unperturbed values in the v columns
  Vec y_work_, r_work_, v_work_, qdd_, lambda_;
  SchurKktSolver schur_;
  long residuals_ = 0, partials_ = 0;
};

}  // namespace cmb
