// SUNDIALS IDA [Hindmarsh2005] driven for integrators/ida.cpp: the context, the vectors (over
// storage the caller owns, so IDA writes y and y' straight into the integrator's state), the
// dense matrix and LU or the sparse matrix and KLU [Davis2010], IDA's memory, the options of one
// integration, single steps, interpolation at sample times, the work counters, and IDA's failures
// as run statuses with IDA's own message (nothing is printed). The residual and iteration matrix
// are IdaResidual's.
#pragma once

#include <ida/ida.h>
#include <sundials/sundials_linearsolver.h>
#include <sundials/sundials_matrix.h>
#include <sundials/sundials_nvector.h>

#include <exception>
#include <string>

#include "core/errors.hpp"
#include "core/integration.hpp"
#include "integrators/base/ida_residual.hpp"

namespace cmb {

struct IdaOptions {
  double rel_tol = 1e-6;
  double abs_tol = 1e-6;         // q and v
  double multiplier_tol = 1e-6;  // absolute tolerance of λ (over the step if per_step); μ: none
  bool multiplier_tol_per_step = false;  // λ of index 2 (ggl): its tolerance over the step
  bool suppress_alg = true;              // λ, μ out of the local error test
  double h0 = 0.0;                       // first step; 0: IDA's own choice
  double max_step = 0.0;                 // 0: none
  int max_order = 5;
  double t_stop = 0.0;
};

// What IDA's work counters say after the steps so far (IdaResidual's counts added).
struct IdaWork {
  long steps = 0, residuals = 0, jacobians = 0, newton_iterations = 0, error_test_failures = 0,
       convergence_failures = 0, setups = 0, partial_evaluations = 0;
};

class IdaSession {
 public:
  IdaSession() = default;
  IdaSession(const IdaSession&) = delete;
  IdaSession& operator=(const IdaSession&) = delete;
  ~IdaSession();

  // Creates everything for system.size() unknowns; y and yp (N doubles each) are where IDA
  // reads the start and writes each step's solution. own_jacobian: IdaResidual's structured
  // iteration matrix, else IDA's difference quotients over all N columns (dense only). A system
  // bound sparse gets KLU on its sparse matrix.
  void create(IdaResidual& system, double* y, double* yp, bool own_jacobian);

  // Restarts IDA from the state in y, yp at t = 0 with these options.
  void start(const IdaOptions& options);
  // One step towards options.t_stop (IDA never steps past it). Returns IDA's flag; t is the
  // time reached. On a failure, failure() describes it.
  int step(double& t);
  static bool stop_reached(int flag) { return flag == IDA_TSTOP_RETURN; }
  // y and y' of IDA's interpolating polynomial at t within the last step (IDAGetDky).
  void interpolate(double t, double* y, double* yp);
  IdaWork work() const;

  // The status and message of a failed step (flag < 0).
  NumericalFailure failure(int flag, double t) const;

  // The residual and the iteration matrix once at (t, y, y'), as a step evaluates them, with
  // error weights from the last options (a test of allocation-free callbacks).
  void evaluate_callbacks(double t, const double* y, const double* yp, double cj);

 private:
  friend struct IdaCallbacks;  // the C callbacks (ida_session.cpp)
  void set_tolerances(const IdaOptions& options);
  // 1 / (rel_tol |y_i| + atol_i), λ's atol over h if options_.multiplier_tol_per_step.
  void error_weights(const double* y, double h, double* weights) const;

  IdaResidual* system_ = nullptr;
  SUNContext context_ = nullptr;
  void* ida_ = nullptr;
  N_Vector y_ = nullptr, yp_ = nullptr;  // over the caller's storage
  N_Vector atol_ = nullptr, ids_ = nullptr, weights_ = nullptr;
  N_Vector scratch_r_ = nullptr, scratch_y_ = nullptr, scratch_yp_ = nullptr;
  SUNMatrix matrix_ = nullptr;
  SUNLinearSolver solver_ = nullptr;
  IdaOptions options_;
  std::string message_;                  // IDA's last error message
  std::exception_ptr callback_failure_;  // an exception a callback caught (rethrown by failure)
};

}  // namespace cmb
