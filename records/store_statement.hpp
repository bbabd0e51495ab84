// records/store.cpp's and records/store_check.cpp's one SQLite statement wrapper (not part of
// the store's interface).
#pragma once

#include <sqlite3.h>

#include <cerrno>
#include <cstring>
#include <new>
#include <optional>
#include <string>

#include "core/errors.hpp"
#include "records/output.hpp"
#include "records/store.hpp"

namespace cmb::store_detail {

// SQLite's reason for the last failure on `db`, with the system's (errno) when it has one: "disk
// I/O error (File too large)". SQLite keeps the errno of some failures only (not of a write to
// the write-ahead log), so `errno_then` (errno right after the failing call) stands in when it is
// a reason a write fails for. SQLite out of memory is std::bad_alloc, as everywhere else.
inline std::string failure_reason(sqlite3* db, int errno_then = 0) {
  const int code = sqlite3_errcode(db) & 0xFF;
  if (code == SQLITE_NOMEM) throw std::bad_alloc();
  std::string why = sqlite3_errmsg(db);
  int error = sqlite3_system_errno(db);
  const bool write_reason = errno_then == EFBIG || errno_then == ENOSPC || errno_then == EDQUOT ||
                            errno_then == EIO || errno_then == EROFS;
  if (error == 0 && code == SQLITE_IOERR && write_reason) error = errno_then;
  if (error == 0 && code == SQLITE_FULL) error = ENOSPC;
  if (error != 0) why += " (" + std::string(std::strerror(error)) + ")";
  return why;
}

// Whether the last failure on `db` says its file is damaged, or is no store at all (a database
// without the store's tables: an empty file, another program's database).
inline bool says_damaged(sqlite3* db) {
  const int code = sqlite3_errcode(db) & 0xFF;
  return code == SQLITE_CORRUPT || code == SQLITE_NOTADB ||
         (code == SQLITE_ERROR && std::string(sqlite3_errmsg(db)).rfind("no such table", 0) == 0);
}

// One prepared statement, finalized however the scope ends.
class Statement {
 public:
  // Not prepared when `prepare` is false (a statement a branch may need).
  Statement(sqlite3* db, const char* sql, const std::string& path, bool prepare = true)
      : db_(db), path_(path) {
    if (prepare && sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) fail("read");
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
    errno = 0;
    const int rc = sqlite3_step(stmt_);
    const int errno_then = errno;
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    fail(writing ? "write" : "read", errno_then);
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

  [[noreturn]] void fail(const char* what, int errno_then = 0) const {
    const std::string why = "cannot " + std::string(what) + " the result store '" + path_ +
                            "': " + failure_reason(db_, errno_then);
    if (says_damaged(db_)) throw StoreDamaged(why + " (damaged, or not a cmbench result store)");
    if (std::string(what) == "write") throw OutputError(why);
    throw InputError(why);
  }

 private:
  sqlite3* db_;
  std::string path_;
  sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace cmb::store_detail
