// Reading a result store back and checking it (records/store.hpp): SQLite's integrity check, each
// row against its digests and its record, and the journal a directory's store uses.
#include <sqlite3.h>
#include <sys/vfs.h>

#include <cstdlib>
#include <new>
#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "records/store.hpp"
#include "records/store_statement.hpp"

namespace cmb {

namespace {

using store_detail::Statement;

StoredRun run_from(const Statement& row) {
  StoredRun run;
  run.key = row.text_or_empty(0);
  run.file = row.text_or_empty(1);
  run.status = row.text_or_empty(2);
  run.record = row.text_or_empty(3);
  run.series = row.text(4);
  run.timing_pending = row.integer(5) != 0;
  return run;
}

// What is wrong with one stored run, or "" when its row agrees with its digests and its record.
std::string run_problem(const StoredRun& run, const std::string& record_digest,
                        const std::optional<std::string>& series_digest) {
  if (store_digest(run.record) != record_digest) return "its record does not match its digest";
  if (run.series.has_value() != series_digest.has_value() ||
      (run.series && store_digest(*run.series) != *series_digest))
    return "its series does not match its digest";
  const nlohmann::json record = nlohmann::json::parse(run.record, nullptr, false);
  if (!record.is_object()) return "its record is not a JSON object";
  if (record.value("key", std::string()) != run.key) return "its record holds another key";
  if (record.value("status", std::string()) != run.status) return "its status is not its record's";
  const bool pending = record.contains("timing") && record["timing"].is_object() &&
                       record["timing"].value("pending", false);
  if (pending != run.timing_pending) return "its pending timing is not its record's";
  return "";
}

}  // namespace

std::optional<StoredRun> ResultStore::run(const std::string& key) const {
  Statement select(db_,
                   "SELECT key, file, status, record, series, timing_pending, record_digest, "
                   "series_digest FROM runs WHERE key = ?1",
                   path_);
  select.bind(1, key);
  if (!select.step()) return std::nullopt;
  StoredRun found = run_from(select);
  const std::string problem = run_problem(found, select.text_or_empty(6), select.text(7));
  if (!problem.empty())
    throw StoreDamaged("the result store '" + path_ + "' is damaged: run " + key + ": " + problem);
  return found;
}

void ResultStore::integrity_check() const {
  Statement check(db_, "PRAGMA integrity_check", path_);
  std::string first;
  std::size_t findings = 0;
  while (check.step()) {
    const std::string line = check.text_or_empty(0);
    if (line == "ok" || line.rfind("*** in database", 0) == 0) continue;
    // A page it could not read for want of memory or by an I/O error is no finding about the file.
    const std::size_t code_at = line.find("error code=");
    const int code = code_at == std::string::npos ? 0 : std::atoi(line.c_str() + code_at + 11);
    if ((code & 0xFF) == SQLITE_NOMEM) throw std::bad_alloc();
    if ((code & 0xFF) == SQLITE_IOERR)
      throw InputError("cannot read the result store '" + path_ + "': " + line);
    if (findings++ == 0) first = line;
  }
  if (findings > 0)
    throw StoreDamaged(
        "the result store '" + path_ + "' is damaged (SQLite's integrity check: " + first +
        (findings > 1 ? "; " + std::to_string(findings - 1) + " more finding(s)" : std::string()) +
        ")");
  Statement facts(db_, "SELECT name FROM facts ORDER BY name", path_);
  while (facts.step()) fact(facts.text_or_empty(0));
}

std::vector<RowCheck> ResultStore::check_rows() const {
  integrity_check();
  Statement rows(db_,
                 "SELECT key, file, status, record, series, timing_pending, record_digest, "
                 "series_digest FROM runs ORDER BY key",
                 path_);
  std::vector<RowCheck> out;
  while (rows.step()) {
    const StoredRun run = run_from(rows);
    out.push_back({run.key, run.status, run.timing_pending,
                   run_problem(run, rows.text_or_empty(6), rows.text(7))});
  }
  return out;
}

std::size_t ResultStore::verify() const {
  const std::vector<RowCheck> rows = check_rows();
  for (const RowCheck& row : rows)
    if (!row.problem.empty())
      throw StoreDamaged("the result store '" + path_ + "' is damaged: run " + row.key + ": " +
                         row.problem);
  return rows.size();
}

ResultStore::Journal journal_for(const std::string& dir) {
  struct statfs info {};
  if (::statfs(dir.c_str(), &info) != 0) return ResultStore::Journal::local;
  // The f_type magic numbers of file systems shared between machines (linux/magic.h and the
  // file systems' own headers).
  constexpr unsigned long kShared[] = {
      0x6969,      // NFS
      0x517B,      // SMB
      0xFF534D42,  // CIFS
      0xFE534D42,  // SMB2
      0x0BD00BD0,  // Lustre
      0x47504653,  // GPFS
      0x19830326,  // BeeGFS
      0x00C36400,  // Ceph
      0x65735546,  // FUSE
      0x01021997,  // 9P
      0x5346414F,  // AFS
  };
  const auto type = static_cast<unsigned long>(info.f_type) & 0xFFFFFFFFul;
  for (const unsigned long shared : kShared)
    if (type == shared) return ResultStore::Journal::shared;
  return ResultStore::Journal::local;
}

}  // namespace cmb
