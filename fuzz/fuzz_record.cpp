// Run records (runs/<stem>.json, `cmbench run --out`), as a campaign's resume and results pass
// read them: any bytes must either load or be rejected with an InputError. A record that loads
// has a non-empty key and run file names that stay in their folder of the result directory, and
// the writer gives back the document that was read (nothing dropped, nothing invented).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "core/errors.hpp"
#include "core/json_input.hpp"
#include "records/results_file.hpp"

namespace {

void require(bool condition) {
  if (!condition) std::abort();  // an invariant broke: libFuzzer reports the input
}

// Lexically, `name` under a result directory stays in runs/ or series/, one level down.
void require_confined(const std::string& name) {
  const std::filesystem::path base("/set");
  const std::filesystem::path file = (base / name).lexically_normal();
  require(file.parent_path() == base / "runs" || file.parent_path() == base / "series");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  cmb::RunRecord record;
  try {
    record = cmb::parse_record(text, "fuzz");
  } catch (const cmb::InputError&) {
    return 0;
  }
  require(!record.key.empty());
  if (record.files) {
    require_confined(record.files->record);
    if (record.files->series) require_confined(*record.files->series);
  }
  nlohmann::json document = cmb::parse_json_input(text, "fuzz");
  document.erase("digest");  // a record file's check of itself, not part of the record
  require(cmb::to_json(record) == document);
  return 0;
}
