#include "core/params.hpp"

#include <cmath>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "core/errors.hpp"
#include "core/json_input.hpp"

namespace cmb {

namespace {

const char* type_name(ParamType type) {
  switch (type) {
    case ParamType::number:
      return "a number";
    case ParamType::integer:
      return "an integer";
    case ParamType::boolean:
      return "true or false";
    case ParamType::choice:
      return "one of the listed choices";
    case ParamType::text:
      return "a string";
  }
  return "?";
}

std::vector<std::string> spec_names(const std::vector<ParamSpec>& specs) {
  std::vector<std::string> names;
  for (const auto& spec : specs) names.push_back(spec.name);
  return names;
}

std::string range_text(const ParamSpec& spec) {
  std::ostringstream out;
  const bool has_min = std::isfinite(spec.min);
  const bool has_max = std::isfinite(spec.max);
  if (has_min) out << (spec.min_exclusive ? "> " : ">= ") << spec.min;
  if (has_min && has_max) out << " and ";
  if (has_max) out << "<= " << spec.max;
  return out.str();
}

// "parameter 'zeta'", or "parameter 'xi' (alias of 'zeta')": messages name the key as given.
std::string param_label(const ParamSpec& spec, const std::string& key) {
  std::string label = "parameter '" + key + "'";
  if (key != spec.name) label += " (alias of '" + spec.name + "')";
  return label;
}

void check_range(const std::string& label, const std::string& owner, const ParamSpec& spec,
                 double value) {
  const bool below = spec.min_exclusive ? !(value > spec.min) : !(value >= spec.min);
  if (!std::isfinite(value) || below || value > spec.max) {
    std::ostringstream msg;
    msg << label << " of " << owner << " must be finite";
    const std::string range = range_text(spec);
    if (!range.empty()) msg << " and " << range;
    msg << ", got " << value;
    throw InputError(msg.str());
  }
}

nlohmann::json checked_value(const std::string& owner, const ParamSpec& spec,
                             const std::string& key, const nlohmann::json& value) {
  const std::string label = param_label(spec, key);
  auto wrong_type = [&]() {
    std::string msg =
        label + " of " + owner + " expects " + type_name(spec.type) + ", got " + excerpt(value);
    if (spec.type == ParamType::choice) msg += " (valid: " + join(spec.choices, ", ") + ")";
    if (value.is_null()) msg += " (null leaves unset only parameters that default to unset)";
    return InputError(msg);
  };
  // An explicit null leaves an optional parameter unset; a parameter with a value must keep one.
  if (value.is_null()) {
    if (spec.default_value.is_null()) return value;
    throw wrong_type();
  }
  switch (spec.type) {
    case ParamType::number:
      if (!value.is_number()) throw wrong_type();
      check_range(label, owner, spec, value.get<double>());
      return value.get<double>();
    case ParamType::integer: {
      if (!value.is_number()) throw wrong_type();
      const double d = value.get<double>();
      if (std::floor(d) != d) throw wrong_type();
      check_range(label, owner, spec, d);
      return static_cast<long>(d);
    }
    case ParamType::boolean:
      if (!value.is_boolean()) throw wrong_type();
      return value;
    case ParamType::text:
      if (!value.is_string()) throw wrong_type();
      if (!spec.canonical_text) return value;
      try {
        return spec.canonical_text(value.get<std::string>());
      } catch (const InputError& e) {
        throw InputError(label + " of " + owner + ": " + e.what());
      }
    case ParamType::choice:
      if (!value.is_string()) throw wrong_type();
      for (const auto& c : spec.choices)
        if (c == value.get<std::string>()) return value;
      throw wrong_type();
  }
  return value;
}

// The given keys, each with the spec it names (nullptr: unknown), after checking that no
// parameter is named twice.
std::vector<std::pair<std::string, const ParamSpec*>> resolve_keys(
    const std::string& owner, const nlohmann::json& given, const std::vector<ParamSpec>& specs) {
  std::vector<std::pair<std::string, const ParamSpec*>> keys;
  for (const auto& item : given.items()) {
    const ParamSpec* spec = find_param(specs, item.key());
    for (const auto& [earlier, earlier_spec] : keys)
      if (spec && earlier_spec == spec)
        throw InputError(param_label(*spec, spec->name) + " of " + owner + " is given twice, as '" +
                         earlier + "' and as '" + item.key() + "': give one of them");
    keys.emplace_back(item.key(), spec);
  }
  return keys;
}

}  // namespace

const ParamSpec* find_param(const std::vector<ParamSpec>& specs, const std::string& key) {
  for (const auto& spec : specs)
    if (spec.name == key) return &spec;
  for (const auto& spec : specs)
    for (const auto& alias : spec.aliases)
      if (alias == key) return &spec;
  return nullptr;
}

nlohmann::json canonical_params(const std::string& owner, const nlohmann::json& given,
                                const std::vector<ParamSpec>& specs) {
  if (!given.is_object()) return given;
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [key, spec] : resolve_keys(owner, given, specs))
    out[spec ? spec->name : key] =
        spec ? checked_value(owner, *spec, key, given.at(key)) : given.at(key);
  return out;
}

