// A benchmark mechanism: a constant model M(q) q̈ = Q(t,q,v) − Jᵀλ with Φ(t,q) = 0 (mh rows) and
// A_nh(t,q) v = c(t,q) (mn rows). Immutable after construction; the evaluation calls write into
// caller-owned storage and must not allocate. Notation: docs/notation.md.
#pragma once

#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/params.hpp"
#include "core/types.hpp"

namespace cmb {

struct ProblemInfo {
  std::string id;
  std::string title;
  std::string source;             // citation of the data and of the reference
  std::vector<std::string> tags;  // closed_loop, redundant, singular, stiff, nonholonomic, ...
};

enum class ReferenceKind {
  analytic,        // closed form, e.g. Jacobi elliptic functions
  published,       // tabulated values from a cited source
  reduced_ode,     // an independent minimal-coordinate ODE integrated at tight tolerance
  self_converged,  // computed by the harness with two independent methods
  none,
};
const char* to_string(ReferenceKind kind);

struct ReferenceInfo {
  ReferenceInfo() = default;
  ReferenceInfo(ReferenceKind kind_, std::string provenance_, double accuracy_)
      : kind(kind_), provenance(std::move(provenance_)), accuracy(accuracy_) {}
  ReferenceKind kind = ReferenceKind::none;
  std::string provenance;
  double accuracy = std::nan("");  // estimated absolute error of the reference outputs
  // For kind self_converged: the two independent configurations the harness runs, as
  // [{"method", "method_params", "stepper", "tol"}, ...]; null selects the harness default.
  nlohmann::json recipe;
};

// A smooth function b(q) of the configuration that tells the assembly branch (assembly mode) of
// the problem's reference apart from the others the constraints admit: its sign (kind sign) or
// its value within `tolerance` (kind value, for branches that cross, where no sign separates
// them: IFToMM A02's parallelogram branch meets the folded ones at its singular positions). The
// harness compares b at every accepted step with b at t = 0 and ends the run with status
// branch_switch when it changed.
struct BranchIndicator {
  enum class Kind { sign, value };
  std::string name;     // e.g. "elbow_C": a snake_case id, named in the run's message
  std::string meaning;  // e.g. "side of C relative to the line BD (elbow up > 0)"
  Kind kind = Kind::sign;
  double tolerance = 0.0;  // kind value: the largest |b(q) − b(q0)| still on the branch
  // Kind value: the largest |db/dt| along the motion still on the branch (0: not checked). On
  // the branch b stays at b0, so its rate stays near 0; a state whose velocity points off the
  // branch (a jump at a singular passage) shows here at once, long before b itself moves.
  double rate_tolerance = 0.0;
};

// Receives the nonzero entries of a sparse matrix one by one (see Problem::jacobian_entries).
// A sink implements put(). add() is not virtual because of the one sink on the hot path: the
// sparse KKT solver's, which adds each value into the slot its position took at bind (slot mode,
// handled inline). The linkages send ~50 entries per RHS call, and a virtual call per entry was
// ~10 % of an index1 call (perf, crank_rocker and andrews_squeezer).
class SparseSink {
 public:
  virtual ~SparseSink() = default;
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
  SparseSink() = default;
  // Slot mode (values not null): the k-th entry sent is added into values[slots[k]]; entries beyond
  // count are only counted (sent()), so the solver can name a problem whose pattern changed.
  SparseSink(const int* slots, std::size_t count, double* values)
      : slots_(slots), slot_count_(count), values_(values) {}
  std::size_t sent() const { return sent_; }
  virtual void put(int row, int col, double value) = 0;

 private:
  const int* slots_ = nullptr;
  std::size_t slot_count_ = 0;
  double* values_ = nullptr;
  std::size_t sent_ = 0;
};

// Writes entries into a dense matrix (zeroed first), so a problem with sparse evaluation can
// implement its dense mass_matrix/jacobian through the same code.
class DenseMatrixSink : public SparseSink {
 public:
  explicit DenseMatrixSink(MatRef matrix) : matrix_(matrix) { matrix_.setZero(); }

 private:
  void put(int row, int col, double value) override { matrix_(row, col) += value; }
  MatRef matrix_;
};

// Accumulates out = A x from the entries of A as they are sent (A never stored): J v at O(nnz).
// x is a plain vector (an expression would be a temporary that the sink outlives) and must not
// be out.
class ProductSink : public SparseSink {
 public:
  ProductSink(const Vec& x, VecRef out) : x_(x), out_(out) { out_.setZero(); }

