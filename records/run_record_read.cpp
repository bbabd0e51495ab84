// The one reader of run records: JSON → RunRecord, every field checked as it is read.
#include <algorithm>
#include <cmath>

#include "records/json_fields.hpp"
#include "records/run_record.hpp"

namespace cmb {

namespace {

using nlohmann::json;
constexpr bool kNull = true;  // number(key, kNull): null is read as NaN

// A member that must be an object, read by `read`, with nothing left unread.
template <class Read>
auto block(ObjectFields& parent, const char* key, Read read) {
  ObjectFields fields = parent.object(key);
  auto value = read(fields);
  fields.finish();
  return value;
}

// A member a record may leave out.
template <class Read>
auto optional_block(ObjectFields& parent, const char* key, Read read)
    -> std::optional<decltype(read(parent))> {
  if (!parent.has(key)) return std::nullopt;
  return block(parent, key, read);
}

// A member a record always has, null when there is nothing to say.
template <class Read>
auto nullable_block(ObjectFields& parent, const char* key, Read read)
    -> std::optional<decltype(read(parent))> {
  if (parent.any(key).is_null()) return std::nullopt;
  return block(parent, key, read);
}

const json& params(ObjectFields& f) {
  const json& value = f.any("params");
  if (!value.is_object())
    f.fail(f.pointer("params"), std::string("must be an object, found ") + value.type_name());
  return value;
}

// The names of the given parameters: each once, each one of `params` (the block's, read).
std::optional<std::vector<std::string>> given(ObjectFields& f, const json& params) {
  if (!f.has("given")) return std::nullopt;
  std::vector<std::string> names = f.texts("given");
  for (std::size_t i = 0; i < names.size(); ++i)
    if (!params.contains(names[i]) ||
        std::find(names.begin(), names.begin() + i, names[i]) != names.begin() + i)
      f.fail(f.pointer("given") + "/" + std::to_string(i),
             "must name a parameter in params, once: found \"" + names[i] + "\"");
  return names;
}

ProblemCase read_problem(ObjectFields& f) {
  ProblemCase p;
  p.id = f.text("id");
  p.params = params(f);
  p.given = given(f, p.params);
  if (f.has("sizes"))
    p.sizes = block(f, "sizes", [](ObjectFields& s) {
      return ProblemCase::Sizes{s.count("nq", 1), s.count("mh"), s.count("mn")};
    });
  if (f.has("tags")) p.tags = f.texts("tags");
  if (f.has("outputs")) p.outputs = f.texts("outputs");
  return p;
}

StepperCase read_stepper(ObjectFields& f) {
  StepperCase s;
  s.id = f.text("id");
  if (!f.has("kind")) return s;
  StepperCase::Settings k;
  const std::string kind = f.text("kind");
  if (kind != "fixed" && kind != "adaptive")
    f.fail(f.pointer("kind"), "must be \"fixed\" or \"adaptive\", found \"" + kind + "\"");
  k.kind = kind == "fixed" ? StepKind::fixed : StepKind::adaptive;
  k.order = f.count("order");
  k.dt = f.number("dt", kNull);
  k.abs_tol = f.number("abs_tol", kNull);
  k.rel_tol = f.number("rel_tol", kNull);
  k.max_dt = f.number("max_dt", kNull);
  s.settings = k;
  return s;
}

LimitsRecord read_limits(ObjectFields& f) {
  LimitsRecord l;
  l.max_steps = f.count("max_steps");
  if (!f.any("max_rhs_calls").is_null()) l.max_rhs_calls = f.count("max_rhs_calls", 1);
  l.time_limit_s = f.number("time_limit_s", kNull);
  return l;
}

ReferenceRecord read_reference(ObjectFields& f) {
  ReferenceRecord r;
  r.kind = f.text("kind");
  r.provenance = f.any("provenance");
  if (!r.provenance.is_string() && !r.provenance.is_object())
    f.fail(f.pointer("provenance"), "must be a string or an object");
  r.accuracy = f.number("accuracy", kNull);
  r.cache_file = f.text_if_present("cache_file");
  if (f.has("from_cache")) r.from_cache = f.boolean("from_cache");
  return r;
}

InitialRecord read_initial(ObjectFields& f) {
  InitialRecord i;
  i.assembly = f.text("assembly");
  if (i.assembly != "reject" && i.assembly != "project")
    f.fail(f.pointer("assembly"),
           "must be \"reject\" or \"project\", found \"" + i.assembly + "\"");
  i.tolerance = f.number("tolerance");
  i.position_residual = f.number("position_residual", kNull);
  i.velocity_residual = f.number("velocity_residual", kNull);
  i.projected = f.boolean("projected");
  i.iterations = f.count_if_present("iterations");
  i.perturbation = nullable_block(f, "perturbation", [](ObjectFields& o) {
    return InitialRecord::Offset{o.number("position"), o.number("velocity")};
  });
  i.perturbed_position_residual = f.number_if_present("perturbed_position_residual", kNull);
  i.perturbed_velocity_residual = f.number_if_present("perturbed_velocity_residual", kNull);
  return i;
}

ErrorMetrics read_error(ObjectFields& f) {
  ErrorMetrics e;
  ObjectFields outputs = f.object("outputs");
  for (const auto& [name, value] : outputs.node().items())
    e.outputs[name] = block(outputs, name.c_str(), [](ObjectFields& o) {
      return OutputErrorMetrics{o.number("final_value", kNull), o.number("final_reference", kNull),
                                o.number("final_abs", kNull), o.number("final_rel", kNull),
                                o.number("max_abs", kNull)};
    });
  e.final_abs_max = f.number("final_abs_max", kNull);
  e.final_rel_max = f.number("final_rel_max", kNull);
  e.max_abs = f.number("max_abs", kNull);
  e.scd = f.number("scd", kNull);
  e.t = f.number("t", kNull);
  return e;
}

DriftAggregate read_drift(ObjectFields& f) {
  return {f.number("max", kNull), f.number("final", kNull), f.number("rms", kNull),
          f.number("initial", kNull)};
}

MultiplierMetrics read_multipliers(ObjectFields& f) {
  MultiplierMetrics m;
  m.final = f.numbers("final");
  m.unique = f.boolean("unique");
  if (f.has("reference_final")) m.reference_final = f.numbers("reference_final");
  m.scale = f.number_if_present("scale");
  m.final_rel_error = f.number_if_present("final_rel_error", kNull);
  m.max_rel_error = f.number_if_present("max_rel_error", kNull);
  return m;
}

RunMetrics read_metrics(ObjectFields& f) {
  RunMetrics m;
  m.error = nullable_block(f, "error", read_error);
  ObjectFields drift = f.object("drift");
  m.position_drift = block(drift, "position", read_drift);
  m.velocity_drift = block(drift, "velocity", read_drift);
  drift.finish();
  m.energy = nullable_block(f, "energy", [](ObjectFields& e) {
    return EnergyMetrics{e.number("E0", kNull), e.number("max_abs", kNull),
                         e.number("final_abs", kNull), e.number("max_rel", kNull),
                         e.number("final_rel", kNull)};
  });
  m.multipliers = nullable_block(f, "multipliers", read_multipliers);
  m.branch = nullable_block(f, "branch", [](ObjectFields& b) {
    BranchMetrics out{b.count("indicators", 1), b.number("min_margin", kNull), b.text("at"),
                      b.number("t"), b.text_if_present("of")};
    return out;
  });
  return m;
}

// The formulation's counters are whole numbers, its extremes numbers (null: NaN).
FormulationWork read_formulation_work(ObjectFields& f) {
  FormulationWork w;
  for (const auto& [name, value] : f.node().items()) {
    if (value.is_number_integer())
      w.counts[name] = f.count(name.c_str());
    else
      w.extremes[name] = f.number(name.c_str(), kNull);
  }
  return w;
}

RunWork read_work(ObjectFields& f) {
  RunWork w;
  w.rhs_calls = f.count("rhs_calls");
  w.steps_accepted = f.count("steps_accepted");
  w.steps_rejected = f.count("steps_rejected");
  w.stepper_resets = f.count("stepper_resets");
  w.jacobian_evaluations = f.count("jacobian_evaluations");
  w.method_rejections = f.count("method_rejections");
  w.method = block(f, "method", read_formulation_work);
  return w;
}

// A flag a record holds only as true.
bool marked(ObjectFields& f, const char* key) {
  if (!f.has(key)) return false;
  if (!f.boolean(key)) f.fail(f.pointer(key), "must be true when present, found false");
  return true;
}

TimingRecord read_timing(ObjectFields& f) {
  TimingRecord t;
  t.instrumented_s = f.number("instrumented_s");
  t.repetitions = f.count("repetitions");
  t.min_s = f.number("min_s", kNull);
  t.median_s = f.number("median_s", kNull);
  t.total_s = f.number_if_present("total_s");
  t.max_s = f.number_if_present("max_s");
  t.spread = f.number_if_present("spread");
  if (f.has("cpu_min_s"))
    t.cpu = TimingRecord::Clock{f.number("cpu_min_s"), f.number("cpu_median_s"),
                                f.number("cpu_max_s"), f.number("cpu_spread")};
  if (f.has("cores")) {
    const json& cores = f.array("cores");
    t.cores.emplace();
    for (std::size_t i = 0; i < cores.size(); ++i) {
      ObjectFields c = f.nested(cores[i], f.pointer("cores") + "/" + std::to_string(i));
      t.cores->push_back(
          {c.count("core"), c.count("repetitions", 1), c.number("min_s"), c.number("cpu_min_s")});
      c.finish();
    }
  }
  t.note = f.text_if_present("note");
  t.pending = marked(f, "pending");
  t.one_at_a_time = marked(f, "one_at_a_time");
  return t;
}

BuildRecord read_build(ObjectFields& f) {
  return {f.text("build_type"), f.text("compiler"), f.text("flags")};
}

RunContext read_context(ObjectFields& f) {
  RunContext c;
  c.cmbench_version = f.text_if_present("cmbench_version");
  c.git_sha = f.text("git_sha");
  c.program = f.text_if_present("program");
  c.build = read_build(f);
  if (f.has("cmbench_build")) c.cmbench_build = block(f, "cmbench_build", read_build);
  c.cpu = f.text("cpu");
  c.hardware_threads = f.count("hardware_threads");
  ObjectFields libraries = f.object("libraries");
  for (const auto& [name, value] : libraries.node().items())
    c.libraries[name] = libraries.text(name.c_str());
  c.date = f.text("date");
  return c;
}

RunFiles read_files(ObjectFields& f) {
  RunFiles files;
  files.record = f.text("record");
  if (!f.any("series").is_null()) files.series = f.text("series");
  return files;
}

}  // namespace

RunRecord read_run_record(const json& document, const std::string& file,
                          const std::string& pointer) {
  // A record inside a results file is named as part of it.
  ObjectFields f(document, pointer, file,
                 pointer.empty() ? "cmbench run record" : "cmbench results file");
  RunRecord r;  // the key and status first: what a reader of a damaged record needs to know
  r.key = f.text("key");
  if (r.key.empty()) f.fail(f.pointer("key"), "is empty");
  const std::string status = f.text("status");
  const auto known = run_status_from(status);
  if (!known)
    f.fail(f.pointer("status"),
           "must be one of " + run_status_names() + ", found \"" + status + "\"");
  r.status = *known;
  const std::string schema = f.text("schema");
  if (schema != kRunRecordSchema)
    f.fail(f.pointer("schema"),
           std::string("must be \"") + kRunRecordSchema + "\", found \"" + schema + "\"");
  r.message = f.text("message");
  r.problem = block(f, "problem", read_problem);
  r.method = block(f, "method", [](ObjectFields& m) {
    FormulationCase method;
    method.id = m.text("id");
    method.params = params(m);
    method.given = given(m, method.params);
    return method;
  });
  r.stepper = block(f, "stepper", read_stepper);
  r.t_end = f.number_if_present("t_end");
  r.samples = f.count_if_present("samples");
  r.limits = optional_block(f, "limits", read_limits);
  r.reference = optional_block(f, "reference", read_reference);
  r.initial = optional_block(f, "initial", read_initial);
  r.t_reached = f.number_if_present("t_reached", kNull);
  r.metrics = optional_block(f, "metrics", read_metrics);
  r.work = optional_block(f, "work", read_work);
  r.timing = optional_block(f, "timing", read_timing);
  r.context = block(f, "context", read_context);
  r.files = optional_block(f, "files", read_files);
  // A record file carries the digest of the rest of it: a change that still parses (a digit
  // flipped in a metric) is refused like any other damage, so --resume redoes the run.
  if (const auto digest = f.text_if_present("digest")) {
    json rest = document;
    rest.erase("digest");
    if (*digest != record_digest(rest))
      f.fail(f.pointer("digest"), "does not match the record's content (the file was altered)");
  }
  f.finish();
  return r;
}

}  // namespace cmb
