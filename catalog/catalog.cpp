// Builds the tables from the .def lists. Referencing every entry function here is what keeps the
// linker from dropping method and problem object files (no static self-registration).
#include "catalog/catalog.hpp"

#include <algorithm>
#include <stdexcept>

#include "core/errors.hpp"

#define CMB_METHOD(id) cmb::MethodEntry cmb_method_entry_##id();
#include "methods/methods.def"
#undef CMB_METHOD
#define CMB_PROBLEM(id) cmb::ProblemEntry cmb_problem_entry_##id();
#include "problems/problems.def"
#undef CMB_PROBLEM
#define CMB_INTEGRATOR(id) cmb::IntegratorEntry cmb_integrator_entry_##id();
#include "integrators/integrators.def"
#undef CMB_INTEGRATOR

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

template <class Entry>
const Entry* find_if_present(const std::vector<Entry>& table, const std::string& id) {
  for (const auto& entry : table)
    if (entry.id == id) return &entry;
  return nullptr;
}

template <class Entry>
void insert_sorted(std::vector<Entry>& table, Entry entry, const std::string& kind) {
  if (!is_valid_entry_id(entry.id))
    throw std::invalid_argument(kind + " id '" + entry.id +
                                "' is not snake_case (a-z, 0-9 and _ only)");
  if (!entry.make) throw std::invalid_argument(kind + " '" + entry.id + "' has no make function");
  const auto at = std::lower_bound(table.begin(), table.end(), entry.id,
                                   [](const Entry& e, const std::string& id) { return e.id < id; });
  if (at != table.end() && at->id == entry.id)
    throw std::invalid_argument(kind + " '" + entry.id + "' is already in the catalog");
  table.insert(at, std::move(entry));
}

std::vector<MethodEntry>& method_table() {
  static std::vector<MethodEntry> table = sorted<MethodEntry>({
#define CMB_METHOD(id) cmb_method_entry_##id(),
#include "methods/methods.def"
#undef CMB_METHOD
  });
  return table;
}

std::vector<ProblemEntry>& problem_table() {
  static std::vector<ProblemEntry> table = sorted<ProblemEntry>({
#define CMB_PROBLEM(id) cmb_problem_entry_##id(),
#include "problems/problems.def"
#undef CMB_PROBLEM
  });
  return table;
}

std::vector<IntegratorEntry>& integrator_table() {
  static std::vector<IntegratorEntry> table = sorted<IntegratorEntry>({
#define CMB_INTEGRATOR(id) cmb_integrator_entry_##id(),
#include "integrators/integrators.def"
#undef CMB_INTEGRATOR
  });
  return table;
}

}  // namespace

const std::vector<MethodEntry>& method_registry() { return method_table(); }
const std::vector<IntegratorEntry>& integrator_registry() { return integrator_table(); }
const std::vector<ProblemEntry>& problem_registry() { return problem_table(); }

namespace {
ProgramEntries& added() {
  static ProgramEntries entries;
  return entries;
}
}  // namespace

const ProgramEntries& program_entries() { return added(); }

void add_methods(std::vector<MethodEntry> entries) {
  for (auto& entry : entries) {
    if (find_if_present(integrator_table(), entry.id))
      throw std::invalid_argument("method '" + entry.id + "' has the id of an integrator");
    const std::string id = entry.id;
    insert_sorted(method_table(), std::move(entry), "method");
    added().methods.insert(id);
  }
}

void add_problems(std::vector<ProblemEntry> entries) {
  for (auto& entry : entries) {
    const std::string id = entry.id;
    insert_sorted(problem_table(), std::move(entry), "problem");
    added().problems.insert(id);
  }
}

void add_integrators(std::vector<IntegratorEntry> entries) {
  for (auto& entry : entries) {
    if (find_if_present(method_table(), entry.id))
      throw std::invalid_argument("integrator '" + entry.id + "' has the id of a method");
    const std::string id = entry.id;
    insert_sorted(integrator_table(), std::move(entry), "integrator");
    added().integrators.insert(id);
  }
}

const MethodEntry& find_method(const std::string& id) {
  return find_entry(method_registry(), id, "method");
}

const ProblemEntry& find_problem(const std::string& id) {
  return find_entry(problem_registry(), id, "problem");
}

const IntegratorEntry& find_integrator(const std::string& id) {
  return find_entry(integrator_registry(), id, "integrator");
}

bool is_integrator(const std::string& id) {
  return find_if_present(integrator_registry(), id) != nullptr;
}

const std::vector<ParamSpec>& method_params_of(const std::string& id) {
  if (const auto* integrator = find_if_present(integrator_registry(), id))
    return integrator->params;
  if (const auto* method = find_if_present(method_registry(), id)) return method->params;
  std::vector<std::string> ids;
  for (const auto& m : method_registry()) ids.push_back(m.id);
  std::vector<std::string> integrators;
  for (const auto& i : integrator_registry()) integrators.push_back(i.id);
  throw InputError("unknown method '" + id + "' (valid: " + join(ids, ", ") +
                   (integrators.empty() ? "" : "; DAE integrators: " + join(integrators, ", ")) +
                   ")");
}

std::unique_ptr<Method> make_method(const std::string& id, const nlohmann::json& params) {
  const auto& entry = find_method(id);
  return entry.make(parse_params("method '" + id + "'", params, entry.params));
}

std::unique_ptr<Integrator> make_integrator(const std::string& id, const nlohmann::json& params) {
  const auto& entry = find_integrator(id);
  return entry.make(parse_params("integrator '" + id + "'", params, entry.params));
}

std::unique_ptr<Problem> make_problem(const std::string& id, const nlohmann::json& params) {
  const auto& entry = find_problem(id);
  return entry.make(parse_params("problem '" + id + "'", params, entry.params));
}

}  // namespace cmb
