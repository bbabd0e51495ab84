/// \file
/// The two ways things go wrong. Input errors are the user's to fix (exit code 2, nothing
/// written). Numerical failures end one run with a recorded status; a campaign goes on.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>

namespace cmb {

/// An error in what the user gave (a file, an option, a parameter): reported with exit code 2.
class InputError : public std::runtime_error {
 public:
  /// Constructed from the message shown to the user.
  using std::runtime_error::runtime_error;
};

/// Run statuses, in the order they are documented (docs/json_schema.md).
enum class RunStatus {
  ok,
  diverged,
  step_limit,
  time_limit,
  singular,
  newton_failed,
  unsupported,
  invalid_input,
  branch_switch,     ///< left the assembly branch of the reference (Problem::branch_indicators)
  reference_failed,  ///< the self-converged reference could not be computed: the run did not start
  crashed,           ///< the worker process died (signal) or hit an internal error
  out_of_memory,     ///< an allocation failed (std::bad_alloc): --resume tries the run again
  stalled,  ///< its steps collapsed: at their pace t_end is out of reach (core/loop_guard.hpp)
};

/// The status's name as records and messages spell it ("ok", "branch_switch", ...).
const char* to_string(RunStatus status);

/// The status spelled `text` (as to_string writes it); nullopt for any other text.
std::optional<RunStatus> run_status_from(const std::string& text);

/// Every status, in declaration order (for messages that list the valid ones).
std::string run_status_names();

/// Ends one run with a status other than ok and a message; the campaign goes on.
class NumericalFailure : public std::runtime_error {
 public:
  /// A failure recorded as `status`, explained by `message`.
  NumericalFailure(RunStatus status, const std::string& message)
      : std::runtime_error(message), status_(status) {}
  /// The status the run ends with.
  RunStatus status() const { return status_; }

 private:
  RunStatus status_;
};

/// Thrown by a method from rhs or post_step when the step that led there must not be accepted:
/// e.g. a Newton correction far larger than the step's own prediction, which is how a Newton
/// iteration jumps to another root (assembly branch). An adaptive step loop restores the state
/// before the step and retries with a smaller step; a fixed-step loop, or an adaptive one whose
/// step size underflows, ends the run with status() and the message.
class StepRejected : public NumericalFailure {
 public:
  /// Constructed as NumericalFailure is: the status recorded if the run cannot go on, and a
  /// message.
  using NumericalFailure::NumericalFailure;
};

/// Throws NumericalFailure(diverged) naming `what` and t unless `finite`: NaN or infinite values
/// in a state or in the problem's M, Q, J, γ would otherwise surface later as a misleading
/// "singular" factorization.
void require_finite(bool finite, const char* what, double t);

/// Throws NumericalFailure(singular): the matrix `what` (a mass matrix, or one built from it such
/// as RᵀMR) failed its Cholesky factorization at t.
[[noreturn]] void fail_not_positive_definite(const char* what, double t);

}  // namespace cmb
