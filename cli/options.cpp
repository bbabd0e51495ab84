#include <cstdlib>

#include "cli/command.hpp"
#include "core/errors.hpp"
#include "core/params.hpp"
#include "records/output.hpp"

namespace cmb::cli {

CLI::Validator output_path() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const std::string problem = output_path_problem(text);
        return problem.empty() ? problem : "'" + text + "' " + problem;
      },
      "PATH");
}

CLI::Validator not_empty(const std::string& what) {
  return CLI::Validator(
      [what](std::string& text) -> std::string {
        return text.empty() ? "'' is empty: give " + what : std::string();
      },
      "");
}

CLI::Validator integer_at_least(long minimum) {
  return CLI::Validator(
      [minimum](std::string& text) -> std::string {
        std::size_t used = 0;
        long value = 0;
        try {
          value = std::stol(text, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used != text.size() || text.empty())
          return "expects an integer >= " + std::to_string(minimum) + ", got '" + text + "'";
        if (value < minimum) return "must be >= " + std::to_string(minimum) + ", got " + text;
        return {};
      },
      "INTEGER >= " + std::to_string(minimum));
}

std::pair<std::string, nlohmann::json> parse_assignment(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw InputError("--param expects key=value (e.g. method.alpha=5 or problem.N=2), got '" +
                     text + "'");
  return {text.substr(0, eq), parse_cli_value(text.substr(eq + 1))};
}

}  // namespace cmb::cli
