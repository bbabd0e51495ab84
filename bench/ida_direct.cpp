// bench_ida_direct — andrews_squeezer integrated by SUNDIALS IDA called directly: no cmbench
// code (no Problem, no harness, no Eigen), the equations written out by hand.
//
// Why: issue 17 asks that cmbench's `ida` integrator cost no more than 1.2× what IDA itself
// costs on the same equations at the same settings. This program is that yardstick: compare
//   bench_ida_direct --tol 1e-8
//   cmbench run --problem andrews_squeezer --integrator ida --tol 1e-8 --timing-min 1 --out r.json
// (the record's timing.min_s against this program's wall_min_s). Steps and residual counts are
// identical at tol 1e-6; at tighter tolerances both programs take the same steps until an error
// test failure's new step size carries a round-off difference (the residuals agree to 1e-16, the
// difference-quotient columns to ~1e-8 relative), after which the counts drift apart by a few
// per cent — as much as cmbench's own counts move when tol is changed by 1e-12 relative. Final
// q agree to the tolerance's error level.
//
// What it mirrors, at ida's default parameters (integrators/ida.cpp,
// integrators/base/ida_session.cpp, integrators/base/ida_residual.cpp):
//   GGL formulation, y = [q; v; λ; μ], N = 2n + 2m = 26 (n = 7 angles, m = 6 loop rows, all
//   holonomic, ν = 0), residual rows
//     q' − v + Jᵀμ  |  M v' − Q + Jᵀλ  |  Φ(q)  |  J v
//   id = 1 for q, v and 0 for λ, μ; suppress_alg on; rtol = tol; atol = tol for q, v,
//   multiplier_atol·tol = tol for λ, 1e300 for μ (left out of every norm); first step
//   h0_rel·t_end = 1e-6·0.03; max order 5; no max step; stop time t_end = 0.03; dense matrix
//   and dense LU; one IDA step per IDASolve call (IDA_ONE_STEP) until IDA_TSTOP_RETURN.
//   Iteration matrix (--jacobian structured, the default): whole-residual difference quotients
//   in the n q columns with IDA's increment rule, Q alone differenced in the v columns, exact
//   J, Jᵀ, M, I elsewhere. --jacobian internal: IDA's own difference quotients over all N
//   columns (cmbench's --param jacobian=internal).
//   Start: q0 of the problem, v0 = 0, q' = v, (v', λ) from the KKT system, μ = 0, λ' = μ' = 0.
//   Samples: IDAGetDky (y and y') at t_end·k/100, k = 1..100, as cmbench's instrumented run
//   does (its timed repetitions take none; --samples 0 does the same here).
// Model: Bari IVP test set, andrews.f (Hairer & Wanner, Solving ODEs II, VII.7), as in
// problems/andrews_squeezer.cpp: M(q) q̈ = Q(q, q̇) − Jᵀλ, Φ(q) = 0.
//
// Prints the settings, IDA's work counters, the wall time per integration (min and median over
// repetitions: at least --min-reps, more until --min-time seconds in total) and the final q.
#include <ida/ida.h>
#include <nvector/nvector_serial.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "andrews_direct_model.hpp"

