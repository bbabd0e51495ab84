// For tests that reach into a result store (records/store.hpp) as a user with the sqlite3 shell
// could: one SQL statement on the database file, and a row's column read back.
#pragma once

#include <sqlite3.h>

#include <filesystem>
#include <stdexcept>
#include <string>

namespace cmb::test {

// Executes `sql` on the database at `db`; throws std::runtime_error with SQLite's message.
inline void execute_sql(const std::filesystem::path& db, const std::string& sql) {
  sqlite3* handle = nullptr;
  if (sqlite3_open(db.c_str(), &handle) != SQLITE_OK) {
    sqlite3_close(handle);
    throw std::runtime_error("cannot open " + db.string());
  }
  char* error = nullptr;
  const int rc = sqlite3_exec(handle, sql.c_str(), nullptr, nullptr, &error);
  const std::string why = error ? error : "";
  sqlite3_free(error);
  sqlite3_close(handle);
  if (rc != SQLITE_OK) throw std::runtime_error(sql + ": " + why);
}

}  // namespace cmb::test
