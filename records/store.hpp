// A result set's store: one SQLite database that holds the runs of a campaign (each run's record,
// status and series) and the set's own facts (its campaign document, whether it is complete),
// written in transactions. A run is committed whole (record and series together) or not at all,
// whatever stops the writer; concurrent writers serialize on the database's lock. Every row
// carries the digest of what it holds, and verify() checks them with SQLite's integrity check,
// so a damaged file (truncated, a flipped bit) is refused by name instead of read.
//
// Journal modes: a campaign's store on a local disk uses WAL (readers never wait for the writer;
// a commit costs no fsync of the database). A store on a shared cluster file system (a Slurm
// shard's) uses the rollback journal (DELETE): WAL needs shared memory between the processes that
// open it, which NFS and Lustre do not give across nodes, and its locks there are unreliable; the
// rollback journal needs only the file locks such file systems provide, and each shard's store
// has one writer anyway.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

struct sqlite3;

namespace cmb {

// A run as the store holds it: its key, the stem of its file names, its status, the run record
// (JSON text, its digest inside) and the series CSV when it has one.
struct StoredRun {
  std::string key;
  std::string file;
  std::string status;
  std::string record;
  std::optional<std::string> series;
  bool timing_pending = false;
};

class ResultStore {
 public:
  enum class Journal { wal, rollback };

  // Opens the store at `path`, creating it when it does not exist. Throws InputError naming the
  // path when the file is not a cmbench store (another database, not a database at all) or
  // cannot be opened.
  ResultStore(const std::string& path, Journal journal);
  ~ResultStore();
  ResultStore(const ResultStore&) = delete;
  ResultStore& operator=(const ResultStore&) = delete;

  // Commits the runs in one transaction, replacing earlier rows of the same keys; nothing of
  // them is stored when it fails (OutputError naming the path: a full disk, a lock held too long).
  void commit(const std::vector<StoredRun>& runs);
  void commit(const StoredRun& run) { commit(std::vector<StoredRun>{run}); }

  // A fact of the set (its campaign document, "complete"), with its digest, in one transaction.
  void set_fact(const std::string& name, const std::string& value);
  std::optional<std::string> fact(const std::string& name) const;

  std::optional<StoredRun> run(const std::string& key) const;
  std::vector<std::string> keys() const;  // sorted
  std::size_t size() const;

  // SQLite's integrity check, then every row against its digest and its record (key, status and
  // pending timing as the record says). Throws InputError naming the path and the first
  // problem; returns the number of runs checked.
  std::size_t verify() const;

  const std::string& path() const { return path_; }

 private:
  void execute(const std::string& sql) const;
  sqlite3* db_ = nullptr;
  std::string path_;
};

// The digest a store keeps beside a value (FNV-1a, records/results_file.hpp's stable_hash): any
// change of a single byte changes it.
std::string store_digest(const std::string& text);

}  // namespace cmb
