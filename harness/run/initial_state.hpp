// The state a run starts from: the problem's initial state, checked against its constraints
// (rejected or projected onto them, as the user chose), then optionally perturbed on purpose
// (a uniform violation of every holonomic row, for stabilization studies).
#pragma once

#include <string>

#include "core/problem.hpp"
#include "core/types.hpp"
#include "records/run_record.hpp"

namespace cmb {

struct InitialStateOptions {
  // "reject": an initial state violating the constraints by more than `tolerance` ends the
  // run with status invalid_input; "project": Gauss–Newton onto Φ = 0, then the minimum-norm
  // velocity correction.
  std::string assembly = "reject";
  double tolerance = 1e-10;  // max |Φ_i| and max |ψ_i| accepted as consistent
  // After assembly: Φ_i(0) = position and Φ̇_i(0) = velocity on every holonomic row.
  double perturb_position = 0.0;
  double perturb_velocity = 0.0;
  bool perturbed() const { return perturb_position != 0.0 || perturb_velocity != 0.0; }
};

// Fills q, v and returns the record's initial block. Throws NumericalFailure with status
// invalid_input when the state is rejected or cannot be assembled or perturbed.
InitialRecord make_initial_state(const Problem& problem, const InitialStateOptions& options,
                                 VecRef q, VecRef v);

}  // namespace cmb
