#include "reference_checks.hpp"

#include <cmath>
#include <sstream>

#include "catalog/catalog.hpp"
#include "core/kkt.hpp"
#include "harness/run/run.hpp"
#include "test_support.hpp"

namespace cmb::test {

namespace {

double claimed_accuracy(const Problem& problem) {
  const double accuracy = problem.reference_info().accuracy;
  return std::isfinite(accuracy) ? accuracy : 0.0;
}

// The first entry of `reference` further than allowed(i, j) from `expected` (entries NaN in
// both are skipped: a published reference has no value there), described; "" when none is.
template <class Allowed>
std::string first_mismatch(const Mat& reference, const Mat& expected,
                           const std::vector<double>& times, const std::vector<std::string>& names,
                           const char* expected_is, Allowed allowed) {
  for (Eigen::Index i = 0; i < reference.rows(); ++i)
    for (Eigen::Index j = 0; j < reference.cols(); ++j) {
      if (std::isnan(reference(i, j)) && std::isnan(expected(i, j))) continue;
      const double off = std::abs(reference(i, j) - expected(i, j)), bound = allowed(i, j);
      if (off <= bound) continue;
      std::ostringstream msg;
      msg.precision(10);
      msg << "the reference's " << names[j] << " at t = " << times[i] << " is " << reference(i, j)
          << ", " << expected_is << " " << expected(i, j) << ": off by " << off << " (allowed "
          << bound << ")";
      return msg.str();
    }
  return "";
}

// The outputs of `problem` integrated from its initial state with `method` + fehlberg78 at `tol`,
// landing on `times`; throws with the run's message when it does not end ok.
Mat integrated_outputs(std::unique_ptr<Problem> problem, const std::string& method, double tol,
                       const std::vector<double>& times) {
  PreparedRun run;
  run.config.method = method;
  run.config.repeat = 0;
  run.config.compute_reference = false;
  run.method = make_method(method, nlohmann::json::object());
  run.stepper = &find_stepper("fehlberg78");
  run.settings.abs_tol = run.settings.rel_tol = tol;
  run.settings.land_on_samples = true;
  run.t_end = times.back();
  run.sample_times = times;
  run.key = problem->info().id + "/" + method + "/fehlberg78";
  run.problem = std::move(problem);
  const RunResult result = execute_run(run);
  if (result.record.status != RunStatus::ok)
    throw std::runtime_error(run.key + " ended " + to_string(result.record.status) + ": " +
                             result.record.message);
  Mat out(times.size(), result.series.outputs.front().size());
  for (std::size_t i = 0; i < times.size(); ++i)
    out.row(i) = result.series.outputs[i + 1].transpose();  // row 0 of the series is t = 0
  return out;
}

}  // namespace

std::string reference_start_mismatch(const Problem& problem) {
  const ReferenceKind kind = problem.reference_info().kind;
  if (kind == ReferenceKind::none || kind == ReferenceKind::self_converged) return "";
  const Sizes s = problem.sizes();
  Vec q(s.nq), v(s.nq), y(problem.output_names().size());
  problem.initial_state(q, v);
  problem.outputs(0.0, q, v, y);
  Mat reference = problem.reference_outputs({0.0});
  if (!reference.row(0).array().isFinite().any()) return "";  // no value at t = 0
  const double allowed =
      claimed_accuracy(problem) + 1e-13 * std::max(1.0, y.lpNorm<Eigen::Infinity>());
  const std::string outputs = first_mismatch(reference, y.transpose(), {0.0},
                                             problem.output_names(), "the initial state's output",
                                             [&](Eigen::Index, Eigen::Index) { return allowed; });
  if (!outputs.empty()) return outputs;
  Vec lambda(s.m());
  if (!problem.reference_multipliers(0.0, lambda)) return "";
  const Vec kkt = kkt_oracle(problem, 0.0, q, v).lambda;
  std::vector<std::string> rows;
  for (int i = 0; i < s.m(); ++i) rows.push_back("multiplier lambda_" + std::to_string(i));
  const double scale = std::max(1.0, kkt.lpNorm<Eigen::Infinity>());
  return first_mismatch(lambda.transpose(), kkt.transpose(), {0.0}, rows,
                        "the KKT oracle's at the initial state",
                        [&](Eigen::Index, Eigen::Index) { return 1e-8 * scale; });
}

std::string reference_integration_mismatch(const ProblemFactory& make) {
  const auto problem = make();
  const ReferenceKind kind = problem->reference_info().kind;
  if (kind != ReferenceKind::analytic && kind != ReferenceKind::reduced_ode) return "";
  std::vector<double> times;
  for (int k = 1; k <= 10; ++k) times.push_back(problem->t_end() / 50 * k / 10);
  const std::string method = has_tag(*problem, "redundant") ? "svd_null_space" : "index1";
  Mat loose, tight;
  try {
    loose = integrated_outputs(make(), method, 1e-10, times);
    tight = integrated_outputs(make(), method, 1e-12, times);
  } catch (const std::runtime_error& e) {
    return std::string("the integration the reference is checked against failed: ") + e.what();
  }
  const Mat reference = problem->reference_outputs(times);
  const double accuracy = claimed_accuracy(*problem);
  return first_mismatch(reference, tight, times, problem->output_names(),
                        "an integration of the problem gives", [&](Eigen::Index i, Eigen::Index j) {
                          return accuracy + std::abs(loose(i, j) - tight(i, j)) +
                                 1e-11 * std::max(1.0, std::abs(tight(i, j)));
                        });
}

}  // namespace cmb::test
