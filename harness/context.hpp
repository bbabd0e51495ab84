// The context block of every result: what built and ran it, so numbers can be compared honestly.
#pragma once

#include <nlohmann/json.hpp>

namespace cmb {

nlohmann::json run_context();
std::string utc_timestamp();

}  // namespace cmb
