// n_pendulum — a chain of N point masses on massless rigid rods, in Cartesian coordinates.
//
// Data (chosen for cmbench and documented here; docs/sources.md): N masses
// of 1/N kg joined by rods of 1/N m (a 1 kg, 1 m chain whatever N), the first rod pinned at the
// origin; g = 9.81 m/s² along −y. Released at rest as a straight chain at angle theta0 (default
// 45°) from the downward vertical. Default horizon 2 s.
// Coordinates q = (x_1, y_1, …, x_N, y_N): nq = 2N; N holonomic rows
// Φ_k = |r_k − r_{k−1}|² − L² (r_0 = 0). Scaling problem without loops (N up to 1000).
// Reference: the same chain in absolute link angles θ_i (minimal coordinates), integrated by
// Bulirsch–Stoer at tolerance 1e-13. Lagrange's equations there read
//   Σ_j μ_ij L² cos(θ_i − θ_j) θ̈_j = −Σ_j μ_ij L² sin(θ_i − θ_j) θ̇_j² − g L μ_ii sin θ_i,
// μ_ij = mass at or beyond link max(i, j): a dense N × N system, O(N³) per evaluation. θ̈ is
// instead found in O(N) from the rod tensions T_k (Newton's law on each mass, with the rods'
// lengths differentiated twice along and across each rod): along rod k
//   T_1 − cos(θ_2 − θ_1) T_2 = m L θ̇_1² + m g cos θ_1,
//   2 T_k − cos(θ_k − θ_{k−1}) T_{k−1} − cos(θ_{k+1} − θ_k) T_{k+1} = m L θ̇_k²   (k ≥ 2),
// T_{N+1} = 0, a symmetric positive definite tridiagonal system; across it
//   m L θ̈_k = T_{k+1} sin(θ_{k+1} − θ_k) + T_{k−1} sin(θ_{k−1} − θ_k)  (− m g sin θ_1 for k = 1).
// tests/test_references.cpp checks that this θ̈ satisfies Lagrange's equations above.
// Outputs: tip position (x_N, y_N) [m] and first mass (x_1, y_1) [m].
#include <algorithm>
#include <boost/numeric/odeint.hpp>
#include <cmath>
#include <vector>

#include "core/registry.hpp"

namespace cmb {
namespace {

constexpr double kG = 9.81;
constexpr double kPi = 3.141592653589793238462643383279502884;

class NPendulum : public ProblemBase {
 public:
  explicit NPendulum(const Params& params)
      : ProblemBase({"n_pendulum",
                     "Chain of N point masses in Cartesian coordinates",
                     "scaling problem defined for cmbench (docs/sources.md); reference: "
                     "joint-angle ODE",
                     {}},
                    params,
                    Sizes{2 * static_cast<int>(params.integer("N")),
                          static_cast<int>(params.integer("N")), 0}),
        n_(static_cast<int>(params.integer("N"))),
        mass_(1.0 / n_),
        length_(1.0 / n_),
        theta0_(params.number("theta0_deg") * kPi / 180.0) {}

  void initial_state(VecRef q, VecRef v) const override {
    for (int k = 0; k < n_; ++k) {
      q(2 * k) = (k + 1) * length_ * std::sin(theta0_);
      q(2 * k + 1) = -(k + 1) * length_ * std::cos(theta0_);
    }
    v.setZero();
  }
  void mass_matrix(double t, CVecRef q, MatRef M) const override {
    DenseMatrixSink sink(M);
    mass_matrix_entries(t, q, sink);
  }
  bool has_sparse_evaluation() const override { return true; }
  void mass_matrix_entries(double, CVecRef, SparseSink& sink) const override {
    for (int i = 0; i < 2 * n_; ++i) sink.add(i, i, mass_);
  }
  void forces(double, CVecRef, CVecRef, VecRef Q) const override {
    for (int k = 0; k < n_; ++k) Q.segment<2>(2 * k) << 0.0, -mass_ * kG;
  }
  void constraints(double, CVecRef q, VecRef Phi) const override {
    for (int k = 0; k < n_; ++k) Phi(k) = link(q, k).squaredNorm() - length_ * length_;
  }
  void jacobian(double t, CVecRef q, MatRef J) const override {
    DenseMatrixSink sink(J);
    jacobian_entries(t, q, sink);
  }
  // Row k: ∂|p_k − p_{k−1}|²/∂q, 2d on mass k and −2d on mass k − 1.
  void jacobian_entries(double, CVecRef q, SparseSink& sink) const override {
    for (int k = 0; k < n_; ++k) {
      const Eigen::Vector2d d = 2.0 * link(q, k);
      sink.add(k, 2 * k, d.x());
      sink.add(k, 2 * k + 1, d.y());
      if (k > 0) {
        sink.add(k, 2 * k - 2, -d.x());
        sink.add(k, 2 * k - 1, -d.y());
      }
    }
  }
  // M and Q are constant, so K = Σ_k w_k ∂²Φ_k/∂q² = Σ_k 2w_k [I −I; −I I] on the masses k − 1
  // and k (only the diagonal block for the first rod), and C = 0.
  bool has_residual_tangents() const override { return true; }
  void residual_tangent_entries(double, CVecRef, CVecRef, CVecRef, CVecRef w, SparseSink& K,
                                SparseSink&) const override {
    for (int k = 0; k < n_; ++k) {
      const double c = 2.0 * w(k);
      for (int axis = 0; axis < 2; ++axis) {
        const int here = 2 * k + axis;
        K.add(here, here, c);
        if (k == 0) continue;
        const int before = here - 2;
        K.add(before, before, c);
        K.add(here, before, -c);
        K.add(before, here, -c);
      }
    }
  }
  void acceleration_rhs(double, CVecRef, CVecRef v, VecRef gamma) const override {
    for (int k = 0; k < n_; ++k) gamma(k) = -2.0 * link(v, k).squaredNorm();
  }
  bool has_energy() const override { return true; }
  double energy(double, CVecRef q, CVecRef v) const override {
    double e = 0.5 * mass_ * v.squaredNorm();
    for (int k = 0; k < n_; ++k) e += mass_ * kG * q(2 * k + 1);
    return e;
  }
  std::vector<std::string> output_names() const override {
    return {"tip_x", "tip_y", "first_x", "first_y"};
  }
  void outputs(double, CVecRef q, CVecRef, VecRef y) const override {
    y << q(2 * n_ - 2), q(2 * n_ - 1), q(0), q(1);
  }