std::string join(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += separator;
    out += items[i];
  }
  return out;
}

ParamSpec positive_number(std::string name, double default_value, std::string description) {
  ParamSpec spec;
  spec.name = std::move(name);
  spec.default_value = default_value;
  spec.description = std::move(description);
  spec.min = 0.0;
  spec.min_exclusive = true;
  return spec;
}

ParamSpec nonnegative_number(std::string name, nlohmann::json default_value,
                             std::string description) {
  ParamSpec spec;
  spec.name = std::move(name);
  spec.default_value = std::move(default_value);
  spec.description = std::move(description);
  spec.min = 0.0;
  return spec;
}

ParamSpec integer_param(std::string name, long default_value, long min, long max,
                        std::string description) {
  ParamSpec spec;
  spec.name = std::move(name);
  spec.type = ParamType::integer;
  spec.default_value = default_value;
  spec.min = static_cast<double>(min);
  spec.max = static_cast<double>(max);
  spec.description = std::move(description);
  return spec;
}

ParamSpec choice_param(std::string name, std::vector<std::string> choices,
                       std::string description) {
  ParamSpec spec;
  spec.name = std::move(name);
  spec.type = ParamType::choice;
  spec.default_value = choices.front();
  spec.choices = std::move(choices);
  spec.description = std::move(description);
  return spec;
}

Params parse_params(const std::string& owner, const nlohmann::json& given,
                    const std::vector<ParamSpec>& specs) {
  if (!given.is_null() && !given.is_object())
    throw InputError("parameters of " + owner + " must be a JSON object, got " + excerpt(given));
  nlohmann::json values = nlohmann::json::object();
  std::set<std::string> named;
  if (given.is_object()) {
    for (const auto& [key, spec] : resolve_keys(owner, given, specs)) {
      if (!spec) {
        const auto valid = spec_names(specs);
        throw InputError("unknown parameter '" + key + "' for " + owner + " (valid: " +
                         (valid.empty() ? std::string("none") : join(valid, ", ")) + ")");
      }
      values[spec->name] = checked_value(owner, *spec, key, given.at(key));
      named.insert(spec->name);
    }
  }
  for (const auto& spec : specs)
    if (!values.contains(spec.name)) values[spec.name] = spec.default_value;
  return Params(std::move(values), std::move(named));
}

const nlohmann::json& Params::at(const std::string& name) const {
  if (!values_.contains(name))
    throw std::logic_error("parameter '" + name + "' was never declared");
  return values_.at(name);
}

double Params::number(const std::string& name) const {
  const auto& v = at(name);
  if (v.is_null()) throw std::logic_error("parameter '" + name + "' read while unset");
  return v.get<double>();
}

long Params::integer(const std::string& name) const { return at(name).get<long>(); }
bool Params::flag(const std::string& name) const { return at(name).get<bool>(); }
std::string Params::choice(const std::string& name) const { return at(name).get<std::string>(); }
bool Params::is_set(const std::string& name) const { return !at(name).is_null(); }
bool Params::was_given(const std::string& name) const { return given_.count(name) > 0; }

nlohmann::json parse_cli_value(const std::string& text) {
  const auto parsed = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_discarded() && (parsed.is_primitive())) return parsed;
  return text;
}

std::string describe_params(const std::vector<ParamSpec>& specs, const std::string& indent) {
  std::ostringstream out;
  for (const auto& spec : specs) {
    out << indent << spec.name << " = "
        << (spec.default_value.is_null() ? std::string("(unset)") : spec.default_value.dump());
    const std::string range = range_text(spec);
    if (!range.empty()) out << "  [" << range << "]";
    if (!spec.choices.empty()) out << "  [" << join(spec.choices, " | ") << "]";
    out << "  " << spec.description;
    if (!spec.aliases.empty()) out << " (also accepted as " << join(spec.aliases, ", ") << ")";
    out << "\n";
  }
  return out.str();
}

}  // namespace cmb
