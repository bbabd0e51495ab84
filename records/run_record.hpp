// A run record as a typed value: what a run produces, what the campaign stores and what merge
// and compare read. JSON meets it in two places only, the writer (to_json) and the reader
// (read_run_record), which round-trip every record cmbench writes exactly; schemas/run.schema.json
// and docs/json_schema.md describe the same document.
//
// Numbers a record may hold as null (an error without a reference, a NaN that was measured) are
// doubles here, NaN for null; blocks and fields a record may leave out are std::optional.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "records/output.hpp"

namespace cmb {

// The problem that ran. A crash record (the worker died) knows the id and the given parameters
// only; every other record has the sizes, tags and outputs too, and names the parameters given
// with a value other than the default (`given`: what the run key names in brackets). Records
// made before `given` existed leave it out.
struct ProblemCase {
  struct Sizes {
    std::int64_t nq = 0, mh = 0, mn = 0;
  };
  std::string id;
  nlohmann::json params = nlohmann::json::object();  // by name, as the catalog entry declares
  std::optional<std::vector<std::string>> given;
  std::optional<Sizes> sizes;
  std::optional<std::vector<std::string>> tags, outputs;
};

// The method, or the DAE integrator, with its parameters (given, defaulted and derived) and, as
// for the problem, the names of those given.
struct FormulationCase {
  std::string id;
  nlohmann::json params = nlohmann::json::object();
  std::optional<std::vector<std::string>> given;
};

enum class StepKind { fixed, adaptive };

// The stepper block: the id alone in a crash record, all settings otherwise.
struct StepperCase {
  struct Settings {
    StepKind kind = StepKind::fixed;
    std::int64_t order = 0;
    double dt = 0, abs_tol = 0, rel_tol = 0, max_dt = 0;  // NaN: null (not used by the kind)
  };
  std::string id;
  std::optional<Settings> settings;
};

struct LimitsRecord {
  std::int64_t max_steps = 0;
  std::optional<std::int64_t> max_rhs_calls;  // none: no budget
  double time_limit_s = 0;                    // NaN: none
};

// What the errors are measured against. `provenance` is a sentence, or for a computed
// self-converged reference the document that says which two runs made it.
struct ReferenceRecord {
  std::string kind;
  nlohmann::json provenance;
  double accuracy = 0;  // NaN: unknown
  std::optional<std::string> cache_file;
  std::optional<bool> from_cache;
};

struct InitialRecord {
  struct Offset {
    double position = 0, velocity = 0;
  };
  std::string assembly;  // "reject" or "project"
  double tolerance = 0, position_residual = 0, velocity_residual = 0;
  bool projected = false;
  std::optional<std::int64_t> iterations;  // of the projection
  std::optional<Offset> perturbation;      // none: the state was not perturbed (null)
  std::optional<double> perturbed_position_residual, perturbed_velocity_residual;
};

struct OutputErrorMetrics {
  double final_value = 0, final_reference = 0, final_abs = 0, final_rel = 0, max_abs = 0;
};
struct ErrorMetrics {
  std::map<std::string, OutputErrorMetrics> outputs;
  double final_abs_max = 0, final_rel_max = 0, max_abs = 0, scd = 0, t = 0;
};
struct DriftAggregate {
  double max = 0, final = 0, rms = 0, initial = 0;
};
struct EnergyMetrics {
  double E0 = 0, max_abs = 0, final_abs = 0, max_rel = 0, final_rel = 0;
};
struct MultiplierMetrics {
  std::vector<double> final;
  bool unique = true;
  std::optional<std::vector<double>> reference_final;
  std::optional<double> scale, final_rel_error, max_rel_error;
};
struct BranchMetrics {
  std::int64_t indicators = 0;
  double min_margin = 0;
  std::string at;
  double t = 0;
  std::optional<std::string> of;  // "value" or "rate", for problems that check rates too
};
// The optional blocks are null in the record (no reference, no energy, no λ, one branch).
struct RunMetrics {
  std::optional<ErrorMetrics> error;
  DriftAggregate position_drift, velocity_drift;
  std::optional<EnergyMetrics> energy;
  std::optional<MultiplierMetrics> multipliers;
  std::optional<BranchMetrics> branch;
};

// The formulation's own counters (whole numbers) and extremes (numbers), by name.
struct FormulationWork {
  std::map<std::string, std::int64_t> counts;
  std::map<std::string, double> extremes;
};
struct RunWork {
  std::int64_t rhs_calls = 0, steps_accepted = 0, steps_rejected = 0, stepper_resets = 0,
               jacobian_evaluations = 0, method_rejections = 0;
  FormulationWork method;
};

struct TimingRecord {
  struct Clock {  // min, median, max and spread of the repetitions on one clock
    double min_s = 0, median_s = 0, max_s = 0, spread = 0;
  };
  struct CoreBlock {
    std::int64_t core = 0, repetitions = 0;
    double min_s = 0, cpu_min_s = 0;
  };
  double instrumented_s = 0;
  std::int64_t repetitions = 0;
  double min_s = 0, median_s = 0;  // NaN (null) without repetitions
  std::optional<double> total_s, max_s, spread;
  std::optional<Clock> cpu;
  std::optional<std::vector<CoreBlock>> cores;
  std::optional<std::string> note;
  bool pending = false;        // a campaign's timing pass has yet to time it
  bool one_at_a_time = false;  // that pass timed it with nothing else running
};

struct BuildRecord {
  std::string build_type, compiler, flags;
};
// Which build ran, where and when. Records made before a program could differ from the
// libraries have no `program` and no `cmbench_build`; the oldest have no version either.
struct RunContext {
  std::optional<std::string> cmbench_version;
  std::string git_sha;
  std::optional<std::string> program;
  BuildRecord build;
  std::optional<BuildRecord> cmbench_build;
  std::string cpu;
  std::int64_t hardware_threads = 0;
  std::map<std::string, std::string> libraries;
  std::string date;
};

// A campaign run's files, relative to its results directory.
struct RunFiles {
  std::string record;
  std::optional<std::string> series;  // none in a crash record
};

struct RunRecord {
  std::string key;
  RunStatus status = RunStatus::ok;
  std::string message;
  ProblemCase problem;
  FormulationCase method;
  StepperCase stepper;
  // The header of a prepared run (absent in a crash record).
  std::optional<double> t_end;
  std::optional<std::int64_t> samples;
  std::optional<LimitsRecord> limits;
  std::optional<ReferenceRecord> reference;
  // What the run got to: the initial state once checked; the rest once it integrated.
  std::optional<InitialRecord> initial;
  std::optional<double> t_reached;
  std::optional<RunMetrics> metrics;
  std::optional<RunWork> work;
  std::optional<TimingRecord> timing;
  RunContext context;
  std::optional<RunFiles> files;
};

constexpr const char* kRunRecordSchema = "cmbench.run/1";

nlohmann::json to_json(const RunRecord& record);
nlohmann::json to_json(const TimingRecord& timing);
nlohmann::json to_json(const RunMetrics& metrics);
nlohmann::json to_json(const RunWork& work);
nlohmann::json to_json(const RunContext& context);

// Writes the record to `path` atomically (records/output.hpp), as JSON indented by `indent`,
// with "digest": record_digest of the rest, which read_run_record checks when present.
void write_run_record(const std::string& path, const RunRecord& record, int indent = 1,
                      NonRegular non_regular = NonRegular::refuse);
// The text write_run_record writes (what a result store holds as the run's record).
std::string run_record_text(const RunRecord& record, int indent = 1);

// The stable hash (records/results_file.hpp) of a record document's compact text.
std::string record_digest(const nlohmann::json& record);

// The record in `document`; throws InputError naming `file` and the JSON Pointer of the first
// field that is missing, of the wrong type or out of range, and any field a run record does not
// have (a newer writer's or a typo's: nothing is dropped unread). What cmbench writes reads back
// to the same text; an accepted document written by hand reads back equal in value (a real
// field given as 1 is written 1.0).
RunRecord read_run_record(const nlohmann::json& document, const std::string& file,
                          const std::string& pointer = "");

}  // namespace cmb
