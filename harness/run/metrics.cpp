#include "harness/run/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <sstream>

namespace cmb {

namespace {

struct Aggregate {
  double max = 0.0, final = 0.0, rms = 0.0;
};

Aggregate aggregate(const std::vector<double>& values) {
  Aggregate a;
  if (values.empty()) return a;
  double sum_sq = 0.0;
  for (double v : values) {
    a.max = std::max(a.max, std::abs(v));
    sum_sq += v * v;
  }
  a.final = std::abs(values.back());
  a.rms = std::sqrt(sum_sq / values.size());
  return a;
}

std::vector<double> values_of(const Vec& v) {
  return std::vector<double>(v.data(), v.data() + v.size());
}

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Energies of order 1e-12 J and below are treated as zero: no normalized drift then.
constexpr double kEnergyScaleFloor = 1e-12;

}  // namespace

nlohmann::json number_or_null(double value) {
  return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json();
}

SampleRecorder::SampleRecorder(const Problem& problem, Formulation& method)
    : problem_(problem), method_(method) {
  const Sizes s = problem.sizes();
  q_.setZero(s.nq);
  v_.setZero(s.nq);
  Phi_.setZero(s.mh);
  nu_.setZero(s.m());
  // A dense J of a large sparse problem would cost O(nq²) per sample (n_four_bar N = 1000:
  // 288 MB and ~0.45 s); with sparse evaluation J v comes from the entries.
  sparse_jacobian_ = problem.has_sparse_evaluation();
  if (!sparse_jacobian_) J_.setZero(s.m(), s.nq);
  Jv_.setZero(s.m());
  y_.setZero(problem.output_names().size());
}

// Every column of a sample is computed before any is appended: an evaluation that throws (the
// multipliers' RHS call at a state where the method fails) leaves the series as it was, with all
// columns of the same length.
void SampleRecorder::operator()(double t, CVecRef x) {
  method_.unpack(t, x, q_, v_);
  problem_.constraints(t, q_, Phi_);
  if (sparse_jacobian_) {
    ProductSink product(v_, Jv_);
    problem_.jacobian_entries(t, q_, product);
  } else {
    problem_.jacobian(t, q_, J_);
    Jv_.noalias() = J_ * v_;
  }
  problem_.velocity_rhs(t, q_, nu_);
  const double energy = problem_.energy(t, q_, v_);
  problem_.outputs(t, q_, v_, y_);
  // λ belongs to the state at the sample; one extra evaluation (a method's RHS call) that the
  // work counters ignore.
  // When it fails (the state the run ends at), the sample is kept without λ: its residuals and
  // energy are measured all the same.
  method_.stats().set_enabled(false);
  bool have_multipliers = true;
  std::exception_ptr failure;
  try {
    method_.evaluate_at(t, x);
  } catch (...) {
    have_multipliers = false;
    failure = std::current_exception();
  }
  method_.stats().set_enabled(true);

  series_.t.push_back(t);
  series_.position_residual.push_back(Phi_.size() ? Phi_.lpNorm<Eigen::Infinity>() : 0.0);
  series_.velocity_residual.push_back(nu_.size() ? (Jv_ - nu_).lpNorm<Eigen::Infinity>() : 0.0);
  if (Phi_.size() > 0 && Phi_.size() <= kSignedRowsMax) {
    series_.phi.push_back(Phi_);
    series_.dphi.push_back(Jv_.head(Phi_.size()) - nu_.head(Phi_.size()));
  }
  series_.energy.push_back(energy);
  series_.outputs.push_back(y_);
  if (have_multipliers) {
    series_.multipliers.push_back(method_.multipliers());
    series_.multipliers_unique.push_back(method_.multipliers_unique());
  }
  if (failure) std::rethrow_exception(failure);
}

Mat reference_at_samples(const Problem& problem, const SampleSeries& series) {
  if (problem.reference_info().kind == ReferenceKind::none || series.t.empty()) return Mat();
  return problem.reference_outputs(series.t);
}

// Reference entries may be NaN where the reference has no value (a published solution at the
// final time only): those samples are skipped.
std::optional<ErrorMetrics> error_metrics(const Problem& problem, const SampleSeries& series,
                                          const Mat& reference) {
  if (reference.size() == 0) return std::nullopt;
  const auto names = problem.output_names();
  const std::size_t last = series.t.size() - 1;
  ErrorMetrics out;
  double final_abs_max = 0.0, final_rel_max = 0.0, max_abs = 0.0;
  bool any_final = false, any_rel = false, any_sample = false;
  for (std::size_t k = 0; k < names.size(); ++k) {
    double max_over_samples = kNaN;
    for (std::size_t i = 0; i < series.t.size(); ++i) {
      if (!std::isfinite(reference(i, k))) continue;
      const double err = std::abs(series.outputs[i](k) - reference(i, k));
      max_over_samples = std::isfinite(max_over_samples) ? std::max(max_over_samples, err) : err;
    }
    const double ref = reference(last, k);
    const double abs_err = std::abs(series.outputs[last](k) - ref);
    const double rel_err = ref != 0.0 ? abs_err / std::abs(ref) : kNaN;
    out.outputs[names[k]] = {series.outputs[last](k), ref, abs_err, rel_err, max_over_samples};
    if (std::isfinite(abs_err)) {
      final_abs_max = std::max(final_abs_max, abs_err);
      any_final = true;
    }
    if (std::isfinite(max_over_samples)) {
      max_abs = std::max(max_abs, max_over_samples);
      any_sample = true;
    }
    if (std::isfinite(rel_err)) {
      final_rel_max = std::max(final_rel_max, rel_err);
      any_rel = true;
    }
  }
  if (!any_sample) return std::nullopt;
  out.final_abs_max = any_final ? final_abs_max : kNaN;
  out.final_rel_max = any_rel ? final_rel_max : kNaN;
  out.max_abs = max_abs;
  out.scd = any_rel ? -std::log10(final_rel_max) : kNaN;
  out.t = series.t[last];
  return out;
}

DriftAggregate drift_of(const std::vector<double>& residuals) {
  if (residuals.empty())  // no sample at all: nothing was measured (not a drift of 0)
    return {kNaN, kNaN, kNaN, kNaN};
  const Aggregate a = aggregate(residuals);
  return {a.max, a.final, a.rms, residuals.front()};
}

std::optional<EnergyMetrics> energy_metrics(const Problem& problem, const SampleSeries& series) {
  if (!problem.has_energy() || series.energy.empty()) return std::nullopt;
  const double e0 = series.energy.front();
  std::vector<double> drift;
  for (double e : series.energy) drift.push_back(e - e0);
  const Aggregate a = aggregate(drift);
  const bool normalizable = std::abs(e0) > kEnergyScaleFloor;
  return EnergyMetrics{e0, a.max, a.final, normalizable ? a.max / std::abs(e0) : kNaN,
                       normalizable ? a.final / std::abs(e0) : kNaN};
}

std::optional<MultiplierMetrics> multiplier_metrics(const Problem& problem,
                                                    const SampleSeries& series) {
  if (series.multipliers.empty()) return std::nullopt;
  const Vec& final = series.multipliers.back();
  MultiplierMetrics out;
  out.final = values_of(final);
  out.unique = std::all_of(series.multipliers_unique.begin(), series.multipliers_unique.end(),
                           [](bool u) { return u; });
  // Errors relative to the largest exact |λ| over the samples where the problem knows λ
  // (everywhere for an analytic solution, the final time for a published one): λ may pass
  // through zero (the pendulum released at rest starts with zero tension), where pointwise
  // relative errors mean nothing.
  Vec exact(final.size());
  std::vector<double> reference_final;
  double max_abs = 0.0, scale = 0.0, final_abs = kNaN;
  bool any = false;
  for (std::size_t i = 0; final.size() > 0 && i < series.multipliers.size(); ++i) {
    if (!problem.reference_multipliers(series.t[i], exact)) continue;
    any = true;
    scale = std::max(scale, exact.lpNorm<Eigen::Infinity>());
    const double err = (series.multipliers[i] - exact).lpNorm<Eigen::Infinity>();
    max_abs = std::max(max_abs, err);
    if (i + 1 == series.t.size()) {
      final_abs = err;
      reference_final = values_of(exact);
    }
  }
  if (!reference_final.empty()) out.reference_final = std::move(reference_final);
  if (any && scale > 0.0) {
    out.scale = scale;
    out.final_rel_error = final_abs / scale;
    out.max_rel_error = max_abs / scale;
  }
  return out;
}

void stream_series_csv(const Problem& problem, const SampleSeries& series, const Mat& reference,
                       const std::function<void(const std::string&)>& emit) {
  // Rows are handed over in pieces of about this size, so the CSV text is never held whole.
  constexpr std::streamoff kPieceBytes = 1 << 16;
  std::ostringstream out;
  out.precision(17);
  auto flush = [&] {
    emit(out.str());
    out.str(std::string());
  };
  const auto names = problem.output_names();
  out << "t,position_residual,velocity_residual,energy_error";
  for (const auto& n : names) out << "," << n;
  if (reference.size())
    for (const auto& n : names) out << ",reference_" << n;
  const Eigen::Index m = series.multipliers.empty() ? 0 : series.multipliers.front().size();
  for (Eigen::Index j = 0; j < m; ++j) out << ",lambda_" << j;
  const Eigen::Index rows = series.phi.empty() ? 0 : series.phi.front().size();
  for (Eigen::Index j = 0; j < rows; ++j) out << ",phi_" << j;
  for (Eigen::Index j = 0; j < rows; ++j) out << ",dphi_" << j;
  out << "\n";
  const double e0 = series.energy.empty() ? 0.0 : series.energy.front();
  for (std::size_t i = 0; i < series.t.size(); ++i) {
    out << series.t[i] << "," << series.position_residual[i] << "," << series.velocity_residual[i]
        << ",";
    if (std::isfinite(series.energy[i])) out << series.energy[i] - e0;
    for (Eigen::Index k = 0; k < series.outputs[i].size(); ++k) out << "," << series.outputs[i](k);
    if (reference.size())
      for (Eigen::Index k = 0; k < reference.cols(); ++k) out << "," << reference(i, k);
    for (Eigen::Index j = 0; j < m; ++j) {
      out << ",";
      if (i < series.multipliers.size()) out << series.multipliers[i](j);  // else λ failed there
    }
    for (Eigen::Index j = 0; j < rows; ++j) out << "," << series.phi[i](j);
    for (Eigen::Index j = 0; j < rows; ++j) out << "," << series.dphi[i](j);
    out << "\n";
    if (out.tellp() > kPieceBytes) flush();
  }
  flush();
}

}  // namespace cmb
