/// \file
/// A benchmark mechanism: a constant model M(q) q̈ = Q(t,q,v) − Jᵀλ with Φ(t,q) = 0 (mh rows) and
/// A_nh(t,q) v = c(t,q) (mn rows). Immutable after construction; the evaluation calls write into
/// caller-owned storage and must not allocate. Notation: docs/notation.md.
#pragma once

#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/params.hpp"
#include "core/types.hpp"

namespace cmb {

/// What a problem is: its id, title, source and tags (`cmbench describe`).
struct ProblemInfo {
  std::string id;                 ///< the problem's id, as in problems.def
  std::string title;              ///< one line saying what the mechanism is
  std::string source;             ///< citation of the data and of the reference
  std::vector<std::string> tags;  ///< closed_loop, redundant, singular, stiff, nonholonomic, ...
};

/// Where a problem's reference solution comes from.
enum class ReferenceKind {
  analytic,        ///< closed form, e.g. Jacobi elliptic functions
  published,       ///< tabulated values from a cited source
  reduced_ode,     ///< an independent minimal-coordinate ODE integrated at tight tolerance
  self_converged,  ///< computed by the harness with two independent methods
  none,            ///< no reference: runs report drift and energy only
};
/// The kind's name as records spell it ("analytic", "self_converged", ...).
const char* to_string(ReferenceKind kind);

/// A problem's reference: its kind, where it comes from and how accurate it is.
struct ReferenceInfo {
  /// No reference (kind none).
  ReferenceInfo() = default;
  /// A reference of `kind_`, described by `provenance_`, accurate to `accuracy_`.
  ReferenceInfo(ReferenceKind kind_, std::string provenance_, double accuracy_)
      : kind(kind_), provenance(std::move(provenance_)), accuracy(accuracy_) {}
  ReferenceKind kind = ReferenceKind::none;  ///< where it comes from
  std::string provenance;          ///< how it is obtained (a citation, a formula, a recipe)
  double accuracy = std::nan("");  ///< estimated absolute error of the reference outputs
  /// For kind self_converged: the two independent configurations the harness runs, as
  /// [{"method", "method_params", "stepper", "tol"}, ...]; null selects the harness default.
  nlohmann::json recipe;
};

/// A smooth function b(q) of the configuration that tells the assembly branch (assembly mode) of
/// the problem's reference apart from the others the constraints admit: its sign (kind sign) or
/// its value within `tolerance` (kind value, for branches that cross, where no sign separates
/// them: IFToMM A02's parallelogram branch meets the folded ones at its singular positions). The
/// harness compares b at every accepted step with b at t = 0 and ends the run with status
/// branch_switch when it changed.
struct BranchIndicator {
  /// Whether the branch is told by b's sign or by its value within a tolerance.
  enum class Kind { sign, value };
  std::string name;        ///< e.g. "elbow_C": a snake_case id, named in the run's message
  std::string meaning;     ///< e.g. "side of C relative to the line BD (elbow up > 0)"
  Kind kind = Kind::sign;  ///< sign or value
  double tolerance = 0.0;  ///< kind value: the largest |b(q) − b(q0)| still on the branch
  /// Kind value: the largest |db/dt| along the motion still on the branch (0: not checked). On
  /// the branch b stays at b0, so its rate stays near 0; a state whose velocity points off the
  /// branch (a jump at a singular passage) shows here at once, long before b itself moves.
  double rate_tolerance = 0.0;
};

/// Receives the nonzero entries of a sparse matrix one by one (see Problem::jacobian_entries).
/// A sink implements put(). add() is not virtual because of the one sink on the hot path: the
/// sparse KKT solver's, which adds each value into the slot its position took at bind (slot mode,
/// handled inline). The linkages send ~50 entries per RHS call, and a virtual call per entry was
/// ~10 % of an index1 call (perf, crank_rocker and andrews_squeezer).
class SparseSink {
 public:
  /// Destroys it (a base class).
  virtual ~SparseSink() = default;
  /// Receives the entry (row, col) = value: added into its slot in slot mode, else passed to put().
  void add(int row, int col, double value) {
    if (values_ == nullptr) {
      put(row, col, value);
      return;
    }
    if (sent_ < slot_count_) {
      const int slot = slots_[sent_];
      if (slot >= 0) values_[slot] += value;  // −1: an entry the solver does not store
    }
    ++sent_;
  }

