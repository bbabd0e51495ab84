// andrews_squeezer — Andrews' squeezing mechanism ([IVPTestSet] andrews.f; [IFToMM] A03).
//
// Seven bodies described by seven angles q = (β, Θ, γ, Φ, δ, Ω, ε), six loop-closure rows,
// no gravity, a constant motor torque mom at O and a spring between D and the fixed point C.
// t ∈ [0, 0.03] s. Very fast motion (the crank turns ~2.5 times) driven by a stiff spring.
// Data, mass matrix, forces and constraints: exactly as in the Bari "Test Set for IVP Solvers"
// ([IVPTestSet], Mazzia & Magherini), after [HairerWanner1996], §VII.7 (keys: docs/sources.md).
// Note xb = −0.03635 (negative).
// Equations there: M(q) q̈ = f(q, q̇) − Gᵀλ, G = ∂g/∂q — cmbench's convention, so the published
// multipliers compare without a sign change.
// Every constraint is a sum of terms a·cos(θ) or a·sin(θ) with θ a sum of coordinates, so
// G is assembled term by term, and γ = Σ (term value)·θ̇² (the θ̈ part is G q̈).
// Reference (published, PSIDE at rtol = atol = 1e-14): positions, velocities and multipliers at
// t = 0.03 only; those positions are good to about 2.7e-10 relative (an exact solver scores at
// most scd ≈ 9.57). Outputs: the 7 positions (scored by scd as in the test set).
// Energy: ½q̇ᵀMq̇ + ½c0(L − l0)² − mom·β is an invariant (no gravity, no damping).
// Branch indicators (sign kind): loop_A_knee_e = cos Φ and loop_A_knee_u = cos Ω, the knee sides
// of the two-link chains from F to A (four assembly modes); both are positive along the
// published solution. The four-bar O–E–F–B has a second mode too (F mirrored across E–B), but
// there |F − A| ≥ 0.0698 at every crank angle, beyond the chains' reach zt + e = u + zf = 0.06:
// the whole mechanism cannot be assembled in it, so it needs no indicator.
#include <array>
#include <cmath>

#include "core/registry.hpp"

