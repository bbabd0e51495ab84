// The one writer of run records: RunRecord → the JSON document of schemas/run.schema.json.
#include <cmath>

#include "records/output.hpp"
#include "records/results_file.hpp"
#include "records/run_record.hpp"

namespace cmb {

namespace {

using nlohmann::json;

json nullable(double value) { return std::isfinite(value) ? json(value) : json(); }

json nullable_array(const std::vector<double>& values) {
  json out = json::array();
  for (double v : values) out.push_back(nullable(v));
  return out;
}

const char* to_string(StepKind kind) { return kind == StepKind::fixed ? "fixed" : "adaptive"; }

json problem_json(const ProblemCase& p) {
  json out = {{"id", p.id}, {"params", p.params}};
  if (p.given) out["given"] = *p.given;
  if (p.sizes) out["sizes"] = {{"nq", p.sizes->nq}, {"mh", p.sizes->mh}, {"mn", p.sizes->mn}};
  if (p.tags) out["tags"] = *p.tags;
  if (p.outputs) out["outputs"] = *p.outputs;
  return out;
}

json method_json(const FormulationCase& m) {
  json out = {{"id", m.id}, {"params", m.params}};
  if (m.given) out["given"] = *m.given;
  return out;
}

json stepper_json(const StepperCase& s) {
  json out = {{"id", s.id}};
  if (!s.settings) return out;
  const auto& k = *s.settings;
  out.update({{"kind", to_string(k.kind)},
              {"order", k.order},
              {"dt", nullable(k.dt)},
              {"abs_tol", nullable(k.abs_tol)},
              {"rel_tol", nullable(k.rel_tol)},
              {"max_dt", nullable(k.max_dt)}});
  return out;
}

json limits_json(const LimitsRecord& l) {
  return {{"max_steps", l.max_steps},
          {"max_rhs_calls", l.max_rhs_calls ? json(*l.max_rhs_calls) : json()},
          {"time_limit_s", nullable(l.time_limit_s)}};
}

json reference_json(const ReferenceRecord& r) {
  json out = {{"kind", r.kind}, {"provenance", r.provenance}, {"accuracy", nullable(r.accuracy)}};
  if (r.cache_file) out["cache_file"] = *r.cache_file;
  if (r.from_cache) out["from_cache"] = *r.from_cache;
  return out;
}

json initial_json(const InitialRecord& i) {
  json out = {{"assembly", i.assembly},
              {"tolerance", i.tolerance},
              {"position_residual", nullable(i.position_residual)},
              {"velocity_residual", nullable(i.velocity_residual)},
              {"projected", i.projected},
              {"perturbation", json()}};
  if (i.iterations) out["iterations"] = *i.iterations;
  if (i.perturbation)
    out["perturbation"] = {{"position", i.perturbation->position},
                           {"velocity", i.perturbation->velocity}};
  if (i.perturbed_position_residual)
    out["perturbed_position_residual"] = nullable(*i.perturbed_position_residual);
  if (i.perturbed_velocity_residual)
    out["perturbed_velocity_residual"] = nullable(*i.perturbed_velocity_residual);
  return out;
}

json error_json(const ErrorMetrics& e) {
  json outputs = json::object();
  for (const auto& [name, o] : e.outputs)
    outputs[name] = {{"final_value", nullable(o.final_value)},
                     {"final_reference", nullable(o.final_reference)},
                     {"final_abs", nullable(o.final_abs)},
                     {"final_rel", nullable(o.final_rel)},
                     {"max_abs", nullable(o.max_abs)}};
  return {{"outputs", outputs},
          {"final_abs_max", nullable(e.final_abs_max)},
          {"final_rel_max", nullable(e.final_rel_max)},
          {"max_abs", nullable(e.max_abs)},
          {"scd", nullable(e.scd)},
          {"t", nullable(e.t)}};
}

json drift_json(const DriftAggregate& d) {
  return {{"max", nullable(d.max)},
          {"final", nullable(d.final)},
          {"rms", nullable(d.rms)},
          {"initial", nullable(d.initial)}};
}

json energy_json(const EnergyMetrics& e) {
  return {{"E0", nullable(e.E0)},
          {"max_abs", nullable(e.max_abs)},
          {"final_abs", nullable(e.final_abs)},
          {"max_rel", nullable(e.max_rel)},
          {"final_rel", nullable(e.final_rel)}};
}

json multipliers_json(const MultiplierMetrics& m) {
  json out = {{"final", nullable_array(m.final)}, {"unique", m.unique}};
  if (m.reference_final) out["reference_final"] = nullable_array(*m.reference_final);
  if (m.scale) out["scale"] = *m.scale;
  if (m.final_rel_error) out["final_rel_error"] = nullable(*m.final_rel_error);
  if (m.max_rel_error) out["max_rel_error"] = nullable(*m.max_rel_error);
  return out;
}

json branch_json(const BranchMetrics& b) {
  json out = {{"indicators", b.indicators},
              {"min_margin", nullable(b.min_margin)},
              {"at", b.at},
              {"t", b.t}};
  if (b.of) out["of"] = *b.of;
  return out;
}

template <class Block, class Write>
json or_null(const std::optional<Block>& block, Write write) {
  return block ? write(*block) : json();
}

json build_json(const BuildRecord& b) {
  return {{"build_type", b.build_type}, {"compiler", b.compiler}, {"flags", b.flags}};
}

}  // namespace

json to_json(const RunContext& c) {
  json out = {{"git_sha", c.git_sha},
              {"build_type", c.build.build_type},
              {"compiler", c.build.compiler},
              {"flags", c.build.flags},
              {"cpu", c.cpu},
              {"hardware_threads", c.hardware_threads},
              {"libraries", c.libraries},
              {"date", c.date}};
  if (c.cmbench_version) out["cmbench_version"] = *c.cmbench_version;
  if (c.program) out["program"] = *c.program;
  if (c.cmbench_build) out["cmbench_build"] = build_json(*c.cmbench_build);
  return out;
}

json to_json(const RunMetrics& m) {
  return {
      {"error", or_null(m.error, error_json)},
      {"drift",
       {{"position", drift_json(m.position_drift)}, {"velocity", drift_json(m.velocity_drift)}}},
      {"energy", or_null(m.energy, energy_json)},
      {"multipliers", or_null(m.multipliers, multipliers_json)},
      {"branch", or_null(m.branch, branch_json)}};
}

json to_json(const RunWork& w) {
  json method(w.method.counts);
  for (const auto& [name, value] : w.method.extremes) method[name] = nullable(value);
  return {{"rhs_calls", w.rhs_calls},
          {"steps_accepted", w.steps_accepted},
          {"steps_rejected", w.steps_rejected},
          {"stepper_resets", w.stepper_resets},
          {"jacobian_evaluations", w.jacobian_evaluations},
          {"method_rejections", w.method_rejections},
          {"method", method}};
}

json to_json(const TimingRecord& t) {
  json out = {{"instrumented_s", t.instrumented_s},
              {"repetitions", t.repetitions},
              {"min_s", nullable(t.min_s)},
              {"median_s", nullable(t.median_s)}};
  if (t.total_s) out["total_s"] = *t.total_s;
  if (t.max_s) out["max_s"] = *t.max_s;
  if (t.spread) out["spread"] = *t.spread;
  if (t.cpu)
    out.update({{"cpu_min_s", t.cpu->min_s},
                {"cpu_median_s", t.cpu->median_s},
                {"cpu_max_s", t.cpu->max_s},
                {"cpu_spread", t.cpu->spread}});
  if (t.cores) {
    json& cores = out["cores"] = json::array();
    for (const auto& c : *t.cores)
      cores.push_back({{"core", c.core},
                       {"repetitions", c.repetitions},
                       {"min_s", c.min_s},
                       {"cpu_min_s", c.cpu_min_s}});
  }
  if (t.note) out["note"] = *t.note;
  if (t.pending) out["pending"] = true;
  if (t.one_at_a_time) out["one_at_a_time"] = true;
  return out;
}

json to_json(const RunRecord& r) {
  json out = {{"schema", kRunRecordSchema},         {"key", r.key},
              {"status", to_string(r.status)},      {"message", r.message},
              {"problem", problem_json(r.problem)}, {"method", method_json(r.method)},
              {"stepper", stepper_json(r.stepper)}, {"context", to_json(r.context)}};
  if (r.t_end) out["t_end"] = *r.t_end;
  if (r.samples) out["samples"] = *r.samples;
  if (r.limits) out["limits"] = limits_json(*r.limits);
  if (r.reference) out["reference"] = reference_json(*r.reference);
  if (r.initial) out["initial"] = initial_json(*r.initial);
  if (r.t_reached) out["t_reached"] = nullable(*r.t_reached);
  if (r.metrics) out["metrics"] = to_json(*r.metrics);
  if (r.work) out["work"] = to_json(*r.work);
  if (r.timing) out["timing"] = to_json(*r.timing);
  if (r.files)
    out["files"] = {{"record", r.files->record},
                    {"series", r.files->series ? json(*r.files->series) : json()}};
  return out;
}

std::string record_digest(const nlohmann::json& record) {
  return stable_hash(record.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

std::string run_record_text(const RunRecord& record, int indent) {
  nlohmann::json document = to_json(record);
  document["digest"] = record_digest(document);
  // A message may quote bytes of a damaged file that are not UTF-8: replaced, never a throw.
  return document.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

void write_run_record(const std::string& path, const RunRecord& record, int indent,
                      NonRegular non_regular) {
  write_file_atomically(path, run_record_text(record, indent), non_regular);
}

}  // namespace cmb
