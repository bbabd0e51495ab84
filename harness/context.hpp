// The context block of every result: what built and ran it, so numbers can be compared honestly.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace cmb {

nlohmann::json run_context();
// "0.2.0 (git 1a2b3c4d5e6f, Release)": what `cmbench --version` prints.
std::string version_text();
std::string utc_timestamp();

}  // namespace cmb
