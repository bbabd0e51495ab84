/// \file
/// Strict parameter parsing for problems, methods and steppers. Every parameter is declared once
/// (name, type, default, range, description); anything else a user passes is an error that names
/// the offending key or value and lists what is valid.
#pragma once

#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

namespace cmb {

/// The type of a parameter's value.
enum class ParamType { number, integer, boolean, choice, text };

/// The declaration of one parameter of a problem, method, integrator or stepper.
struct ParamSpec {
  std::string name;                    ///< the key users write (snake_case)
  ParamType type = ParamType::number;  ///< what its value is
  nlohmann::json default_value;        ///< null: "not set" unless the user gives a value
  std::string description;             ///< one line for `cmbench list` and --help
  double min =
      -std::numeric_limits<double>::infinity();  ///< smallest accepted value (numbers and integers)
  double max =
      std::numeric_limits<double>::infinity();  ///< largest accepted value (numbers and integers)
  bool min_exclusive = false;                   ///< e.g. lengths and tolerances must be > 0
  std::vector<std::string> choices;             ///< for ParamType::choice
  /// Former names still accepted after a rename, so that older campaign files keep working.
  /// Parsing maps them to `name`, the only name results record.
  std::vector<std::string> aliases;
  /// For a text parameter with a syntax of its own: the one spelling of what `text` means, or an
  /// InputError saying what is wrong with it (prefixed with the parameter's name by the parser).
  /// Two spellings of one value then make one run key, and a loose one ("1x") is refused.
  std::function<std::string(const std::string& text)> canonical_text;
};

/// Shorthands that keep parameter tables readable.
ParamSpec positive_number(std::string name, double default_value, std::string description);
/// A number ≥ 0 (default may be null: not set).
ParamSpec nonnegative_number(std::string name, nlohmann::json default_value,
                             std::string description);
/// An integer in [min, max].
ParamSpec integer_param(std::string name, long default_value, long min, long max,
                        std::string description);
/// One of `choices`.
ParamSpec choice_param(std::string name, std::vector<std::string> choices,
                       std::string description);  ///< the first choice is the default

/// The spec that `key` names, by its name or else by one of its aliases; nullptr when none does.
const ParamSpec* find_param(const std::vector<ParamSpec>& specs, const std::string& key);

/// `given` with every alias replaced by its parameter's name and every value by its one spelling
/// (numbers as doubles, integers as integers, text through its spec's canonical_text); unknown
/// keys stay as they are (the parse reports them). Naming one parameter twice (an alias and its
/// name, or two aliases) is an InputError naming both keys; so is a value parse_params refuses.
/// What a run key sees: one key per run, however its parameters were spelled.
nlohmann::json canonical_params(const std::string& owner, const nlohmann::json& given,
                                const std::vector<ParamSpec>& specs);

/// Parsed parameter values (every declared one, defaults filled in), read by name.
class Params {
 public:
  /// No parameters.
  Params() = default;
  /// `values` by name, `given` the names the user set explicitly.
  Params(nlohmann::json values, std::set<std::string> given)
      : values_(std::move(values)), given_(std::move(given)) {}

  /// The value of a number parameter.
  double number(const std::string& name) const;
  /// The value of an integer parameter.
  long integer(const std::string& name) const;
  /// The value of a boolean parameter.
  bool flag(const std::string& name) const;
  /// The value of a choice parameter.
  std::string choice(const std::string& name) const;
  /// The value of a text parameter.
  std::string text(const std::string& name) const { return choice(name); }
  bool is_set(const std::string& name) const;     ///< has a non-null value (default or given)
  bool was_given(const std::string& name) const;  ///< the user named it explicitly
  const nlohmann::json& values() const { return values_; }  ///< echoed into results

 private:
  const nlohmann::json& at(const std::string& name) const;
  nlohmann::json values_ = nlohmann::json::object();
  std::set<std::string> given_;
};

/// `owner` names what the parameters belong to in messages, e.g. "method 'baumgarte'".
Params parse_params(const std::string& owner, const nlohmann::json& given,
                    const std::vector<ParamSpec>& specs);

/// Reads a command-line value: JSON numbers, true/false and null as such, anything else as text.
nlohmann::json parse_cli_value(const std::string& text);

/// One line per parameter for `cmbench list` and --help texts.
std::string describe_params(const std::vector<ParamSpec>& specs, const std::string& indent);

/// The items joined with `separator` between them.
std::string join(const std::vector<std::string>& items, const std::string& separator);

}  // namespace cmb
