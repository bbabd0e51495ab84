// `cmbench list` and `cmbench describe`: what the catalog holds.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <sstream>

#include "catalog/catalog.hpp"
#include "catalog/catalog_doc.hpp"
#include "cli/command.hpp"
#include "core/method.hpp"
#include "harness/run/run_settings.hpp"
#include "steppers/steppers.hpp"

namespace cmb::cli {

namespace {

// Not a problem id: ids have no '-'.
constexpr const char* kRunSettingsTopic = "run-settings";

std::string capability_text(const Capabilities& c) {
  std::vector<std::string> items;
  if (c.redundant) items.push_back("redundant");
  if (c.singular) items.push_back("rank loss (solve survives; branch not guaranteed)");
  if (c.nonholonomic) items.push_back("nonholonomic");
  if (c.drift_free) items.push_back("drift-free");
  if (c.inequality) items.push_back("inequality");
  if (c.approximate())
    items.push_back("approximate accelerations (closer as " + c.approximation_param + " grows)");
  return items.empty() ? "-" : join(items, ", ");
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
  if (what.empty() || what == "integrators") {
    out << "DAE integrators (each steps itself: cmbench run --integrator ID with --dt or --tol):\n";
    for (const auto& e : integrator_registry())
      out << "  " << e.id << " — " << (e.kind == StepperKind::fixed ? "fixed step" : "adaptive")
          << ", order " << (e.order ? std::to_string(e.order) : std::string("variable")) << ": "
          << e.summary << "\n      handles: " << capability_text(e.capabilities) << "\n"
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
std::string describe_branch_indicators(const nlohmann::json& indicators) {
  if (indicators.empty()) return "  branch:       one assembly mode (no indicators)\n";
  std::ostringstream out;
  out << "  branch:       " << indicators.size() << " indicator(s), checked at every step\n";
  const std::size_t shown = std::min<std::size_t>(indicators.size(), 4);
  for (std::size_t i = 0; i < shown; ++i) {
    const auto& b = indicators[i];
    out << "    " << b["name"].get<std::string>() << ": " << b["meaning"].get<std::string>();
    if (b["kind"] == "sign")
      out << " (keeps its sign)\n";
    else
      out << " (stays within " << b["tolerance"].get<double>() << " of its initial value)\n";
  }
  if (indicators.size() > shown) out << "    ... and " << indicators.size() - shown << " more\n";
  return out.str();
}

nlohmann::json given_params(const std::vector<std::string>& params) {
  nlohmann::json given = nlohmann::json::object();
  for (const auto& text : params) {
    auto [key, value] = parse_assignment(text);
    if (key.rfind("problem.", 0) == 0) key = key.substr(8);
    if (given.contains(key))
      throw InputError("--param " + key + " is given twice: give each parameter once");
    given[key] = value;
  }
  return given;
}

// " (x, y, …)" when the problem names its coordinates.
std::string coordinate_list(const nlohmann::json& names) {
  if (names.empty()) return "";
  return " (" + join(names.get<std::vector<std::string>>(), ", ") + ")";
}

// "rank of J at t = 0: r of m", or why describe did not decide it.
std::string rank_text(const nlohmann::json& d) {
  const auto& s = d["sizes"];
  if (d["rank_at_start"].is_null())
    return "rank of J at t = 0 not computed (describe decides it by a dense SVD, up to " +
           std::to_string(kMaxDenseCoordinates) + " coordinates)";
  return "rank of J at t = 0: " + d["rank_at_start"].dump() + " of " +
         std::to_string(s["mh"].get<int>() + s["mn"].get<int>());
}

std::string mobility_text(const nlohmann::json& d) {
  if (!d["mobility"].is_null()) return d["mobility"].dump() + " (coordinates − rank of J at t = 0)";
  const auto& s = d["sizes"];
  return "at least " +
         std::to_string(s["nq"].get<int>() - s["mh"].get<int>() - s["mn"].get<int>()) +
         " (coordinates − constraint rows)";
}

void print_description(const std::string& id, const std::vector<std::string>& params) {
  const nlohmann::json d = problem_description(id, given_params(params));
  const auto& s = d["sizes"];
  const auto& ref = d["reference"];
  const auto tags = d["tags"].get<std::vector<std::string>>();
  std::ostringstream out;
  out << d["id"].get<std::string>() << " — " << d["title"].get<std::string>() << "\n"
      << "  source:       " << d["source"].get<std::string>() << "\n"
      << "  tags:         " << (tags.empty() ? "-" : join(tags, ", ")) << "\n"
      << "  coordinates:  " << s["nq"] << coordinate_list(d["coordinate_names"]) << "\n"
      << "  constraints:  " << s["mh"] << " holonomic, " << s["mn"] << " nonholonomic, " << s["mu"]
      << " unilateral; " << rank_text(d) << "\n"
      << "  mobility:     " << mobility_text(d) << "\n"
      << "  outputs:      " << join(d["outputs"].get<std::vector<std::string>>(), ", ") << "\n"
      << "  horizon:      " << d["t_end"].get<double>()
      << " s (default; --t-end or t_end to change)\n"
      << "  energy:       " << (d["has_energy"] ? "conserved (reported as drift)" : "none") << "\n"
      << "  reference:    " << ref["kind"].get<std::string>();
  if (!ref["provenance"].get<std::string>().empty())
    out << " — " << ref["provenance"].get<std::string>();
  if (!ref["accuracy"].is_null()) out << " (accuracy ~" << ref["accuracy"].get<double>() << ")";
  out << "\n" << describe_branch_indicators(d["branch_indicators"]);
  out << "  parameters:\n"
      << describe_params(find_problem(id).params, "    ")
      << "  values:       " << d["values"].dump() << "\n";
  std::cout << out.str();
}

// The run settings (harness/run/run_settings.hpp): how `cmbench run`, Python and campaign files
// spell each, what it expects and its default.
void print_run_settings() {
  std::ostringstream out;
  out << "Run settings: --flag on the command line, name= in Python (cmbench.run), the campaign "
         "key in a campaign file\n";
  for (const auto& entry : run_settings_json()) {
    out << "  " << entry["name"].get<std::string>() << "  (" << entry["flag"].get<std::string>()
        << "; campaign: "
        << (entry["campaign"].get<std::string>().empty() ? "-"
                                                         : entry["campaign"].get<std::string>())
        << ")\n      " << entry["help"].get<std::string>() << "; "
        << entry["expected"].get<std::string>();
    if (!entry["default"].is_null()) out << " (default " << entry["default"].dump() << ")";
    out << "\n";
  }
  std::cout << out.str();
}

}  // namespace

Command add_list_command(CLI::App& app) {
  auto what = std::make_shared<std::string>();
  auto* list = app.add_subcommand("list",
                                  "List problems, methods (with capabilities) and "
                                  "steppers, with their parameters and defaults");
  auto as_json = std::make_shared<bool>(false);
  list->add_option("what", *what, "problems | methods | integrators | steppers (default: all)")
      ->check(CLI::IsMember({"problems", "methods", "integrators", "steppers"}));
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
    bool as_json = false;
  };
  auto o = std::make_shared<Options>();
  auto* describe = app.add_subcommand(
      "describe",
      "Describe a problem: data source, coordinates, constraint counts and rank, "
      "tags, reference kind and provenance, default horizon; or, given run-settings, the "
      "settings of a run");
  describe
      ->add_option("problem", o->id, "problem id (see `cmbench list problems`), or run-settings")
      ->required();
  describe->add_option("--param", o->params, "problem parameter key=value (repeatable)");
  describe->add_flag("--json", o->as_json, "print the description as JSON");
  return {describe, [o] {
            if (o->id == kRunSettingsTopic && o->as_json)
              std::cout << run_settings_json().dump(1) << "\n";
            else if (o->id == kRunSettingsTopic)
              print_run_settings();
            else if (o->as_json)
              std::cout << problem_description(o->id, given_params(o->params)).dump(1) << "\n";
            else
              print_description(o->id, o->params);
            return 0;
          }};
}

}  // namespace cmb::cli
