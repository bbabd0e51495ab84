#include "records/output.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace cmb {

namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const std::string& what, const std::string& path, int error) {
  throw OutputError("cannot " + what + " '" + path + "': " + std::strerror(error));
}

// The file a chain of symbolic links ends at (the path itself when it is no link). A loop or a
// chain longer than the system allows is an error.
fs::path resolve_links(const fs::path& path) {
  fs::path current = path;
  for (int depth = 0; depth < 40; ++depth) {
    std::error_code ec;
    if (!fs::is_symlink(fs::symlink_status(current, ec))) return current;
    const fs::path link = fs::read_symlink(current, ec);
    if (ec) fail("follow the link", current.string(), ec.value());
    current = link.is_absolute() ? link : current.parent_path() / link;
  }
  fail("follow the link", path.string(), ELOOP);
}

void write_all(int fd, const std::string& content, const std::string& path) {
  const char* data = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, data, left);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("write", path, errno);
    data += n;
    left -= static_cast<std::size_t>(n);
  }
}

using Producer = std::function<void(const Emit&)>;

void write_produced(int fd, const Producer& produce, const std::string& path) {
  produce([&](const std::string& piece) { write_all(fd, piece, path); });
}

// What a file that is neither regular nor a directory is, for a message.
std::string kind_of(const fs::file_status& status) {
  switch (status.type()) {
    case fs::file_type::fifo:
      return "a FIFO";
    case fs::file_type::socket:
      return "a socket";
    case fs::file_type::character:
      return "a character device";
    case fs::file_type::block:
      return "a block device";
    default:
      return "not a regular file";
  }
}

[[noreturn]] void refuse_non_regular(const std::string& path, const fs::file_status& status) {
  throw OutputError("cannot write '" + path + "': it exists and is " + kind_of(status) +
                    ", not a regular file (remove it, or write elsewhere)");
}

// Writes into an existing file that is not a regular one (a device, a FIFO): no rename. Opened
// without waiting, so a FIFO that no process reads is an error (ENXIO) instead of a hang.
void write_in_place(const fs::path& target, const Producer& produce, const std::string& shown) {
  const int fd = ::open(target.c_str(), O_WRONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0 && errno == ENXIO)
    throw OutputError("cannot write '" + shown + "': it is a FIFO that no process reads");
  if (fd < 0) fail("open", shown, errno);
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);  // then writes wait as usual
  try {
    write_produced(fd, produce, shown);
  } catch (...) {
    ::close(fd);
    throw;
  }
  if (::close(fd) != 0) fail("write", shown, errno);
}

// A short name beside the target (a long target name plus a suffix could exceed NAME_MAX).
fs::path temporary_beside(const fs::path& target) {
  static std::atomic<unsigned> counter{0};
  return target.parent_path() / (".cmb-" + std::to_string(static_cast<long>(::getpid())) + "-" +
                                 std::to_string(counter++) + ".tmp");
}

}  // namespace

void check_writable(const std::string& path, NonRegular non_regular) {
  if (path.empty()) throw OutputError("an output path is empty");
  const fs::path target = resolve_links(path);
  std::error_code ec;
  const auto status = fs::status(target, ec);
  if (fs::is_directory(status)) throw OutputError("cannot write '" + path + "': it is a directory");
  if (fs::exists(status) && !fs::is_regular_file(status)) {
    if (non_regular == NonRegular::refuse) refuse_non_regular(path, status);
    if (::access(target.c_str(), W_OK) != 0) fail("write", path, errno);
    return;
  }
  fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  while (!fs::exists(dir, ec) && dir != dir.parent_path())  // the nearest existing ancestor,
    dir = dir.has_parent_path() ? dir.parent_path() : fs::path(".");  // where directories would go
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    throw OutputError("cannot write '" + path + "': '" + dir.string() + "' is not a directory");
  if (::access(dir.c_str(), W_OK | X_OK) != 0) fail("write", path, errno);
}

void write_file_atomically(const std::string& path, const std::string& content,
                           NonRegular non_regular) {
  write_file_atomically(
      path, [&content](const Emit& emit) { emit(content); }, non_regular);
}