namespace cmb {
namespace {

// Data of the test set (SI units).
constexpr double m1 = .04325, m2 = .00365, m3 = .02373, m4 = .00706, m5 = .07050, m6 = .00706,
                 m7 = .05498;
constexpr double i1 = 2.194e-6, i2 = 4.410e-7, i3 = 5.255e-6, i4 = 5.667e-7, i5 = 1.169e-5,
                 i6 = 5.667e-7, i7 = 1.912e-5;
constexpr double xa = -.06934, ya = -.00227, xb = -.03635, yb = .03273, xc = .014, yc = .072;
constexpr double c0 = 4530, l0 = .07785, mom = .033;
constexpr double d = .028, da = .0115, e = .02, ea = .01421, rr = .007, ra = .00092, ss = .035,
                 sa = .01874, sb = .01043, sc = .018, sd = .02, ta = .02308, tb = .00916, u = .04,
                 ua = .01228, ub = .00449, zf = .02, zt = .04, fa = .01421;
enum : int { kBeta, kTheta, kGamma, kPhi, kDelta, kOmega, kEps };

// Every angle the model takes a sine or cosine of: θ = q_i (+ q_j when j ≥ 0).
enum Angle : int {
  aBeta,
  aBetaTheta,
  aGamma,
  aPhiDelta,
  aDelta,
  aOmegaEps,
  aEps,
  aTheta,
  aPhi,
  aOmega,
  kAngleCount
};
struct AngleSum {
  int i, j;
};
constexpr std::array<AngleSum, kAngleCount> kAngles = {{{kBeta, -1},
                                                        {kBeta, kTheta},
                                                        {kGamma, -1},
                                                        {kPhi, kDelta},
                                                        {kDelta, -1},
                                                        {kOmega, kEps},
                                                        {kEps, -1},
                                                        {kTheta, -1},
                                                        {kPhi, -1},
                                                        {kOmega, -1}}};

// sin and cos of every angle at one q. An RHS call asks for Q, M, J and γ at the same q; taking
// the 54 sines and cosines those need separately was ~40 % of an index1 call (perf), against 10
// sincos evaluations here.
struct Trig {
  double sin[kAngleCount], cos[kAngleCount];
};

// a·cos(θ) or a·sin(θ).
struct Term {
  double a;
  bool is_sin;
  Angle angle;
};
struct Row {
  std::array<Term, 4> terms;
  int count;
  double constant;
};

const std::array<Row, 6> kRows = {{
    {{{{rr, false, aBeta}, {-d, false, aBetaTheta}, {-ss, true, aGamma}}}, 3, -xb},
    {{{{rr, true, aBeta}, {-d, true, aBetaTheta}, {ss, false, aGamma}}}, 3, -yb},
    {{{{rr, false, aBeta}, {-d, false, aBetaTheta}, {-e, true, aPhiDelta}, {-zt, false, aDelta}}},
     4,
     -xa},
    {{{{rr, true, aBeta}, {-d, true, aBetaTheta}, {e, false, aPhiDelta}, {-zt, true, aDelta}}},
     4,
     -ya},
    {{{{rr, false, aBeta}, {-d, false, aBetaTheta}, {-zf, false, aOmegaEps}, {-u, true, aEps}}},
     4,
     -xa},
    {{{{rr, true, aBeta}, {-d, true, aBetaTheta}, {-zf, true, aOmegaEps}, {u, false, aEps}}},
     4,
     -ya},
}};

double value(const Term& term, const Trig& trig) {
  return term.a * (term.is_sin ? trig.sin[term.angle] : trig.cos[term.angle]);
}
double slope(const Term& term, const Trig& trig) {  // d value / dθ
  return term.a * (term.is_sin ? trig.cos[term.angle] : -trig.sin[term.angle]);
}
double angle_rate(Angle angle, CVecRef v) {
  const AngleSum& sum = kAngles[angle];
  return v(sum.i) + (sum.j >= 0 ? v(sum.j) : 0.0);
}

struct Spring {
  double xd, yd, length, force_x, force_y;
};
Spring spring(double cos_g, double sin_g) {
  Spring s;
  s.xd = sd * cos_g + sc * sin_g + xb;
  s.yd = sd * sin_g - sc * cos_g + yb;
  s.length = std::hypot(s.xd - xc, s.yd - yc);
  const double f = -c0 * (s.length - l0) / s.length;
  s.force_x = f * (s.xd - xc);
  s.force_y = f * (s.yd - yc);
  return s;
}

class AndrewsSqueezer : public ProblemBase {
 public:
  explicit AndrewsSqueezer(const Params& params)
      : ProblemBase({"andrews_squeezer",
                     "Andrews' squeezing mechanism (IFToMM A03)",
                     "Bari IVP test set, andrews.f [IVPTestSet]; Hairer & Wanner, Solving ODEs II, "
                     "VII.7 [HairerWanner1996]; reference: published PSIDE solution at t = 0.03",
                     {"closed_loop", "stiff"}},
                    params, Sizes{7, 6, 0}) {}

  void initial_state(VecRef q, VecRef v) const override {
    q << -0.0617138900142764496358948458001, 0.0, 0.455279819163070380255912382449,
        0.222668390165885884674473185609, 0.487364979543842550225598953530,
        -0.222668390165885884674473185609, 1.23054744454982119249735015568;
    v.setZero();
  }

  void mass_matrix(double t, CVecRef q, MatRef M) const override {
    DenseMatrixSink sink(M);
    mass_matrix_entries(t, q, sink);
  }

  // M is block diagonal (β, Θ | γ | Φ, δ | Ω, ε) and J has at most 4 entries per row: the sparse
  // KKT path pays (docs/performance.md).
  bool has_sparse_evaluation() const override { return true; }

