// Name -> factory tables for methods and problems. The single registration point is the pair of
// lists methods/methods.def and problems/problems.def (one CMB_METHOD(id) / CMB_PROBLEM(id) line
// each); a method or problem file defines its entry with CMB_DEFINE_METHOD / CMB_DEFINE_PROBLEM.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/method.hpp"
#include "core/params.hpp"
#include "core/problem.hpp"

namespace cmb {

struct MethodEntry {
  std::string id;
  std::string summary;
  Capabilities capabilities;
  std::vector<ParamSpec> params;
  std::function<std::unique_ptr<Method>(const Params&)> make;
};

struct ProblemEntry {
  std::string id;
  std::string summary;
  std::vector<ParamSpec> params;
  std::function<std::unique_ptr<Problem>(const Params&)> make;
};

const std::vector<MethodEntry>& method_registry();
const std::vector<ProblemEntry>& problem_registry();

// Look-ups throw InputError naming the unknown id and listing the valid ones.
const MethodEntry& find_method(const std::string& id);
const ProblemEntry& find_problem(const std::string& id);

// Parse the parameters strictly and build the object.
std::unique_ptr<Method> make_method(const std::string& id, const nlohmann::json& params);
std::unique_ptr<Problem> make_problem(const std::string& id, const nlohmann::json& params);

}  // namespace cmb

#define CMB_DEFINE_METHOD(id) cmb::MethodEntry cmb_method_entry_##id()
#define CMB_DEFINE_PROBLEM(id) cmb::ProblemEntry cmb_problem_entry_##id()
