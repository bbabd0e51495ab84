// The default-size A02 (243 coordinates) exercises the blocked dense kernels, whose workspace
// could spill to the heap; no registered method may allocate there. (Kept out of the extension
// test build: its test-only method is a deliberately plain full-KKT LU.)
#include <gtest/gtest.h>

#include "alloc_counter.hpp"
#include "catalog/catalog.hpp"

namespace cmb::test {
namespace {

TEST(MethodConformanceLarge, RhsAllocatesNothingOnDefaultNFourBar) {
  if (!AllocationCounter::available()) GTEST_SKIP() << "malloc hook disabled under sanitizers";
  for (const auto& entry : method_registry()) {
    auto problem = make_problem("n_four_bar", nlohmann::json::object());
    auto method = entry.make(parse_params("method", nlohmann::json::object(), entry.params));
    method->bind(*problem);
    Vec q(problem->sizes().nq), v(problem->sizes().nq);
    problem->initial_state(q, v);
    Vec x(method->state_size()), dxdt(method->state_size());
    method->pack(0.0, q, v, x);
    method->rhs(x, dxdt, 0.0);
    AllocationCounter counter;
    method->rhs(x, dxdt, 0.0);
    EXPECT_EQ(counter.count(), 0) << entry.id;
  }
}

}  // namespace
}  // namespace cmb::test
