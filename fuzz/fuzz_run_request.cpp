// Run requests (what cmbench.run sends, harness/run/run_request.hpp): the input is a JSON object
// of run settings and ids. Reading it must give a configuration whose every setting the table
// accepts, or throw InputError; a configuration it gives is prepared the same way (InputError or
// a prepared run), never a crash or another exception.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "core/errors.hpp"
#include "core/json_input.hpp"
#include "harness/run/run.hpp"
#include "harness/run/run_request.hpp"
#include "harness/run/run_settings.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  nlohmann::json request;
  try {
    request = cmb::parse_json_input(text, "fuzz input");
  } catch (const cmb::InputError&) {
    return 0;
  }
  cmb::RunConfig config;
  try {
    config = cmb::run_config_from_json(request);
  } catch (const cmb::InputError&) {
    return 0;
  }
  cmb::check_run_settings(config);  // what the reader accepted, the table accepts: no throw
  try {
    // Preparing builds the problem and sample times, never integrates: fast for any horizon
    // the sample limit allows.
    cmb::prepare_run(config);
  } catch (const cmb::InputError&) {
  }
  return 0;
}
