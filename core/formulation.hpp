/// \file
/// What a run records of whatever integrates the constrained equations — a method
/// (core/method.hpp), which turns them into an ODE for an ODE stepper, or a DAE integrator
/// (core/integrator.hpp), which steps them itself: its state x (q, v and whatever else it carries),
/// the accelerations and multipliers at a state, its parameters and its work counters. Methods and
/// integrators are siblings under it; the harness records both alike.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "core/params.hpp"
#include "core/problem.hpp"
#include "core/types.hpp"

namespace cmb {

/// Work counters and diagnostics a method reports; names are the JSON keys in "work.method".
/// Counters are summed; diagnostics keep the extreme value seen (e.g. the smallest singular value
/// kept). Keys are string literals, and a map node is created only the first time a key is seen,
/// so steady-state updates do not allocate.
class MethodStats {
 public:
  /// Adds `amount` to the counter `counter` (a string literal).
  void add(const char* counter, long amount = 1) {
    if (!enabled_) return;
    const auto it = counters_.find(counter);  // heterogeneous: no std::string built
    if (it == counters_.end())
      counters_.emplace(counter, amount);
    else
      it->second += amount;
  }
  /// Keeps the smallest value seen of the diagnostic `name`.
  void note_min(const char* name, double value) { note(minima_, name, value, true); }
  /// Keeps the largest value seen of the diagnostic `name`.
  void note_max(const char* name, double value) { note(maxima_, name, value, false); }
  /// Turns counting on or off (off: add and note_* do nothing).
  void set_enabled(bool enabled) { enabled_ = enabled; }
  /// The counters by name.
  const std::map<std::string, long, std::less<>>& counters() const { return counters_; }
  /// The smallest values of the diagnostics by name.
  const std::map<std::string, double, std::less<>>& minima() const { return minima_; }
  /// The largest values of the diagnostics by name.
  const std::map<std::string, double, std::less<>>& maxima() const { return maxima_; }
  /// Counters and diagnostics as one JSON object (the run record's "work.method").
  nlohmann::json to_json() const {
    nlohmann::json out(counters_);
    for (const auto& [name, value] : minima_) out[name] = value;
    for (const auto& [name, value] : maxima_) out[name] = value;
    return out;
  }

 private:
  using Extremes = std::map<std::string, double, std::less<>>;
  void note(Extremes& table, const char* name, double value, bool keep_smaller) {
    if (!enabled_) return;
    const auto it = table.find(name);
    if (it == table.end())
      table.emplace(name, value);
    else if (keep_smaller ? value < it->second : value > it->second)
      it->second = value;
  }

  std::map<std::string, long, std::less<>> counters_;
  Extremes minima_, maxima_;
  bool enabled_ = true;
};

/// The common base of Method and Integrator: what the harness asks of either (see the file's
/// comment).
class Formulation {
 public:
  /// Keeps the parsed parameters (params()).
  explicit Formulation(Params params) : params_(std::move(params)) {}
  /// Destroys it (a base class).
  virtual ~Formulation() = default;

  /// Sizes the workspace once for this problem. Throws NumericalFailure(unsupported) when the
  /// problem has features it cannot handle.
  virtual void bind(const Problem& problem) = 0;
  /// The size of the state x.
  virtual int state_size() const = 0;
  /// The state x of (q, v) at t (consistent: whatever else x holds is computed there), and back.
  virtual void pack(double t, CVecRef q, CVecRef v, VecRef x) = 0;
  /// q and v from the state x at t (the inverse of pack).
  virtual void unpack(double t, CVecRef x, VecRef q, VecRef v) = 0;

  /// Makes accelerations() and multipliers() those at the state x (what a sample records).
  /// Throws NumericalFailure where they cannot be had (a singular system).
  virtual void evaluate_at(double t, CVecRef x) = 0;

  /// The physical accelerations q̈ from the last evaluation (what the KKT oracle is compared with).
  virtual const Vec& accelerations() const = 0;

  /// λ from the last evaluation.
  virtual const Vec& multipliers() const = 0;
  /// Whether the last λ is unique (false where J lost row rank).
  virtual bool multipliers_unique() const { return true; }

  /// The parsed parameters it was built with.
  const Params& params() const { return params_; }
  /// Parameters as recorded in results: the given ones plus values derived from them.
  virtual nlohmann::json effective_params() const { return params_.values(); }
  /// Its work counters and diagnostics, to update.
  MethodStats& stats() { return stats_; }
  /// Its work counters and diagnostics, to read.
  const MethodStats& stats() const { return stats_; }

 private:
  Params params_;
  MethodStats stats_;
};

}  // namespace cmb
