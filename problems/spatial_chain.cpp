// spatial_chain — N rigid links hanging from a fixed point, joined by spherical joints, each in
// natural coordinates (its centroid and its rotation matrix's columns): a chain of spatial bodies
// whose size grows with N.
//
// Model (the rigid body in its rotation matrix as lagrange_top_natural, [HairerLubichWanner2006]
// VII.5; the data are cmbench's): N identical links, each a solid cylinder of length l = 0.5 m,
// radius 0.02 m and mass m = 1 kg — inertia about its centroid A = m(3r² + l²)/12 transverse and
// C = m r²/2 about its axis —, gravity g = 9.81 m/s² along −z. Link i (from the top) has
// coordinates (r, u, v, w) [m, 1, 1, 1]: its centroid and its body axes in the fixed frame, w
// along the link, its joints at r ∓ (l/2) w. nq = 12N. Rows (9 per link): the spherical joint
// to the link above, or to the origin for the first, r_{i−1} + (l/2) w_{i−1} − r_i + (l/2) w_i = 0
// [m] (linear: γ = 0), and the six orthonormality rows of (u, v, w) [1] as lagrange_top_natural's.
// M is constant: m I₃ for r and, with dᵢ = ½ tr J − Jᵢ of J = diag(A, A, C), d₁ = d₂ = C/2 and
// d₃ = A − C/2 for u, v, w (RATTLE applies). The only force is gravity on r_z.
// Initial state: the straight chain tilted tilt0 from the downward vertical (every link's
// rotation R_x(π − tilt0): w = (0, −sin tilt0, −cos tilt0)), turning as a rigid body at omega0
// about the vertical through the fixed point; it then swings and folds out of its plane.
// Reference: self-converged (the harness's two independent tight runs, both on the sparse KKT
// path: augmented_lagrangian + fehlberg78 and baumgarte + bulirsch_stoer). Checked independently
// (tests/test_spatial_references.cpp): with N = 1 the link is a heavy symmetric body on a fixed
// point, and its tip follows the reduced ODE of problems/symmetric_top (θ₀ = π −
// tilt0, φ̇₀ = omega0, spin omega0 cos θ₀).
// Outputs: the last link's free end x, y, z [m]. Energy is conserved. Horizon 2 s.
// Fails when: nothing in the model (every joint row and orthonormality row is independent).
#include <cmath>
#include <string>
#include <vector>

#include "core/registry.hpp"

namespace cmb {
namespace {

constexpr double kLength = 0.5, kRadius = 0.02, kMass = 1.0, kG = 9.81;
constexpr double kTransverse = kMass * (3.0 * kRadius * kRadius + kLength * kLength) / 12.0;
constexpr double kAxial = 0.5 * kMass * kRadius * kRadius;
constexpr double kPi = 3.141592653589793238462643383279502884;
constexpr int kRowPairs[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {0, 2}, {1, 2}};

class SpatialChain : public ProblemBase {
 public:
  explicit SpatialChain(const Params& params)
      : ProblemBase({"spatial_chain",
                     "Chain of N spatial links on spherical joints",
                     "cmbench's data; links in natural coordinates ([HairerLubichWanner2006] "
                     "VII.5); reference: self-converged",
                     {"spatial", "natural_coordinates", "scaling"}},
                    params,
                    Sizes{12 * static_cast<int>(params.integer("N")),
                          9 * static_cast<int>(params.integer("N")), 0}),
        links_(static_cast<int>(params.integer("N"))),
        tilt0_(params.number("tilt0")),
        omega0_(params.number("omega0")) {
    column_mass_ << 0.5 * kAxial, 0.5 * kAxial, kTransverse - 0.5 * kAxial;
  }

