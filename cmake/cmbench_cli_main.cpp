// main() of a program made by cmbench_add_executable (cmake/cmbenchHelpers.cmake): the program's
// own entries join the catalog, then the cmbench command line runs.
#include <exception>
#include <iostream>

#include "cli/app.hpp"

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
  return cmb::cli::main(argc, argv);
}
