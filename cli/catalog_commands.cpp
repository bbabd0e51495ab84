// `cmbench list` and `cmbench describe`: what the catalog holds.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <sstream>

#include "catalog/catalog.hpp"
#include "cli/command.hpp"
#include "core/kkt.hpp"
#include "harness/steppers.hpp"

namespace cmb::cli {

namespace {

std::string capability_text(const Capabilities& c) {
  std::vector<std::string> items;
  if (c.redundant) items.push_back("redundant");
  if (c.singular) items.push_back("rank loss (solve survives; branch not guaranteed)");
  if (c.nonholonomic) items.push_back("nonholonomic");
  if (c.drift_free) items.push_back("drift-free");
  if (c.inequality) items.push_back("inequality");
  return items.empty() ? "-" : join(items, ", ");
}

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

nlohmann::json bound_json(double bound) {
  return std::isfinite(bound) ? nlohmann::json(bound) : nlohmann::json();
}

nlohmann::json params_json(const std::vector<ParamSpec>& specs) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& p : specs)
    out.push_back({{"name", p.name},
                   {"type", type_name(p.type)},
                   {"default", p.default_value},
                   {"description", p.description},
                   {"min", bound_json(p.min)},
                   {"max", bound_json(p.max)},
                   {"min_exclusive", p.min_exclusive},
                   {"choices", p.choices}});
  return out;
}

// The catalog as one JSON document (`cmbench list --json`): what scripts and the docs
// generators read instead of parsing the text listing.
nlohmann::json catalog_json(const std::string& what) {
  nlohmann::json doc = {{"schema", "cmbench.catalog/1"}};
  if (what.empty() || what == "problems") {
    doc["problems"] = nlohmann::json::array();
    for (const auto& e : problem_registry())
      doc["problems"].push_back(
          {{"id", e.id}, {"summary", e.summary}, {"params", params_json(e.params)}});
  }
  if (what.empty() || what == "methods") {
    doc["methods"] = nlohmann::json::array();
    for (const auto& e : method_registry()) {
      const Capabilities& c = e.capabilities;
      doc["methods"].push_back({{"id", e.id},
                                {"summary", e.summary},
                                {"capabilities",
                                 {{"redundant", c.redundant},
                                  {"singular", c.singular},
                                  {"nonholonomic", c.nonholonomic},
                                  {"drift_free", c.drift_free},
                                  {"inequality", c.inequality}}},
                                {"params", params_json(e.params)}});
    }
  }
  if (what.empty() || what == "steppers") {
    doc["steppers"] = nlohmann::json::array();
    for (const auto& s : stepper_list())
      doc["steppers"].push_back({{"id", s.id},
                                 {"kind", s.kind == StepperKind::fixed ? "fixed" : "adaptive"},
                                 {"order", s.order ? nlohmann::json(s.order) : nlohmann::json()},
                                 {"summary", s.summary}});
  }
  return doc;
}

void print_list(const std::string& what) {
  std::ostringstream out;
  if (what.empty() || what == "problems") {
    out << "Problems:\n";
    for (const auto& e : problem_registry())
      out << "  " << e.id << " — " << e.summary << "\n" << describe_params(e.params, "      ");
  }
  if (what.empty() || what == "methods") {
    out << "Methods:\n";
    for (const auto& e : method_registry())
      out << "  " << e.id << " — " << e.summary
          << "\n      handles: " << capability_text(e.capabilities) << "\n"
          << describe_params(e.params, "      ");
  }
  if (what.empty() || what == "steppers") {
    out << "Steppers (fixed: --dt H; adaptive: --tol T or --abs-tol/--rel-tol, optional --dt "
           "first step and --max-dt):\n";
    for (const auto& s : stepper_list())
      out << "  " << s.id << " — " << (s.kind == StepperKind::fixed ? "fixed" : "adaptive")
          << ", order " << (s.order ? std::to_string(s.order) : std::string("variable")) << ": "
          << s.summary << "\n";
  }
  std::cout << out.str();
}

