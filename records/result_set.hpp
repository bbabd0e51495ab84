// A result set's directory: its store (results.db, records/store.hpp), which is the authority,
// and the files exported from it for every other reader (results.json, runs/*.json,
// series/*.csv). A set is complete when its store's "complete" fact is the digest of the
// results.json it exported last; a campaign or a merge erases that fact before it changes the
// store and writes it after its export, so a set stopped in between is refused by every reader
// instead of read half old, half new. A directory without a store (a committed set, a copy of
// the exported files) is read as its files say.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "records/run_record.hpp"
#include "records/store.hpp"

namespace cmb {

constexpr const char* kStoreFile = "results.db";
std::string store_path(const std::string& dir);

// The row a run record is committed as: its text with its digest (run_record_text), under the
// file stem its record names (or `key`'s hash when it names none).
StoredRun stored_run(const RunRecord& record, std::optional<std::string> series);

// Writes a stored run's files into `dir` under the names its record gives (files.record,
// files.series), each atomically; nothing for a record that names none. Throws OutputError.
void export_run_files(const StoredRun& run, const std::string& dir);
// The same with the run's record already read (the writer that just committed it).
void export_run_files(const StoredRun& run, const RunRecord& record, const std::string& dir);

// Exports the stored runs of `keys` (in that order; each must be stored): their files, then
// results.json (`header` with "runs": the records as stored, digests included), then marks the
// set complete and settles the store (ResultStore::settle). Returns the exported records.
std::vector<RunRecord> export_set(ResultStore& store, const std::string& dir,
                                  const std::vector<std::string>& keys, nlohmann::json header);

// Throws InputError naming `dir` unless its set is complete (see the top): when it holds a
// store, the store passes SQLite's integrity check and its digests, and `results_text` is the
// results.json it exported last.
void check_set_complete(const std::string& dir, const std::string& results_text);

}  // namespace cmb
