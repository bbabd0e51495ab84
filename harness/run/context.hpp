// The context block of every result: what built and ran it, so numbers can be compared honestly.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "records/run_record.hpp"

namespace cmb {

// How one executable or library was compiled.
struct BuildFacts {
  std::string build_type;  // e.g. "Release"; empty when the project set none
  std::string flags;       // e.g. "-O3 -DNDEBUG"
  std::string compiler;    // e.g. "GNU-12.2.0"
};

// The build of cmbench's libraries (generated at cmbench's own build).
BuildFacts library_build();

// A program built on the installed package (cmbench_add_executable) compiles its own translation
// units — its methods, problems and main() — in its own project, with that project's build type
// and flags, which need not be the libraries'. Its generated main() names the program and its
// build here before anything records a context; without that call the program is cmbench's own
// (`cmbench`, the Python module) and its build is the libraries'.
void set_program_build(const std::string& name, BuildFacts build);

RunContext run_context();
// "0.2.0 (git 1a2b3c4d5e6f, Release, -O3 -DNDEBUG)": cmbench's version and its libraries' build.
std::string version_text();
// What `--version` prints: "cmbench " + version_text() for cmbench's own executable, and
// "mybench (Release, -O3 -DNDEBUG) on cmbench …" for a program with a build of its own.
std::string version_line();
std::string utc_timestamp();

}  // namespace cmb
