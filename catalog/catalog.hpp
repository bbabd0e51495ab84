// The catalog: name -> factory tables of every method and problem, built from the lists
// methods/methods.def and problems/problems.def (one CMB_METHOD(id) / CMB_PROBLEM(id) line each),
// plus the entries a program adds before it looks anything up (an out-of-tree build: see
// docs/extending.md). It sits above methods/ and problems/: the one layer that knows them all.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "core/registry.hpp"

namespace cmb {

const std::vector<MethodEntry>& method_registry();
const std::vector<ProblemEntry>& problem_registry();
const std::vector<IntegratorEntry>& integrator_registry();  // the DAE integrators

// Entries defined outside the tree (CMB_DEFINE_METHOD / CMB_DEFINE_PROBLEM in the program's own
// files), added once at program start before any look-up: the main() that cmake's
// cmbench_add_executable generates calls them. An id must be snake_case and new to the table;
// std::invalid_argument otherwise.
void add_methods(std::vector<MethodEntry> entries);
void add_problems(std::vector<ProblemEntry> entries);
void add_integrators(std::vector<IntegratorEntry> entries);  // ids distinct from the methods'

// The ids a program added with the three calls above (none for the catalog's own programs): the
// conformance suites of such a program run only the pairs that involve one of them.
struct ProgramEntries {
  std::set<std::string> methods, problems, integrators;
  bool empty() const { return methods.empty() && problems.empty() && integrators.empty(); }
};
const ProgramEntries& program_entries();

// Look-ups throw InputError naming the unknown id and listing the valid ones.
const MethodEntry& find_method(const std::string& id);
const ProblemEntry& find_problem(const std::string& id);
const IntegratorEntry& find_integrator(const std::string& id);
bool is_integrator(const std::string& id);

// The parameter declarations of a method or DAE integrator id (an InputError listing both kinds
// of id when it is neither).
const std::vector<ParamSpec>& method_params_of(const std::string& id);

// Parse the parameters strictly and build the object.
std::unique_ptr<Method> make_method(const std::string& id, const nlohmann::json& params);
std::unique_ptr<Problem> make_problem(const std::string& id, const nlohmann::json& params);
std::unique_ptr<Integrator> make_integrator(const std::string& id, const nlohmann::json& params);

}  // namespace cmb