 private:
  void put(int row, int col, double value) override { out_(row) += value * x_(col); }
  const Vec& x_;
  VecRef out_;
};

// A problem instance serves one run at a time (the harness makes one per run, campaign workers
// are processes): evaluations may cache values that depend on q only, e.g. trigonometric
// functions shared by M, Q, J and γ at the same q (andrews_squeezer).
class Problem {
 public:
  virtual ~Problem() = default;

  virtual const ProblemInfo& info() const = 0;
  virtual Sizes sizes() const = 0;
  virtual double t_end() const = 0;
  virtual const nlohmann::json& params() const = 0;

  // A state satisfying Φ = 0 and J v = ν at t = 0 (tests check it).
  virtual void initial_state(VecRef q, VecRef v) const = 0;

  virtual void mass_matrix(double t, CVecRef q, MatRef M) const = 0;
  virtual void forces(double t, CVecRef q, CVecRef v, VecRef Q) const = 0;
  virtual void constraints(double t, CVecRef q, VecRef Phi) const = 0;  // mh rows
  virtual void jacobian(double t, CVecRef q, MatRef J) const = 0;       // m × nq, all rows
  // ν in J v = ν; zero for scleronomic constraints.
  virtual void velocity_rhs(double t, CVecRef q, VecRef nu) const { nu.setZero(); }
  // γ in J q̈ = γ, i.e. −J̇v (+ time-derivative terms for rheonomic rows).
  virtual void acceleration_rhs(double t, CVecRef q, CVecRef v, VecRef gamma) const = 0;

  // Optional sparse evaluation, for large mechanisms: the nonzeros of M and of J (all rows) as
  // entries sent to a sink. Every call must send the same (row, col)
  // sequence — the pattern, which solvers analyse once — with current values; entries that
  // may vanish are sent as zeros. Problems that implement them return true.
  virtual bool has_sparse_evaluation() const { return false; }
  virtual void mass_matrix_entries(double t, CVecRef q, SparseSink& sink) const {}
  virtual void jacobian_entries(double t, CVecRef q, SparseSink& sink) const {}

  // Unilateral rows g(t,q) ≥ 0 (sizes().mu of them). While a row is closed (g ≈ 0, ġ ≈ 0) its
  // acceleration must not push into the support: G q̈ ≥ d with G = ∂g/∂q and d = −Ġv.
  virtual void unilateral_gaps(double t, CVecRef q, VecRef g) const {}
  virtual void unilateral_jacobian(double t, CVecRef q, MatRef G) const {}
  virtual void unilateral_acceleration_rhs(double t, CVecRef q, CVecRef v, VecRef d) const {}

  // Priority level of equality row `row` (0 = highest). Only methods that prioritize
  // (gauss_qp) read it: higher levels are met exactly, lower ones in the least-squares sense
  // inside the higher levels' solution set. For consistent constraints the levels do not matter.
  virtual int row_priority(int row) const { return 0; }

  // Conserved energy (or energy minus work of drives); NaN when the problem has none.
  virtual bool has_energy() const { return false; }
  virtual double energy(double t, CVecRef q, CVecRef v) const { return std::nan(""); }

  // Assembly-branch indicators (empty for problems with a single assembly mode), and their values
  // at q in the same order; the values call must not allocate.
  virtual std::vector<BranchIndicator> branch_indicators() const { return {}; }
  virtual void branch_indicator_values(double t, CVecRef q, VecRef b) const {}

  // The scored quantities (e.g. point B0 of IFToMM A02).
  virtual std::vector<std::string> output_names() const = 0;
  virtual void outputs(double t, CVecRef q, CVecRef v, VecRef y) const = 0;

  virtual ReferenceInfo reference_info() const { return {}; }
  // Reference outputs at increasing times, one row per time. Called only when the kind != none.
  virtual Mat reference_outputs(const std::vector<double>& times) const;
  // Exact multipliers at time t when the problem knows them (sign convention of docs/notation.md).
  virtual bool reference_multipliers(double t, VecRef lambda) const { return false; }
};

// Holds what every problem stores; concrete problems derive from it.
class ProblemBase : public Problem {
 public:
  ProblemBase(ProblemInfo info, Params params, Sizes sizes)
      : info_(std::move(info)), params_(std::move(params)), sizes_(sizes) {}
  const ProblemInfo& info() const override { return info_; }
  Sizes sizes() const override { return sizes_; }
  double t_end() const override { return params_.number("t_end"); }
  const nlohmann::json& params() const override { return params_.values(); }

 protected:
  const Params& p() const { return params_; }

 private:
  ProblemInfo info_;
  Params params_;
  Sizes sizes_;
};

// The horizon parameter every problem declares.
ParamSpec t_end_param(double default_t_end);

}  // namespace cmb
