// Reading the parts of a campaign file (harness/campaign/campaign_file.cpp): the run settings, the
// problem, method and stepper entries and the exclusion rules, each checked against the catalog.
// Every error is an InputError naming the JSON path of what is wrong.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "harness/run/run.hpp"

namespace cmb::campaign_file {

[[noreturn]] void fail_at(const std::string& path, const std::string& what);
void check_keys(const nlohmann::json& object, const std::string& path,
                const std::set<std::string>& valid, const std::set<std::string>& required);
std::string string_at(const nlohmann::json& object, const std::string& key,
                      const std::string& path);
// The value of the run setting `name` (harness/run/run_settings.hpp) at `path`, checked against
// the settings table.
nlohmann::json setting_at(const std::string& name, const nlohmann::json& value,
                          const std::string& path);
// `label` and `description` are free text for reports, but text: anything else is a mistake.
void check_text(const nlohmann::json& object, const char* key, const std::string& path);

// Rewrites an InputError from the catalog or the run preparation with the entry's JSON path.
template <class F>
void at_path(const std::string& path, F&& body) {
  try {
    body();
  } catch (const InputError& e) {
    fail_at(path, e.what());
  }
}

struct Perturbation {
  double position = 0.0, velocity = 0.0;
};

struct CampaignProblem {
  std::string id;
  nlohmann::json params;
  std::optional<double> t_end;
  std::optional<double> sample_dt;  // overrides the campaign's
  std::vector<Perturbation> perturbations{Perturbation{}};
};

struct CampaignMethod {
  std::string id;
  nlohmann::json params;
};

struct CampaignStepper {
  std::string id;
  std::vector<double> values;  // dt values (fixed) or tolerances (adaptive)
  std::optional<double> max_dt;
  bool fixed;
  // An integrator entry's own RHS-call budget (its residual evaluations, including those that
  // difference its iteration matrices), in place of the campaign's max_rhs_calls.
  std::optional<long> max_rhs_calls;
};

// A DAE integrator of the campaign: the method of its runs (the integrator and its parameters)
// and their stepper ("dae": the integrator's kind, and its step sizes or tolerances).
struct CampaignIntegrator {
  CampaignMethod method;
  CampaignStepper stepper;
};

// The settings shared by every run of the campaign, as a RunConfig template.
RunConfig parse_run_template(const nlohmann::json& doc);
std::vector<CampaignProblem> parse_problems(const nlohmann::json& doc);
// "methods" and "steppers" (each empty when absent), and "integrators"; a campaign needs methods
// with steppers, or integrators, or both.
std::vector<CampaignMethod> parse_methods(const nlohmann::json& doc);
std::vector<CampaignStepper> parse_steppers(const nlohmann::json& doc);
std::vector<CampaignIntegrator> parse_integrators(const nlohmann::json& doc);
// Each rule names ids of this campaign (a rule that names anything else would silently exclude
// nothing).
std::vector<nlohmann::json> parse_excludes(const nlohmann::json& doc,
                                           const std::set<std::string>& problems,
                                           const std::set<std::string>& methods,
                                           const std::set<std::string>& steppers);

}  // namespace cmb::campaign_file
