#include "catalog/catalog_doc.hpp"

#include <Eigen/SVD>
#include <cmath>
#include <optional>

#include "catalog/catalog.hpp"
#include "core/kkt.hpp"
#include "core/method.hpp"
#include "steppers/steppers.hpp"

namespace cmb {

namespace {

using nlohmann::json;

const char* type_name(ParamType type) {
  switch (type) {
    case ParamType::number:
      return "number";
    case ParamType::integer:
      return "integer";
    case ParamType::boolean:
      return "boolean";
    case ParamType::choice:
      return "choice";
    case ParamType::text:
      return "text";
  }
  return "?";
}

json bound_json(double bound) { return std::isfinite(bound) ? json(bound) : json(); }

json params_json(const std::vector<ParamSpec>& specs) {
  json out = json::array();
  for (const auto& p : specs)
    out.push_back({{"name", p.name},
                   {"type", type_name(p.type)},
                   {"default", p.default_value},
                   {"description", p.description},
                   {"min", bound_json(p.min)},
                   {"max", bound_json(p.max)},
                   {"min_exclusive", p.min_exclusive},
                   {"choices", p.choices},
                   {"aliases", p.aliases}});
  return out;
}

json capabilities_json(const Capabilities& c) {
  return {{"redundant", c.redundant},
          {"singular", c.singular},
          {"nonholonomic", c.nonholonomic},
          {"drift_free", c.drift_free},
          {"inequality", c.inequality},
          {"approximate", c.approximate() ? json{{"param", c.approximation_param},
                                                 {"sweep", c.approximation_sweep}}
                                          : json()}};
}

// The name figures and tables use: the entry's own, else its id.
std::string display_name(const std::string& name, const std::string& id) {
  return name.empty() ? id : name;
}

json units_json(const ProblemUnits& u) {
  json outputs = json::object();
  for (const auto& [name, unit] : u.outputs) outputs[name] = unit;
  return {{"outputs", outputs}, {"holonomic", u.holonomic}, {"nonholonomic", u.nonholonomic}};
}

json method_json(const MethodEntry& e) {
  return {{"id", e.id},
          {"display_name", display_name(e.display_name, e.id)},
          {"summary", e.summary},
          {"capabilities", capabilities_json(e.capabilities)},
          {"params", params_json(e.params)}};
}

json integrator_json(const IntegratorEntry& e) {
  return {{"id", e.id},
          {"display_name", display_name(e.display_name, e.id)},
          {"summary", e.summary},
          {"kind", e.kind == StepperKind::fixed ? "fixed" : "adaptive"},
          {"order", e.order ? json(e.order) : json()},
          {"capabilities", capabilities_json(e.capabilities)},
          {"params", params_json(e.params)}};
}

json indicators_json(const Problem& problem) {
  json out = json::array();
  for (const auto& b : problem.branch_indicators())
    out.push_back(
        {{"name", b.name},
         {"meaning", b.meaning},
         {"kind", b.kind == BranchIndicator::Kind::sign ? "sign" : "near_initial"},
         {"tolerance", b.kind == BranchIndicator::Kind::sign ? json() : json(b.tolerance)}});
  return out;
}

}  // namespace

json catalog_json(const std::string& what) {
  json doc = {{"schema", "cmbench.catalog/1"}};
  if (what.empty() || what == "problems") {
    doc["problems"] = json::array();
    for (const auto& e : problem_registry())
      doc["problems"].push_back({{"id", e.id},
                                 {"display_name", display_name(e.display_name, e.id)},
                                 {"summary", e.summary},
                                 {"units", units_json(e.units)},
                                 {"params", params_json(e.params)}});
  }
  if (what.empty() || what == "methods") {
    doc["methods"] = json::array();
    for (const auto& e : method_registry()) doc["methods"].push_back(method_json(e));
  }
  if (what.empty() || what == "integrators") {
    doc["integrators"] = json::array();
    for (const auto& e : integrator_registry()) doc["integrators"].push_back(integrator_json(e));
  }
  if (what.empty() || what == "steppers") {
    doc["steppers"] = json::array();
    for (const auto& s : stepper_list())
      doc["steppers"].push_back({{"id", s.id},
                                 {"display_name", display_name(s.display_name, s.id)},
                                 {"kind", s.kind == StepperKind::fixed ? "fixed" : "adaptive"},
                                 {"order", s.order ? json(s.order) : json()},
                                 {"summary", s.summary}});
  }
  return doc;
}

namespace {

// J's row rank at the start from a dense SVD, relative tolerance 1e-10 as row_rank's. Up to
// kMaxDenseCoordinates coordinates only, by divide and conquer (BDCSVD: a fraction of a second
// there, where the Jacobi SVD takes minutes); beyond, J alone would take n² doubles, and the
// rank is left undecided (nullopt) so that describe stays cheap at any size.
std::optional<int> rank_at_start(const Problem& problem) {
  const Sizes s = problem.sizes();
  if (s.nq > kMaxDenseCoordinates) return std::nullopt;
  if (s.m() == 0) return 0;
  Vec q(s.nq), v(s.nq);
  problem.initial_state(q, v);
  Mat J(s.m(), s.nq);
  problem.jacobian(0.0, q, J);
  const Vec sigma = Eigen::BDCSVD<Mat>(J).singularValues();
  return static_cast<int>((sigma.array() > 1e-10 * sigma(0)).count());
}

}  // namespace

json problem_description(const std::string& id, const json& params) {
  const auto& entry = find_problem(id);
  const auto problem = make_problem(id, params);
  const Sizes s = problem->sizes();
  const std::optional<int> rank = rank_at_start(*problem);
  const ReferenceInfo ref = problem->reference_info();
  return {{"id", problem->info().id},
          {"title", problem->info().title},
          {"source", problem->info().source},
          {"tags", problem->info().tags},
          {"sizes", {{"nq", s.nq}, {"mh", s.mh}, {"mn", s.mn}, {"mu", s.mu}}},
          {"coordinate_names", problem->coordinate_names()},
          {"rank_at_start", rank ? json(*rank) : json()},
          {"mobility", rank ? json(s.nq - *rank) : json()},
          {"outputs", problem->output_names()},
          {"t_end", problem->t_end()},
          {"has_energy", problem->has_energy()},
          {"reference",
           {{"kind", to_string(ref.kind)},
            {"provenance", ref.provenance},
            {"accuracy", std::isfinite(ref.accuracy) ? json(ref.accuracy) : json()}}},
          {"branch_indicators", indicators_json(*problem)},
          {"params", params_json(entry.params)},
          {"values", problem->params()}};
}

}  // namespace cmb