void write_file_atomically(const std::string& path, const Producer& produce,
                           NonRegular non_regular) {
  if (path.empty()) throw OutputError("an output path is empty");
  const fs::path target = resolve_links(path);
  std::error_code ec;
  const auto status = fs::status(target, ec);
  if (fs::is_directory(status)) throw OutputError("cannot write '" + path + "': it is a directory");
  if (fs::exists(status) && !fs::is_regular_file(status)) {
    if (non_regular == NonRegular::refuse) refuse_non_regular(path, status);
    write_in_place(target, produce, path);
    return;
  }
  if (target.has_parent_path()) {
    fs::create_directories(target.parent_path(), ec);
    if (ec) fail("create the directory", target.parent_path().string(), ec.value());
  }
  const fs::path temporary = temporary_beside(target);
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) fail("write", path, errno);
  int error = 0;
  try {
    write_produced(fd, produce, path);
  } catch (...) {  // an OutputError, or whatever the producer threw
    ::close(fd);
    ::unlink(temporary.c_str());
    throw;
  }
  if (::close(fd) != 0) error = errno;
  if (!error && ::rename(temporary.c_str(), target.c_str()) != 0) error = errno;
  if (error) {
    ::unlink(temporary.c_str());
    fail("write", path, error);
  }
}

void copy_file_atomically(const std::string& from, const std::string& to) {
  // Without waiting: opening a FIFO to read waits for a writer, perhaps forever.
  const int fd = ::open(from.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) fail("read", from, errno);
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    throw OutputError("cannot read '" + from + "': it is not a regular file");
  }
  try {
    write_file_atomically(to, [&](const Emit& emit) {
      std::string piece(1 << 16, '\0');
      for (;;) {
        const ssize_t n = ::read(fd, piece.data(), piece.size());
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) fail("read", from, errno);
        if (n == 0) break;
        emit(piece.substr(0, static_cast<std::size_t>(n)));
      }
    });
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
}

std::string output_path_problem(const std::string& path) {
  if (path.empty()) return "is empty: give a path";
  if (path == "-")
    return "names standard output, which cmbench does not write to (it writes files whole): "
           "give a file name";
  return {};
}

void check_directory_path(const std::string& path, const std::string& what) {
  std::error_code ec;
  for (fs::path at = fs::path(path).lexically_normal(); !at.empty(); at = at.parent_path()) {
    const fs::file_status status = fs::status(at, ec);
    if (!fs::exists(status)) {
      if (at == at.parent_path()) break;
      continue;
    }
    if (fs::is_directory(status)) return;
    throw OutputError(what + " '" + path + "': " +
                      (at == fs::path(path).lexically_normal()
                           ? std::string("it is a file, not a directory")
                           : "'" + at.string() + "' on its way is a file, not a directory") +
                      ": give a directory (one that does not exist yet is created)");
  }
}

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec_a, ec_b, ec;
  if (fs::equivalent(a, b, ec)) return true;
  // A link is followed as the writer follows it, also to a file that does not exist yet.
  fs::path target_a, target_b;
  try {
    target_a = resolve_links(a);
    target_b = resolve_links(b);
  } catch (const OutputError&) {
    return false;  // a loop: the writer refuses it
  }
  const fs::path ca = fs::weakly_canonical(fs::absolute(target_a, ec), ec_a);
  const fs::path cb = fs::weakly_canonical(fs::absolute(target_b, ec), ec_b);
  return !ec_a && !ec_b && ca == cb;
}

DirectoryLock::DirectoryLock(const std::string& dir, const std::string& what) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) fail("create the directory", dir, ec.value());
  fd_ = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd_ < 0) fail("open the directory", dir, errno);
  if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) return;
  const int error = errno;
  if (error != EWOULDBLOCK) return;  // no locks here (see the header): go on unlocked
  ::close(fd_);
  fd_ = -1;
  throw InputError("'" + dir +
                   "' is in use: another cmbench process (a campaign or a merge) is "
                   "writing into it; wait for it to end, or give this " +
                   what + " another directory");
}

DirectoryLock::~DirectoryLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the lock
}

}  // namespace cmb
