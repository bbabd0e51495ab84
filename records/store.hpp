// A result set's store: one SQLite database that holds the runs of a campaign (each run's record,
// status and series) and the set's own facts (its campaign document, whether it is complete),
// written in transactions. A run is committed whole (record and series together) or not at all,
// whatever stops the writer; concurrent writers serialize on the database's lock. Every row
// carries the digest of what it holds, and verify() checks them with SQLite's integrity check,
// so a damaged file (truncated, a flipped bit) is refused by name instead of read.
//
// Journal modes: both use SQLite's rollback journal, which needs only the file locks every file
// system provides (the write-ahead log needs memory shared between the processes that open the
// database, which NFS and Lustre do not give across nodes, and a reader of a WAL database creates
// files beside it). A store on a local disk keeps its journal file between transactions
// (TRUNCATE: a campaign commits once per run, and making and removing a file per commit was most
// of a short run's cost) and does not fsync (synchronous=OFF): a commit is whole whatever kills
// the process, as SQLite's journal guarantees without syncing, and only an operating-system
// crash or a power cut can damage the file, which readers then refuse and --resume sets aside,
// the exposure the atomically renamed files had before the store. A store on a shared cluster
// file system (a Slurm shard's) removes its journal after each transaction and syncs fully
// (DELETE, synchronous=FULL): another node must never see a journal or a page that is not there.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/errors.hpp"

struct sqlite3;

namespace cmb {

// The store's file is damaged (SQLite finds it corrupt or not a database, its integrity check
// fails, a row or fact does not match its digest), as opposed to a store that could not be read
// for want of memory (std::bad_alloc) or because of an I/O error (InputError): only damage makes
// a resuming campaign set the store aside.
class StoreDamaged : public InputError {
 public:
  using InputError::InputError;
};

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

// A stored run's row as a resuming campaign sees it: what is committed, and what is wrong with
// the row when it does not agree with its digests or its record ("" when nothing is).
struct RowCheck {
  std::string key;
  std::string status;
  bool timing_pending = false;
  std::string problem;
};

class ResultStore {
 public:
  enum class Journal { local, shared };
  // create: a writer that makes the store when it does not exist; existing: a writer of a store
  // that must exist (a campaign's worker); read: a reader, which never changes the file.
  enum class Access { create, existing, read };

  // Opens the store at `path`. Throws InputError naming the path when the file is missing (but
  // for `create`), is not a cmbench store (another database, not a database at all) or cannot be
  // opened.
  ResultStore(const std::string& path, Journal journal, Access access = Access::create);
  ~ResultStore();
  ResultStore(const ResultStore&) = delete;
  ResultStore& operator=(const ResultStore&) = delete;

  // Commits the runs in one transaction, replacing earlier rows of the same keys; nothing of
  // them is stored when it fails (OutputError naming the path: a full disk, a lock held too long).
  void commit(const std::vector<StoredRun>& runs);
  void commit(const StoredRun& run) { commit(std::vector<StoredRun>{run}); }
  // The same for runs handed over one at a time by `produce` (a merge of many large series never
  // holds them all); with `replace_all`, the store's earlier runs that `produce` did not put go
  // in the same transaction. Either way the set's "complete" fact goes (the set changed).
  using Put = std::function<void(const StoredRun&)>;
  void commit_each(const std::function<void(const Put&)>& produce, bool replace_all);
  // The runs of `keys` removed, in one transaction (a resuming campaign's runs to redo).
  void remove(const std::vector<std::string>& keys);
  // A run's record, status and pending timing replaced in one transaction, its series kept (the
  // timing pass). OutputError when the run is not stored.
  void update_record(const StoredRun& run);

  // A fact of the set (its campaign document, "complete"), with its digest, in one transaction.
  void set_fact(const std::string& name, const std::string& value);
  std::optional<std::string> fact(const std::string& name) const;
  void erase_fact(const std::string& name);

  std::optional<StoredRun> run(const std::string& key) const;
  // The status stored for `key`, without reading or checking its record (the campaign's parent
  // after each run: the row is checked where it is read, by --resume and the export).
  std::optional<std::string> status_of(const std::string& key) const;
  std::vector<std::string> keys() const;  // sorted
  std::size_t size() const;

  // SQLite's integrity check, then every row against its digest and its record (key, status and
  // pending timing as the record says). Throws InputError naming the path and the first
  // problem; returns the number of runs checked.
  std::size_t verify() const;
  // SQLite's integrity check (InputError when it fails), then each row checked as verify() does
  // but reported instead of thrown: a resuming campaign redoes the runs whose rows are damaged.
  std::vector<RowCheck> check_rows() const;

  // Leaves the database file whole on its own, the journal file removed (journal_mode DELETE),
  // so a finished set is one file. The next writer sets its journal again.
  void settle();

  const std::string& path() const { return path_; }

 private:
  void execute(const std::string& sql, bool writing = false) const;
  void check_schema(bool may_write);
  void end_transaction();
  void integrity_check() const;
  sqlite3* db_ = nullptr;
  std::string path_;
};

// The journal a store in `dir` uses: shared on a network or cluster file system (NFS, SMB,
// Lustre, GPFS, BeeGFS, Ceph, FUSE, 9P: see the top of this file), local elsewhere.
ResultStore::Journal journal_for(const std::string& dir);

// The digest a store keeps beside a value: its CRC-32 (zlib's, as Python's zlib.crc32 computes
// it, so Python's readers check it at C speed) in hex and its length in bytes: "1a2b3c4d/5120".
// Any change of up to 32 consecutive bits, and any change of length, changes it; it guards
// against damage, not against a forger (who could rewrite the digest too).
std::string store_digest(const std::string& text);

}  // namespace cmb
