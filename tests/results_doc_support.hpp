// A minimal valid results document (what a campaign writes, trimmed to what merge and compare
// read), shared by the tests of result-set input.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

namespace cmb::test {

inline nlohmann::json results_doc(const std::vector<nlohmann::json>& runs) {
  return {{"schema", "cmbench.results/1"},
          {"campaign", "t"},
          {"campaign_file", {{"name", "t"}}},
          {"shard", nullptr},
          {"context",
           {{"git_sha", "abc"}, {"build_type", "Release"}, {"compiler", "GNU"}, {"flags", "-O3"}}},
          {"runs", runs}};
}

}  // namespace cmb::test