 protected:
  /// A sink that passes every entry to put().
  SparseSink() = default;
  /// Slot mode (values not null): the k-th entry sent is added into values[slots[k]]; entries
  /// beyond count are only counted (sent()), so the solver can name a problem whose pattern
  /// changed.
  SparseSink(const int* slots, std::size_t count, double* values)
      : slots_(slots), slot_count_(count), values_(values) {}
  /// The number of entries sent so far in slot mode.
  std::size_t sent() const { return sent_; }
  /// What a sink does with an entry outside slot mode.
  virtual void put(int row, int col, double value) = 0;

 private:
  const int* slots_ = nullptr;
  std::size_t slot_count_ = 0;
  double* values_ = nullptr;
  std::size_t sent_ = 0;
};

/// Writes entries into a dense matrix (zeroed first), so a problem with sparse evaluation can
/// implement its dense mass_matrix/jacobian through the same code.
class DenseMatrixSink : public SparseSink {
 public:
  /// Zeroes `matrix` and adds every entry sent into it.
  explicit DenseMatrixSink(MatRef matrix) : matrix_(matrix) { matrix_.setZero(); }

 private:
  void put(int row, int col, double value) override { matrix_(row, col) += value; }
  MatRef matrix_;
};

/// Accumulates out = A x from the entries of A as they are sent (A never stored): J v at O(nnz).
/// x is a plain vector (an expression would be a temporary that the sink outlives) and must not
/// be out.
class ProductSink : public SparseSink {
 public:
  /// Zeroes `out` and accumulates A x into it as A's entries arrive.
  ProductSink(const Vec& x, VecRef out) : x_(x), out_(out) { out_.setZero(); }

 private:
  void put(int row, int col, double value) override { out_(row) += value * x_(col); }
  const Vec& x_;
  VecRef out_;
};

/// A problem instance serves one run at a time (the harness makes one per run, campaign workers
/// are processes): evaluations may cache values that depend on q only, e.g. trigonometric
/// functions shared by M, Q, J and γ at the same q (andrews_squeezer).
/// The interface a problem implements: its model M(q) q̈ = Q − Jᵀλ, its constraints, its outputs and
/// its reference (problems/*.cpp derive from ProblemBase; docs/extending.md, "A problem").
class Problem {
 public:
  /// Destroys it (a base class).
  virtual ~Problem() = default;

  /// Its id, title, source and tags.
  virtual const ProblemInfo& info() const = 0;
  /// Its coordinate and row counts.
  virtual Sizes sizes() const = 0;
  /// The end of the simulated interval (its t_end parameter).
  virtual double t_end() const = 0;
  /// Its parameter values, as recorded in results.
  virtual const nlohmann::json& params() const = 0;

  /// A state satisfying Φ = 0 and J v = ν at t = 0 (tests check it).
  virtual void initial_state(VecRef q, VecRef v) const = 0;

  /// The mass matrix M(t, q), nq × nq, symmetric positive definite.
  virtual void mass_matrix(double t, CVecRef q, MatRef M) const = 0;
  /// The applied and velocity-dependent forces Q(t, q, v).
  virtual void forces(double t, CVecRef q, CVecRef v, VecRef Q) const = 0;
  /// The holonomic constraints Φ(t, q).
  virtual void constraints(double t, CVecRef q, VecRef Phi) const = 0;  ///< mh rows
  /// The constraint Jacobian J(t, q): ∂Φ/∂q stacked over A_nh.
  virtual void jacobian(double t, CVecRef q, MatRef J) const = 0;  ///< m × nq, all rows
  /// ν in J v = ν; zero for scleronomic constraints.
  virtual void velocity_rhs(double t, CVecRef q, VecRef nu) const { nu.setZero(); }
  /// γ in J q̈ = γ, i.e. −J̇v (+ time-derivative terms for rheonomic rows).
  virtual void acceleration_rhs(double t, CVecRef q, CVecRef v, VecRef gamma) const = 0;

  /// Optional sparse evaluation, for large mechanisms: the nonzeros of M and of J (all rows) as
  /// entries sent to a sink. Every call must send the same (row, col)
  /// sequence — the pattern, which solvers analyse once — with current values; entries that
  /// may vanish are sent as zeros. Problems that implement them return true.
  virtual bool has_sparse_evaluation() const { return false; }
  /// The nonzeros of M(t, q), sent to `sink` (sparse evaluation).
  virtual void mass_matrix_entries(double t, CVecRef q, SparseSink& sink) const {}
  /// The nonzeros of J(t, q), all rows, sent to `sink` (sparse evaluation).
  virtual void jacobian_entries(double t, CVecRef q, SparseSink& sink) const {}

