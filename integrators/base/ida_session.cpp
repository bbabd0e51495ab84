#include "integrators/base/ida_session.hpp"

#include <ida/ida.h>
#include <nvector/nvector_serial.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunlinsol/sunlinsol_klu.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunmatrix/sunmatrix_sparse.h>

#include <algorithm>
#include <cmath>
#include <new>
#include <sstream>

namespace cmb {

namespace {

// The sparse path's matrix into SUNDIALS' compressed columns. All three arrays every time: IDA
// zeroes the whole matrix, pattern included, before it asks for a new one.
void copy_into(const SparseAssembly& matrix, SUNMatrix target) {
  sunindextype* start = SUNSparseMatrix_IndexPointers(target);
  sunindextype* rows = SUNSparseMatrix_IndexValues(target);
  realtype* values = SUNSparseMatrix_Data(target);
  std::copy(matrix.column_start().begin(), matrix.column_start().end(), start);
  std::copy(matrix.row_index().begin(), matrix.row_index().end(), rows);
  std::copy(matrix.values().begin(), matrix.values().end(), values);
}

// The iteration matrix at (t, y, y') into jac, dense or sparse as the system is.
bool fill_iteration_matrix(IdaResidual& system, realtype t, realtype cj, const double* y,
                           const double* yp, const double* r, const double* weights, double h,
                           SUNMatrix jac) {
  if (!system.sparse())
    return system.iteration_matrix(t, cj, y, yp, r, weights, h, SUNDenseMatrix_Data(jac));
  const bool finite = system.sparse_iteration_matrix(t, cj, y, yp, weights, h);
  copy_into(system.sparse_matrix(), jac);
  return finite;
}

}  // namespace

// IDA calls these through C function pointers: no exception may cross them, so a callback that
// catches one keeps it for failure() and reports an unrecoverable error.
struct IdaCallbacks {
  static int residual(realtype t, N_Vector y, N_Vector yp, N_Vector r, void* data) {
    auto* self = static_cast<IdaSession*>(data);
    try {
      // A non-finite residual is recoverable: IDA retries with a smaller step, and gives up
      // with IDA_REP_RES_ERR (diverged) when that does not help.
      return self->system_->residual(t, N_VGetArrayPointer(y), N_VGetArrayPointer(yp),
                                     N_VGetArrayPointer(r))
                 ? 0
                 : 1;
    } catch (...) {
      self->callback_failure_ = std::current_exception();
      return -1;
    }
  }

  static int jacobian(realtype t, realtype cj, N_Vector y, N_Vector yp, N_Vector r, SUNMatrix jac,
                      void* data, N_Vector weights, N_Vector, N_Vector) {
    auto* self = static_cast<IdaSession*>(data);
    try {
      realtype h = 0.0;
      IDAGetCurrentStep(self->ida_, &h);
      IDAGetErrWeights(self->ida_, weights);  // a copy into IDA's scratch vector
      return fill_iteration_matrix(*self->system_, t, cj, N_VGetArrayPointer(y),
                                   N_VGetArrayPointer(yp), N_VGetArrayPointer(r),
                                   N_VGetArrayPointer(weights), h, jac)
                 ? 0
                 : 1;
    } catch (...) {
      self->callback_failure_ = std::current_exception();
      return -1;
    }
  }

  // IDA's error weights 1 / (rel_tol |y_i| + atol_i), λ's atol divided by the step about to be
  // taken (multiplier_tol_per_step). λ of ggl is an index-2 component: a Newton correction δλ
  // moves v by h M⁻¹Jᵀδλ, and its round-off is the force rows' times c_j = O(1/h). With a fixed
  // absolute tolerance Newton could not converge at t = 0 on long chains (n_four_bar N = 166,
  // tol 1e-8, first step 2e-8 s). Its error is multiplied by the step, as RADAU5 does for
  // index-2 components [HairerWanner1996] (VII.8).
  static int error_weights(N_Vector y, N_Vector ewt, void* data) {
    auto* self = static_cast<IdaSession*>(data);
    long steps = 0;
    realtype h = 0.0;
    IDAGetNumSteps(self->ida_, &steps);
    IDAGetCurrentStep(self->ida_, &h);
    if (steps == 0 || !(h > 0.0)) h = self->options_.h0;
    if (!(h > 0.0))
      h = 1.0;  // IDA picks the first step after these weights: λ's tolerance as given
    self->error_weights(N_VGetArrayPointer(y), h, N_VGetArrayPointer(ewt));
    return 0;
  }

