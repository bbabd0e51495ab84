#include "alloc_counter.hpp"

#include <atomic>
#include <cstddef>

#include "sanitized.hpp"

namespace {
std::atomic<bool> g_counting{false};
std::atomic<long> g_count{0};
}  // namespace

#ifndef CMB_TEST_SANITIZED
extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void* __libc_memalign(std::size_t, std::size_t);

void* malloc(std::size_t size) {
  if (g_counting.load(std::memory_order_relaxed)) ++g_count;
  return __libc_malloc(size);
}
void* calloc(std::size_t n, std::size_t size) {
  if (g_counting.load(std::memory_order_relaxed)) ++g_count;
  return __libc_calloc(n, size);
}
void* realloc(void* p, std::size_t size) {
  if (g_counting.load(std::memory_order_relaxed)) ++g_count;
  return __libc_realloc(p, size);
}
void* aligned_alloc(std::size_t alignment, std::size_t size) {
  if (g_counting.load(std::memory_order_relaxed)) ++g_count;
  return __libc_memalign(alignment, size);
}
}
#endif

namespace cmb::test {

AllocationCounter::AllocationCounter() {
  g_count = 0;
  g_counting = true;
}
AllocationCounter::~AllocationCounter() { g_counting = false; }
long AllocationCounter::count() const { return g_count.load(); }

bool AllocationCounter::available() {
#ifdef CMB_TEST_SANITIZED
  return false;
#else
  return true;
#endif
}

}  // namespace cmb::test
