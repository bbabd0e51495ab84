#include "methods/base/schur_kkt_method.hpp"

#include <sstream>

#include "core/errors.hpp"

namespace cmb {

std::vector<ParamSpec> schur_param_specs() {
  ParamSpec tol =
      positive_number("pivot_tol", 1e-12, "J M⁻¹Jᵀ counts as singular below this LDLᵀ pivot ratio");
  tol.max = 1.0;
  return {tol,
          choice_param("rank_policy", {"fail", "truncate"},
                       "on rank loss of J: fail (status singular) or truncate small pivots "
                       "(λ non-unique; the sparse path regularizes [M Jᵀ; J −εI] instead, "
                       "ε = pivot_tol · largest pivot)"),
          choice_param("linear_solver", {"auto", "dense", "sparse"},
                       "KKT solve: dense Schur complement, sparse LDLᵀ of [M Jᵀ; J 0] "
                       "(problems with sparse evaluation), or auto (sparse where the problem "
                       "has sparse evaluation and rank_policy = fail: faster even on the "
                       "smallest linkage)")};
}

SchurKktMethod::SchurKktMethod(Params params, BaumgarteGains gains)
    : AccelerationMethod(std::move(params), gains),
      pivot_tol_(this->params().number("pivot_tol")),
      policy_(this->params().choice("rank_policy") == "truncate" ? RankPolicy::truncate
                                                                 : RankPolicy::fail),
      linear_solver_(this->params().choice("linear_solver")) {}

bool SchurKktMethod::uses_dense_matrices(const Problem& problem) const {
  // Measured: the sparse path is faster from the smallest linkage on (crank_rocker, nq = 9),
  // so auto takes it wherever it applies (docs/performance.md).
  // auto with truncate stays dense: truncation there is exact pivot dropping; the sparse path
  // regularizes instead (SparseKktSolver::solve_regularized), so it is taken when asked for.
  const bool sparse_applicable = policy_ == RankPolicy::fail || linear_solver_ == "sparse";
  return choose_dense(problem, linear_solver_, sparse_applicable, "");
}

void SchurKktMethod::bind_solver() {
  if (dense_matrices()) solver_.bind(n_, m_);
  // The counter's first use must not allocate inside rhs (at the first rank loss).
  if (policy_ == RankPolicy::truncate) stats().add("rank_drops", 0);
}

void SchurKktMethod::solve_accelerations(double t) {
  if (!dense_matrices()) {
    stats().add("factorizations");
    unique_ = sparse_.solve(Q_, gamma_, pivot_tol_, qdd_, lambda_);
    if (!unique_ && policy_ == RankPolicy::truncate) {
      stats().add("factorizations");
      stats().add("rank_drops");
      if (sparse_.solve_regularized(Q_, gamma_, pivot_tol_, qdd_, lambda_)) return;
    }
    if (!unique_) {
      std::ostringstream msg;
      msg << "sparse KKT factorization of [M Jᵀ; J 0] broke down at t = " << t
          << " (pivot ratio of J M⁻¹Jᵀ " << sparse_.last_pivot_ratio() << " < " << pivot_tol_
          << "): J has lost row rank or M is not positive definite";
      throw NumericalFailure(RunStatus::singular, msg.str());
    }
    return;
  }
  stats().add("factorizations", 2);
  unique_ = solver_.solve(M_, J_, Q_, gamma_, pivot_tol_, policy_, t, qdd_, lambda_);
  if (!unique_) stats().add("rank_drops");
}

}  // namespace cmb
