#include "core/memory_reserve.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <exception>
#include <new>

namespace cmb {

namespace {

constexpr std::size_t kSmallestReserve = std::size_t{64} << 10;
std::atomic<void*> reserve{nullptr};
std::atomic<bool> used{false};

// Called by operator new when an allocation fails: gives the reserve back and fails this
// allocation all the same, so the shortage is reported while the unwinding can still allocate.
// Once the reserve is gone, an allocation fails as it would without it.
void release_reserve() {
  if (void* block = reserve.exchange(nullptr)) {
    std::free(block);
    used = true;
  }
  throw std::bad_alloc();
}

// The last resort, when even the reserve did not leave room to unwind (a second shortage in a
// clean-up): a terminate caused by std::bad_alloc still ends with a message and exit code 2,
// written without allocating. Any other terminate aborts as it would.
[[noreturn]] void terminate_on_shortage() {
  bool shortage = false;
  if (const std::exception_ptr thrown = std::current_exception()) {
    try {
      std::rethrow_exception(thrown);
    } catch (const std::bad_alloc&) {
      shortage = true;
    } catch (...) {
    }
  }
  if (!shortage) std::abort();
  static const char kMessage[] =
      "cmbench: error: not enough memory (an allocation failed while cleaning up after "
      "another): give it more (ulimit -v, the job's memory request)\n";
  [[maybe_unused]] const ssize_t written = ::write(2, kMessage, sizeof kMessage - 1);
  _exit(2);
}

}  // namespace

void keep_memory_reserve(std::size_t bytes) {
  if (reserve.load() != nullptr || used) return;
  std::set_terminate(terminate_on_shortage);
  // Under a tight limit, a smaller reserve: the clean-up needs little (16 bytes a child of the
  // largest JSON array or object being destroyed), and without any reserve it has none.
  void* block = nullptr;
  for (std::size_t size = bytes; block == nullptr && size >= kSmallestReserve; size /= 2)
    block = std::malloc(size);  // a large block has its own mapping, returned whole by free
  if (block == nullptr) return;
  reserve = block;
  std::set_new_handler(release_reserve);
}

}  // namespace cmb
