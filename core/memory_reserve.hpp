// A reserve of memory for the moment an allocation fails. Some code that must not throw still
// allocates while it cleans up (nlohmann::json's destructor keeps a stack of the children it
// destroys): when the allocation that failed left nothing, that clean-up called std::terminate
// and the process died of SIGABRT instead of reporting the shortage. With the reserve in place,
// the first failed allocation frees it and throws std::bad_alloc, so the unwinding has room.
#pragma once

#include <cstddef>

namespace cmb {

/// Sets aside `bytes` (address space only: the pages are never touched; less when that much does
/// not fit, down to 64 KiB) and installs the new-handler that gives them back; later calls do
/// nothing. Without room even for the smallest reserve, only the terminate handler is installed
/// (a terminate caused by std::bad_alloc: a message and exit code 2 instead of SIGABRT).
void keep_memory_reserve(std::size_t bytes = std::size_t{8} << 20);

}  // namespace cmb
