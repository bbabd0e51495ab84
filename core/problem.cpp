#include "core/problem.hpp"

#include <stdexcept>

namespace cmb {

const char* to_string(ReferenceKind kind) {
  switch (kind) {
    case ReferenceKind::analytic:
      return "analytic";
    case ReferenceKind::published:
      return "published";
    case ReferenceKind::reduced_ode:
      return "reduced_ode";
    case ReferenceKind::self_converged:
      return "self_converged";
    case ReferenceKind::none:
      return "none";
  }
  return "none";
}

Mat Problem::reference_outputs(const std::vector<double>&) const {
  throw std::logic_error("problem '" + info().id + "' has no reference outputs");
}

ParamSpec t_end_param(double default_t_end) {
  return positive_number("t_end", default_t_end, "simulated horizon [s]");
}

}  // namespace cmb