namespace {

using namespace andrews;  // n, m, the data and the equations

// ---------------------------------------------------------------------------------------------
// IDA.

int ida_residual(realtype, N_Vector y, N_Vector yp, N_Vector r, void*) {
  return residual(N_VGetArrayPointer(y), N_VGetArrayPointer(yp), N_VGetArrayPointer(r)) ? 0 : 1;
}

int ida_jacobian(realtype, realtype cj, N_Vector y, N_Vector yp, N_Vector r, SUNMatrix jac,
                 void* ida_mem, N_Vector weights, N_Vector, N_Vector) {
  realtype h = 0.0;
  IDAGetCurrentStep(ida_mem, &h);
  IDAGetErrWeights(ida_mem, weights);
  return iteration_matrix(cj, N_VGetArrayPointer(y), N_VGetArrayPointer(yp), N_VGetArrayPointer(r),
                          N_VGetArrayPointer(weights), h, SUNDenseMatrix_Data(jac))
             ? 0
             : 1;
}

void check(int flag, const char* call) {
  if (flag < 0)
    throw std::runtime_error(std::string(call) + " failed with flag " + std::to_string(flag));
}

struct Settings {
  double tol = 1e-8;
  bool structured_jacobian = true;
  int samples = 100;
  double min_time = 0.2;
  int min_reps = 5;
};

struct Work {
  long steps = 0, residuals = 0, jacobians = 0, newton_iterations = 0, error_test_failures = 0,
       convergence_failures = 0;
};

// IDA's memory, vectors and dense solver, created once (IDAInit); every integration restarts
// it with IDAReInit, as cmbench's IdaSession does.
class IdaSolver {
 public:
  explicit IdaSolver(bool structured_jacobian) {
    check(SUNContext_Create(nullptr, &context_), "SUNContext_Create");
    y_ = N_VNew_Serial(N, context_);
    yp_ = N_VNew_Serial(N, context_);
    atol_ = N_VNew_Serial(N, context_);
    id_ = N_VNew_Serial(N, context_);
    sample_y_ = N_VNew_Serial(N, context_);
    sample_yp_ = N_VNew_Serial(N, context_);
    consistent_start(y0_, yp0_);
    std::copy(y0_, y0_ + N, N_VGetArrayPointer(y_));
    std::copy(yp0_, yp0_ + N, N_VGetArrayPointer(yp_));
    double* id = N_VGetArrayPointer(id_);
    for (int i = 0; i < N; ++i) id[i] = i < 2 * n ? 1.0 : 0.0;
    matrix_ = SUNDenseMatrix(N, N, context_);
    solver_ = SUNLinSol_Dense(y_, matrix_, context_);
    mem_ = IDACreate(context_);
    check(IDAInit(mem_, ida_residual, 0.0, y_, yp_), "IDAInit");
    check(IDASetUserData(mem_, mem_), "IDASetUserData");  // the Jacobian asks IDA for h, ewt
    check(IDASetLinearSolver(mem_, solver_, matrix_), "IDASetLinearSolver");
    if (structured_jacobian) check(IDASetJacFn(mem_, ida_jacobian), "IDASetJacFn");
    check(IDASetId(mem_, id_), "IDASetId");
  }
  IdaSolver(const IdaSolver&) = delete;
  IdaSolver& operator=(const IdaSolver&) = delete;
  ~IdaSolver() {
    IDAFree(&mem_);
    SUNLinSolFree(solver_);
    SUNMatDestroy(matrix_);
    for (N_Vector v : {y_, yp_, atol_, id_, sample_y_, sample_yp_}) N_VDestroy(v);
    SUNContext_Free(&context_);
  }

  // One integration 0..t_end from the consistent start (computed once, as cmbench packs it
  // outside its timed region); q_end gets the final q.
  Work integrate(const Settings& s, double* q_end) {
    double* y = N_VGetArrayPointer(y_);
    std::copy(y0_, y0_ + N, y);
    std::copy(yp0_, yp0_ + N, N_VGetArrayPointer(yp_));
    restart(s.tol);
    const long residuals_before = g_residuals;
    int next_sample = 1;
    realtype t = 0.0;
    for (int flag = 0; flag != IDA_TSTOP_RETURN;) {
      flag = IDASolve(mem_, kTEnd, &t, y_, yp_, IDA_ONE_STEP);
      check(flag, "IDASolve");
      for (; next_sample <= s.samples && sample_time(next_sample, s.samples) <= t; ++next_sample) {
        const double ts = sample_time(next_sample, s.samples);
        check(IDAGetDky(mem_, ts, 0, sample_y_), "IDAGetDky");
        check(IDAGetDky(mem_, ts, 1, sample_yp_), "IDAGetDky");
      }
    }
    std::copy(y + kQ, y + kQ + n, q_end);
    return work(g_residuals - residuals_before);
  }

 private:
  // The sample times of cmbench's default t_end/100 interval: t_end·k/count, the last t_end.
  static double sample_time(int k, int count) { return k == count ? kTEnd : kTEnd * k / count; }

  void restart(double tol) {
    double* atol = N_VGetArrayPointer(atol_);
    for (int i = 0; i < N; ++i) atol[i] = i < kLambda ? tol : i < kMu ? 1.0 * tol : 1e300;
    check(IDAReInit(mem_, 0.0, y_, yp_), "IDAReInit");
    check(IDASVtolerances(mem_, tol, atol_), "IDASVtolerances");
    check(IDASetSuppressAlg(mem_, SUNTRUE), "IDASetSuppressAlg");
    check(IDASetMaxOrd(mem_, 5), "IDASetMaxOrd");
    check(IDASetInitStep(mem_, 1e-6 * kTEnd), "IDASetInitStep");
    check(IDASetMaxStep(mem_, 0.0), "IDASetMaxStep");
    check(IDASetStopTime(mem_, kTEnd), "IDASetStopTime");
  }

