// The run-settings table (harness/run/run_settings.hpp) is the one reader of a run's settings:
// over generated values of every setting, a JSON run request (what cmbench.run sends), the
// command line's text and a campaign file accept the same values, refuse the same ones with a
// message naming the setting as that caller writes it, and give the same configuration.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>

#include "core/errors.hpp"
#include "harness/campaign/campaign.hpp"
#include "harness/run/run_request.hpp"
#include "harness/run/run_settings.hpp"

namespace cmb::test {
namespace {

using nlohmann::json;

// Values of every JSON kind around the table's bounds: numbers of both signs over 600 decades
// and at 0, integers around 0, 1, 1000 and 10^12 (each ± 1), whole numbers written as reals,
// text (the choices, numbers as text, other words, ""), booleans, arrays and objects.
std::vector<json> generated_values(std::mt19937_64& rng, int count) {
  std::vector<json> values = {0,
                              1,
                              -1,
                              1000,
                              1001,
                              1000000000000LL,
                              1000000000001LL,
                              3.0,
                              0.0,
                              -0.0,
                              1e-300,
                              1e300,
                              "problem",
                              "self_converged",
                              "reject",
                              "project",
                              "",
                              "-",
                              "3",
                              "1e-6",
                              "x",
                              true,
                              false,
                              json::array({1}),
                              json::object()};
  std::uniform_real_distribution<double> exponent(-300.0, 300.0), unit(0.0, 1.0);
  std::uniform_int_distribution<long long> small(-5, 2000), kind(0, 4);
  while (static_cast<int>(values.size()) < count) {
    switch (kind(rng)) {
      case 0:
        values.push_back((unit(rng) < 0.5 ? -1.0 : 1.0) * std::pow(10.0, exponent(rng)));
        break;
      case 1:
        values.push_back(small(rng));
        break;
      case 2:
        values.push_back(static_cast<double>(small(rng)));  // a whole number written as a real
        break;
      case 3:
        values.push_back(1000000000000LL + small(rng) - 1000);
        break;
      default:
        values.push_back(std::to_string(small(rng)) + (unit(rng) < 0.5 ? "" : "s"));
    }
  }
  return values;
}

// What the three readers made of one value: refused by the table (with the message), or the
// setting's value in the configuration they built.
struct Reading {
  bool refused = false;
  std::string message;
  json value;
};

template <class Read>
Reading read_with(const RunSetting& setting, Read read) {
  Reading out;
  try {
    out.value = setting.read(read());
  } catch (const InputError& e) {
    out.refused = true;
    out.message = e.what();
  }
  return out;
}

RunConfig from_request(const RunSetting& setting, const json& value) {
  json request = {{"problem", "simple_pendulum"}, {"method", "index1"}, {"stepper", "rk4"}};
  request[setting.name] = value;
  return run_config_from_json(request);
}

// The command line: the option's text, read as `cmbench run` reads it.
RunConfig from_text(const RunSetting& setting, const std::string& text) {
  RunConfig config;
  apply_run_settings(config, {{setting.name, value_from_text(setting, text)}},
                     SettingSurface::command_line);
  return config;
}

// A one-run campaign with the value where the table says a campaign file sets it; the JSON
// path of the value, or empty when campaigns do not take the setting.
std::string place_in_campaign(const RunSetting& setting, const json& value, json& doc) {
  doc = {{"name", "settings"},
         {"repeat", 0},
         {"problems", {{{"id", "simple_pendulum"}, {"t_end", 1}}}},
         {"methods", {{{"id", "index1"}}}},
         {"steppers", {{{"id", "rk4"}, {"dt", 0.01}}}}};
  if (set_at_top_level(setting)) {
    doc[setting.name] = value;
    return "/" + setting.name;
  }
  const std::string where = setting.campaign;
  if (where == "problems[].t_end" || where == "problems[].perturbations[].position" ||
      where == "problems[].perturbations[].velocity") {
    const bool horizon = where == "problems[].t_end";
    const std::string axis = where.substr(where.rfind('.') + 1);
    if (horizon)
      doc["problems"][0]["t_end"] = value;
    else
      doc["problems"][0]["perturbations"] = {{{axis, value}}};
    return horizon ? "/problems/0/t_end" : "/problems/0/perturbations/0/" + axis;
  }
  if (where.rfind("steppers[].", 0) == 0) {
    const std::string key = where.substr(11, where.find(',') - 11);
    doc["steppers"][0] = key == "dt" ? json{{"id", "rk4"}} : json{{"id", "dopri5"}, {"tol", 1e-6}};
    if (key == "max_dt") {
      doc["steppers"][0][key] = value;
      return "/steppers/0/" + key;
    }
    doc["steppers"][0][key] = json::array({value});  // an element of a sweep
    return "/steppers/0/" + key + "/0";
  }
  EXPECT_TRUE(where.empty()) << setting.name << ": campaign key '" << where << "' not placed";
  return "";
}

TEST(RunSettings, EveryCallerReadsAGeneratedValueAlike) {
  std::mt19937_64 rng(20261127);
  int compared = 0;
  for (const auto& setting : run_settings()) {
    int placed = 0;
    for (const json& value : generated_values(rng, 160)) {
      const bool valid = value_problem(setting, value).empty();
      const Reading keywords = read_with(setting, [&] { return from_request(setting, value); });
      EXPECT_EQ(keywords.refused, !valid) << setting.name << " = " << value.dump();
      if (keywords.refused) {
        EXPECT_EQ(keywords.message.rfind(setting.name + "=", 0), 0u) << keywords.message;
      }
      // The command line writes text; a value it cannot write (text that reads as a number for
      // a numeric setting) is the JSON request's business only.
      const std::string text = value.is_string() ? value.get<std::string>() : value.dump();
      if (value_from_text(setting, text) == value) {
        const Reading cli = read_with(setting, [&] { return from_text(setting, text); });
        EXPECT_EQ(cli.refused, keywords.refused) << setting.flag << " " << text;
        EXPECT_EQ(cli.value, keywords.value) << setting.flag << " " << text;
        if (cli.refused) {
          EXPECT_EQ(cli.message.rfind(setting.flag + " ", 0), 0u) << cli.message;
        }
      }
      json doc;
      const std::string path = place_in_campaign(setting, value, doc);
      if (path.empty() || placed++ >= 40) continue;  // campaigns expand and prepare: fewer
      std::string message;
      json in_campaign;
      try {
        in_campaign = setting.read(campaign_from_document(doc).runs.at(0).config);
      } catch (const InputError& e) {
        message = e.what();
      }
      const bool refused_by_table = message.rfind("campaign " + path + ": expected", 0) == 0;
      EXPECT_EQ(refused_by_table, !valid) << path << " = " << value.dump() << ": " << message;
      if (message.empty()) {
        EXPECT_EQ(in_campaign, keywords.value) << path << " = " << value.dump();
      }
      ++compared;
    }
  }
  EXPECT_GT(compared, 300);  // every campaign-settable setting had its share of cases
}

// A number typed beyond a double's range (1e-400, 7.5e+1234) is refused as typed, saying so,
// instead of as the 0 or infinity it would be read as; generated texts, every numeric setting.
TEST(RunSettings, ANumberBeyondADoublesRangeIsRefusedAsTyped) {
  std::mt19937_64 rng(400);
  int refused = 0;
  for (const auto& setting : run_settings()) {
    if (setting.type != SettingType::number) continue;
    for (int trial = 0; trial < 40; ++trial) {
      const bool tiny = trial % 2 == 0;
      const std::string text = std::to_string(1 + rng() % 9) + "." + std::to_string(rng() % 100) +
                               (tiny ? "e-" : "e+") + std::to_string(330 + rng() % 5000);
      const Reading cli = read_with(setting, [&] { return from_text(setting, text); });
      ASSERT_TRUE(cli.refused) << setting.flag << " " << text;
      EXPECT_EQ(cli.message.rfind(setting.flag + " " + text + ": ", 0), 0u) << cli.message;
      EXPECT_NE(cli.message.find("beyond the range of a double (it would be read as " +
                                 std::string(tiny ? "0" : "infinity") + ")"),
                std::string::npos)
          << cli.message;
      ++refused;
    }
  }
  EXPECT_GT(refused, 100);
}

TEST(RunSettings, DefaultsAreValidAndReadBackUnchanged) {
  const RunConfig defaults;
  for (const auto& setting : run_settings()) {
    const json value = setting.read(defaults);
    if (value.is_null()) continue;
    EXPECT_EQ(value_problem(setting, value), "") << setting.name;
    RunConfig written = defaults;
    setting.assign(written, value);
    for (const auto& other : run_settings())
      EXPECT_EQ(other.read(written), other.read(defaults)) << setting.name << " → " << other.name;
  }
}

TEST(RunSettings, NamesFlagsAndExclusionsAreConsistent) {
  std::set<std::string> names, flags;
  for (const auto& setting : run_settings()) {
    EXPECT_TRUE(names.insert(setting.name).second) << setting.name;
    EXPECT_TRUE(flags.insert(setting.flag).second) << setting.flag;
    EXPECT_EQ(setting.flag.rfind("--", 0), 0u) << setting.flag;
    for (const auto& other : setting.excludes) {
      const RunSetting* excluded = find_run_setting(other);
      ASSERT_NE(excluded, nullptr) << setting.name << " excludes unknown " << other;
      EXPECT_NE(std::find(excluded->excludes.begin(), excluded->excludes.end(), setting.name),
                excluded->excludes.end())
          << other << " does not exclude " << setting.name;
    }
  }
}

TEST(RunSettings, TwoSettingsThatExcludeEachOtherAreRefusedOnEverySurface) {
  json request = {{"problem", "simple_pendulum"},
                  {"method", "index1"},
                  {"stepper", "dopri5"},
                  {"tol", 1e-6},
                  {"abs_tol", 1e-8}};
  try {
    run_config_from_json(request);
    ADD_FAILURE() << "tol= with abs_tol= was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("abs_tol="), std::string::npos) << e.what();
  }
  RunConfig config;
  EXPECT_THROW(
      apply_run_settings(config, {{"tol", 1e-6}, {"rel_tol", 1e-8}}, SettingSurface::command_line),
      InputError);
}

// python/cmbench/run_settings.json, from which help(cmbench.run) and docs/campaigns.md are
// written, is the table the program reads with.
TEST(RunSettings, TheCommittedTableIsTheProgramsTable) {
  std::ifstream in(std::string(CMB_SOURCE_DIR) + "/python/cmbench/run_settings.json");
  ASSERT_TRUE(in) << "python/cmbench/run_settings.json is missing";
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(json::parse(text.str()), run_settings_json())
      << "regenerate it: build/cmbench describe run-settings --json > "
         "python/cmbench/run_settings.json";
}

}  // namespace
}  // namespace cmb::test