  void mass_matrix_entries(double, CVecRef q, SparseSink& sink) const override {
    const Trig& tr = trig(q);
    const double cth = tr.cos[aTheta], sphi = tr.sin[aPhi], somg = tr.sin[aOmega];
    const double m01 = m2 * (da * da - da * rr * cth) + i2;
    const double m34 = m4 * ((e - ea) * (e - ea) + zt * (e - ea) * sphi) + i4;
    const double m56 = m6 * ((zf - fa) * (zf - fa) - u * (zf - fa) * somg) + i6;
    sink.add(0, 0, m1 * ra * ra + m2 * (rr * rr - 2 * da * rr * cth + da * da) + i1 + i2);
    sink.add(1, 0, m01);
    sink.add(0, 1, m01);
    sink.add(1, 1, m2 * da * da + i2);
    sink.add(2, 2, m3 * (sa * sa + sb * sb) + i3);
    sink.add(3, 3, m4 * (e - ea) * (e - ea) + i4);
    sink.add(4, 3, m34);
    sink.add(3, 4, m34);
    sink.add(4, 4,
             m4 * (zt * zt + 2 * zt * (e - ea) * sphi + (e - ea) * (e - ea)) +
                 m5 * (ta * ta + tb * tb) + i4 + i5);
    sink.add(5, 5, m6 * (zf - fa) * (zf - fa) + i6);
    sink.add(6, 5, m56);
    sink.add(5, 6, m56);
    sink.add(6, 6,
             m6 * ((zf - fa) * (zf - fa) - 2 * u * (zf - fa) * somg + u * u) +
                 m7 * (ua * ua + ub * ub) + i6 + i7);
  }

  void forces(double, CVecRef q, CVecRef v, VecRef Q) const override {
    const Trig& tr = trig(q);
    const double sth = tr.sin[aTheta], cg = tr.cos[aGamma], sg = tr.sin[aGamma];
    const double cphi = tr.cos[aPhi], comg = tr.cos[aOmega];
    const Spring s = spring(cg, sg);
    const double bp = v(kBeta), tp = v(kTheta), pp = v(kPhi), dp = v(kDelta), op = v(kOmega),
                 ep = v(kEps);
    Q(0) = mom - m2 * da * rr * tp * (tp + 2 * bp) * sth;
    Q(1) = m2 * da * rr * bp * bp * sth;
    Q(2) = s.force_x * (sc * cg - sd * sg) + s.force_y * (sd * cg + sc * sg);
    Q(3) = m4 * zt * (e - ea) * dp * dp * cphi;
    Q(4) = -m4 * zt * (e - ea) * pp * (pp + 2 * dp) * cphi;
    Q(5) = -m6 * u * (zf - fa) * ep * ep * comg;
    Q(6) = m6 * u * (zf - fa) * op * (op + 2 * ep) * comg;
  }

  void constraints(double, CVecRef q, VecRef Phi) const override {
    const Trig& tr = trig(q);
    for (int r = 0; r < 6; ++r) {
      double sum = kRows[r].constant;
      for (int k = 0; k < kRows[r].count; ++k) sum += value(kRows[r].terms[k], tr);
      Phi(r) = sum;
    }
  }

  void jacobian(double t, CVecRef q, MatRef J) const override {
    DenseMatrixSink sink(J);
    jacobian_entries(t, q, sink);
  }

  void jacobian_entries(double, CVecRef q, SparseSink& sink) const override {
    const Trig& tr = trig(q);
    for (int r = 0; r < 6; ++r)
      for (int k = 0; k < kRows[r].count; ++k) {
        const Term& term = kRows[r].terms[k];
        const double ds = slope(term, tr);
        const AngleSum& sum = kAngles[term.angle];
        sink.add(r, sum.i, ds);
        if (sum.j >= 0) sink.add(r, sum.j, ds);
      }
  }

  void acceleration_rhs(double, CVecRef q, CVecRef v, VecRef gamma) const override {
    const Trig& tr = trig(q);
    for (int r = 0; r < 6; ++r) {
      double sum = 0.0;
      for (int k = 0; k < kRows[r].count; ++k) {
        const Term& term = kRows[r].terms[k];
        const double rate = angle_rate(term.angle, v);
        sum += value(term, tr) * rate * rate;
      }
      gamma(r) = sum;
    }
  }

  bool has_energy() const override { return true; }
  double energy(double t, CVecRef q, CVecRef v) const override {
    Mat M(7, 7);
    mass_matrix(t, q, M);
    const double stretch = spring(std::cos(q(kGamma)), std::sin(q(kGamma))).length - l0;
    return 0.5 * v.dot(M * v) + 0.5 * c0 * stretch * stretch - mom * q(kBeta);
  }

