#include "records/store.hpp"

#include <sqlite3.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "records/output.hpp"
#include "records/results_file.hpp"
#include "records/store_statement.hpp"

namespace cmb {

namespace {

using store_detail::Statement;

constexpr const char* kSchema = "cmbench.store/1";
// Long enough for another process's commit of a whole batch; a writer stuck past it is an error
// (OutputError), not a wait without end.
constexpr int kBusyTimeoutMs = 60000;

constexpr const char* kTables = R"sql(
CREATE TABLE IF NOT EXISTS facts(
  name TEXT PRIMARY KEY NOT NULL,
  value TEXT NOT NULL,
  digest TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs(
  key TEXT PRIMARY KEY NOT NULL,
  file TEXT NOT NULL,
  status TEXT NOT NULL,
  record TEXT NOT NULL,
  record_digest TEXT NOT NULL,
  series TEXT,
  series_digest TEXT,
  timing_pending INTEGER NOT NULL);
)sql";

}  // namespace

std::string store_digest(const std::string& text) {
  // zlib's crc32 takes at most 4 GiB a call (uInt lengths).
  uLong crc = crc32(0L, Z_NULL, 0);
  for (std::size_t at = 0; at < text.size(); at += std::size_t(1) << 30) {
    const std::size_t n = std::min(text.size() - at, std::size_t(1) << 30);
    crc = crc32(crc, reinterpret_cast<const Bytef*>(text.data() + at), static_cast<uInt>(n));
  }
  char digest[32];
  std::snprintf(digest, sizeof digest, "%08lx", crc & 0xFFFFFFFFul);
  return std::string(digest) + "/" + std::to_string(text.size());
}

ResultStore::ResultStore(const std::string& path, Journal journal, Access access) : path_(path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (fs::exists(status) && !fs::is_regular_file(status))
    throw InputError("the result store '" + path + "' is not a regular file");
  if (access != Access::create && !fs::exists(status))
    throw InputError("the result store '" + path + "' does not exist");
  const int flags = (access == Access::read     ? SQLITE_OPEN_READONLY
                     : access == Access::create ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
                                                : SQLITE_OPEN_READWRITE) |
                    SQLITE_OPEN_NOMUTEX;
  if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    const bool out_of_memory = !db_ || (sqlite3_errcode(db_) & 0xFF) == SQLITE_NOMEM;
    const std::string why = db_ ? sqlite3_errmsg(db_) : "";
    sqlite3_close(db_);
    db_ = nullptr;
    if (out_of_memory) throw std::bad_alloc();
    throw InputError("cannot open the result store '" + path + "': " + why);
  }
  try {
    sqlite3_busy_timeout(db_, kBusyTimeoutMs);
    sqlite3_extended_result_codes(db_, 1);
    if (access == Access::read) {
      check_schema(false);
      return;
    }
    // The journal first: it is the database's own setting, and the tables' creation is then
    // journaled as everything after it. A writer that cannot write (a full disk, a file-size
    // limit) fails to write, not to read.
    execute(journal == Journal::local ? "PRAGMA journal_mode=TRUNCATE; PRAGMA synchronous=OFF;"
                                      : "PRAGMA journal_mode=DELETE; PRAGMA synchronous=FULL;",
            true);
    if (access == Access::create)
      execute(std::string("BEGIN IMMEDIATE;") + kTables + "COMMIT;", true);
    check_schema(true);
  } catch (...) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw;
  }
}

void ResultStore::check_schema(bool may_write) {
  const std::optional<std::string> schema = fact("schema");
  if (!schema) {
    if (!may_write || size() != 0)
      throw StoreDamaged("the result store '" + path_ + "' has no schema: not a cmbench store");
    set_fact("schema", kSchema);
  } else if (*schema != kSchema) {
    throw StoreDamaged("the result store '" + path_ + "' is '" + *schema + "', not " + kSchema);
  }
}

ResultStore::~ResultStore() { sqlite3_close(db_); }

void ResultStore::execute(const std::string& sql, bool writing) const {
  char* error = nullptr;
  errno = 0;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error) == SQLITE_OK) return;
  const int errno_then = errno;
  sqlite3_free(error);
  const bool damaged = store_detail::says_damaged(db_);
  std::string why;
  try {
    why = store_detail::failure_reason(db_, errno_then);
  } catch (const std::bad_alloc&) {
    sqlite3_exec(db_, "ROLLBACK;", nullptr, nullptr, nullptr);
    throw;
  }
  sqlite3_exec(db_, "ROLLBACK;", nullptr, nullptr, nullptr);  // harmless without a transaction
  if (damaged)
    throw StoreDamaged("the result store '" + path_ + "': " + why +
                       " (damaged, or not a cmbench result store)");
  if (writing) throw OutputError("cannot write the result store '" + path_ + "': " + why);
  throw InputError("cannot read the result store '" + path_ + "': " + why);
}

void ResultStore::commit(const std::vector<StoredRun>& runs) {
  commit_each(
      [&runs](const Put& put) {
        for (const StoredRun& run : runs) put(run);
      },
      false);
}

