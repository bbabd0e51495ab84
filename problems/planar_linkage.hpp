// Planar mechanisms in reference-point coordinates (x, y, θ of each body's centre of mass) with
// pin joints and ground sliders, under gravity along −y. Shared by the one-degree-of-freedom
// linkages (crank_rocker, slider_crank, n_four_bar), which add closed-form kinematics φ → q(φ)
// (their "chart"): it gives the consistent initial state and the independent reduced-ODE
// reference (core/chart_reference.hpp).
#pragma once

#include <Eigen/Dense>
#include <vector>

#include "core/chart_reference.hpp"
#include "core/problem.hpp"

namespace cmb {

struct PlanarBody {
  double mass;
  double inertia;  // about the centre of mass
};

// Body `a`'s local point s_a coincides with body `b`'s local point s_b, or with the ground
// point s_b when b == kGround. Local frames have x along the link.
struct PlanarPin {
  static constexpr int kGround = -1;
  int a;
  Eigen::Vector2d s_a;
  int b;
  Eigen::Vector2d s_b;
};

// Body slides along the ground's x axis: y = y0 and θ = theta0.
struct PlanarSlider {
  int body;
  double y0;
  double theta0;
};

class PlanarLinkage : public ProblemBase {
 public:
  PlanarLinkage(ProblemInfo info, Params params, std::vector<PlanarBody> bodies,
                std::vector<PlanarPin> pins, std::vector<PlanarSlider> sliders, double g,
                double phi0, double phidot0);

  void initial_state(VecRef q, VecRef v) const override;
  void mass_matrix(double t, CVecRef q, MatRef M) const override;
  void forces(double t, CVecRef q, CVecRef v, VecRef Q) const override;
  void constraints(double t, CVecRef q, VecRef Phi) const override;
  void jacobian(double t, CVecRef q, MatRef J) const override;
  void acceleration_rhs(double t, CVecRef q, CVecRef v, VecRef gamma) const override;
  bool has_energy() const override { return true; }
  double energy(double t, CVecRef q, CVecRef v) const override;
  bool has_sparse_evaluation() const override { return true; }
  void mass_matrix_entries(double t, CVecRef q, SparseSink& sink) const override;
  void jacobian_entries(double t, CVecRef q, SparseSink& sink) const override;
  bool has_residual_tangents() const override { return true; }
  void residual_tangent_entries(double t, CVecRef q, CVecRef v, CVecRef a, CVecRef w, SparseSink& K,
                                SparseSink& C) const override;

  ReferenceInfo reference_info() const override;
  Mat reference_outputs(const std::vector<double>& times) const override;

  // Closed-form kinematics q(φ) on the assembly branch the mechanism starts on.
  virtual void chart(const Jet2& phi, std::vector<Jet2>& q) const = 0;
  double phi0() const { return phi0_; }
  double phidot0() const { return phidot0_; }

 protected:
  Eigen::Vector2d point(CVecRef q, int body, const Eigen::Vector2d& s) const;
  Eigen::Vector2d point_velocity(CVecRef q, CVecRef v, int body, const Eigen::Vector2d& s) const;

 private:
  Chart bound_chart() const;
  // cos and sin of every body angle at q, recomputed only for angles that changed since the last
  // call: one RHS call asks for J and γ (Baumgarte also for Φ) at the same q, and taking them per
  // pin and per call was ~20 % of crank_rocker's index1 call. A problem instance serves one run
  // at a time (core/problem.hpp).
  void update_trig(CVecRef q) const;
  // r + A(θ)s and A'(θ)s of `body` from the cached cos and sin.
  Eigen::Vector2d cached_point(CVecRef q, int body, const Eigen::Vector2d& s) const;
  Eigen::Vector2d cached_rotated(int body, const Eigen::Vector2d& s) const;
  Eigen::Vector2d cached_rotated_derivative(int body, const Eigen::Vector2d& s) const;

  std::vector<PlanarBody> bodies_;
  std::vector<PlanarPin> pins_;
  std::vector<PlanarSlider> sliders_;
  double g_;
  double phi0_;
  double phidot0_;
  mutable std::vector<double> angle_, cos_, sin_;
};

// Tolerance of the Bulirsch–Stoer integration of the reduced ODE, and the absolute accuracy
// claimed for φ, φ̇ (and so for outputs, with 1 m links): tests/test_references.cpp checks the
// claim against a 10× tighter integration.
constexpr double kChartTolerance = 1e-14;
constexpr double kChartAccuracy = 1e-9;

}  // namespace cmb