  ReferenceInfo reference_info() const override {
    return {ReferenceKind::reduced_ode,
            "the same chain in absolute link angles (Lagrange's equations, minimal "
            "coordinates), Bulirsch-Stoer at tolerance 1e-13",
            1e-10};
  }
  Mat reference_outputs(const std::vector<double>& times) const override;

 private:
  // r_k − r_{k−1} for positions (or the same difference of velocities).
  Eigen::Vector2d link(CVecRef x, int k) const {
    const Eigen::Vector2d here = x.segment<2>(2 * k);
    return k == 0 ? here : Eigen::Vector2d(here - x.segment<2>(2 * k - 2));
  }
  // θ̈ from (θ, θ̇) by the rod tensions (header): forward elimination of the tridiagonal
  // system along the chain, back substitution, then each link's transverse balance. `tension`
  // and `pivot` are N-long scratch, so an evaluation allocates nothing.
  void joint_angle_accelerations(const double* theta, const double* rate, double* accel,
                                 double* tension, double* pivot) const {
    const double mL = mass_ * length_;
    auto coupling = [&](int k) { return std::cos(theta[k + 1] - theta[k]); };  // rods k, k+1
    for (int k = 0; k < n_; ++k) {  // row k: diagonal d_k, off-diagonals −coupling
      double diagonal = k == 0 ? 1.0 : 2.0;
      double rhs = mL * rate[k] * rate[k] + (k == 0 ? mass_ * kG * std::cos(theta[0]) : 0.0);
      if (k > 0) {
        const double c = coupling(k - 1);
        diagonal -= c * c / pivot[k - 1];
        rhs += c * tension[k - 1] / pivot[k - 1];
      }
      pivot[k] = diagonal;
      tension[k] = rhs;
    }
    for (int k = n_ - 1; k >= 0; --k) {
      const double beyond = k + 1 < n_ ? coupling(k) * tension[k + 1] : 0.0;
      tension[k] = (tension[k] + beyond) / pivot[k];
    }
    for (int k = 0; k < n_; ++k) {
      double transverse = k == 0 ? -mass_ * kG * std::sin(theta[0]) : 0.0;
      if (k + 1 < n_) transverse += tension[k + 1] * std::sin(theta[k + 1] - theta[k]);
      if (k > 0) transverse += tension[k - 1] * std::sin(theta[k - 1] - theta[k]);
      accel[k] = transverse / mL;
    }
  }

  int n_;
  double mass_, length_, theta0_;
};

Mat NPendulum::reference_outputs(const std::vector<double>& times) const {
  using State = std::vector<double>;  // [θ_1..θ_N, θ̇_1..θ̇_N]
  std::vector<double> tension(n_), pivot(n_);
  auto joint_angle_ode = [&](const State& s, State& ds, double) {
    joint_angle_accelerations(s.data(), s.data() + n_, ds.data() + n_, tension.data(),
                              pivot.data());
    std::copy(s.begin() + n_, s.end(), ds.begin());
  };
  std::vector<double> grid = times;
  const bool prepend_zero = grid.empty() || grid.front() != 0.0;
  if (prepend_zero) grid.insert(grid.begin(), 0.0);
  Mat out(grid.size(), 4);
  std::size_t row = 0;
  auto record = [&](const State& s, double) {
    double x = 0.0, y = 0.0;
    for (int i = 0; i < n_; ++i) {
      x += length_ * std::sin(s[i]);
      y -= length_ * std::cos(s[i]);
      if (i == 0) out.block<1, 2>(row, 2) << x, y;
    }
    out.block<1, 2>(row, 0) << x, y;
    ++row;
  };
  State s(2 * n_, 0.0);
  for (int i = 0; i < n_; ++i) s[i] = theta0_;
  namespace odeint = boost::numeric::odeint;
  odeint::bulirsch_stoer<State> stepper(1e-13, 1e-13);
  odeint::integrate_times(stepper, joint_angle_ode, s, grid.begin(), grid.end(), 1e-4, record);
  return prepend_zero ? Mat(out.bottomRows(times.size())) : out;
}

}  // namespace
}  // namespace cmb

CMB_DEFINE_PROBLEM(n_pendulum) {
  cmb::ProblemEntry entry;
  entry.id = "n_pendulum";
  entry.display_name = "N-pendulum";
  entry.units.outputs = {{"tip_x", "m"}, {"tip_y", "m"}, {"first_x", "m"}, {"first_y", "m"}};
  entry.units.holonomic = {"m²"};
  entry.summary = "chain of N point masses, Cartesian; joint-angle reference (scaling, no loops)";
  cmb::ParamSpec theta = cmb::nonnegative_number("theta0_deg", 45.0,
                                                 "initial angle of the straight chain from the "
                                                 "downward vertical [deg]");
  theta.max = 180.0;
  entry.params = {cmb::integer_param("N", 10, 1, 1000, "number of masses and links"),
                  cmb::t_end_param(2.0), theta};
  entry.make = [](const cmb::Params& p) { return std::make_unique<cmb::NPendulum>(p); };
  return entry;
}