void ResultStore::commit_each(const std::function<void(const Put&)>& produce, bool replace_all) {
  execute("BEGIN IMMEDIATE;", true);  // the write lock now: no upgrade from a read lock to wait on
  try {
    Statement(db_, "DELETE FROM facts WHERE name = 'complete'", path_).step(true);
    if (replace_all) {
      Statement(db_, "CREATE TEMP TABLE IF NOT EXISTS kept(key TEXT PRIMARY KEY)", path_)
          .step(true);
      Statement(db_, "DELETE FROM temp.kept", path_).step(true);
    }
    Statement keep(db_, "INSERT OR IGNORE INTO temp.kept(key) VALUES(?1)", path_, replace_all);
    Statement insert(
        db_,
        "INSERT OR REPLACE INTO runs(key, file, status, record, record_digest, "
        "series, series_digest, timing_pending) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        path_);
    produce([&insert, &keep, replace_all](const StoredRun& run) {
      insert.bind(1, run.key);
      insert.bind(2, run.file);
      insert.bind(3, run.status);
      insert.bind(4, run.record);
      insert.bind(5, store_digest(run.record));
      insert.bind(6, run.series);
      insert.bind(
          7, run.series ? std::optional<std::string>(store_digest(*run.series)) : std::nullopt);
      insert.bind(8, run.timing_pending);
      insert.step(true);
      insert.reset();
      if (!replace_all) return;
      keep.bind(1, run.key);
      keep.step(true);
      keep.reset();
    });
    // The earlier runs that were not put again: after the puts, so that a producer may read them
    // (from another connection) while it puts.
    if (replace_all)
      Statement(db_, "DELETE FROM runs WHERE key NOT IN (SELECT key FROM temp.kept)", path_)
          .step(true);
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK;", nullptr, nullptr, nullptr);
    throw;
  }
  end_transaction();
}

void ResultStore::end_transaction() {
  errno = 0;
  if (sqlite3_exec(db_, "COMMIT;", nullptr, nullptr, nullptr) != SQLITE_OK) {
    const std::string why = store_detail::failure_reason(db_, errno);
    sqlite3_exec(db_, "ROLLBACK;", nullptr, nullptr, nullptr);
    throw OutputError("cannot write the result store '" + path_ + "': " + why);
  }
}

void ResultStore::remove(const std::vector<std::string>& keys) {
  execute("BEGIN IMMEDIATE;", true);
  try {
    Statement erase(db_, "DELETE FROM runs WHERE key = ?1", path_);
    for (const std::string& key : keys) {
      erase.bind(1, key);
      erase.step(true);
      erase.reset();
    }
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK;", nullptr, nullptr, nullptr);
    throw;
  }
  end_transaction();
}

void ResultStore::update_record(const StoredRun& run) {
  Statement update(db_,
                   "UPDATE runs SET status = ?2, record = ?3, record_digest = ?4, "
                   "timing_pending = ?5 WHERE key = ?1",
                   path_);
  update.bind(1, run.key);
  update.bind(2, run.status);
  update.bind(3, run.record);
  update.bind(4, store_digest(run.record));
  update.bind(5, run.timing_pending);
  update.step(true);  // one statement: its own transaction
  if (sqlite3_changes(db_) != 1)
    throw OutputError("cannot write the result store '" + path_ + "': run " + run.key +
                      " is not in it");
}

void ResultStore::set_fact(const std::string& name, const std::string& value) {
  Statement insert(db_, "INSERT OR REPLACE INTO facts(name, value, digest) VALUES(?1, ?2, ?3)",
                   path_);
  insert.bind(1, name);
  insert.bind(2, value);
  insert.bind(3, store_digest(name + "\n" + value));
  insert.step(true);
}

void ResultStore::erase_fact(const std::string& name) {
  Statement erase(db_, "DELETE FROM facts WHERE name = ?1", path_);
  erase.bind(1, name);
  erase.step(true);
}

std::optional<std::string> ResultStore::fact(const std::string& name) const {
  Statement select(db_, "SELECT value, digest FROM facts WHERE name = ?1", path_);
  select.bind(1, name);
  if (!select.step()) return std::nullopt;
  const std::string value = select.text_or_empty(0);
  if (store_digest(name + "\n" + value) != select.text_or_empty(1))
    throw StoreDamaged("the result store '" + path_ + "' is damaged: its fact '" + name +
                       "' does not match its digest");
  return value;
}

std::optional<std::string> ResultStore::status_of(const std::string& key) const {
  Statement select(db_, "SELECT status FROM runs WHERE key = ?1", path_);
  select.bind(1, key);
  if (!select.step()) return std::nullopt;
  return select.text_or_empty(0);
}

std::vector<std::string> ResultStore::keys() const {
  Statement select(db_, "SELECT key FROM runs ORDER BY key", path_);
  std::vector<std::string> out;
  while (select.step()) out.push_back(select.text_or_empty(0));
  return out;
}

std::size_t ResultStore::size() const {
  Statement count(db_, "SELECT count(*) FROM runs", path_);
  count.step();
  return static_cast<std::size_t>(count.integer(0));
}

void ResultStore::settle() { execute("PRAGMA journal_mode=DELETE;", true); }

}  // namespace cmb
