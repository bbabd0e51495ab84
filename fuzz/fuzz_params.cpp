// Parameters: the input is "<problem or method id>\n<JSON object>". Whatever the values, building
// the entry (and, for a problem, its initial state) must succeed or throw InputError.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "catalog/catalog.hpp"
#include "core/errors.hpp"

namespace {

bool is_problem(const std::string& id) {
  for (const auto& e : cmb::problem_registry())
    if (e.id == id) return true;
  return false;
}

bool is_method(const std::string& id) {
  for (const auto& e : cmb::method_registry())
    if (e.id == id) return true;
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::size_t newline = text.find('\n');
  if (newline == std::string::npos) return 0;
  const std::string id = text.substr(0, newline);
  const nlohmann::json params = nlohmann::json::parse(text.substr(newline + 1), nullptr, false);
  if (params.is_discarded()) return 0;
  try {
    if (is_problem(id)) {
      const auto problem = cmb::make_problem(id, params);
      const cmb::Sizes s = problem->sizes();
      if (s.nq <= 400) {  // keep each input fast: the largest catalog sizes take seconds
        cmb::Vec q(s.nq), v(s.nq);
        problem->initial_state(q, v);
      }
    } else if (is_method(id)) {
      cmb::make_method(id, params);
    }
  } catch (const cmb::InputError&) {
  }
  return 0;
}
