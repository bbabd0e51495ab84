// Counts every heap allocation of the test process (malloc, calloc, realloc, aligned_alloc and
// so operator new) while a scope is active. Stronger than EIGEN_RUNTIME_NO_MALLOC, which Release
// builds compile out: it also sees std::vector and anything else a hot path might allocate.
#pragma once

namespace cmb::test {

class AllocationCounter {
 public:
  AllocationCounter();
  ~AllocationCounter();
  long count() const;
  static bool available();  // false under sanitizers, which own malloc
};

}  // namespace cmb::test
