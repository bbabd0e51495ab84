// The base of index1, baumgarte and projection: the acceleration-level skeleton with the
// Schur-complement solve (core/schur_kkt.hpp) or the sparse LDLᵀ of the whole KKT matrix.
#pragma once

#include <string>
#include <vector>

#include "core/params.hpp"
#include "core/schur_kkt.hpp"
#include "methods/base/acceleration_method.hpp"

namespace cmb {

// The `pivot_tol`, `rank_policy` and `linear_solver` parameters of the methods that use it.
std::vector<ParamSpec> schur_param_specs();

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
