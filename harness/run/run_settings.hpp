// The run settings, declared once: name (the JSON key of a run request and the Python keyword),
// command-line flag, where a campaign file sets it, type and range, default and help. The command
// line (`cmbench run`), the Python module (cmbench.run, through run_config_from_json) and campaign
// files all read a setting's value through this table, so a value one of them accepts the others
// accept too, with the same meaning; messages name the setting as the caller wrote it.
// `cmbench describe run-settings` prints the table; docs/campaigns.md and help(cmbench.run) are
// generated from it.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/run/run.hpp"

namespace cmb {

enum class SettingType {
  number,  // a finite JSON number within [min, max] (or (min, max] when min_exclusive)
  count,   // a JSON integer within [min, max]
  choice,  // one of `choices`
  path     // a non-empty string
};

struct RunSetting {
  std::string name;      // JSON key, Python keyword
  std::string flag;      // `cmbench run` option
  std::string campaign;  // where a campaign file sets it: its name at the top level, an entry's
                         // key ("problems[].t_end"), or empty when campaigns do not
  SettingType type = SettingType::number;
  double min = 0.0, max = 0.0;
  bool min_exclusive = false;
  std::vector<std::string> choices;
  std::vector<std::string> excludes;  // settings that cannot be given with this one
  std::string help;
  std::function<void(RunConfig&, const nlohmann::json&)> assign;  // a checked value
  std::function<nlohmann::json(const RunConfig&)> read;  // null: unset (the default when unset)
};

const std::vector<RunSetting>& run_settings();
// The setting called `name`, or nullptr.
const RunSetting* find_run_setting(const std::string& name);
// The setting as `surface` spells it: "--max-steps", "max_steps=" or "max_steps"; a name not in
// the table (a campaign option: dry_run) the same way ("--dry-run", "dry_run=").
std::string spelled(const RunSetting& setting, SettingSurface surface);
// The name spelled as `surface` does, for messages of later checks that name a setting.
std::string spelled(const std::string& name, SettingSurface surface);

// Whether a campaign file sets `setting` at its top level (for all runs), as against in its
// entries.
bool set_at_top_level(const RunSetting& setting);

// The name with a value as `surface` writes it, for messages: "--max-steps 0", "max_steps=0",
// "--shard 4/3", "shard=\"4/3\"" (the command line's text as typed, other values as JSON).
std::string written(const std::string& name, const nlohmann::json& value, SettingSurface surface);
// The name with a value, as `surface` writes it: "--integrator ida", "integrator=ida".
std::string spelled_with(const std::string& name, const std::string& value, SettingSurface surface);

// What a valid value is ("a whole number from 1 to 1e+12"), for help and messages.
std::string expected_value(const RunSetting& setting);
// Empty when `value` is valid for `setting`, else what is expected ("expected a finite number >
// 0").
std::string value_problem(const RunSetting& setting, const nlohmann::json& value);
// Command-line text as the JSON value the table checks: numbers for number and count settings
// (as strtod and decimal strtoll read all of it; other text stays text, and is refused by
// value_problem), text otherwise.
nlohmann::json value_from_text(const RunSetting& setting, const std::string& text);

// Applies the given settings (name → value; null values are skipped) to `config`: each value is
// checked against the table and two settings that exclude each other are refused. Throws
// InputError naming the setting as `surface` spells it (an unknown name lists the valid ones).
void apply_run_settings(RunConfig& config, const nlohmann::json& settings, SettingSurface surface);

// Checks every setting `config` holds against the table (for configurations built in code, which
// no reader checked), naming the first bad one as config.surface spells it.
void check_run_settings(const RunConfig& config);

// The table as JSON (name, flag, campaign, type, range, choices, excludes, default, help): what
// `cmbench describe run-settings --json` prints and the generated docs read.
nlohmann::json run_settings_json();

}  // namespace cmb
