#include "harness/run/self_converged.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <limits>

#include "harness/run/context.hpp"
#include "harness/run/run.hpp"
#include "records/reference_cache.hpp"
#include "records/results_file.hpp"

namespace cmb {

namespace {

// The grid is uniform: the default sampling's 100 intervals (every run's default samples are
// grid times) cut into 2 at first, then fourfold while the values read between grid times in some
// interval may be off by more than the two runs' agreement and more grid times still help there
// (at degree 7 a fourfold cut divides the error by about 4⁸; where it does not shrink at all, a
// stiff transient narrower than the grid, the interval keeps its large bound). The bounds are
// kept per interval of the default sampling, so a transient costs accuracy only where it is.
constexpr int kBlocks = 100;
constexpr long kFirstIntervals = 200;
constexpr long kMostIntervals = 12800;

std::vector<double> uniform_grid(double t_end, long intervals) {
  std::vector<double> grid;
  for (long k = 0; k <= intervals; ++k)
    grid.push_back(t_end * static_cast<double>(k) / static_cast<double>(intervals));
  return grid;
}

Mat run_on_grid(const std::string& id, const nlohmann::json& params,
                const std::vector<double>& grid, const nlohmann::json& config) {
  RunConfig c;
  c.problem = id;
  c.problem_params = params;
  c.problem_params.erase("t_end");  // the horizon is the grid's, given as the run setting below
  c.method = config.at("method").get<std::string>();
  c.method_params = config.value("method_params", nlohmann::json::object());
  c.stepper = config.at("stepper").get<std::string>();
  c.abs_tol = c.rel_tol = config.at("tol").get<double>();
  c.t_end = grid.back();
  c.repeat = 0;
  c.compute_reference = false;
  PreparedRun run = prepare_run(c);
  run.sample_times.assign(grid.begin() + 1, grid.end());
  run.settings.land_on_samples = true;
  const RunResult result = execute_run(run);
  // Out of memory stays what it is: another attempt with more memory may compute it.
  if (result.record.status != RunStatus::ok)
    throw NumericalFailure(result.record.status == RunStatus::out_of_memory
                               ? RunStatus::out_of_memory
                               : RunStatus::reference_failed,
                           "self-converged reference run " + run.key + " ended " +
                               to_string(result.record.status) + ": " + result.record.message);
  const auto& series = result.series;
  // Landing on the samples, every run must report exactly the grid: anything else would make
  // the two runs' rows refer to different times.
  if (series.t.size() != grid.size())
    throw NumericalFailure(RunStatus::reference_failed,
                           "self-converged reference run " + run.key + " produced " +
                               std::to_string(series.t.size()) + " samples instead of " +
                               std::to_string(grid.size()));
  Mat out(series.t.size(), series.outputs.front().size());
  for (std::size_t i = 0; i < series.t.size(); ++i) out.row(i) = series.outputs[i].transpose();
  return out;
}

// Fills `ref` from the cache file when it holds exactly the expected entry. An entry that is
// there but wrong (truncated, edited, another layout) is said once on stderr and recomputed.
bool read_cached(const ReferenceCacheExpectation& expected, SelfConvergedReference& ref) {
  std::string why;
  const auto cached = read_reference_cache(ref.cache_file, expected, why);
  if (!cached) {
    if (!why.empty()) std::cerr << "cmbench: recomputing the reference: " << why << "\n";
    return false;
  }
  ref.grid = cached->grid;
  ref.outputs = cached->outputs;
  ref.agreement = cached->agreement;
  ref.interval_errors = cached->interval_errors;
  ref.provenance = cached->provenance;
  ref.from_cache = true;
  return true;
}

// An exclusive lock on `path` (flock) while it lives: runs of one campaign in other processes —
// workers, the shards of a job array on other nodes of a shared file system — that need the same
// reference wait for the one computing it and then read it, instead of computing it again. The
// file is written atomically anyway, so a file system without locks costs only time, never a
// corrupt cache. The lock file stays (removing it would race with a waiting process).
class FileLock {
 public:
  explicit FileLock(const std::string& path) : fd_(::open(path.c_str(), O_RDWR | O_CREAT, 0644)) {
    if (fd_ >= 0) ::flock(fd_, LOCK_EX);
  }
  ~FileLock() {
    if (fd_ >= 0) ::close(fd_);  // releases the lock
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_;
};

// What identifies a reference in its cache file, and the file's name without extension.
nlohmann::json cache_key(const Problem& problem, double t_end, const nlohmann::json& recipe) {
  return {{"problem", problem.info().id},
          {"params", problem.params()},
          {"t_end", t_end},
          {"recipe", recipe.is_null() ? default_reference_recipe() : recipe},
          // 4: each entry carries the digest of its content (format 3 did not; 3 refined the
          // grid for interpolation between grid times, format 2 had 100 intervals)
          {"format", 4}};
}

std::string cache_name(const Problem& problem, const nlohmann::json& key) {
  return problem.info().id + "-" + stable_hash(key.dump());
}

}  // namespace

nlohmann::json default_reference_recipe() {
  return nlohmann::json::array(
      {{{"method", "augmented_lagrangian"}, {"stepper", "fehlberg78"}, {"tol", 1e-12}},
       {{"method", "svd_null_space"},
        {"method_params", {{"omega0", 10.0}}},
        {"stepper", "bulirsch_stoer"},
        {"tol", 1e-12}}});
}

std::string reference_cache_file(const PreparedRun& run) {
  const nlohmann::json key =
      cache_key(*run.problem, run.t_end, run.problem->reference_info().recipe);
  return (std::filesystem::path(run.config.reference_cache) /
          (cache_name(*run.problem, key) + ".json"))
      .string();
}

namespace {

// Each block's bound (a block: an interval of the default sampling): the largest of its
// intervals' estimates, given to all of them; and the largest bound per block.
std::vector<double> block_bounds(const std::vector<double>& estimates, std::vector<double>& worst) {
  const std::size_t per_block = estimates.size() / kBlocks;
  std::vector<double> bounds;
  worst.assign(kBlocks, 0.0);
  for (int k = 0; k < kBlocks; ++k) {
    const auto begin = estimates.begin() + k * per_block;
    worst[k] = *std::max_element(begin, begin + per_block);
    bounds.insert(bounds.end(), per_block, worst[k]);
  }
  return bounds;
}

// Runs the recipe's two configurations on grids refined while some block's bound exceeds the
// runs' agreement and fell by at least 16 (of the 4⁸ a smooth function gives) at the last cut,
// into `ref`.
void compute_on_refined_grid(const Problem& problem, double t_end, const nlohmann::json& recipe,
                             SelfConvergedReference& ref) {
  std::vector<double> before(kBlocks, std::numeric_limits<double>::infinity()), worst;
  for (long intervals = kFirstIntervals;; intervals *= 4) {
    ref.grid = uniform_grid(t_end, intervals);
    ref.outputs = run_on_grid(problem.info().id, problem.params(), ref.grid, recipe.at(0));
    const Mat b = run_on_grid(problem.info().id, problem.params(), ref.grid, recipe.at(1));
    ref.agreement = (ref.outputs - b).cwiseAbs().maxCoeff();
    ref.interval_errors = block_bounds(interpolation_errors(ref.grid, ref.outputs), worst);
    bool helps = false;
    for (int k = 0; k < kBlocks; ++k)
      helps = helps || (worst[k] > ref.agreement && worst[k] <= before[k] / 16.0);
    if (!helps || intervals * 4 > kMostIntervals) return;
    before = worst;
  }
}

}  // namespace

SelfConvergedReference self_converged_reference(const Problem& problem, double t_end,
                                                const nlohmann::json& recipe_in,
                                                const std::string& cache_dir) {
  const nlohmann::json key = cache_key(problem, t_end, recipe_in);
  const nlohmann::json& recipe = key.at("recipe");
  const ReferenceCacheExpectation expected{key, t_end, problem.output_names().size()};
  SelfConvergedReference ref;
  const std::string name = cache_name(problem, key);
  ref.cache_file = (std::filesystem::path(cache_dir) / (name + ".json")).string();
  if (read_cached(expected, ref)) return ref;
  std::error_code ec;
  std::filesystem::create_directories(cache_dir, ec);
  const FileLock lock((std::filesystem::path(cache_dir) / ("." + name + ".lock")).string());
  if (read_cached(expected, ref)) return ref;  // computed by another process while this one waited
  compute_on_refined_grid(problem, t_end, recipe, ref);
  ref.provenance = {
      {"runs", recipe},
      {"agreement", ref.agreement},
      {"grid_intervals", ref.grid.size() - 1},
      {"interpolation_error",
       *std::max_element(ref.interval_errors.begin(), ref.interval_errors.end())},
      {"context", to_json(run_context())},
      {"note",
       "outputs of the first run on its grid; accuracy estimated by the largest difference to "
       "the second; between grid times the degree-7 polynomial through the 8 nearest grid "
       "values, its error in each interval bounded by reading the odd grid times from the even "
       "ones"}};
  write_reference_cache(
      ref.cache_file, key,
      {ref.grid, ref.outputs, ref.agreement, ref.interval_errors, ref.provenance});
  return ref;
}

void resolve_reference(PreparedRun& run, const ReferenceFailures& known_failures) {
  if (!needs_grid_reference(run)) return;
  const Problem& problem = *run.problem;
  ReferenceRecord& block = run.reference_block.emplace();
  block.kind = to_string(ReferenceKind::self_converged);
  auto failed = [&](const std::string& why, RunStatus status = RunStatus::reference_failed) {
    run.reference_failure = why;
    run.reference_failure_status = status;
    block.provenance = "could not be computed: " + why;
    block.accuracy = std::numeric_limits<double>::quiet_NaN();
  };
  const auto known = known_failures.find(reference_cache_file(run));
  if (known != known_failures.end()) return failed(known->second.why, known->second.status);
  try {
    const SelfConvergedReference ref = self_converged_reference(
        problem, run.t_end, problem.reference_info().recipe, run.config.reference_cache);
    run.grid_reference = GridReference(ref);
    block.provenance = ref.provenance;
    block.accuracy = ref.agreement;
    block.cache_file = ref.cache_file;
    block.from_cache = ref.from_cache;
  } catch (const NumericalFailure& failure) {
    failed(failure.what(), failure.status() == RunStatus::out_of_memory
                               ? RunStatus::out_of_memory
                               : RunStatus::reference_failed);
  } catch (const std::bad_alloc&) {
    failed("ran out of memory while computing it", RunStatus::out_of_memory);
  }
}

RunResult run_with_reference(PreparedRun& run) {
  resolve_reference(run);
  return execute_run(run);
}

}  // namespace cmb
