// Builds the tables from the .def lists. Referencing every entry function here is what keeps the
// linker from dropping method and problem object files (no static self-registration).
#include "core/registry.hpp"

#include "core/errors.hpp"

#define CMB_METHOD(id) cmb::MethodEntry cmb_method_entry_##id();
#include "methods/methods.def"
#undef CMB_METHOD
#define CMB_PROBLEM(id) cmb::ProblemEntry cmb_problem_entry_##id();
#include "problems/problems.def"
#undef CMB_PROBLEM

namespace cmb {

namespace {

template <class Entry>
const Entry& find_entry(const std::vector<Entry>& table, const std::string& id,
                        const std::string& kind) {
  std::vector<std::string> ids;
  for (const auto& entry : table) {
    if (entry.id == id) return entry;
    ids.push_back(entry.id);
  }
  throw InputError("unknown " + kind + " '" + id + "' (valid: " + join(ids, ", ") + ")");
}

}  // namespace

const std::vector<MethodEntry>& method_registry() {
  static const std::vector<MethodEntry> table = {
#define CMB_METHOD(id) cmb_method_entry_##id(),
#include "methods/methods.def"
#undef CMB_METHOD
  };
  return table;
}

const std::vector<ProblemEntry>& problem_registry() {
  static const std::vector<ProblemEntry> table = {
#define CMB_PROBLEM(id) cmb_problem_entry_##id(),
#include "problems/problems.def"
#undef CMB_PROBLEM
  };
  return table;
}

const MethodEntry& find_method(const std::string& id) {
  return find_entry(method_registry(), id, "method");
}

const ProblemEntry& find_problem(const std::string& id) {
  return find_entry(problem_registry(), id, "problem");
}

std::unique_ptr<Method> make_method(const std::string& id, const nlohmann::json& params) {
  const auto& entry = find_method(id);
  return entry.make(parse_params("method '" + id + "'", params, entry.params));
}

std::unique_ptr<Problem> make_problem(const std::string& id, const nlohmann::json& params) {
  const auto& entry = find_problem(id);
  return entry.make(parse_params("problem '" + id + "'", params, entry.params));
}

}  // namespace cmb