  // IDA's messages go into the session (the run's message), never to stderr.
  static void error_handler(int code, const char* module, const char* function, char* message,
                            void* data) {
    if (code == IDA_WARNING) return;
    try {
      static_cast<IdaSession*>(data)->message_ = std::string(function) + ": " + message;
    } catch (...) {  // out of memory: the run keeps IDA's flag without its message
    }
  }
};

namespace {

// SUNDIALS' constructors return null when they cannot allocate.
template <class T>
T checked(T handle) {
  if (handle == nullptr) throw std::bad_alloc();
  return handle;
}

void require(int flag, const char* call) {
  if (flag < 0)
    throw std::logic_error(std::string("ida: ") + call + " failed with flag " +
                           std::to_string(flag));
}

}  // namespace

IdaSession::~IdaSession() {
  if (ida_) IDAFree(&ida_);
  if (solver_) SUNLinSolFree(solver_);
  if (matrix_) SUNMatDestroy(matrix_);
  for (N_Vector* v : {&y_, &yp_, &atol_, &ids_, &weights_, &scratch_r_, &scratch_y_, &scratch_yp_})
    if (*v) N_VDestroy(*v);
  if (context_) SUNContext_Free(&context_);
}

void IdaSession::create(IdaResidual& system, double* y, double* yp, bool own_jacobian) {
  system_ = &system;
  const sunindextype n = system.size();
  require(SUNContext_Create(nullptr, &context_), "SUNContext_Create");
  y_ = checked(N_VMake_Serial(n, y, context_));
  yp_ = checked(N_VMake_Serial(n, yp, context_));
  // Views for interpolate(): their storage is set at each call and never theirs to free.
  scratch_y_ = checked(N_VMake_Serial(n, nullptr, context_));
  scratch_yp_ = checked(N_VMake_Serial(n, nullptr, context_));
  for (N_Vector* v : {&atol_, &ids_, &weights_, &scratch_r_})
    *v = checked(N_VNew_Serial(n, context_));
  N_VConst(0.0, scratch_r_);
  set_tolerances(options_);
  system.component_ids(N_VGetArrayPointer(ids_));
  if (system.sparse()) {
    const auto nonzeros = static_cast<sunindextype>(system.sparse_matrix().nonzeros());
    matrix_ = checked(SUNSparseMatrix(n, n, nonzeros, CSC_MAT, context_));
    solver_ = checked(SUNLinSol_KLU(y_, matrix_, context_));
    // Partial pivoting, as the dense LU and SparseLu: KLU's default threshold pivoting let the
    // pivot ratio fall to ~1e-11 near A02's singular positions. No block-triangular form: its
    // maximum transversal took half of a short run at N = 1000, and IDA analyses afresh at every
    // run's start.
    sun_klu_common* common = SUNLinSol_KLUGetCommon(solver_);
    common->tol = 1.0;
    common->btf = 0;
  } else {
    matrix_ = checked(SUNDenseMatrix(n, n, context_));
    solver_ = checked(SUNLinSol_Dense(y_, matrix_, context_));
  }
  ida_ = checked(IDACreate(context_));
  require(IDASetErrHandlerFn(ida_, IdaCallbacks::error_handler, this), "IDASetErrHandlerFn");
  // IDAInit allocates IDA's history; start() only re-initializes it (no allocation per run).
  require(IDAInit(ida_, IdaCallbacks::residual, 0.0, y_, yp_), "IDAInit");
  require(IDASetUserData(ida_, this), "IDASetUserData");
  require(IDASetLinearSolver(ida_, solver_, matrix_), "IDASetLinearSolver");
  if (own_jacobian) require(IDASetJacFn(ida_, IdaCallbacks::jacobian), "IDASetJacFn");
  require(IDASetId(ida_, ids_), "IDASetId");
}

void IdaSession::start(const IdaOptions& options) {
  options_ = options;
  message_.clear();
  callback_failure_ = nullptr;
  set_tolerances(options);
  require(IDAReInit(ida_, 0.0, y_, yp_), "IDAReInit");
  if (options.multiplier_tol_per_step)
    require(IDAWFtolerances(ida_, IdaCallbacks::error_weights), "IDAWFtolerances");
  else
    require(IDASVtolerances(ida_, options.rel_tol, atol_), "IDASVtolerances");
  require(IDASetSuppressAlg(ida_, options.suppress_alg ? SUNTRUE : SUNFALSE), "IDASetSuppressAlg");
  require(IDASetMaxOrd(ida_, options.max_order), "IDASetMaxOrd");
  require(IDASetInitStep(ida_, options.h0), "IDASetInitStep");
  require(IDASetMaxStep(ida_, options.max_step), "IDASetMaxStep");
  require(IDASetStopTime(ida_, options.t_stop), "IDASetStopTime");
}

void IdaSession::set_tolerances(const IdaOptions& options) {
  // ggl's μ only moves q, by h J_hᵀμ, which q's own tests measure; measured itself, its
  // round-off (that of q over h J_h) kept Newton from converging at t = 0 on andrews_squeezer
  // at every tolerance below 1e-6. A weight of 1e-300 leaves it out of every norm.
  constexpr double kUnmeasured = 1e300;
  const int differential = 2 * system_->n(), multipliers = differential + system_->m();
  double* atol = N_VGetArrayPointer(atol_);
  for (int i = 0; i < system_->size(); ++i)
    atol[i] = i < differential  ? options.abs_tol
              : i < multipliers ? options.multiplier_tol
                                : kUnmeasured;
}

int IdaSession::step(double& t) {
  realtype reached = t;
  const int flag = IDASolve(ida_, options_.t_stop, &reached, y_, yp_, IDA_ONE_STEP);
  t = reached;
  return flag;
}

void IdaSession::interpolate(double t, double* y, double* yp) {
  N_VSetArrayPointer(y, scratch_y_);
  N_VSetArrayPointer(yp, scratch_yp_);
  require(IDAGetDky(ida_, t, 0, scratch_y_), "IDAGetDky");
  require(IDAGetDky(ida_, t, 1, scratch_yp_), "IDAGetDky");
}

IdaWork IdaSession::work() const {
  IdaWork w;
  long ida_residuals = 0, dq_residuals = 0;
  IDAGetNumSteps(ida_, &w.steps);
  IDAGetNumResEvals(ida_, &ida_residuals);
  IDAGetNumLinResEvals(ida_, &dq_residuals);
  IDAGetNumJacEvals(ida_, &w.jacobians);
  IDAGetNumNonlinSolvIters(ida_, &w.newton_iterations);
  IDAGetNumErrTestFails(ida_, &w.error_test_failures);
  IDAGetNumNonlinSolvConvFails(ida_, &w.convergence_failures);
  IDAGetNumLinSolvSetups(ida_, &w.setups);
  w.residuals = ida_residuals + dq_residuals;
  return w;
}

NumericalFailure IdaSession::failure(int flag, double t) const {
  if (callback_failure_) {
    try {
      std::rethrow_exception(callback_failure_);
    } catch (const NumericalFailure& failure) {
      return failure;
    }  // anything else is not numerical: it leaves as it came
  }
  RunStatus status = RunStatus::diverged;
  switch (flag) {
    case IDA_TOO_MUCH_WORK:
    case IDA_TOO_MUCH_ACC:
    case IDA_ERR_FAIL:  // error test failed repeatedly or at the smallest step
      status = RunStatus::step_limit;
      break;
    case IDA_CONV_FAIL:
    case IDA_NLS_FAIL:
      status = RunStatus::newton_failed;
      break;
    case IDA_LSETUP_FAIL:  // the iteration matrix could not be factorized
    case IDA_LSOLVE_FAIL:
      status = RunStatus::singular;
      break;
    default:  // residual failures (not finite), and anything unforeseen
      break;
  }
  std::ostringstream msg;
  msg.precision(10);
  msg << "IDA failed (flag " << flag << ") at t = " << t;
  if (!message_.empty()) msg << ": " << message_;
  return NumericalFailure(status, msg.str());
}

void IdaSession::error_weights(const double* y, double h, double* weights) const {
  const int lambda_begin = 2 * system_->n(), lambda_end = lambda_begin + system_->m();
  const double* atol = N_VGetArrayPointer(atol_);
  for (int i = 0; i < system_->size(); ++i) {
    const bool per_step = options_.multiplier_tol_per_step && i >= lambda_begin && i < lambda_end;
    weights[i] = 1.0 / (options_.rel_tol * std::abs(y[i]) + (per_step ? atol[i] / h : atol[i]));
  }
}

void IdaSession::evaluate_callbacks(double t, const double* y, const double* yp, double cj) {
  double* weights = N_VGetArrayPointer(weights_);
  error_weights(y, 1.0 / cj, weights);
  double* r = N_VGetArrayPointer(scratch_r_);
  system_->residual(t, y, yp, r);
  fill_iteration_matrix(*system_, t, cj, y, yp, r, weights, 1.0 / cj, matrix_);
}

}  // namespace cmb