// One line per indicator; numbered families (n_four_bar's rocker_i_parallel) collapse to the
// first and the count.
std::string describe_branch_indicators(const Problem& problem) {
  const auto indicators = problem.branch_indicators();
  if (indicators.empty()) return "  branch:       one assembly mode (no indicators)\n";
  std::ostringstream out;
  out << "  branch:       " << indicators.size() << " indicator(s), checked at every step\n";
  const std::size_t shown = std::min<std::size_t>(indicators.size(), 4);
  for (std::size_t i = 0; i < shown; ++i) {
    const auto& b = indicators[i];
    out << "    " << b.name << ": " << b.meaning;
    if (b.kind == BranchIndicator::Kind::sign)
      out << " (keeps its sign)\n";
    else
      out << " (stays within " << b.tolerance << " of its initial value)\n";
  }
  if (indicators.size() > shown) out << "    ... and " << indicators.size() - shown << " more\n";
  return out.str();
}

void print_description(const std::string& id, const std::vector<std::string>& params) {
  const auto& entry = find_problem(id);
  nlohmann::json given = nlohmann::json::object();
  for (const auto& text : params) {
    auto [key, value] = parse_assignment(text);
    if (key.rfind("problem.", 0) == 0) key = key.substr(8);
    if (given.contains(key))
      throw InputError("--param " + key + " is given twice: give each parameter once");
    given[key] = value;
  }
  const auto problem = make_problem(id, given);
  const Sizes s = problem->sizes();
  Vec q(s.nq), v(s.nq);
  problem->initial_state(q, v);
  Mat J(s.m(), s.nq);
  problem->jacobian(0.0, q, J);
  const ReferenceInfo ref = problem->reference_info();
  std::ostringstream out;
  out << problem->info().id << " — " << problem->info().title << "\n"
      << "  source:       " << problem->info().source << "\n"
      << "  tags:         "
      << (problem->info().tags.empty() ? "-" : join(problem->info().tags, ", ")) << "\n"
      << "  coordinates:  " << s.nq << "\n"
      << "  constraints:  " << s.mh << " holonomic, " << s.mn << " nonholonomic, " << s.mu
      << " unilateral; rank of J at t = 0: " << row_rank(J) << " of " << s.m() << "\n"
      << "  mobility:     " << s.nq - row_rank(J) << " (coordinates − rank of J at t = 0)\n"
      << "  outputs:      " << join(problem->output_names(), ", ") << "\n"
      << "  horizon:      " << problem->t_end() << " s (default; --t-end or t_end to change)\n"
      << "  energy:       " << (problem->has_energy() ? "conserved (reported as drift)" : "none")
      << "\n"
      << "  reference:    " << to_string(ref.kind);
  if (!ref.provenance.empty()) out << " — " << ref.provenance;
  if (std::isfinite(ref.accuracy)) out << " (accuracy ~" << ref.accuracy << ")";
  out << "\n" << describe_branch_indicators(*problem);
  out << "  parameters:\n"
      << describe_params(entry.params, "    ") << "  values:       " << problem->params().dump()
      << "\n";
  std::cout << out.str();
}

}  // namespace

Command add_list_command(CLI::App& app) {
  auto what = std::make_shared<std::string>();
  auto* list = app.add_subcommand("list",
                                  "List problems, methods (with capabilities) and "
                                  "steppers, with their parameters and defaults");
  auto as_json = std::make_shared<bool>(false);
  list->add_option("what", *what, "problems | methods | steppers (default: all)")
      ->check(CLI::IsMember({"problems", "methods", "steppers"}));
  list->add_flag("--json", *as_json,
                 "print the catalog as JSON (ids, summaries, capabilities, parameters)");
  return {list, [what, as_json] {
            if (*as_json)
              std::cout << catalog_json(*what).dump(1) << "\n";
            else
              print_list(*what);
            return 0;
          }};
}

Command add_describe_command(CLI::App& app) {
  struct Options {
    std::string id;
    std::vector<std::string> params;
  };
  auto o = std::make_shared<Options>();
  auto* describe = app.add_subcommand(
      "describe",
      "Describe a problem: data source, coordinates, constraint counts and rank, "
      "tags, reference kind and provenance, default horizon");
  describe->add_option("problem", o->id, "problem id (see `cmbench list problems`)")->required();
  describe->add_option("--param", o->params, "problem parameter key=value (repeatable)");
  return {describe, [o] {
            print_description(o->id, o->params);
            return 0;
          }};
}

}  // namespace cmb::cli
