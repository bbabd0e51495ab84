#include "records/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <vector>

#include "core/errors.hpp"
#include "records/output.hpp"

namespace cmb {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

ResultsFile load(const std::string& where) {
  const fs::path path =
      fs::is_directory(where) ? fs::path(where) / "results.json" : fs::path(where);
  ResultsFile file =
      load_results(path.string(), "cannot read '" + path.string() +
                                      "' (give a results directory or a results.json)");
  file.name = where;  // the report names the inputs as given
  return file;
}

// Key → run. Keys are unique in a results file: load_results checked.
std::map<std::string, const RunRecord*> runs_by_key(const ResultsFile& file) {
  std::map<std::string, const RunRecord*> runs;
  for (const auto& run : file.runs) runs.emplace(run.key, &run);
  return runs;
}

bool numbers_close(double x, double y, double rel_tol) {
  if (x == y) return true;
  return std::abs(x - y) <= rel_tol * std::max(std::abs(x), std::abs(y));
}

// Same structure and values, numbers within rel_tol.
bool same(const json& x, const json& y, double rel_tol) {
  if (x.is_number() && y.is_number())
    return numbers_close(x.get<double>(), y.get<double>(), rel_tol);
  if (x.type() != y.type() || x.size() != y.size()) return false;
  if (x.is_object()) {
    for (const auto& [k, v] : x.items())
      if (!y.contains(k) || !same(v, y[k], rel_tol)) return false;
    return true;
  }
  if (x.is_array()) {
    for (std::size_t i = 0; i < x.size(); ++i)
      if (!same(x[i], y[i], rel_tol)) return false;
    return true;
  }
  return x == y;
}

// What a run computed, without timings or the machine context: its status, metrics and work
// as the record writes them (a number within rel_tol is the same number).
json comparable(const RunRecord& run) {
  return {{"status", to_string(run.status)},
          {"metrics", run.metrics ? to_json(*run.metrics) : json()},
          {"work", run.work ? to_json(*run.work) : json()}};
}

json number_or_null(double value) { return std::isfinite(value) ? json(value) : json(); }

double max_error(const RunRecord& run) {
  return run.metrics && run.metrics->error ? run.metrics->error->max_abs : NAN;
}
double max_position_drift(const RunRecord& run) {
  return run.metrics ? run.metrics->position_drift.max : NAN;
}
json rhs_calls(const RunRecord& run) { return run.work ? json(run.work->rhs_calls) : json(); }

std::string number_text(const json& value) {
  if (!value.is_number()) return "-";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3g", value.get<double>());
  return buffer;
}

// The run's time: its fastest repetition, or the instrumented run when it was not repeated.
double run_seconds(const RunRecord& run) {
  if (!run.timing) return NAN;
  return std::isfinite(run.timing->min_s) ? run.timing->min_s : run.timing->instrumented_s;
}

json change_json(const std::string& key, const RunRecord& a, const RunRecord& b) {
  return {{"key", key},
          {"status", {to_string(a.status), to_string(b.status)}},
          {"max_error", {number_or_null(max_error(a)), number_or_null(max_error(b))}},
          {"max_position_drift",
           {number_or_null(max_position_drift(a)), number_or_null(max_position_drift(b))}},
          {"rhs_calls", {rhs_calls(a), rhs_calls(b)}}};
}

void print_change(std::ostream& out, const json& change) {
  auto pair = [&](const char* field) {
    return number_text(change[field][0]) + " -> " + number_text(change[field][1]);
  };
  out << "  " << change["key"].get<std::string>() << "\n    status "
      << change["status"][0].get<std::string>() << " -> " << change["status"][1].get<std::string>()
      << "; max error " << pair("max_error") << "; max |Phi| " << pair("max_position_drift")
      << "; RHS calls " << pair("rhs_calls") << "\n";
}

// Checked before the inputs are read.
void check_options(const CompareOptions& options) {
  if (!(options.rel_tol >= 0.0 && std::isfinite(options.rel_tol)))
    throw InputError("--rel-tol must be a finite number >= 0");
}

// What two result sets have in common and where they differ, run by run (matched by key).
struct Comparison {
  std::size_t runs_a = 0, runs_b = 0, identical = 0;
  json changes = json::array();
  std::vector<std::string> only_a, only_b;
  double log_ratio_sum = 0.0;  // of B/A timings, over `timed` runs ok in both
  std::size_t timed = 0;
  double time_ratio() const { return timed ? std::exp(log_ratio_sum / timed) : NAN; }
};

Comparison compare_runs(const ResultsFile& a_file, const ResultsFile& b_file, double rel_tol) {
  const auto a = runs_by_key(a_file);
  const auto b = runs_by_key(b_file);
  Comparison c;
  c.runs_a = a.size();
  c.runs_b = b.size();
  for (const auto& [key, run_a] : a) {
    const auto found = b.find(key);
    if (found == b.end()) {
      c.only_a.push_back(key);
      continue;
    }
    const RunRecord& run_b = *found->second;
    if (same(comparable(*run_a), comparable(run_b), rel_tol))
      ++c.identical;
    else
      c.changes.push_back(change_json(key, *run_a, run_b));
    const double ta = run_seconds(*run_a), tb = run_seconds(run_b);
    if (run_a->status == RunStatus::ok && run_b.status == RunStatus::ok && ta > 0 && tb > 0) {
      c.log_ratio_sum += std::log(tb / ta);
      ++c.timed;
    }
  }
  for (const auto& [key, run] : b)
    if (!a.count(key)) c.only_b.push_back(key);
  return c;
}

void print_comparison(std::ostream& out, const Comparison& c, const std::string& a_path,
                      const std::string& b_path, const CompareOptions& options) {
  out << "compared " << c.runs_a << " runs (A: " << a_path << ") with " << c.runs_b
      << " runs (B: " << b_path << ")\n"
      << "  same status, metrics and work"
      << (options.rel_tol > 0 ? " (within rel. tol. " + number_text(options.rel_tol) + ")" : "")
      << ": " << c.identical << "\n  different: " << c.changes.size()
      << "\n  only in A: " << c.only_a.size() << "\n  only in B: " << c.only_b.size()
      << "\n  time B/A (geometric mean over " << c.timed
      << " runs ok in both): " << number_text(c.time_ratio()) << "\n";
  if (!c.changes.empty()) out << "different runs (A -> B):\n";
  for (std::size_t i = 0; i < c.changes.size() && static_cast<int>(i) < options.max_listed; ++i)
    print_change(out, c.changes[i]);
  if (static_cast<int>(c.changes.size()) > options.max_listed)
    out << "  ... and " << c.changes.size() - options.max_listed << " more (see --json)\n";
  for (const auto& key : c.only_a) out << "only in A: " << key << "\n";
  for (const auto& key : c.only_b) out << "only in B: " << key << "\n";
}

json comparison_json(const Comparison& c, const std::string& a_path, const std::string& b_path,
                     double rel_tol) {
  return {{"schema", "cmbench.compare/1"},
          {"a", a_path},
          {"b", b_path},
          {"rel_tol", rel_tol},
          {"identical", c.identical},
          {"different", c.changes},
          {"only_in_a", c.only_a},
          {"only_in_b", c.only_b},
          {"time_ratio_geometric_mean", c.timed ? json(c.time_ratio()) : json()},
          {"timed_runs", c.timed}};
}

}  // namespace

int compare_results(const std::string& a_path, const std::string& b_path,
                    const CompareOptions& options, std::ostream& out) {
  check_options(options);
  const ResultsFile a = load(a_path);  // A first: its problems are reported first
  const ResultsFile b = load(b_path);
  return compare_results(a, b, options, out);
}

int compare_results(const ResultsFile& a_file, const ResultsFile& b_file,
                    const CompareOptions& options, std::ostream& out) {
  check_options(options);
  const Comparison c = compare_runs(a_file, b_file, options.rel_tol);
  print_comparison(out, c, a_file.name, b_file.name, options);
  if (!options.json_out.empty())
    write_file_atomically(
        options.json_out,
        comparison_json(c, a_file.name, b_file.name, options.rel_tol).dump(1) + "\n",
        NonRegular::write_in_place);  // a path the user named: /dev/stdout is one
  return static_cast<int>(c.changes.size() + c.only_a.size() + c.only_b.size());
}

}  // namespace cmb
