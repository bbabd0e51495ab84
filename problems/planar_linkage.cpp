#include "problems/planar_linkage.hpp"

#include <cmath>

namespace cmb {

namespace {

Eigen::Matrix2d rotation(double theta) {
  const double c = std::cos(theta), s = std::sin(theta);
  return (Eigen::Matrix2d() << c, -s, s, c).finished();
}

// dA/dθ
Eigen::Matrix2d rotation_derivative(double theta) {
  const double c = std::cos(theta), s = std::sin(theta);
  return (Eigen::Matrix2d() << -s, -c, c, -s).finished();
}

Sizes linkage_sizes(std::size_t bodies, std::size_t pins, std::size_t sliders) {
  Sizes s;
  s.nq = static_cast<int>(3 * bodies);
  s.mh = static_cast<int>(2 * pins + 2 * sliders);
  return s;
}

}  // namespace

PlanarLinkage::PlanarLinkage(ProblemInfo info, Params params, std::vector<PlanarBody> bodies,
                             std::vector<PlanarPin> pins, std::vector<PlanarSlider> sliders,
                             double g, double phi0, double phidot0)
    : ProblemBase(std::move(info), std::move(params),
                  linkage_sizes(bodies.size(), pins.size(), sliders.size())),
      bodies_(std::move(bodies)),
      pins_(std::move(pins)),
      sliders_(std::move(sliders)),
      g_(g),
      phi0_(phi0),
      phidot0_(phidot0),
      angle_(bodies_.size(), std::nan("")),
      cos_(bodies_.size(), 0.0),
      sin_(bodies_.size(), 0.0) {}

void PlanarLinkage::update_trig(CVecRef q) const {
  for (std::size_t i = 0; i < angle_.size(); ++i) {
    const double theta = q(3 * i + 2);
    if (theta == angle_[i]) continue;  // NaN never matches: recomputed, and propagates
    angle_[i] = theta;
    cos_[i] = std::cos(theta);
    sin_[i] = std::sin(theta);
  }
}

Eigen::Vector2d PlanarLinkage::cached_rotated(int body, const Eigen::Vector2d& s) const {
  const double c = cos_[body], n = sin_[body];
  return {c * s.x() - n * s.y(), n * s.x() + c * s.y()};
}

Eigen::Vector2d PlanarLinkage::cached_rotated_derivative(int body, const Eigen::Vector2d& s) const {
  const double c = cos_[body], n = sin_[body];
  return {-n * s.x() - c * s.y(), c * s.x() - n * s.y()};
}

Eigen::Vector2d PlanarLinkage::cached_point(CVecRef q, int body, const Eigen::Vector2d& s) const {
  return q.segment<2>(3 * body) + cached_rotated(body, s);
}

Chart PlanarLinkage::bound_chart() const {
  return [this](const Jet2& phi, std::vector<Jet2>& q) { chart(phi, q); };
}

void PlanarLinkage::initial_state(VecRef q, VecRef v) const {
  chart_state(bound_chart(), sizes().nq, phi0_, phidot0_, q, v);
}

ReferenceInfo PlanarLinkage::reference_info() const {
  ReferenceInfo ref;
  ref.kind = ReferenceKind::reduced_ode;
  ref.provenance =
      "one-coordinate Lagrange equation on the closed-form kinematics of the starting assembly "
      "branch, integrated by Bulirsch-Stoer at tolerance 1e-14";
  ref.accuracy = kChartAccuracy;
  return ref;
}

Mat PlanarLinkage::reference_outputs(const std::vector<double>& times) const {
  return chart_reference_outputs(*this, bound_chart(), phi0_, phidot0_, times, kChartTolerance);
}

Eigen::Vector2d PlanarLinkage::point(CVecRef q, int body, const Eigen::Vector2d& s) const {
  return q.segment<2>(3 * body) + rotation(q(3 * body + 2)) * s;
}

Eigen::Vector2d PlanarLinkage::point_velocity(CVecRef q, CVecRef v, int body,
                                              const Eigen::Vector2d& s) const {
  return v.segment<2>(3 * body) + rotation_derivative(q(3 * body + 2)) * s * v(3 * body + 2);
}

void PlanarLinkage::mass_matrix(double t, CVecRef q, MatRef M) const {
  DenseMatrixSink sink(M);
  mass_matrix_entries(t, q, sink);
}

void PlanarLinkage::mass_matrix_entries(double, CVecRef, SparseSink& sink) const {
  for (std::size_t i = 0; i < bodies_.size(); ++i) {
    const int k = static_cast<int>(3 * i);
    sink.add(k, k, bodies_[i].mass);
    sink.add(k + 1, k + 1, bodies_[i].mass);
    sink.add(k + 2, k + 2, bodies_[i].inertia);
  }
}

void PlanarLinkage::forces(double, CVecRef, CVecRef, VecRef Q) const {
  Q.setZero();
  for (std::size_t i = 0; i < bodies_.size(); ++i) Q(3 * i + 1) = -bodies_[i].mass * g_;
}

double PlanarLinkage::energy(double, CVecRef q, CVecRef v) const {
  double e = 0.0;
  for (std::size_t i = 0; i < bodies_.size(); ++i) {
    const auto& b = bodies_[i];
    e += 0.5 * b.mass * v.segment<2>(3 * i).squaredNorm() +
         0.5 * b.inertia * v(3 * i + 2) * v(3 * i + 2) + b.mass * g_ * q(3 * i + 1);
  }
  return e;
}

void PlanarLinkage::constraints(double, CVecRef q, VecRef Phi) const {
  update_trig(q);
  int row = 0;
  for (const auto& pin : pins_) {
    const Eigen::Vector2d other =
        pin.b == PlanarPin::kGround ? pin.s_b : cached_point(q, pin.b, pin.s_b);
    Phi.segment<2>(row) = cached_point(q, pin.a, pin.s_a) - other;
    row += 2;
  }
  for (const auto& slider : sliders_) {
    Phi(row++) = q(3 * slider.body + 1) - slider.y0;
    Phi(row++) = q(3 * slider.body + 2) - slider.theta0;
  }
}

void PlanarLinkage::jacobian(double t, CVecRef q, MatRef J) const {
  DenseMatrixSink sink(J);
  jacobian_entries(t, q, sink);
}

// Pin rows: ∂(r_a + A(θ_a)s_a − r_b − A(θ_b)s_b)/∂q; slider rows: ∂y and ∂θ. The same entries
// in the same order at every call (the pattern), zeros included.
void PlanarLinkage::jacobian_entries(double, CVecRef q, SparseSink& sink) const {
  update_trig(q);
  int row = 0;
  auto add_body = [&](int body, const Eigen::Vector2d& s, double sign) {
    const Eigen::Vector2d dtheta = sign * cached_rotated_derivative(body, s);
    sink.add(row, 3 * body, sign);
    sink.add(row + 1, 3 * body + 1, sign);
    sink.add(row, 3 * body + 2, dtheta.x());
    sink.add(row + 1, 3 * body + 2, dtheta.y());
  };
  for (const auto& pin : pins_) {
    add_body(pin.a, pin.s_a, 1.0);
    if (pin.b != PlanarPin::kGround) add_body(pin.b, pin.s_b, -1.0);
    row += 2;
  }
  for (const auto& slider : sliders_) {
    sink.add(row++, 3 * slider.body + 1, 1.0);
    sink.add(row++, 3 * slider.body + 2, 1.0);
  }
}

// M is constant and Q is gravity, so K = Σ_r w_r ∂²Φ_r/∂q² and C = 0. A pin row depends on θ
// only through A(θ)s, whose second derivative is −A(θ)s: one diagonal entry (θ, θ) per body and
// pin. Slider rows are linear.
void PlanarLinkage::residual_tangent_entries(double, CVecRef q, CVecRef, CVecRef, CVecRef w,
                                             SparseSink& K, SparseSink&) const {
  update_trig(q);
  int row = 0;
  auto add_body = [&](int body, const Eigen::Vector2d& s, double sign) {
    const Eigen::Vector2d curvature = -sign * cached_rotated(body, s);
    K.add(3 * body + 2, 3 * body + 2, w(row) * curvature.x() + w(row + 1) * curvature.y());
  };
  for (const auto& pin : pins_) {
    add_body(pin.a, pin.s_a, 1.0);
    if (pin.b != PlanarPin::kGround) add_body(pin.b, pin.s_b, -1.0);
    row += 2;
  }
}

void PlanarLinkage::acceleration_rhs(double, CVecRef q, CVecRef v, VecRef gamma) const {
  // d²/dt² of A(θ)s is A'(θ)s θ̈ − A(θ)s θ̇², so γ collects +A(θ)s θ̇² with the row's sign.
  update_trig(q);
  gamma.setZero();
  int row = 0;
  auto add_body = [&](int body, const Eigen::Vector2d& s, double sign) {
    const double w = v(3 * body + 2);
    gamma.segment<2>(row) += sign * cached_rotated(body, s) * (w * w);
  };
  for (const auto& pin : pins_) {
    add_body(pin.a, pin.s_a, 1.0);
    if (pin.b != PlanarPin::kGround) add_body(pin.b, pin.s_b, -1.0);
    row += 2;
  }
}

}  // namespace cmb
