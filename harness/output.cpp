#include "harness/output.hpp"

#include <filesystem>
#include <fstream>
#include <system_error>

#include <unistd.h>

#include "core/errors.hpp"

namespace cmb {

void write_file_atomically(const std::string& path, const std::string& content) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  std::error_code ec;
  if (target.has_parent_path()) fs::create_directories(target.parent_path(), ec);
  if (ec) throw InputError("cannot create directory '" + target.parent_path().string() + "': " +
                           ec.message());
  const fs::path temporary =
      target.string() + ".tmp-" + std::to_string(static_cast<long>(::getpid()));
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << content;
    out.flush();
    if (!out) {
      fs::remove(temporary, ec);
      throw InputError("cannot write '" + path + "'");
    }
  }
  fs::rename(temporary, target, ec);
  if (ec) {
    fs::remove(temporary, ec);
    throw InputError("cannot move the result into place at '" + path + "'");
  }
}

}  // namespace cmb
