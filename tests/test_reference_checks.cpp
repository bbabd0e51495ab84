// The problem conformance suite's reference checks (tests/conformance/reference_checks.hpp)
// catch wrong references: a catalog problem whose reference is deliberately bent — started off,
// run at a slightly wrong rate, or given wrong multipliers — fails them, and the same problem with
// its reference untouched passes.
#include <gtest/gtest.h>

#include <cmath>

#include "catalog/catalog.hpp"
#include "conformance/reference_checks.hpp"
#include "conformance/test_support.hpp"

namespace cmb::test {
namespace {

// A problem exactly like `inner` but for its reference: outputs offset by `offset` (all times),
// read at time (1 + rate_error)·t, and multipliers offset by multiplier_offset.
struct Bend {
  double offset = 0.0, rate_error = 0.0, multiplier_offset = 0.0;
};

class BentReference : public Problem {
 public:
  BentReference(std::unique_ptr<Problem> inner, Bend bend)
      : inner_(std::move(inner)), bend_(bend) {}

  const ProblemInfo& info() const override { return inner_->info(); }
  Sizes sizes() const override { return inner_->sizes(); }
  double t_end() const override { return inner_->t_end(); }
  const nlohmann::json& params() const override { return inner_->params(); }
  void initial_state(VecRef q, VecRef v) const override { inner_->initial_state(q, v); }
  void mass_matrix(double t, CVecRef q, MatRef M) const override { inner_->mass_matrix(t, q, M); }
  void forces(double t, CVecRef q, CVecRef v, VecRef Q) const override {
    inner_->forces(t, q, v, Q);
  }
  void constraints(double t, CVecRef q, VecRef Phi) const override {
    inner_->constraints(t, q, Phi);
  }
  void jacobian(double t, CVecRef q, MatRef J) const override { inner_->jacobian(t, q, J); }
  void velocity_rhs(double t, CVecRef q, VecRef nu) const override {
    inner_->velocity_rhs(t, q, nu);
  }
  void acceleration_rhs(double t, CVecRef q, CVecRef v, VecRef gamma) const override {
    inner_->acceleration_rhs(t, q, v, gamma);
  }
  bool has_energy() const override { return inner_->has_energy(); }
  double energy(double t, CVecRef q, CVecRef v) const override { return inner_->energy(t, q, v); }
  std::vector<std::string> output_names() const override { return inner_->output_names(); }
  void outputs(double t, CVecRef q, CVecRef v, VecRef y) const override {
    inner_->outputs(t, q, v, y);
  }
  ReferenceInfo reference_info() const override { return inner_->reference_info(); }

  Mat reference_outputs(const std::vector<double>& times) const override {
    std::vector<double> bent = times;
    for (double& t : bent) t *= 1.0 + bend_.rate_error;
    return inner_->reference_outputs(bent).array() + bend_.offset;
  }
  bool reference_multipliers(double t, VecRef lambda) const override {
    if (!inner_->reference_multipliers(t, lambda)) return false;
    lambda.array() += bend_.multiplier_offset;
    return true;
  }

 private:
  std::unique_ptr<Problem> inner_;
  Bend bend_;
};

ProblemFactory bent(const std::string& id, Bend bend) {
  return [id, bend] {
    return std::make_unique<BentReference>(make_problem(id, nlohmann::json::object()), bend);
  };
}

// One problem of each kind of reference that has a value at t = 0 and over the horizon: the
// pendulum's closed form (with exact multipliers), the crank-rocker's reduced ODE, the sleigh's
// closed form with nonholonomic rows, the top's reduced ODE.
const char* const kProblems[] = {"simple_pendulum", "crank_rocker", "chaplygin_sleigh",
                                 "lagrange_top"};

TEST(ReferenceChecks, AnUntouchedReferencePassesBoth) {
  for (const char* id : kProblems) {
    const auto make = bent(id, {});
    EXPECT_EQ(reference_start_mismatch(*make()), "") << id;
    EXPECT_EQ(reference_integration_mismatch(make), "") << id;
  }
}

// The reported case was 4e-6 relative at t = 0 (an elliptic function near k = 1); offsets a
// thousandth of that still exceed every claimed accuracy here (1e-9 and below).
TEST(ReferenceChecks, AReferenceThatStartsOffFailsBoth) {
  for (const char* id : kProblems)
    for (double offset : {4e-5, 1e-7, -1e-8}) {
      const auto make = bent(id, {offset, 0.0, 0.0});
      EXPECT_NE(reference_start_mismatch(*make()), "") << id << ", offset " << offset;
      EXPECT_NE(reference_integration_mismatch(make), "") << id << ", offset " << offset;
    }
}

// Right at t = 0 but a millionth fast or slow: only the integration shows it.
TEST(ReferenceChecks, AReferenceAtAWrongRateFailsTheIntegrationCheck) {
  for (const char* id : kProblems)
    for (double rate_error : {1e-5, -1e-6}) {
      const auto make = bent(id, {0.0, rate_error, 0.0});
      EXPECT_EQ(reference_start_mismatch(*make()), "") << id;
      EXPECT_NE(reference_integration_mismatch(make), "") << id << ", rate " << rate_error;
    }
}

// The pendulum's tension is 0 at its horizontal release; a reference 1e-6 N/m off there fails.
TEST(ReferenceChecks, WrongMultipliersAtTheStartFail) {
  EXPECT_EQ(reference_start_mismatch(*bent("simple_pendulum", {})()), "");
  const auto make = bent("simple_pendulum", {0.0, 0.0, 1e-6});
  const std::string mismatch = reference_start_mismatch(*make());
  EXPECT_NE(mismatch.find("multiplier lambda_0"), std::string::npos) << mismatch;
}

}  // namespace
}  // namespace cmb::test
