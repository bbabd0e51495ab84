#include "core/errors.hpp"

#include <sstream>

namespace cmb {

const char* to_string(RunStatus status) {
  switch (status) {
    case RunStatus::ok:
      return "ok";
    case RunStatus::diverged:
      return "diverged";
    case RunStatus::step_limit:
      return "step_limit";
    case RunStatus::time_limit:
      return "time_limit";
    case RunStatus::singular:
      return "singular";
    case RunStatus::newton_failed:
      return "newton_failed";
    case RunStatus::unsupported:
      return "unsupported";
    case RunStatus::invalid_input:
      return "invalid_input";
    case RunStatus::branch_switch:
      return "branch_switch";
    case RunStatus::reference_failed:
      return "reference_failed";
    case RunStatus::crashed:
      return "crashed";
    case RunStatus::out_of_memory:
      return "out_of_memory";
    case RunStatus::stalled:
      return "stalled";
  }
  return "unknown";
}

std::optional<RunStatus> run_status_from(const std::string& text) {
  for (int i = 0; i <= static_cast<int>(RunStatus::stalled); ++i)
    if (text == to_string(static_cast<RunStatus>(i))) return static_cast<RunStatus>(i);
  return std::nullopt;
}

std::string run_status_names() {
  std::string names;
  for (int i = 0; i <= static_cast<int>(RunStatus::stalled); ++i)
    names += (i ? ", " : "") + std::string(to_string(static_cast<RunStatus>(i)));
  return names;
}

void require_finite(bool finite, const char* what, double t) {
  if (finite) return;
  std::ostringstream msg;
  msg << what << " is not finite at t = " << t;
  throw NumericalFailure(RunStatus::diverged, msg.str());
}

void fail_not_positive_definite(const char* what, double t) {
  std::ostringstream msg;
  msg << what << " is not positive definite at t = " << t;
  throw NumericalFailure(RunStatus::singular, msg.str());
}

}  // namespace cmb
