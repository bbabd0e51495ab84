#include "harness/context.hpp"

#include <Eigen/Core>
#include <boost/version.hpp>
#include <ctime>
#include <fstream>
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

}  // namespace

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
         build_info::build_type + ")";
}

nlohmann::json run_context() {
  return {
      {"cmbench_version", build_info::version},
      {"git_sha", build_info::git_sha},
      {"build_type", build_info::build_type},
      {"compiler", build_info::compiler},
      {"flags", build_info::flags},
      {"cpu", cpu_model()},
      {"hardware_threads", std::thread::hardware_concurrency()},
      {"libraries",
       {{"eigen", std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) +
                      "." + std::to_string(EIGEN_MINOR_VERSION)},
        {"boost", std::to_string(BOOST_VERSION / 100000) + "." +
                      std::to_string(BOOST_VERSION / 100 % 1000) + "." +
                      std::to_string(BOOST_VERSION % 100)},
        {"nlohmann_json", std::to_string(NLOHMANN_JSON_VERSION_MAJOR) + "." +
                              std::to_string(NLOHMANN_JSON_VERSION_MINOR) + "." +
                              std::to_string(NLOHMANN_JSON_VERSION_PATCH)}}},
      {"date", utc_timestamp()},
  };
}

}  // namespace cmb
