// Campaign files: any text must either load or be rejected with an InputError (which the CLI
// turns into exit code 2 and a message); anything else escaping is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/errors.hpp"
#include "harness/campaign/campaign.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    cmb::parse_campaign(std::string(reinterpret_cast<const char*>(data), size), "fuzz input");
  } catch (const cmb::InputError&) {
  }
  return 0;
}
