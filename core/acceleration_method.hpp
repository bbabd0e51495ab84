// Shared skeleton of the methods whose ODE state is x = [q; v] and that solve for q̈ at the
// acceleration level. It evaluates M, Q, J and γ into preallocated storage, optionally adds
// Baumgarte terms to γ, and leaves the linear algebra to the concrete method.
#pragma once

#include <vector>

#include "core/method.hpp"
#include "core/params.hpp"
#include "core/sparse_kkt.hpp"

namespace cmb {

// Baumgarte gains in Φ̈ + 2αΦ̇ + β²Φ = 0, given as (alpha, beta) or as (omega0, zeta) with
// alpha = zeta·omega0 and beta = omega0.
struct BaumgarteGains {
  double alpha = 0.0;
  double beta = 0.0;
};

// Parameter declarations for the gains; with default_omega0 = null the terms are off unless
// the user sets them.
std::vector<ParamSpec> baumgarte_param_specs(const nlohmann::json& default_omega0);

// Throws InputError when the two parameterizations are mixed or a pair is incomplete.
// Returns zero gains when nothing is set.
BaumgarteGains resolve_baumgarte_gains(const Params& params, const std::string& owner);

class AccelerationMethod : public Method {
 public:
  AccelerationMethod(Params params, BaumgarteGains gains)
      : Method(std::move(params)), gains_(gains) {}

  void bind(const Problem& problem) final;
  int state_size() const final { return 2 * n_; }
  void pack(double t, CVecRef q, CVecRef v, VecRef x) final;
  void unpack(double t, CVecRef x, VecRef q, VecRef v) final;
  void rhs(CVecRef x, VecRef dxdt, double t) final;
  const Vec& accelerations() const final { return qdd_; }
  const Vec& multipliers() const final { return lambda_; }
  const BaumgarteGains& gains() const { return gains_; }
  nlohmann::json effective_params() const override;

 protected:
  // Methods that handle unilateral rows override this; the others refuse such problems.
  virtual bool accepts_unilateral_rows() const { return false; }
  // False for the sparse path: M and J then live in sparse_ (bound before bind_solver) and M_,
  // J_ stay empty. Methods with a linear_solver parameter decide through choose_dense().
  virtual bool uses_dense_matrices(const Problem& problem) const { return true; }
  // linear_solver = auto | dense | sparse, given whether this method can take the sparse path
  // on `problem` (sparse_applicable, beyond the problem sending entries); `sparse` where it
  // cannot is `unsupported`, with `why`.
  bool choose_dense(const Problem& problem, const std::string& linear_solver,
                    bool sparse_applicable, const std::string& why) const;
  // out = J v from whichever path is active.
  void jacobian_times(CVecRef v, VecRef out) const;
  // Called at the end of pack with the new ODE state (a run, or a timed repetition, starts).
  virtual void packed(CVecRef x) {}
  // Sizes the solver's own workspace; M_, J_ etc. are already sized.
  virtual void bind_solver() {}
  // From M_, Q_, J_ and gamma_ (stabilized), fill qdd_ and lambda_. t is for messages.
  virtual void solve_accelerations(double t) = 0;

  bool dense_matrices() const { return dense_; }
  SparseKktSolver sparse_;

  const Problem* problem_ = nullptr;
  int n_ = 0;
  int mh_ = 0;
  int m_ = 0;
  Mat M_, J_;
  Vec q_, v_;  // the state of the current rhs call
  Vec Q_, gamma_, qdd_, lambda_;

 private:
  void add_baumgarte_terms(double t, CVecRef q, CVecRef v);

  BaumgarteGains gains_;
  bool dense_ = true;
  Vec Phi_, nu_, psi_;
};

}  // namespace cmb
