// Campaign files: parsed and validated whole before anything runs (every error names its JSON
// path; the parts are read by harness/campaign/campaign_entries.cpp), then expanded into runs with
// stable keys and file names.
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "catalog/catalog.hpp"
#include "catalog/stepping.hpp"
#include "core/errors.hpp"
#include "core/json_input.hpp"
#include "harness/campaign/campaign.hpp"
#include "harness/campaign/campaign_entries.hpp"
#include "harness/run/run_settings.hpp"
#include "records/results_file.hpp"

namespace cmb {

using namespace campaign_file;
using nlohmann::json;

namespace {

// The run's file name: readable ids and the stable hash of its key.
std::string file_stem(const CampaignRun& run) {
  return run.config.problem + "__" + run.config.formulation_id() + "__" + run.config.stepper_id() +
         "__" + stable_hash(run.key);
}

// Every run is prepared while loading, so an absurd expansion would stall before anything
// useful happens; this bound (before exclusions) is far beyond any real comparison.
constexpr std::size_t kMaxCampaignRuns = 100000;

// A method paired with a stepper, or a DAE integrator with its own stepping (whose entry's
// step sizes or tolerances are its `stepper`), and where the pair comes from in the file.
struct Pairing {
  const CampaignMethod* method;
  const CampaignStepper* stepper;
  bool integrator;
  std::string where;         // "/methods/0 × /steppers/1" or "/integrators/0"
  std::string method_where;  // "/methods/0" or "/integrators/0"
};

// Every method with every stepper, then every integrator with its own stepping.
std::vector<Pairing> pairings(const std::vector<CampaignMethod>& methods,
                              const std::vector<CampaignStepper>& steppers,
                              const std::vector<CampaignIntegrator>& integrators) {
  std::vector<Pairing> out;
  for (std::size_t mi = 0; mi < methods.size(); ++mi)
    for (std::size_t si = 0; si < steppers.size(); ++si)
      out.push_back({&methods[mi], &steppers[si], false,
                     "/methods/" + std::to_string(mi) + " × /steppers/" + std::to_string(si),
                     "/methods/" + std::to_string(mi)});
  for (std::size_t ii = 0; ii < integrators.size(); ++ii)
    out.push_back({&integrators[ii].method, &integrators[ii].stepper, true,
                   "/integrators/" + std::to_string(ii), "/integrators/" + std::to_string(ii)});
  return out;
}

void check_run_count(const std::vector<CampaignProblem>& problems,
                     const std::vector<Pairing>& pairs) {
  std::size_t variants = 0, values = 0;
  for (const auto& p : problems) variants += p.perturbations.size();
  for (const auto& pair : pairs) values += pair.stepper->values.size();
  const double runs = static_cast<double>(variants) * values;
  if (runs > kMaxCampaignRuns)
    fail_at("", "expands to " + std::to_string(static_cast<long long>(runs)) +
                    " runs (problem variants × methods × step sizes/tolerances, and integrators); "
                    "the limit is " +
                    std::to_string(kMaxCampaignRuns) + ": split it into several campaigns");
}

bool is_excluded(const std::vector<json>& excludes, const std::string& problem,
                 const std::string& method, const std::string& stepper);

// Some parameters can only be refused by a method bound to its problem (a partition's
// coordinates, a size the method does not accept): bind each pair that will run once now, so a
// mistake is an input error before the first run rather than a run status after hours.
void check_bindings(const std::vector<CampaignProblem>& problems, const std::vector<Pairing>& pairs,
                    const std::vector<json>& excludes) {
  std::set<const CampaignMethod*> bound;  // a method with several steppers: bound once
  for (const auto& pair : pairs) {
    if (!bound.insert(pair.method).second) continue;
    const CampaignMethod& m = *pair.method;
    for (std::size_t pi = 0; pi < problems.size(); ++pi) {
      if (is_excluded(excludes, problems[pi].id, m.id, "")) continue;
      at_path("/problems/" + std::to_string(pi) + " × " + pair.method_where, [&] {
        auto problem = make_problem(problems[pi].id, problems[pi].params);
        std::unique_ptr<Formulation> method;
        if (pair.integrator)
          method = make_integrator(m.id, m.params);
        else
          method = make_method(m.id, m.params);
        try {
          method->bind(*problem);
        } catch (const NumericalFailure& failure) {
          // A numerical outcome (e.g. singular at the start) is the run's status, not bad input.
          if (failure.status() == RunStatus::invalid_input) throw InputError(failure.what());
        }
      });
    }
  }
}

bool is_excluded(const std::vector<json>& excludes, const std::string& problem,
                 const std::string& method, const std::string& stepper) {
  auto matches = [](const json& rule, const char* field, const std::string& id) {
    return !rule.contains(field) || rule[field] == id;
  };
  for (const auto& rule : excludes)
    if (matches(rule, "problem", problem) && matches(rule, "method", method) &&
        matches(rule, "stepper", stepper))
      return true;
  return false;
}

// Every problem variant × pairing × step size or tolerance that no rule excludes, as runs with
// keys (each prepared once: a configuration only a run can refuse fails here) and file names.
void expand_runs(const RunConfig& base, const std::vector<CampaignProblem>& problems,
                 const std::vector<Pairing>& pairs, const std::vector<json>& excludes,
                 Campaign& campaign) {
  std::set<std::string> keys;
  auto add_run = [&](RunConfig c, const std::string& where) {
    CampaignRun run;
    run.config = std::move(c);
    at_path(where, [&] {
      PreparedRun prepared = prepare_run(run.config);
      run.key = prepared.key;
      run.config = std::move(prepared.config);  // parameters under their current names
    });
    if (!keys.insert(run.key).second) fail_at(where, "duplicates run '" + run.key + "'");
    run.file = file_stem(run);
    campaign.runs.push_back(std::move(run));
  };
  for (std::size_t pi = 0; pi < problems.size(); ++pi)
    for (const Perturbation& perturbation : problems[pi].perturbations)
      for (const Pairing& pair : pairs) {
        const CampaignStepper& stepper = *pair.stepper;
        if (is_excluded(excludes, problems[pi].id, pair.method->id, stepper.id)) continue;
        for (std::size_t vi = 0; vi < stepper.values.size(); ++vi) {
          RunConfig c = base;
          c.problem = problems[pi].id;
          c.problem_params = problems[pi].params;
          c.t_end = problems[pi].t_end;
          if (problems[pi].sample_dt) c.sample_dt = problems[pi].sample_dt;
          c.initial.perturb_position = perturbation.position;
          c.initial.perturb_velocity = perturbation.velocity;
          (pair.integrator ? c.integrator : c.method) = pair.method->id;
          c.method_params = pair.method->params;
          if (!pair.integrator) c.stepper = stepper.id;
          (stepper.fixed ? c.dt : c.rel_tol) = stepper.values[vi];
          if (!stepper.fixed) c.abs_tol = c.rel_tol;
          c.max_dt = stepper.max_dt;
          if (stepper.max_rhs_calls) c.limits.max_rhs_calls = *stepper.max_rhs_calls;
          add_run(std::move(c), "/problems/" + std::to_string(pi) + " × " + pair.where + "/" +
                                    (stepper.fixed ? "dt" : "tol") + "/" + std::to_string(vi));
        }
      }
}

}  // namespace

Campaign load_campaign(const std::string& path) {
  return campaign_from_document(read_json_file(path, "campaign file '" + path + "'"));
}

Campaign parse_campaign(const std::string& text, const std::string& origin) {
  return campaign_from_document(parse_json_input(text, "campaign file '" + origin + "'"));
}

Campaign campaign_from_document(nlohmann::json doc_in) {
  Campaign campaign;
  campaign.source = std::move(doc_in);
  const json& doc = campaign.source;
  std::set<std::string> keys = {"name",     "description", "problems", "methods",
                                "steppers", "integrators", "exclude"};
  for (const auto& setting : run_settings())
    if (set_at_top_level(setting)) keys.insert(setting.name);
  check_keys(doc, "", keys, {"name", "problems"});
  campaign.name = string_at(doc, "name", "");
  if (!std::regex_match(campaign.name, std::regex("[A-Za-z0-9_-]+")))
    fail_at("/name", "use letters, digits, '_' and '-' only, got " + excerpt(json(campaign.name)));
  check_text(doc, "description", "");
  const RunConfig base = parse_run_template(doc);
  if (doc.contains("reference_cache")) campaign.reference_cache = base.reference_cache;
  const auto problems = parse_problems(doc);
  const auto methods = parse_methods(doc);
  const auto steppers = parse_steppers(doc);
  const auto integrators = parse_integrators(doc);
  if (methods.empty() != steppers.empty())
    fail_at(methods.empty() ? "/methods" : "/steppers",
            "missing required key: methods and steppers come together");
  if (methods.empty() && integrators.empty())
    fail_at("/methods", "missing required key: give methods and steppers, or integrators");
  std::set<std::string> problem_ids, method_ids, stepper_ids;
  for (const auto& p : problems) problem_ids.insert(p.id);
  for (const auto& m : methods) method_ids.insert(m.id);
  for (const auto& st : steppers) stepper_ids.insert(st.id);
  for (const auto& i : integrators) {
    method_ids.insert(i.method.id);  // exclusions name an integrator as the method
    stepper_ids.insert(kDaeStepper);
  }
  const auto excludes = parse_excludes(doc, problem_ids, method_ids, stepper_ids);

  const std::vector<Pairing> pairs = pairings(methods, steppers, integrators);
  check_run_count(problems, pairs);
  expand_runs(base, problems, pairs, excludes, campaign);
  if (campaign.runs.empty()) fail_at("/exclude", "every run is excluded: nothing to run");
  check_bindings(problems, pairs, excludes);
  return campaign;
}

}  // namespace cmb
