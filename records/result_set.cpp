#include "records/result_set.hpp"

#include <filesystem>
#include <fstream>

#include "core/errors.hpp"
#include "records/output.hpp"
#include "records/results_file.hpp"

namespace cmb {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The stem of "runs/<stem>.json".
std::string file_stem(const RunRecord& record) {
  if (!record.files) return stable_hash(record.key);
  return fs::path(record.files->record).stem().string();
}

}  // namespace

std::string store_path(const std::string& dir) { return (fs::path(dir) / kStoreFile).string(); }

StoredRun stored_run(const RunRecord& record, std::optional<std::string> series) {
  const bool pending = record.timing && record.timing->pending;
  return StoredRun{record.key,
                   file_stem(record),
                   to_string(record.status),
                   run_record_text(record),
                   std::move(series),
                   pending};
}

namespace {

// Writes an exported file of the set in `dir`: a symbolic link in its place is replaced, not
// followed (the set's files are its own: an export never writes outside it), and a folder of
// the set that is a link is refused.
void export_file(const std::string& dir, const std::string& name, const std::string& text) {
  const fs::path target = fs::path(dir) / name;
  std::error_code ec;
  if (fs::is_symlink(fs::symlink_status(target.parent_path(), ec)))
    throw OutputError("cannot export into '" + target.parent_path().string() +
                      "': it is a symbolic link, and a set's files stay inside its directory");
  const fs::file_status status = fs::symlink_status(target, ec);
  if (fs::is_symlink(status)) fs::remove(target, ec);
  // A file already as the store has it (a campaign's worker exported it) is not written again.
  if (fs::is_regular_file(status) && fs::file_size(target, ec) == text.size()) {
    std::ifstream in(target, std::ios::binary);
    std::string held(text.size(), '\0');
    if (in.read(held.data(), static_cast<std::streamsize>(held.size())) && held == text) return;
  }
  write_file_atomically(target.string(), text);
}

}  // namespace

void export_run_files(const StoredRun& run, const RunRecord& record, const std::string& dir) {
  if (!record.files) return;
  if (run.series && record.files->series) export_file(dir, *record.files->series, *run.series);
  export_file(dir, record.files->record, run.record);
}

void export_run_files(const StoredRun& run, const std::string& dir) {
  export_run_files(run, parse_record(run.record, "the stored record of " + run.key), dir);
}

std::vector<RunRecord> export_set(ResultStore& store, const std::string& dir,
                                  const std::vector<std::string>& keys, json header) {
  store.erase_fact("complete");
  json runs = json::array();
  std::vector<RunRecord> records;
  records.reserve(keys.size());
  for (const std::string& key : keys) {
    const std::optional<StoredRun> run = store.run(key);
    if (!run) throw OutputError("cannot export run " + key + ": it is not in the result store");
    records.push_back(parse_record(run->record, "the stored record of " + key));
    export_run_files(*run, records.back(), dir);
    runs.push_back(json::parse(run->record));
  }
  header["runs"] = std::move(runs);
  // A crash record's message may quote bytes of a damaged record that are not UTF-8.
  const std::string text = header.dump(1, ' ', false, json::error_handler_t::replace) + "\n";
  write_file_atomically((fs::path(dir) / "results.json").string(), text);
  store.set_fact("complete", store_digest(text));
  store.settle();
  return records;
}

void check_set_complete(const std::string& dir, const std::string& results_text) {
  const std::string path = store_path(dir);
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(path, ec))) return;
  const ResultStore store(path, ResultStore::Journal::local, ResultStore::Access::read);
  store.verify();
  const std::optional<std::string> complete = store.fact("complete");
  if (!complete)
    throw InputError("the result set in '" + dir +
                     "' is unfinished: the campaign or merge writing it stopped before it "
                     "committed the set (finish it with --resume, or merge again with --force)");
  if (*complete != store_digest(results_text))
    throw InputError(
        "the result set in '" + dir +
        "' is inconsistent: its results.json is not the one its store exported (it was "
        "edited or replaced since): export it again (the campaign with --resume, "
        "the merge with --force)");
}

}  // namespace cmb