  Work work(long residuals) const {
    Work w;
    IDAGetNumSteps(mem_, &w.steps);
    IDAGetNumJacEvals(mem_, &w.jacobians);
    IDAGetNumNonlinSolvIters(mem_, &w.newton_iterations);
    IDAGetNumErrTestFails(mem_, &w.error_test_failures);
    IDAGetNumNonlinSolvConvFails(mem_, &w.convergence_failures);
    w.residuals = residuals;  // counted in residual(): IDA's difference quotients included
    return w;
  }

  double y0_[N], yp0_[N];  // the consistent start
  SUNContext context_ = nullptr;
  void* mem_ = nullptr;
  N_Vector y_, yp_, atol_, id_, sample_y_, sample_yp_;
  SUNMatrix matrix_;
  SUNLinearSolver solver_;
};

// ---------------------------------------------------------------------------------------------
// Command line, timing, report.

Settings parse(int argc, char** argv) {
  Settings s;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) throw std::runtime_error("missing value after " + arg);
    const char* value = argv[++i];
    if (arg == "--tol") {
      s.tol = std::atof(value);
    } else if (arg == "--jacobian") {
      const std::string j = value;
      if (j != "structured" && j != "internal")
        throw std::runtime_error("--jacobian is structured or internal");
      s.structured_jacobian = j == "structured";
    } else if (arg == "--samples") {
      s.samples = std::atoi(value);
    } else if (arg == "--min-time") {
      s.min_time = std::atof(value);
    } else if (arg == "--min-reps") {
      s.min_reps = std::atoi(value);
    } else {
      throw std::runtime_error("unknown option " + arg +
                               " (--tol X, --jacobian structured|internal, --samples K, "
                               "--min-time S, --min-reps R)");
    }
  }
  if (!(s.tol > 0) || s.samples < 0 || s.min_reps < 1)
    throw std::runtime_error("need --tol > 0, --samples >= 0, --min-reps >= 1");
  return s;
}

// Wall seconds of each repetition: at least min_reps, more until min_time in total.
std::vector<double> timed_repetitions(IdaSolver& ida, const Settings& s) {
  std::vector<double> seconds;
  double total = 0.0, q_end[n];
  while (static_cast<int>(seconds.size()) < s.min_reps || total < s.min_time) {
    const auto start = std::chrono::steady_clock::now();
    ida.integrate(s, q_end);
    seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    total += seconds.back();
  }
  std::sort(seconds.begin(), seconds.end());
  return seconds;
}

void report(const Settings& s, const Work& w, const std::vector<double>& seconds,
            const double* q_end) {
  std::printf("problem        andrews_squeezer (GGL, N = %d), IDA called directly\n", N);
  std::printf("jacobian       %s\n", s.structured_jacobian ? "structured" : "internal");
  std::printf("tol            %g\n", s.tol);
  std::printf("samples        %d\n", s.samples);
  std::printf("steps          %ld\n", w.steps);
  std::printf("rejected       %ld (error test %ld, convergence %ld)\n",
              w.error_test_failures + w.convergence_failures, w.error_test_failures,
              w.convergence_failures);
  std::printf("residuals      %ld\n", w.residuals);
  std::printf("jacobians      %ld\n", w.jacobians);
  std::printf("newton_iters   %ld\n", w.newton_iterations);
  std::printf("repetitions    %zu\n", seconds.size());
  std::printf("wall_min_s     %.6e\n", seconds.front());
  std::printf("wall_median_s  %.6e\n", seconds[seconds.size() / 2]);
  std::printf("q_final       ");
  for (int i = 0; i < n; ++i) std::printf(" %.16g", q_end[i]);
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Settings settings = parse(argc, argv);
    IdaSolver ida(settings.structured_jacobian);
    double q_end[n];
    const Work work = ida.integrate(settings, q_end);
    report(settings, work, timed_repetitions(ida, settings), q_end);
    return 0;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "bench_ida_direct: %s\n", error.what());
    return 1;
  }
}
