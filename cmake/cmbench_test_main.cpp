// main() of a test program made by cmbench_add_conformance_tests (cmake/cmbenchHelpers.cmake):
// the program's own entries join the catalog before GoogleTest instantiates the conformance
// suites, which read the tables.
#include <gtest/gtest.h>

#include <exception>
#include <iostream>

namespace cmb {
void add_program_entries();  // generated: <program>_entries.cpp
}

int main(int argc, char** argv) {
  try {
    cmb::add_program_entries();
  } catch (const std::exception& e) {
    std::cerr << "cmbench: cannot add this program's entries: " << e.what() << "\n";
    return 3;
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
