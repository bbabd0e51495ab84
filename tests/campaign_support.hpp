// What the campaign tests share (test_campaign.cpp, test_campaign_faults.cpp): scratch
// directories, campaign files and the scheduling-independent parts of a result set.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "test_support.hpp"

namespace cmb::test {

namespace fs = std::filesystem;
using nlohmann::json;

inline fs::path scratch(const std::string& name) {
  const fs::path dir = scratch_path("campaign_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

inline fs::path write_campaign(const fs::path& dir, const json& campaign) {
  const fs::path file = dir / "campaign.json";
  std::ofstream(file) << campaign.dump(2);
  return file;
}

// Key → the parts of a record that must not depend on scheduling (timings and dates excluded).
inline std::map<std::string, json> comparable(const fs::path& results) {
  std::ifstream in(results);
  const json doc = json::parse(in);
  std::map<std::string, json> out;
  for (const auto& run : doc["runs"])
    out[run["key"].get<std::string>()] = {run["status"], run["metrics"], run["work"]};
  return out;
}

// Processes whose command line mentions `text` (a campaign's workers are forks of it and carry
// its command line, including the unique --out path).
inline int processes_mentioning(const std::string& text) {
  int count = 0;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    std::ifstream in(entry.path() / "cmdline");
    const std::string cmdline((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
    count += cmdline.find(text) != std::string::npos;
  }
  return count;
}

// The processes whose parent is `parent` (from /proc/PID/stat, whose second field, the name in
// parentheses, may itself hold spaces), zombies included unless `living_only`.
inline std::vector<pid_t> children_of(pid_t parent, bool living_only = false) {
  std::vector<pid_t> children;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    std::getline(stat, line);
    const auto close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 2));
    char state = 0;
    long ppid = 0;
    rest >> state >> ppid;
    if (ppid == parent && !(living_only && state == 'Z')) children.push_back(std::stoi(name));
  }
  return children;
}

// Runs shards 1..count of the campaign in `file` into dir/shard-I, `jobs` workers each; returns
// their directories as " DIR1 DIR2 ..." (for a merge command), or "" when one of them failed.
inline std::string run_shards(const fs::path& file, const fs::path& dir, int count, int jobs) {
  std::string shards;
  for (int i = 1; i <= count; ++i) {
    const fs::path out = dir / ("shard-" + std::to_string(i));
    if (cli("campaign " + file.string() + " --jobs " + std::to_string(jobs) + " --shard " +
            std::to_string(i) + "/" + std::to_string(count) + " --out " + out.string())
            .exit_code != 0)
      return "";
    shards += " " + out.string();
  }
  return shards;
}

inline json campaign_of(double t_end, double dt) {
  return {{"name", "test"},
          {"repeat", 0},
          {"problems", {{{"id", "simple_pendulum"}, {"t_end", t_end}}, {{"id", "slider_crank"}}}},
          {"methods", {{{"id", "index1"}}, {{"id", "baumgarte"}}, {{"id", "projection"}}}},
          {"steppers", {{{"id", "rk4"}, {"dt", {dt, dt / 2}}}, {{"id", "dopri5"}, {"tol", 1e-8}}}}};
}

}  // namespace cmb::test
