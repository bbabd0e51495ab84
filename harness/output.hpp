// Files are written whole or not at all: content goes to a temporary file beside the target,
// which is then renamed over it, so a reader never sees half a result.
#pragma once

#include <string>

namespace cmb {

// Throws InputError when the directory cannot be created or the file cannot be written.
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace cmb
