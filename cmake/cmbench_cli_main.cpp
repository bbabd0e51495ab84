// main() of a program made by cmbench_add_executable (cmake/cmbenchHelpers.cmake): the program
// names its own build (recorded in every run's context), its entries join the catalog, then the
// cmbench command line runs.
#include <exception>
#include <iostream>

#include "cli/app.hpp"

namespace cmb {
void record_program_build();  // generated: <program>_build_<config>.cpp
void add_program_entries();   // generated: <program>_entries.cpp
}  // namespace cmb

int main(int argc, char** argv) {
  cmb::record_program_build();
  try {
    cmb::add_program_entries();
  } catch (const std::exception& e) {
    std::cerr << "cmbench: cannot add this program's entries: " << e.what() << "\n";
    return 3;
  }
  return cmb::cli::main(argc, argv);
}
