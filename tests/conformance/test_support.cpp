#include "test_support.hpp"

#include <unistd.h>

#include <algorithm>
#include <mutex>
#include <set>
#include <system_error>

#include "catalog/catalog.hpp"
#include "core/assembly.hpp"
#include "core/kkt.hpp"

namespace cmb::test {

namespace {

// The scratch paths this process handed out, removed at its exit. Only by the process that made
// them: a forked child that exits normally must not delete its parent's files.
class ScratchPaths {
 public:
  void add(const std::filesystem::path& path) {
    const std::lock_guard<std::mutex> lock(mutex_);
    paths_.insert(path);
  }
  ~ScratchPaths() {
    if (::getpid() != owner_) return;
    std::error_code ignored;
    for (const auto& path : paths_) std::filesystem::remove_all(path, ignored);
  }

 private:
  const pid_t owner_ = ::getpid();
  std::mutex mutex_;
  std::set<std::filesystem::path> paths_;
};

ScratchPaths& scratch_paths() {
  static ScratchPaths paths;
  return paths;
}

}  // namespace

std::filesystem::path scratch_path(const std::string& name) {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("cmb_" + name + "_" + std::to_string(::getpid()));
  scratch_paths().add(path);
  return path;
}

std::filesystem::path fresh_scratch_dir(const std::string& name) {
  const std::filesystem::path dir = scratch_path(name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

bool has_tag(const Problem& problem, const std::string& tag) {
  const auto& tags = problem.info().tags;
  return std::find(tags.begin(), tags.end(), tag) != tags.end();
}

nlohmann::json conformance_params(const std::string& problem_id) {
  if (problem_id == "n_four_bar") return {{"N", 3}};
  return nlohmann::json::object();
}

bool random_consistent_state(const Problem& problem, std::mt19937& rng, double spread,
                             ConsistentState& out, bool require_full_rank) {
  const Sizes s = problem.sizes();
  std::normal_distribution<double> normal(0.0, 1.0);
  // Anywhere in the horizon: rheonomic terms (car_axis's bump sin(w t)) take all their values.
  out.t = std::uniform_real_distribution<double>(0.0, problem.t_end())(rng);
  out.q.resize(s.nq);
  out.v.resize(s.nq);
  problem.initial_state(out.q, out.v);
  for (int i = 0; i < s.nq; ++i) {
    out.q(i) += spread * normal(rng);
    out.v(i) += normal(rng);
  }
  if (!assemble_positions(problem, out.t, out.q, 1e-13, 100).converged) return false;
  assemble_velocities(problem, out.t, out.q, out.v);
  Mat J(s.m(), s.nq);
  problem.jacobian(out.t, out.q, J);
  return !require_full_rank || row_rank(J, 1e-6) == s.m();
}

Mat fd_constraint_jacobian(const Problem& problem, double t, const Vec& q) {
  const Sizes s = problem.sizes();
  Mat J(s.mh, s.nq);
  Vec plus(s.mh), minus(s.mh), qp = q;
  for (int j = 0; j < s.nq; ++j) {
    const double h = 1e-6 * std::max(1.0, std::abs(q(j)));
    qp(j) = q(j) + h;
    problem.constraints(t, qp, plus);
    qp(j) = q(j) - h;
    problem.constraints(t, qp, minus);
    qp(j) = q(j);
    J.col(j) = (plus - minus) / (2 * h);
  }
  return J;
}

Vec fd_gamma(const Problem& problem, double t, const Vec& q, const Vec& v) {
  const Sizes s = problem.sizes();
  Mat J(s.m(), s.nq);
  Vec nu(s.m());
  auto velocity_residual = [&](double shift) {
    const Vec qs = q + shift * v;
    problem.jacobian(t + shift, qs, J);
    problem.velocity_rhs(t + shift, qs, nu);
    return Vec(J * v - nu);
  };
  const double h = 1e-6;
  return -(velocity_residual(h) - velocity_residual(-h)) / (2 * h);
}

RunConfig tight_run(const std::string& problem, const std::string& method, double tol) {
  RunConfig c;
  c.problem = problem;
  c.method = method;
  c.stepper = "fehlberg78";
  c.abs_tol = c.rel_tol = tol;
  return c;
}

RunResult run_in_process(RunConfig config) {
  config.repeat = 0;
  PreparedRun run = prepare_run(config);
  RunResult result = run_with_reference(run);
  result.problem = nullptr;  // owned by `run`, which ends here
  return result;
}

nlohmann::json quick_run(RunConfig config) {
  return to_json(run_in_process(std::move(config)).record);
}

RunResult run_unregistered(std::unique_ptr<Problem> problem, const std::string& method,
                           const nlohmann::json& method_params, const std::string& stepper,
                           double tol) {
  PreparedRun run;
  run.config.method = method;
  run.config.repeat = 0;
  run.method = make_method(method, method_params);
  run.stepper = &find_stepper(stepper);
  run.settings.abs_tol = run.settings.rel_tol = tol;
  run.t_end = problem->t_end();
  for (int i = 1; i <= 100; ++i) run.sample_times.push_back(run.t_end * i / 100);
  run.key = problem->info().id + "/" + method + "/" + stepper;
  run.problem = std::move(problem);
  return execute_run(run);
}

}  // namespace cmb::test
