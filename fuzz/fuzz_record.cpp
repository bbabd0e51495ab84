// Run records (runs/<stem>.json, `cmbench run --out`), as a campaign's resume and results pass
// read them: any bytes must either load or be rejected with an InputError. A record that loads
// has a status of the enum and run file names that stay in their folder of the result directory.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "core/errors.hpp"
#include "records/results_file.hpp"

namespace {

void require(bool condition) {
  if (!condition) std::abort();  // an invariant broke: libFuzzer reports the input
}

// Lexically, `name` under a result directory stays in runs/ or series/, one level down.
void require_confined(const nlohmann::json& name) {
  if (!name.is_string()) return;
  const std::filesystem::path base("/set");
  const std::filesystem::path file = (base / name.get<std::string>()).lexically_normal();
  require(file.parent_path() == base / "runs" || file.parent_path() == base / "series");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  nlohmann::json record;
  try {
    record = cmb::parse_record(std::string(reinterpret_cast<const char*>(data), size), "fuzz");
  } catch (const cmb::InputError&) {
    return 0;
  }
  require(cmb::run_status_from(record["status"].get<std::string>()).has_value());
  require(!record["key"].get<std::string>().empty());
  const nlohmann::json files = record.value("files", nlohmann::json());
  if (files.is_object())
    for (const auto& [kind, name] : files.items()) require_confined(name);
  return 0;
}
