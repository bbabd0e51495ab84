// Reading a results file (results.json, schema cmbench.results/1) for `cmbench merge` and
// `cmbench compare`. The file is checked once, here, and its runs read into typed records
// (records/run_record.hpp), so neither command indexes a key that is not there: a hand-edited,
// truncated or foreign file is an InputError (exit 2) naming the file and the JSON Pointer of
// the first violation (/runs/3/key).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "records/run_record.hpp"

namespace cmb {

// A valid results document and how messages and reports name it: its runs as records, the rest
// of the document (campaign file, context, shard, filter, ...) as it was written.
struct ResultsFile {
  std::string name;
  nlohmann::json doc;  // without "runs"
  std::vector<RunRecord> runs;
};

// Throws InputError unless `doc` is an object with
//   schema         "cmbench.results/1"
//   campaign_file  an object (the campaign file as read)
//   context        an object with string git_sha, build_type, compiler and flags
//   runs           an array of run records (read_run_record), each key unique in the file
//   shard          absent, null, or {"index": I, "count": N}, whole numbers 1 <= I <= N
//   filter         absent or a string (the selection of a shard)
// Other fields are not read by merge or compare, so they are not checked (merge copies them).
void validate_results(const nlohmann::json& doc, const std::string& name);

// The run record at `pointer` of the file `name`, read by read_run_record, with its files (when
// it names them) directly in runs/ (*.json) and series/ (*.csv): never "..", an absolute path or
// a deeper folder, so no reader is led outside the result directory. Throws InputError.
RunRecord read_result_record(const nlohmann::json& record, const std::string& name,
                             const std::string& pointer);

// A run record file (runs/<stem>.json, `cmbench run --out`) read with the limits of
// core/json_input.hpp and checked as above; throws InputError naming the file.
RunRecord load_record(const std::string& path);
// The same from the record's text; `name` names it in messages.
RunRecord parse_record(const std::string& text, const std::string& name);

// Parses `text` and validates it; throws InputError (invalid JSON or schema violation).
ResultsFile parse_results(const std::string& text, const std::string& name);

// Reads and validates the file at `path`. A file that cannot be opened throws
// InputError(if_unreadable), so each command keeps its own advice.
ResultsFile load_results(const std::string& path, const std::string& if_unreadable);

// FNV-1a of `text` in hex: the one stable hash behind file names of runs and cached references.
std::string stable_hash(const std::string& text);

}  // namespace cmb
