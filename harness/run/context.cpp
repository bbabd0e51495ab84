#include "harness/run/context.hpp"

#include <Eigen/Core>
#include <boost/version.hpp>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace cmb {

namespace build_info {
extern const char* const version;
extern const char* const git_sha;
extern const char* const build_type;
extern const char* const flags;
extern const char* const compiler;
}  // namespace build_info

namespace {

std::string cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(colon + 2);
    }
  }
  return "unknown";
}

// The generated flags join CMake variables and options, some of them empty: one space between
// words, none at the ends, so that equal builds record equal strings.
std::string single_spaced(const std::string& text) {
  std::istringstream words(text);
  std::string word, out;
  while (words >> word) out += (out.empty() ? "" : " ") + word;
  return out;
}

struct ProgramBuild {
  std::string name = "cmbench";
  BuildFacts build = library_build();
  bool own = false;  // built by cmbench_add_executable, not one of cmbench's executables
};

ProgramBuild& program() {
  static ProgramBuild the_program;
  return the_program;
}

// "Release, -O3 -DNDEBUG", saying so when a part is empty (a project without a build type).
std::string build_text(const BuildFacts& b) {
  return (b.build_type.empty() ? std::string("no build type") : b.build_type) + ", " +
         (b.flags.empty() ? std::string("no flags") : b.flags);
}

BuildRecord build_record(const BuildFacts& b) { return {b.build_type, b.compiler, b.flags}; }

}  // namespace

BuildFacts library_build() {
  return {build_info::build_type, single_spaced(build_info::flags), build_info::compiler};
}

void set_program_build(const std::string& name, BuildFacts build) {
  build.flags = single_spaced(build.flags);
  program() = {name, std::move(build), true};
}

std::string utc_timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buffer;
}

std::string version_text() {
  return std::string(build_info::version) + " (git " + build_info::git_sha + ", " +
         build_text(library_build()) + ")";
}

std::string version_line() {
  const ProgramBuild& p = program();
  if (!p.own) return "cmbench " + version_text();
  return p.name + " (" + build_text(p.build) + ", " + p.build.compiler + ") on cmbench " +
         version_text();
}

// build_type, compiler and flags are the executable's that ran (its own translation units: an
// out-of-tree program's methods and problems); cmbench_build is that of the cmbench libraries
// it links. For cmbench's own executables the two are the same.
RunContext run_context() {
  const ProgramBuild& p = program();
  RunContext c;
  c.cmbench_version = build_info::version;
  c.git_sha = build_info::git_sha;
  c.program = p.name;
  c.build = build_record(p.build);
  c.cmbench_build = build_record(library_build());
  c.cpu = cpu_model();
  c.hardware_threads = std::thread::hardware_concurrency();
  c.libraries = {
      {"eigen", std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) +
                    "." + std::to_string(EIGEN_MINOR_VERSION)},
      {"boost", std::to_string(BOOST_VERSION / 100000) + "." +
                    std::to_string(BOOST_VERSION / 100 % 1000) + "." +
                    std::to_string(BOOST_VERSION % 100)},
      {"nlohmann_json", std::to_string(NLOHMANN_JSON_VERSION_MAJOR) + "." +
                            std::to_string(NLOHMANN_JSON_VERSION_MINOR) + "." +
                            std::to_string(NLOHMANN_JSON_VERSION_PATCH)}};
  c.date = utc_timestamp();
  return c;
}

}  // namespace cmb
