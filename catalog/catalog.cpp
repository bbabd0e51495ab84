// Builds the tables from the .def lists. Referencing every entry function here is what keeps the
// linker from dropping method and problem object files (no static self-registration).
#include "catalog/catalog.hpp"

#include <algorithm>

#include "core/errors.hpp"

// A build may append lists of its own (the extension tests do, to prove that new entries are
// picked up): compile this file with CMB_EXTRA_METHODS_DEF / CMB_EXTRA_PROBLEMS_DEF set to them.
#define CMB_METHOD(id) cmb::MethodEntry cmb_method_entry_##id();
#include "methods/methods.def"
#ifdef CMB_EXTRA_METHODS_DEF
#include CMB_EXTRA_METHODS_DEF
#endif
#undef CMB_METHOD
#define CMB_PROBLEM(id) cmb::ProblemEntry cmb_problem_entry_##id();
#include "problems/problems.def"
#ifdef CMB_EXTRA_PROBLEMS_DEF
#include CMB_EXTRA_PROBLEMS_DEF
#endif
#undef CMB_PROBLEM

namespace cmb {

namespace {

template <class Entry>
std::vector<Entry> sorted(std::vector<Entry> table) {
  std::sort(table.begin(), table.end(), [](const Entry& a, const Entry& b) { return a.id < b.id; });
  return table;
}

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
  static const std::vector<MethodEntry> table = sorted<MethodEntry>({
#define CMB_METHOD(id) cmb_method_entry_##id(),
#include "methods/methods.def"
#ifdef CMB_EXTRA_METHODS_DEF
#include CMB_EXTRA_METHODS_DEF
#endif
#undef CMB_METHOD
  });
  return table;
}

const std::vector<ProblemEntry>& problem_registry() {
  static const std::vector<ProblemEntry> table = sorted<ProblemEntry>({
#define CMB_PROBLEM(id) cmb_problem_entry_##id(),
#include "problems/problems.def"
#ifdef CMB_EXTRA_PROBLEMS_DEF
#include CMB_EXTRA_PROBLEMS_DEF
#endif
#undef CMB_PROBLEM
  });
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