  /// Optional analytic tangents for the iteration matrices of the index-3 integrators
  /// (generalized_alpha, ali3p). With a and w held fixed, the force residual
  /// r(q, v) = M(t, q) a − Q(t, q, v) + J_h(t, q)ᵀ w  (J_h: the holonomic rows) has the tangents
  /// K = ∂r/∂q and C = −∂Q/∂v; the call sends their nonzeros to the two sinks, in the same
  /// (row, col) sequence at every call (the pattern), zeros included. Where a problem sends them
  /// the integrators need no difference quotients (2n + 1 force evaluations per matrix) and, with
  /// sparse evaluation, assemble and factorize their iteration matrices sparsely. The problem
  /// conformance suite checks them against central differences. Problems that send them return
  /// true.
  virtual bool has_residual_tangents() const { return false; }
  /// The nonzeros of K = ∂r/∂q and C = −∂Q/∂v at (t, q, v, a, w) (see has_residual_tangents).
  virtual void residual_tangent_entries(double t, CVecRef q, CVecRef v, CVecRef a, CVecRef w,
                                        SparseSink& K, SparseSink& C) const {}

  /// Unilateral rows g(t,q) ≥ 0 (sizes().mu of them). While a row is closed (g ≈ 0, ġ ≈ 0) its
  /// acceleration must not push into the support: G q̈ ≥ d with G = ∂g/∂q and d = −Ġv.
  virtual void unilateral_gaps(double t, CVecRef q, VecRef g) const {}
  /// G = ∂g/∂q of the unilateral rows, mu × nq.
  virtual void unilateral_jacobian(double t, CVecRef q, MatRef G) const {}
  /// d = −Ġv of the unilateral rows.
  virtual void unilateral_acceleration_rhs(double t, CVecRef q, CVecRef v, VecRef d) const {}

  /// Priority level of equality row `row` (0 = highest). Only methods that prioritize
  /// (gauss_qp) read it: higher levels are met exactly, lower ones in the least-squares sense
  /// inside the higher levels' solution set. For consistent constraints the levels do not matter.
  virtual int row_priority(int row) const { return 0; }

  /// Whether the problem has a conserved energy (or energy minus work of drives).
  virtual bool has_energy() const { return false; }
  /// The conserved energy at (t, q, v); NaN when has_energy() is false.
  virtual double energy(double t, CVecRef q, CVecRef v) const { return std::nan(""); }

  /// Assembly-branch indicators (empty for problems with a single assembly mode), and their values
  /// at q in the same order; the values call must not allocate.
  virtual std::vector<BranchIndicator> branch_indicators() const { return {}; }
  /// The values b(q) of the branch indicators, in the order branch_indicators() gives them.
  virtual void branch_indicator_values(double t, CVecRef q, VecRef b) const {}

  /// The names of the coordinates q in order (`cmbench describe` shows them), or empty.
  virtual std::vector<std::string> coordinate_names() const { return {}; }

  /// The scored quantities (e.g. point B0 of IFToMM A02).
  virtual std::vector<std::string> output_names() const = 0;
  /// The scored quantities at (t, q, v), in the order output_names() gives them.
  virtual void outputs(double t, CVecRef q, CVecRef v, VecRef y) const = 0;

  /// Its reference's kind, provenance and accuracy (kind none by default).
  virtual ReferenceInfo reference_info() const { return {}; }
  /// Reference outputs at increasing times, one row per time. Called only when the kind != none.
  virtual Mat reference_outputs(const std::vector<double>& times) const;
  /// Exact multipliers at time t when the problem knows them (sign convention of docs/notation.md).
  virtual bool reference_multipliers(double t, VecRef lambda) const { return false; }
};

/// Holds what every problem stores; concrete problems derive from it.
class ProblemBase : public Problem {
 public:
  /// Keeps the problem's description, parsed parameters and sizes.
  ProblemBase(ProblemInfo info, Params params, Sizes sizes)
      : info_(std::move(info)), params_(std::move(params)), sizes_(sizes) {}
  /// Its id, title, source and tags.
  const ProblemInfo& info() const override { return info_; }
  /// Its coordinate and row counts.
  Sizes sizes() const override { return sizes_; }
  /// The t_end parameter.
  double t_end() const override { return params_.number("t_end"); }
  /// Its parameter values.
  const nlohmann::json& params() const override { return params_.values(); }

 protected:
  /// The parsed parameters, for the derived problem to read.
  const Params& p() const { return params_; }

 private:
  ProblemInfo info_;
  Params params_;
  Sizes sizes_;
};

/// The horizon parameter every problem declares.
ParamSpec t_end_param(double default_t_end);

}  // namespace cmb
