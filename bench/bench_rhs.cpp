// Cost of one right-hand-side call, for every method × problem at default sizes (rhs/), with
// linear_solver = dense where auto would take the sparse path (dense/), and over N for
// n_four_bar and n_pendulum (scaling/); one KKT solve of [M Jᵀ; J 0] at the initial state on
// every problem with sparse evaluation that the small dense kernel fits (kkt/: the sparse LDLᵀ
// replay against SmallSchurKernel given dense M and J, their assembly outside the timing); cost of
// a DAE integrator's step over N (dae_step/: 20 ms of motion, items_per_second = steps attempted
// per second, the adaptive ida's own steps). Google Benchmark (Debian libbenchmark-dev), built with
// -DCMB_BENCH=ON; JSON with --benchmark_out=FILE
// --benchmark_out_format=json. Benchmarks, not tests: nothing here asserts a time.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "catalog/catalog.hpp"
#include "core/errors.hpp"
#include "core/integrator.hpp"
#include "core/small_schur_kernel.hpp"
#include "core/sparse_kkt.hpp"

namespace {

using namespace cmb;

// Binds `method` to `problem` (with `params`) and calls rhs at the initial state; a method that
// refuses the problem is reported as skipped.
void rhs_cost(benchmark::State& state, const std::string& problem_id, const nlohmann::json& params,
              const std::string& method_id, const nlohmann::json& method_params) {
  const auto problem = make_problem(problem_id, params);
  const auto method = make_method(method_id, method_params);
  try {
    method->bind(*problem);
  } catch (const NumericalFailure& failure) {
    state.SkipWithError(failure.what());
    return;
  }
  const Sizes s = problem->sizes();
  Vec q(s.nq), v(s.nq), x(method->state_size()), dxdt(method->state_size());
  problem->initial_state(q, v);
  method->pack(0.0, q, v, x);
  method->stats().set_enabled(false);
  try {
    for (auto _ : state) {
      method->rhs(x, dxdt, 0.0);
      benchmark::DoNotOptimize(dxdt.data());
    }
  } catch (const NumericalFailure& failure) {
    state.SkipWithError(failure.what());
    return;
  }
  state.counters["nq"] = s.nq;
}

// One KKT solve at the initial state with the problem's Q and γ: `replay` is SparseKktSolver
// (its factorization replayed on the pattern fixed at bind; values filled outside the timing),
// `small_dense` is SmallSchurKernel on dense M and J (evaluated outside the timing, so the
// kernel is charged nothing for gathering them from the entries).
void kkt_cost(benchmark::State& state, const std::string& problem_id, bool replay) {
  const auto problem = make_problem(problem_id, nlohmann::json::object());
  const Sizes s = problem->sizes();
  const int n = s.nq, m = s.m();
  Vec q(n), v(n), Q(n), gamma(m), qdd(n), lambda(m);
  problem->initial_state(q, v);
  problem->forces(0.0, q, v, Q);
  problem->acceleration_rhs(0.0, q, v, gamma);
  constexpr double kPivotTol = 1e-12;
  bool ok = true;
  if (replay) {
    SparseKktSolver solver;
    solver.bind(*problem);
    solver.evaluate(0.0, q);
    for (auto _ : state) {
      ok = solver.solve(Q, gamma, kPivotTol, qdd, lambda) && ok;
      benchmark::DoNotOptimize(qdd.data());
    }
  } else {
    Mat M(n, n), J(m, n);
    problem->mass_matrix(0.0, q, M);
    problem->jacobian(0.0, q, J);
    SmallSchurKernel kernel;
    kernel.bind(n, m);
    double pivot_ratio = 0.0;
    for (auto _ : state) {
      ok = kernel.solve(M, J, Q, gamma, kPivotTol, RankPolicy::fail, qdd, lambda, 0.0,
                        pivot_ratio) == SchurOutcome::full_rank &&
           ok;
      benchmark::DoNotOptimize(qdd.data());
    }
  }
  if (!ok) state.SkipWithError("the KKT matrix is singular at the initial state");
  state.counters["nq"] = n;
  state.counters["m"] = m;
}

// The methods that declare a linear_solver parameter have a sparse path.
bool has_linear_solver_choice(const std::string& method_id) {
  for (const auto& m : method_registry())
    if (m.id == method_id)
      for (const auto& spec : m.params)
        if (spec.name == "linear_solver") return true;
  return false;
}

// The sparse-capable methods go to N = 1000; the dense ones to N = 200 (n_four_bar N = 200 is
// beyond kMaxDenseCoordinates: they refuse it, reported as an error).
int largest_n(const std::string& method_id) {
  return has_linear_solver_choice(method_id) ? 1000 : 200;
}

// kSteps fixed steps of 1 ms of `integrator_id` from the packed initial state (pack, the start's
// KKT solve, is outside the timing); a refusal or a failed run is reported as an error.
void dae_step_cost(benchmark::State& state, const std::string& problem_id,
                   const nlohmann::json& params, const std::string& integrator_id,
                   const nlohmann::json& integrator_params) {
  constexpr int kSteps = 20;
  constexpr double kDt = 1e-3;
  const auto problem = make_problem(problem_id, params);
  const auto integrator = make_integrator(integrator_id, integrator_params);
  try {
    integrator->bind(*problem);
  } catch (const NumericalFailure& failure) {
    state.SkipWithError(failure.what());
    return;
  }
  const Sizes s = problem->sizes();
  Vec q(s.nq), v(s.nq), x(integrator->state_size());
  problem->initial_state(q, v);
  integrator->stats().set_enabled(false);
  StepperSettings settings;
  settings.dt = kDt;
  const std::vector<double> samples{kSteps * kDt};
  const SampleObserver ignore = [](double, CVecRef) {};
  long steps = 0;  // an adaptive integrator (ida) takes its own number of steps over the span
  for (auto _ : state) {
    state.PauseTiming();
    integrator->pack(0.0, q, v, x);
    state.ResumeTiming();
    const LoopOutcome outcome = integrator->integrate(settings, x, samples, ignore, LoopLimits{});
    if (outcome.status != RunStatus::ok) {
      state.SkipWithError(outcome.message.c_str());
      return;
    }
    steps += outcome.counters.steps_accepted + outcome.counters.steps_rejected;
  }
  state.SetItemsProcessed(steps);
  state.counters["nq"] = s.nq;
}

void register_all() {
  // ali3p also with the penalty a long chain needs: its default multiplier update contracts too
  // slowly on n_pendulum from N = 200 (docs/integrators.md).
  struct Variant {
    std::string id, label;
    nlohmann::json params;
  };
  std::vector<Variant> variants;
  for (const auto& i : integrator_registry())
    variants.push_back({i.id, i.id, nlohmann::json::object()});
  variants.push_back({"ali3p", "ali3p[alpha_rel=1e6]", {{"alpha_rel", 1e6}}});
  for (const Variant& variant : variants)
    for (const std::string family : {"n_four_bar", "n_pendulum"})
      for (int n : {10, 20, 50, 100, 200, 500, 1000})
        benchmark::RegisterBenchmark(
            ("dae_step/" + family + "/N=" + std::to_string(n) + "/" + variant.label).c_str(),
            dae_step_cost, family, nlohmann::json{{"N", n}}, variant.id, variant.params);
  for (const auto& p : problem_registry()) {
    const auto problem = make_problem(p.id, nlohmann::json::object());
    const Sizes s = problem->sizes();
    if (!problem->has_sparse_evaluation() || !SmallSchurKernel::fits(s.nq, s.m())) continue;
    for (const bool replay : {true, false})
      benchmark::RegisterBenchmark(("kkt/" + p.id + (replay ? "/replay" : "/small_dense")).c_str(),
                                   kkt_cost, p.id, replay);
  }
  for (const auto& m : method_registry()) {
    for (const auto& p : problem_registry())
      benchmark::RegisterBenchmark(("rhs/" + p.id + "/" + m.id).c_str(), rhs_cost, p.id,
                                   nlohmann::json::object(), m.id, nlohmann::json::object());
    // The dense path where auto takes the sparse one: the measurements behind auto's choice.
    if (has_linear_solver_choice(m.id))
      for (const auto& p : problem_registry())
        if (make_problem(p.id, nlohmann::json::object())->has_sparse_evaluation())
          benchmark::RegisterBenchmark(("dense/" + p.id + "/" + m.id).c_str(), rhs_cost, p.id,
                                       nlohmann::json::object(), m.id,
                                       nlohmann::json{{"linear_solver", "dense"}});
    for (const std::string family : {"n_four_bar", "n_pendulum"})
      for (int n : {10, 20, 50, 100, 200, 500, 1000})
        if (n <= largest_n(m.id))
          benchmark::RegisterBenchmark(
              ("scaling/" + family + "/N=" + std::to_string(n) + "/" + m.id).c_str(), rhs_cost,
              family, nlohmann::json{{"N", n}}, m.id, nlohmann::json::object());
  }
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
