// What a run records at its sample times, and the summary metrics computed from it.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/formulation.hpp"
#include "core/problem.hpp"
#include "records/run_record.hpp"

namespace cmb {

// Time series of one instrumented run, one entry per sample (t = 0 first).
struct SampleSeries {
  std::vector<double> t;
  std::vector<double> position_residual;  // max |Φ_i| (holonomic rows)
  std::vector<double> velocity_residual;  // max |ψ_i|, ψ = J v − ν (all rows)
  std::vector<double> energy;
  std::vector<Vec> outputs;
  // λ at each sample, except at a last sample where the RHS failed (the state a run ends at):
  // there the residuals, energy and outputs are kept and λ is missing (empty CSV cells).
  std::vector<Vec> multipliers;
  std::vector<bool> multipliers_unique;
  // Signed Φ rows and ψ = J v − ν of the holonomic rows, kept only for problems with at most
  // kSignedRowsMax holonomic rows (e.g. for the Baumgarte impulse response); empty otherwise.
  std::vector<Vec> phi;
  std::vector<Vec> dphi;
};
constexpr int kSignedRowsMax = 12;

// Observer state for the instrumented run: evaluates residuals, energy, outputs and λ.
class SampleRecorder {
 public:
  SampleRecorder(const Problem& problem, Formulation& method);
  void operator()(double t, CVecRef x);
  const SampleSeries& series() const { return series_; }

 private:
  const Problem& problem_;
  Formulation& method_;
  SampleSeries series_;
  Vec q_, v_, Phi_, nu_, y_;
  bool sparse_jacobian_ = false;
  Mat J_;  // dense problems only
  Vec Jv_;
};

// Reference outputs at the sample times (rows), or an empty matrix when there is none.
Mat reference_at_samples(const Problem& problem, const SampleSeries& series);

// The record's metrics blocks; none where there is nothing to measure (no reference, no
// energy, no λ at any sample).
std::optional<ErrorMetrics> error_metrics(const Problem& problem, const SampleSeries& series,
                                          const Mat& reference);
DriftAggregate drift_of(const std::vector<double>& residuals);
std::optional<EnergyMetrics> energy_metrics(const Problem& problem, const SampleSeries& series);
std::optional<MultiplierMetrics> multiplier_metrics(const Problem& problem,
                                                    const SampleSeries& series);

// A finite number, or null (NaN and infinities are never written as numbers).
nlohmann::json number_or_null(double value);

// CSV of the series: t, residuals, energy error, outputs, reference outputs, multipliers, and
// the signed rows phi_i, dphi_i when recorded.
void stream_series_csv(const Problem& problem, const SampleSeries& series, const Mat& reference,
                       const std::function<void(const std::string&)>& emit);

}  // namespace cmb