  // The two chains from F to A close at knees; an assembly mode is the side each knee is on,
  // i.e. the sign of the cross product of its two links, ∓(product of lengths)·cos of the
  // relative angle. Zero would mean the links are collinear (a singular configuration).
  std::vector<BranchIndicator> branch_indicators() const override {
    using K = BranchIndicator::Kind;
    return {{"loop_A_knee_e", "cos Φ: links zt and e meeting at their knee (rows 3, 4)", K::sign},
            {"loop_A_knee_u", "cos Ω: links u and zf meeting at their knee (rows 5, 6)", K::sign}};
  }

  void branch_indicator_values(double, CVecRef q, VecRef b) const override {
    b << std::cos(q(kPhi)), std::cos(q(kOmega));
  }

  std::vector<std::string> output_names() const override {
    return {"beta", "Theta", "gamma", "Phi", "delta", "Omega", "epsilon"};
  }
  void outputs(double, CVecRef q, CVecRef, VecRef y) const override { y = q; }

  ReferenceInfo reference_info() const override {
    return {ReferenceKind::published,
            "Bari IVP test set, andrews.f: PSIDE solution at t = 0.03 with rtol = atol = 1e-14 "
            "(available at t = 0.03 only; positions good to ~2.7e-10 relative)",
            2.7e-10 * 15.8};
  }

  // The published values exist at t = 0.03 only; other times get NaN (no reference there).
  Mat reference_outputs(const std::vector<double>& times) const override {
    Mat out = Mat::Constant(times.size(), 7, std::nan(""));
    for (std::size_t i = 0; i < times.size(); ++i)
      if (at_reference_time(times[i])) out.row(i) = kPositions.transpose();
    return out;
  }
  bool reference_multipliers(double t, VecRef lambda) const override {
    if (!at_reference_time(t)) return false;
    lambda = kMultipliers;
    return true;
  }

 private:
  // The sines and cosines at q, recomputed only when q differs from the last call's (a problem
  // instance serves one run at a time; see core/problem.hpp).
  const Trig& trig(CVecRef q) const {
    bool same = true;
    for (int i = 0; i < 7; ++i) same = same && q(i) == trig_q_[i];
    if (same) return trig_;
    for (int i = 0; i < 7; ++i) trig_q_[i] = q(i);
    for (int a = 0; a < kAngleCount; ++a) {
      const double theta = q(kAngles[a].i) + (kAngles[a].j >= 0 ? q(kAngles[a].j) : 0.0);
      trig_.sin[a] = std::sin(theta);
      trig_.cos[a] = std::cos(theta);
    }
    return trig_;
  }

  mutable std::array<double, 7> trig_q_ = filled_with_nan();
  mutable Trig trig_{};

  static std::array<double, 7> filled_with_nan() {
    std::array<double, 7> a;
    a.fill(std::nan(""));
    return a;
  }
  static bool at_reference_time(double t) { return std::abs(t - 0.03) <= 1e-12; }
  static inline const Eigen::Matrix<double, 7, 1> kPositions =
      (Eigen::Matrix<double, 7, 1>() << 0.1581077119629904e+2, -0.1575637105984298e+2,
       0.4082224013073101e-1, -0.5347301163226948e+0, 0.5244099658805304e+0, 0.5347301163226948e+0,
       0.1048080741042263e+1)
          .finished();
  static inline const Eigen::Matrix<double, 6, 1> kMultipliers =
      (Eigen::Matrix<double, 6, 1>() << 0.1991753333731910e+3, -0.2975531228015052e+2,
       0.2306654119098399e+2, 0.3145271365475927e+2, 0.2264249232082739e+2, 0.1161740700019673e+2)
          .finished();
};

}  // namespace
}  // namespace cmb

CMB_DEFINE_PROBLEM(andrews_squeezer) {
  cmb::ProblemEntry entry;
  entry.id = "andrews_squeezer";
  entry.display_name = "Andrews' squeezer";
  entry.units.outputs = {{"beta", "rad"},  {"Theta", "rad"}, {"gamma", "rad"},  {"Phi", "rad"},
                         {"delta", "rad"}, {"Omega", "rad"}, {"epsilon", "rad"}};
  entry.units.holonomic = {"m"};
  entry.summary = "Andrews' squeezing mechanism (IFToMM A03), published reference at t = 0.03";
  entry.params = {cmb::t_end_param(0.03)};
  entry.make = [](const cmb::Params& p) { return std::make_unique<cmb::AndrewsSqueezer>(p); };
  return entry;
}
