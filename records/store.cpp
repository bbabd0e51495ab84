#include "records/store.hpp"

#include <sqlite3.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "records/output.hpp"
#include "records/results_file.hpp"

namespace cmb {

namespace {

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

// One prepared statement, finalized however the scope ends.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql, const std::string& path) : db_(db), path_(path) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) fail("read");
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  void bind(int i, const std::string& text) {
    sqlite3_bind_text(stmt_, i, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  }
  void bind(int i, const std::optional<std::string>& text) {
    if (text)
      bind(i, *text);
    else
      sqlite3_bind_null(stmt_, i);
  }
  void bind(int i, bool flag) { sqlite3_bind_int(stmt_, i, flag ? 1 : 0); }

  // Whether a row came (false: done); a failure throws, an OutputError when `writing`.
  bool step(bool writing = false) {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    fail(writing ? "write" : "read");
  }
  void reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
  std::optional<std::string> text(int column) const {
    if (sqlite3_column_type(stmt_, column) == SQLITE_NULL) return std::nullopt;
    const auto* data = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
    return std::string(data, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column)));
  }
  std::string text_or_empty(int column) const { return text(column).value_or(""); }
  long long integer(int column) const { return sqlite3_column_int64(stmt_, column); }

  [[noreturn]] void fail(const char* what) const {
    const std::string why =
        "cannot " + std::string(what) + " the result store '" + path_ + "': " + sqlite3_errmsg(db_);
    if (std::string(what) == "write") throw OutputError(why);
    throw InputError(why + " (damaged, or not a cmbench result store)");
  }

 private:
  sqlite3* db_;
  std::string path_;
  sqlite3_stmt* stmt_ = nullptr;
};

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

std::string store_digest(const std::string& text) { return stable_hash(text); }

ResultStore::ResultStore(const std::string& path, Journal journal) : path_(path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (fs::exists(status) && !fs::is_regular_file(status))
    throw InputError("the result store '" + path + "' is not a regular file");
  const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    const std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw InputError("cannot open the result store '" + path + "': " + why);
  }
  try {
    sqlite3_busy_timeout(db_, kBusyTimeoutMs);
    sqlite3_extended_result_codes(db_, 1);
    // The journal first: it is the database's own setting, and the tables' creation is then
    // journaled as everything after it.
    execute(journal == Journal::wal ? "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
                                    : "PRAGMA journal_mode=DELETE; PRAGMA synchronous=FULL;");
    execute(std::string("BEGIN IMMEDIATE;") + kTables + "COMMIT;");
    const std::optional<std::string> schema = fact("schema");
    if (!schema) {
      if (size() != 0) throw InputError("the result store '" + path + "' has runs but no schema");
      set_fact("schema", kSchema);
    } else if (*schema != kSchema) {
      throw InputError("the result store '" + path + "' is '" + *schema + "', not " + kSchema);
    }
  } catch (...) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw;
  }
}

ResultStore::~ResultStore() { sqlite3_close(db_); }

void ResultStore::execute(const std::string& sql) const {
  char* error = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error) == SQLITE_OK) return;
  const std::string why = error ? error : sqlite3_errmsg(db_);
  sqlite3_free(error);
  sqlite3_exec(db_, "ROLLBACK;", nullptr, nullptr, nullptr);  // harmless without a transaction
  throw InputError("the result store '" + path_ + "': " + why +
                   " (damaged, or not a cmbench result store)");
}

void ResultStore::commit(const std::vector<StoredRun>& runs) {
  try {
    execute("BEGIN IMMEDIATE;");  // the write lock now: no upgrade from a read lock to wait on
  } catch (const InputError& e) {
    throw OutputError(e.what());
  }
  try {
    Statement insert(
        db_,
        "INSERT OR REPLACE INTO runs(key, file, status, record, record_digest, "
        "series, series_digest, timing_pending) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        path_);
    for (const StoredRun& run : runs) {
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
    }
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK;", nullptr, nullptr, nullptr);
    throw;
  }
  if (sqlite3_exec(db_, "COMMIT;", nullptr, nullptr, nullptr) != SQLITE_OK) {
    const std::string why = sqlite3_errmsg(db_);
    sqlite3_exec(db_, "ROLLBACK;", nullptr, nullptr, nullptr);
    throw OutputError("cannot write the result store '" + path_ + "': " + why);
  }
}

void ResultStore::set_fact(const std::string& name, const std::string& value) {
  Statement insert(db_, "INSERT OR REPLACE INTO facts(name, value, digest) VALUES(?1, ?2, ?3)",
                   path_);
  insert.bind(1, name);
  insert.bind(2, value);
  insert.bind(3, store_digest(name + "\n" + value));
  insert.step(true);
}

std::optional<std::string> ResultStore::fact(const std::string& name) const {
  Statement select(db_, "SELECT value, digest FROM facts WHERE name = ?1", path_);
  select.bind(1, name);
  if (!select.step()) return std::nullopt;
  const std::string value = select.text_or_empty(0);
  if (store_digest(name + "\n" + value) != select.text_or_empty(1))
    throw InputError("the result store '" + path_ + "' is damaged: its fact '" + name +
                     "' does not match its digest");
  return value;
}

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
    throw InputError("the result store '" + path_ + "' is damaged: run " + key + ": " + problem);
  return found;
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

std::size_t ResultStore::verify() const {
  Statement check(db_, "PRAGMA integrity_check", path_);
  while (check.step()) {
    const std::string line = check.text_or_empty(0);
    if (line != "ok")
      throw InputError("the result store '" + path_ +
                       "' is damaged (SQLite's integrity check: " + line + ")");
  }
  Statement facts(db_, "SELECT name FROM facts ORDER BY name", path_);
  while (facts.step()) fact(facts.text_or_empty(0));
  Statement rows(db_,
                 "SELECT key, file, status, record, series, timing_pending, record_digest, "
                 "series_digest FROM runs ORDER BY key",
                 path_);
  std::size_t checked = 0;
  while (rows.step()) {
    const StoredRun run = run_from(rows);
    const std::string problem = run_problem(run, rows.text_or_empty(6), rows.text(7));
    if (!problem.empty())
      throw InputError("the result store '" + path_ + "' is damaged: run " + run.key + ": " +
                       problem);
    ++checked;
  }
  return checked;
}

}  // namespace cmb