  void initial_state(VecRef q, VecRef v) const override {
    const double c = std::cos(kPi - tilt0_), s = std::sin(kPi - tilt0_);
    Eigen::Matrix3d R;
    R << 1.0, 0.0, 0.0, 0.0, c, -s, 0.0, s, c;
    const Eigen::Vector3d omega(0.0, 0.0, omega0_);
    for (int i = 0; i < links_; ++i) {
      const Eigen::Vector3d r = (i + 0.5) * kLength * R.col(2);
      q.segment<3>(12 * i) = r;
      v.segment<3>(12 * i) = omega.cross(r);
      for (int k = 0; k < 3; ++k) {
        q.segment<3>(12 * i + 3 + 3 * k) = R.col(k);
        v.segment<3>(12 * i + 3 + 3 * k) = omega.cross(R.col(k));
      }
    }
  }
  void mass_matrix(double t, CVecRef q, MatRef M) const override {
    DenseMatrixSink sink(M);
    mass_matrix_entries(t, q, sink);
  }
  bool has_sparse_evaluation() const override { return true; }
  void mass_matrix_entries(double, CVecRef, SparseSink& sink) const override {
    for (int i = 0; i < links_; ++i)
      for (int j = 0; j < 12; ++j)
        sink.add(12 * i + j, 12 * i + j, j < 3 ? kMass : column_mass_((j - 3) / 3));
  }
  void forces(double, CVecRef, CVecRef, VecRef Q) const override {
    Q.setZero();
    for (int i = 0; i < links_; ++i) Q(12 * i + 2) = -kMass * kG;
  }
  void constraints(double, CVecRef q, VecRef Phi) const override {
    for (int i = 0; i < links_; ++i) {
      auto joint = Phi.segment<3>(9 * i);
      joint = -q.segment<3>(12 * i) + 0.5 * kLength * q.segment<3>(12 * i + 9);
      if (i > 0) joint += q.segment<3>(12 * (i - 1)) + 0.5 * kLength * q.segment<3>(12 * i - 3);
      for (int k = 0; k < 6; ++k) {
        const int a = kRowPairs[k][0], b = kRowPairs[k][1];
        const double dot = axis(q, i, a).dot(axis(q, i, b));
        Phi(9 * i + 3 + k) = a == b ? 0.5 * (dot - 1.0) : dot;
      }
    }
  }
  void jacobian(double t, CVecRef q, MatRef J) const override {
    DenseMatrixSink sink(J);
    jacobian_entries(t, q, sink);
  }
  void jacobian_entries(double, CVecRef q, SparseSink& sink) const override {
    const double half = 0.5 * kLength;
    for (int i = 0; i < links_; ++i) {
      for (int c = 0; c < 3; ++c) {
        sink.add(9 * i + c, 12 * i + c, -1.0);
        sink.add(9 * i + c, 12 * i + 9 + c, half);
        if (i == 0) continue;
        sink.add(9 * i + c, 12 * (i - 1) + c, 1.0);
        sink.add(9 * i + c, 12 * i - 3 + c, half);
      }
      for (int k = 0; k < 6; ++k) {
        const int a = kRowPairs[k][0], b = kRowPairs[k][1], row = 9 * i + 3 + k;
        for (int c = 0; c < 3; ++c) {
          sink.add(row, 12 * i + 3 + 3 * a + c, axis(q, i, b)(c));
          if (a != b) sink.add(row, 12 * i + 3 + 3 * b + c, axis(q, i, a)(c));
        }
      }
    }
  }
  // M and Q are constant and the joint rows linear, so K = Σ w_k ∂²Φ_k/∂q² over the
  // orthonormality rows: I on (e_a, e_a) for (e_aᵀe_a − 1)/2, I on (e_a, e_b) and (e_b, e_a) for
  // e_aᵀe_b; and C = 0.
  bool has_residual_tangents() const override { return true; }
  void residual_tangent_entries(double, CVecRef, CVecRef, CVecRef, CVecRef w, SparseSink& K,
                                SparseSink&) const override {
    for (int i = 0; i < links_; ++i)
      for (int k = 0; k < 6; ++k) {
        const int a = kRowPairs[k][0], b = kRowPairs[k][1];
        const double weight = w(9 * i + 3 + k);
        for (int c = 0; c < 3; ++c) {
          const int col_a = 12 * i + 3 + 3 * a + c, col_b = 12 * i + 3 + 3 * b + c;
          K.add(col_a, col_b, weight);
          if (a != b) K.add(col_b, col_a, weight);
        }
      }
  }
  void acceleration_rhs(double, CVecRef, CVecRef v, VecRef gamma) const override {
    gamma.setZero();
    for (int i = 0; i < links_; ++i)
      for (int k = 0; k < 6; ++k) {
        const int a = kRowPairs[k][0], b = kRowPairs[k][1];
        const double dot = axis(v, i, a).dot(axis(v, i, b));
        gamma(9 * i + 3 + k) = a == b ? -dot : -2.0 * dot;
      }
  }
  bool has_energy() const override { return true; }
  double energy(double, CVecRef q, CVecRef v) const override {
    double e = 0.0;
    for (int i = 0; i < links_; ++i) {
      e += 0.5 * kMass * v.segment<3>(12 * i).squaredNorm() + kMass * kG * q(12 * i + 2);
      for (int k = 0; k < 3; ++k) e += 0.5 * column_mass_(k) * axis(v, i, k).squaredNorm();
    }
    return e;
  }
  std::vector<std::string> coordinate_names() const override {
    std::vector<std::string> names;
    for (int i = 0; i < links_; ++i)
      for (const char* c :
           {"x", "y", "z", "u_x", "u_y", "u_z", "v_x", "v_y", "v_z", "w_x", "w_y", "w_z"})
        names.push_back("link" + std::to_string(i + 1) + "_" + c);
    return names;
  }
  std::vector<std::string> output_names() const override { return {"tip_x", "tip_y", "tip_z"}; }
  void outputs(double, CVecRef q, CVecRef, VecRef y) const override {
    const int last = 12 * (links_ - 1);
    y = q.segment<3>(last) + 0.5 * kLength * q.segment<3>(last + 9);
  }
  // Both reference runs take the sparse KKT path, so the reference costs O(N) per call like the
  // runs it checks. The default recipe's svd_null_space would fall back to its dense O(N³) SVD
  // here at every call: M's smallest eigenvalue (C/2) keeps its certified rank bound below the
  // threshold.
  ReferenceInfo reference_info() const override {
    ReferenceInfo ref(ReferenceKind::self_converged,
                      "computed by the harness: augmented_lagrangian + fehlberg78 against "
                      "baumgarte (omega0 = 10) + bulirsch_stoer, tolerance 1e-12",
                      std::nan(""));
    ref.recipe = nlohmann::json::array(
        {{{"method", "augmented_lagrangian"}, {"stepper", "fehlberg78"}, {"tol", 1e-12}},
         {{"method", "baumgarte"},
          {"method_params", {{"omega0", 10.0}}},
          {"stepper", "bulirsch_stoer"},
          {"tol", 1e-12}}});
    return ref;
  }

