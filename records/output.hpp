// Files are written whole or not at all: content goes to a temporary file beside the target,
// which is then renamed over it, so a reader never sees half a result. A symbolic link is
// followed (the file it names is replaced, the link stays); a directory is refused. A target
// that exists and is not a regular file (a FIFO, a device) is refused by name: a result set's
// files are files. Only a path the user named for one output (`run --out /dev/stdout`) may be
// one (NonRegular::write_in_place): it is written directly, a FIFO that no process reads refused
// at once instead of waiting for a reader.
#pragma once

#include <functional>
#include <string>

#include "core/errors.hpp"

namespace cmb {

// The output could not be written (full disk, file-size limit, permissions, a directory in the
// way): the message names the path and the system's reason (errno). A subclass of InputError, so
// `cmbench run` reports it and exits 2; a campaign stops on it instead of recording the run.
class OutputError : public InputError {
 public:
  using InputError::InputError;
};

// What a writer does with a target that exists and is not a regular file.
enum class NonRegular { refuse, write_in_place };

// Throws OutputError; leaves no temporary file behind.
void write_file_atomically(const std::string& path, const std::string& content,
                           NonRegular non_regular = NonRegular::refuse);

// The same for content too large to hold as one string (a series of a million samples): the
// producer hands it over in pieces through `emit`, which writes each piece as it comes.
using Emit = std::function<void(const std::string& piece)>;
void write_file_atomically(const std::string& path, const std::function<void(const Emit&)>& produce,
                           NonRegular non_regular = NonRegular::refuse);

// Copies the file `from` to `to` as write_file_atomically writes (whole or not at all), in
// pieces; OutputError when `from` cannot be read or `to` written.
void copy_file_atomically(const std::string& from, const std::string& to);

// Why `path` cannot name a file cmbench writes, or "" when it can: an empty path names nothing
// (it would mean the current directory, or the default, by accident), and "-" is not standard
// output here (cmbench writes files, whole, and would create one named "-").
std::string output_path_problem(const std::string& path);

// Whether `a` and `b` name the same file: the same path after following symbolic links as the
// writer does (to a file that may not exist yet) and resolving "." and "..", or the same
// existing file (a hard link).
bool same_file(const std::string& a, const std::string& b);

// Throws OutputError (naming `what`, e.g. "reference cache") when `path` cannot be or become a
// directory: it, or a directory it would be made in, exists and is not a directory. Creates
// nothing; permissions are the creator's business.
void check_directory_path(const std::string& path, const std::string& what);

// Throws OutputError unless `path` can be written by write_file_atomically: not a directory (nor
// another non-regular file, unless `non_regular` lets it be written in place), and the directory
// it would go to exists or can be created and is writable. Creates nothing.
void check_writable(const std::string& path, NonRegular non_regular = NonRegular::refuse);

// One writer at a time in an output directory (a campaign's, a merge's --out) while the object
// lives: an exclusive flock on the directory, created when missing. A second campaign or merge
// into it is refused at once (InputError naming the directory and `what` holds it) instead of
// mixing its files with the first one's. Where the file system has no such locks (flock on a
// directory over NFS), nothing is locked: the cluster flow gives each shard its own directory.
class DirectoryLock {
 public:
  DirectoryLock(const std::string& dir, const std::string& what);
  ~DirectoryLock();
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace cmb
