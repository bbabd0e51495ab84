// The problem conformance suite's checks of a problem's reference, as functions, so that a test
// can show that they catch a wrong one (tests/test_reference_checks.cpp): each returns "" when
// the reference passes and otherwise says where it differs, by how much, and what was allowed.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "core/problem.hpp"

namespace cmb::test {

// At t = 0 the reference must be the problem's own outputs at its initial state, within the
// reference's claimed accuracy (plus rounding, 1e-13 of the outputs' size), and its multipliers,
// where it has them, the KKT oracle's there (1e-8 relative: both are exact up to the system's
// conditioning, while a wrong term is off by O(1)). Outputs the reference leaves NaN at t = 0 (a
// published solution at a later time only) are skipped; a self-converged reference starts from
// the initial state by construction.
std::string reference_start_mismatch(const Problem& problem);

// A reference of its own (analytic or reduced ODE) must follow the problem itself: over the first
// fiftieth of the horizon the problem is integrated by index1 (svd_null_space where rows are
// redundant) with fehlberg78 at tolerances 1e-10 and 1e-12, landing on ten sample times; the
// reference must be within its claimed accuracy of the tighter run, plus the two runs'
// difference (which bounds the tighter run's own error) and 1e-11 of the outputs' size. `make`
// builds a fresh instance of the problem (a run owns the one it integrates).
using ProblemFactory = std::function<std::unique_ptr<Problem>()>;
std::string reference_integration_mismatch(const ProblemFactory& make);

}  // namespace cmb::test