 private:
  // Link i's body axis k (u, v, w for k = 0, 1, 2) in q, or its rate in v.
  static Eigen::Vector3d axis(CVecRef x, int i, int k) { return x.segment<3>(12 * i + 3 + 3 * k); }

  int links_;
  double tilt0_, omega0_;
  Eigen::Vector3d column_mass_;  // d₁, d₂, d₃
};

}  // namespace
}  // namespace cmb

CMB_DEFINE_PROBLEM(spatial_chain) {
  cmb::ProblemEntry entry;
  entry.id = "spatial_chain";
  entry.display_name = "Spatial chain";
  entry.units.outputs = {{"tip_x", "m"}, {"tip_y", "m"}, {"tip_z", "m"}};
  entry.units.holonomic = {"m", "1"};
  entry.summary =
      "N links on spherical joints in natural coordinates (constant M); scaling in bodies; "
      "self-converged reference";
  cmb::ParamSpec tilt = cmb::positive_number(
      "tilt0", 0.5, "initial tilt of the straight chain from the downward vertical [rad]");
  tilt.max = 3.0;
  entry.params = {cmb::integer_param("N", 3, 1, 200, "number of links"), cmb::t_end_param(2.0),
                  tilt,
                  cmb::positive_number(
                      "omega0", 3.0, "initial rate of the rigid chain about the vertical [rad/s]")};
  entry.make = [](const cmb::Params& p) { return std::make_unique<cmb::SpatialChain>(p); };
  return entry;
}
