// Reading a results file (results.json, schema cmbench.results/1) for `cmbench merge` and
// `cmbench compare`. The file is checked once, here, for everything either command reads, so
// neither indexes a key that is not there: a hand-edited, truncated or foreign file is an
// InputError (exit 2) naming the file and the JSON path of the first violation (runs[3].key).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace cmb {

// A valid results document and how messages and reports name it.
struct ResultsFile {
  std::string name;
  nlohmann::json doc;
};

// Throws InputError unless `doc` is an object with
//   schema         "cmbench.results/1"
//   campaign_file  an object (the campaign file as read)
//   context        an object with string git_sha, build_type, compiler and flags
//   runs           an array of run records (validate_record), each key unique in the file
//   shard          absent, null, or {"index": I, "count": N}, whole numbers 1 <= I <= N
//   filter         absent or a string (the selection of a shard)
// Other fields are not read by merge or compare, so they are not checked (merge copies them).
void validate_results(const nlohmann::json& doc, const std::string& name);

// Throws InputError unless `record` (found at `where` in the file `name`) is an object with a
// non-empty string key, a status that is one of RunStatus's names, and "files" (when present)
// null or naming files directly in runs/ (*.json) and series/ (*.csv): never "..", an absolute
// path or a deeper folder, so no reader is led outside the result directory.
void validate_record(const nlohmann::json& record, const std::string& where,
                     const std::string& name);

// A run record file (runs/<stem>.json, `cmbench run --out`) read with the limits of
// core/json_input.hpp and validated as above; throws InputError naming the file.
nlohmann::json load_record(const std::string& path);
// The same from the record's text; `name` names it in messages.
nlohmann::json parse_record(const std::string& text, const std::string& name);

// Parses `text` and validates it; throws InputError (invalid JSON or schema violation).
ResultsFile parse_results(const std::string& text, const std::string& name);

// Reads and validates the file at `path`. A file that cannot be opened throws
// InputError(if_unreadable), so each command keeps its own advice.
ResultsFile load_results(const std::string& path, const std::string& if_unreadable);

// FNV-1a of `text` in hex: the one stable hash behind file names of runs and cached references.
std::string stable_hash(const std::string& text);

}  // namespace cmb
