// Reference-cache files: any bytes must either be the expected entry or be refused with a reason,
// never read in part. The expectation is the one a run would hold for the key the input claims
// (its horizon from key.t_end, as many outputs as its first row holds), so real cache files are
// seeds that load. An entry that loads has the table's full shape on the uniform grid of that
// horizon, finite values and error bounds, and survives a write and a second read unchanged.
#include <unistd.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "core/json_input.hpp"
#include "records/reference_cache.hpp"

namespace {

void require(bool condition) {
  if (!condition) std::abort();  // an invariant broke: libFuzzer reports the input
}

// The expectation for the key the text claims; a default one when it claims none usable.
cmb::ReferenceCacheExpectation expectation_for(const std::string& text) {
  cmb::ReferenceCacheExpectation expected;
  expected.key = {{"problem", "p"}, {"t_end", 1.0}};
  expected.outputs = 3;
  try {
    const nlohmann::json doc = cmb::parse_json_input(text, "fuzz");
    const nlohmann::json key = doc.at("key");
    const nlohmann::json& t_end = key.at("t_end");
    if (t_end.is_number() && std::isfinite(t_end.get<double>())) expected.key = key;
    const nlohmann::json& first_row = doc.at("outputs").at(0);
    if (first_row.is_array() && first_row.size() <= 64) expected.outputs = first_row.size();
  } catch (const std::exception&) {
  }
  expected.t_end = expected.key["t_end"].get<double>();
  return expected;
}

// The uniform grid over the expected horizon, as the reader requires it.
bool uniform_grid(const std::vector<double>& grid, double t_end) {
  const double intervals = static_cast<double>(grid.size()) - 1;
  for (std::size_t k = 0; k < grid.size(); ++k)
    if (grid[k] != t_end * static_cast<double>(k) / intervals) return false;
  return grid.size() >= 17 && grid.size() % 2 == 1;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const cmb::ReferenceCacheExpectation expected = expectation_for(text);
  std::string why;
  const auto entry = cmb::parse_reference_cache(text, expected, why);
  if (!entry) {
    require(!why.empty());
    return 0;
  }
  require(uniform_grid(entry->grid, expected.t_end));
  require(entry->interval_errors.size() + 1 == entry->grid.size());
  for (double e : entry->interval_errors) require(std::isfinite(e) && e >= 0);
  require(entry->outputs.rows() == static_cast<Eigen::Index>(entry->grid.size()));
  require(entry->outputs.cols() == static_cast<Eigen::Index>(expected.outputs));
  require(entry->outputs.allFinite() && entry->agreement >= 0);
  static const std::string file =
      (std::filesystem::temp_directory_path() / ("cmb_fuzz_ref_" + std::to_string(::getpid())))
          .string();
  cmb::write_reference_cache(file, expected.key, *entry);
  const auto again = cmb::read_reference_cache(file, expected, why);
  require(again && again->outputs == entry->outputs && again->agreement == entry->agreement &&
          again->interval_errors == entry->interval_errors);
  return 0;
}
