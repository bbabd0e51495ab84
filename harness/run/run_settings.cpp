#include "harness/run/run_settings.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "core/errors.hpp"
#include "core/json_input.hpp"
#include "core/params.hpp"
#include "records/output.hpp"

namespace cmb {

namespace {

using nlohmann::json;

std::string number_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.10g", value);
  return text;
}

std::vector<std::string> setting_names() {
  std::vector<std::string> names;
  for (const auto& s : run_settings()) names.push_back(s.name);
  return names;
}

}  // namespace

const RunSetting* find_run_setting(const std::string& name) {
  for (const auto& s : run_settings())
    if (s.name == name) return &s;
  return nullptr;
}

std::string spelled(const RunSetting& setting, SettingSurface surface) {
  return spelled(setting.name, surface);
}

std::string spelled(const std::string& name, SettingSurface surface) {
  const RunSetting* setting = find_run_setting(name);
  switch (surface) {
    case SettingSurface::command_line: {
      if (setting) return setting->flag;
      std::string flag = "--" + name;  // an option of another command: dry_run is --dry-run
      std::replace(flag.begin(), flag.end(), '_', '-');
      return flag;
    }
    case SettingSurface::keywords:
      return name + "=";
    case SettingSurface::campaign:
      break;
  }
  return name;
}

std::string spelled_with(const std::string& name, const std::string& value,
                         SettingSurface surface) {
  const std::string written = spelled(name, surface);
  return surface == SettingSurface::keywords ? written + value : written + " " + value;
}

std::string written(const std::string& name, const json& value, SettingSurface surface) {
  // The command line's text as typed ('' when empty), anything else as JSON.
  const bool typed = value.is_string() && surface == SettingSurface::command_line;
  const std::string text = !typed                             ? excerpt(value)
                           : value.get<std::string>().empty() ? "''"
                                                              : value.get<std::string>();
  switch (surface) {
    case SettingSurface::command_line:
      return spelled(name, surface) + " " + text;
    case SettingSurface::keywords:
      return name + "=" + text;
    case SettingSurface::campaign:
      break;
  }
  return name + " = " + text;
}

bool set_at_top_level(const RunSetting& setting) {
  const std::string& where = setting.campaign;
  return where == setting.name || where.rfind(setting.name + ", ", 0) == 0;
}

std::string expected_value(const RunSetting& s) {
  switch (s.type) {
    case SettingType::count:
      return "a whole number from " + json(static_cast<long>(s.min)).dump() + " to " +
             json(static_cast<long>(s.max)).dump();
    case SettingType::choice:
      return "one of " + join(s.choices, ", ");
    case SettingType::path:
      return "a path (not empty, not '-')";
    case SettingType::number:
      break;
  }
  if (std::isinf(s.min) && std::isinf(s.max)) return "a finite number";
  std::string text =
      "a finite number " + std::string(s.min_exclusive ? "> " : ">= ") + number_text(s.min);
  if (!std::isinf(s.max)) text += " and <= " + number_text(s.max);
  return text;
}

// Text the C library reads whole as a number only by rounding it to 0 or infinity (1e-400,
// 1e400): beyond the range of a double, so it is refused as written instead of as the rounded
// value.
bool beyond_double_range(const std::string& text) {
  if (text.empty()) return false;
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && errno == ERANGE &&
         (value == 0.0 || std::isinf(value));
}

std::string value_problem(const RunSetting& s, const json& value) {
  if (s.type == SettingType::number && value.is_string() &&
      beyond_double_range(value.get<std::string>()))
    return "expected " + expected_value(s) + "; " + value.get<std::string>() +
           " is beyond the range of a double (it would be read as " +
           (std::strtod(value.get<std::string>().c_str(), nullptr) == 0.0 ? "0" : "infinity") + ")";
  bool ok = false;
  if (s.type == SettingType::number && value.is_number()) {
    const double v = value.get<double>();
    ok = std::isfinite(v) && (s.min_exclusive ? v > s.min : v >= s.min) && v <= s.max;
  } else if (s.type == SettingType::count && value.is_number_integer()) {
    // Compared as doubles, so that no value overflows before it is refused.
    const double v = value.get<double>();
    ok = v >= s.min && v <= s.max;
  } else if (s.type == SettingType::choice && value.is_string()) {
    ok = std::find(s.choices.begin(), s.choices.end(), value.get<std::string>()) != s.choices.end();
  } else if (s.type == SettingType::path && value.is_string()) {
    ok = output_path_problem(value.get<std::string>()).empty();
  }
  return ok ? std::string() : "expected " + expected_value(s);
}

json value_from_text(const RunSetting& s, const std::string& text) {
  // What the C library reads as a number (.001, 1., +1e-8; a count in decimal digits), all of
  // the text; anything else stays text, which the table refuses.
  const char* begin = text.c_str();
  char* end = nullptr;
  if (s.type == SettingType::number && !text.empty() && !beyond_double_range(text)) {
    const double value = std::strtod(begin, &end);
    if (end == begin + text.size()) return value;
  }
  if (s.type == SettingType::count && !text.empty()) {
    errno = 0;
    const long long value = std::strtoll(begin, &end, 10);
    if (end == begin + text.size() && errno == 0) return value;
  }
  return text;
}

void apply_run_settings(RunConfig& config, const json& settings, SettingSurface surface) {
  for (const auto& [name, value] : settings.items()) {
    const RunSetting* s = find_run_setting(name);
    if (!s)
      throw InputError("unknown run setting '" + name + "' (valid: " + join(setting_names(), ", ") +
                       ")");
    if (value.is_null()) continue;
    for (const auto& other : s->excludes)
      if (settings.contains(other) && !settings[other].is_null())
        throw InputError("give " + spelled(*s, surface) + " or " + spelled(other, surface) +
                         ", not both");
    const std::string problem = value_problem(*s, value);
    if (!problem.empty()) throw InputError(written(s->name, value, surface) + ": " + problem);
  }
  for (const auto& s : run_settings())
    if (settings.contains(s.name) && !settings[s.name].is_null())
      s.assign(config, settings[s.name]);
}

void check_run_settings(const RunConfig& config) {
  for (const auto& s : run_settings()) {
    const json value = s.read(config);
    if (value.is_null()) continue;
    const std::string problem = value_problem(s, value);
    if (!problem.empty()) throw InputError(written(s.name, value, config.surface) + ": " + problem);
  }
}

json run_settings_json() {
  const RunConfig defaults;
  json table = json::array();
  for (const auto& s : run_settings()) {
    static const char* kTypes[] = {"number", "count", "choice", "path"};
    json entry = {{"name", s.name},
                  {"flag", s.flag},
                  {"campaign", s.campaign},
                  {"type", kTypes[static_cast<int>(s.type)]},
                  {"expected", expected_value(s)},
                  {"default", s.read(defaults)},
                  {"help", s.help}};
    if (!s.excludes.empty()) entry["excludes"] = s.excludes;
    table.push_back(entry);
  }
  return table;
}

}  // namespace cmb
