// Strict parameter parsing: unknown keys, wrong types and out-of-range values are errors that
// name the key and what is valid; defaults fill in; the Baumgarte gain rules hold.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <optional>
#include <random>
#include <set>
#include <sstream>

#include "catalog/catalog.hpp"
#include "core/errors.hpp"
#include "core/params.hpp"
#include "harness/run/run.hpp"
#include "methods/base/acceleration_method.hpp"

namespace cmb {
namespace {

std::vector<ParamSpec> specs() {
  ParamSpec n;
  n.name = "N";
  n.type = ParamType::integer;
  n.default_value = 4;
  n.min = 1;
  ParamSpec mode;
  mode.name = "mode";
  mode.type = ParamType::choice;
  mode.default_value = "a";
  mode.choices = {"a", "b"};
  return {positive_number("length", 1.0, "m"), n, mode};
}

std::string error_of(const nlohmann::json& given) {
  try {
    parse_params("thing 'x'", given, specs());
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Params, DefaultsFillIn) {
  const Params p = parse_params("thing 'x'", nlohmann::json::object(), specs());
  EXPECT_EQ(p.number("length"), 1.0);
  EXPECT_EQ(p.integer("N"), 4);
  EXPECT_EQ(p.choice("mode"), "a");
  EXPECT_FALSE(p.was_given("N"));
}

TEST(Params, UnknownKeyNamesItAndListsValidOnes) {
  const std::string msg = error_of({{"lenght", 2.0}});
  EXPECT_NE(msg.find("'lenght'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("length, N, mode"), std::string::npos) << msg;
}

TEST(Params, WrongTypesAreRejected) {
  EXPECT_NE(error_of({{"length", "long"}}).find("expects a number"), std::string::npos);
  EXPECT_NE(error_of({{"N", 2.5}}).find("expects an integer"), std::string::npos);
  EXPECT_NE(error_of({{"mode", "c"}}).find("valid: a, b"), std::string::npos);
  EXPECT_NE(error_of(nlohmann::json::array()).find("must be a JSON object"), std::string::npos);
}

TEST(Params, RangesAreEnforced) {
  EXPECT_NE(error_of({{"length", 0.0}}).find("> 0"), std::string::npos);
  EXPECT_NE(error_of({{"N", 0}}).find(">= 1"), std::string::npos);
}

TEST(Params, CliValuesParseAsJsonScalarsOrText) {
  EXPECT_TRUE(parse_cli_value("2").is_number());
  EXPECT_TRUE(parse_cli_value("true").is_boolean());
  EXPECT_TRUE(parse_cli_value("dense").is_string());
  EXPECT_TRUE(parse_cli_value("[1,2]").is_string());
}

std::vector<ParamSpec> renamed_specs() {
  ParamSpec zeta = nonnegative_number("zeta", 1.0, "damping ratio");
  zeta.aliases = {"xi"};
  return {zeta};
}

TEST(Params, AnAliasSetsTheParameterUnderItsCurrentName) {
  const Params p = parse_params("m", {{"xi", 0.5}}, renamed_specs());
  EXPECT_EQ(p.number("zeta"), 0.5);
  EXPECT_TRUE(p.was_given("zeta"));
  EXPECT_EQ(canonical_params("m", {{"xi", 0.5}}, renamed_specs()), nlohmann::json({{"zeta", 0.5}}));
}

TEST(Params, AnAliasBesideItsNameIsAnErrorNamingBoth) {
  try {
    parse_params("method 'm'", {{"zeta", 1.0}, {"xi", 0.5}}, renamed_specs());
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("'xi'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("'zeta'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("given twice"), std::string::npos) << msg;
  }
  // A range error names the key as the user wrote it and the parameter it stands for.
  try {
    parse_params("method 'm'", {{"xi", -1.0}}, renamed_specs());
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'xi' (alias of 'zeta')"), std::string::npos) << e.what();
  }
}

// augmented_lagrangian's gains carry baumgarte's names; the former ones give the same run.
TEST(Params, FormerGainNamesGiveTheSameRunKeyAndRecord) {
  RunConfig config;
  config.problem = "simple_pendulum";
  config.method = "augmented_lagrangian";
  config.stepper = "rk4";
  config.dt = 1e-3;
  config.method_params = {{"omega", 20.0}, {"xi", 1.0}};
  const PreparedRun old_names = prepare_run(config);
  config.method_params = {{"omega0", 20.0}};
  const PreparedRun new_names = prepare_run(config);
  EXPECT_EQ(old_names.key, new_names.key);
  EXPECT_EQ(new_names.key, "simple_pendulum/augmented_lagrangian[omega0=20]/rk4/dt=0.001");
  EXPECT_EQ(old_names.config.method_params, nlohmann::json({{"omega0", 20.0}, {"zeta", 1.0}}));
}

// One value, one key: a number given as 10, 10.0, 1e1 or "10" on the command line, whatever the
// digits, names one run; so does an integer given as 3 or 3.0. Generated values, each written
// in several ways.
TEST(Params, EverySpellingOfANumberGivesOneRunKey) {
  RunConfig config;
  config.problem = "n_pendulum";
  config.method = "baumgarte";
  config.stepper = "rk4";
  config.dt = 1e-3;
  std::mt19937_64 random(27);
  std::uniform_int_distribution<int> exponent(-8, 8);
  std::uniform_real_distribution<double> mantissa(1.0, 10.0);
  for (int trial = 0; trial < 200; ++trial) {
    const bool integral = trial % 2 == 0;
    const double value = integral ? std::floor(mantissa(random) * 100.0)
                                  : mantissa(random) * std::pow(10.0, exponent(random));
    std::vector<nlohmann::json> spellings = {value};
    if (integral) spellings.push_back(static_cast<long>(value));
    for (const char* format : {"%.17g", "%.17e", "%.20f"}) {
      char text[64];
      std::snprintf(text, sizeof text, format, value);
      if (std::strtod(text, nullptr) == value) spellings.push_back(parse_cli_value(text));
    }
    std::set<std::string> keys;
    for (const auto& alpha : spellings) {
      config.method_params = {{"alpha", alpha}, {"beta", alpha}};
      config.problem_params = {{"N", integral ? nlohmann::json(3.0) : nlohmann::json(3)}};
      keys.insert(prepare_run(config).key);
    }
    EXPECT_EQ(keys.size(), 1u) << "value " << value << ": "
                               << join({keys.begin(), keys.end()}, " ");
  }
}

// A written index as the grammar allows it: decimal digits (at most 9) with spaces around.
std::optional<long> index_as_written(const std::string& item) {
  const auto first = item.find_first_not_of(' ');
  if (first == std::string::npos) return std::nullopt;
  const std::string digits = item.substr(first, item.find_last_not_of(' ') - first + 1);
  if (digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  return std::stol(digits);
}

// Generated texts for coordinate_partitioning's `independent`: each is refused with a message
// naming the parameter, or runs under the key of its one spelling (sorted indices, no spaces
// or leading zeros), which reads back as itself; what is refused is exactly what does not read
// as a list of distinct decimal indices.
TEST(Params, IndependentCoordinatesAreOneSpellingOrRefused) {
  RunConfig config;
  config.problem = "n_pendulum";
  config.problem_params = {{"N", 2}};
  config.method = "coordinate_partitioning";
  config.stepper = "rk4";
  config.dt = 1e-3;
  const std::string alphabet = "0123, x.e-+";
  std::mt19937_64 random(7);
  int accepted = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::string text;
    const int length = static_cast<int>(random() % 9);
    for (int i = 0; i < length; ++i) text += alphabet[random() % alphabet.size()];
    std::set<long> indices;
    bool valid = !text.empty() && text.back() != ',';
    std::stringstream in(text);
    for (std::string item; valid && std::getline(in, item, ',');) {
      const auto index = index_as_written(item);
      valid = index && indices.insert(*index).second;
    }
    config.method_params = {{"independent", text}};
    try {
      const std::string key = prepare_run(config).key;
      EXPECT_TRUE(valid) << "'" << text << "' was accepted";
      std::vector<std::string> written;
      for (long index : indices) written.push_back(std::to_string(index));
      const std::string canonical = join(written, ",");
      EXPECT_NE(key.find("[independent=\"" + canonical + "\"]"), std::string::npos) << key;
      config.method_params = {{"independent", canonical}};
      EXPECT_EQ(prepare_run(config).key, key) << "'" << text << "'";
      ++accepted;
    } catch (const InputError& e) {
      EXPECT_FALSE(valid) << "'" << text << "' was refused: " << e.what();
      EXPECT_NE(std::string(e.what()).find("'independent'"), std::string::npos) << e.what();
    }
  }
  EXPECT_GT(accepted, 100);  // the generator reaches both sides
}

TEST(BaumgarteGains, OmegaZetaMapToAlphaBeta) {
  const auto spec = baumgarte_param_specs(10.0);
  const auto gains =
      resolve_baumgarte_gains(parse_params("m", {{"omega0", 20.0}, {"zeta", 0.5}}, spec), "m");
  EXPECT_DOUBLE_EQ(gains.alpha, 10.0);
  EXPECT_DOUBLE_EQ(gains.beta, 20.0);
  const auto defaults = resolve_baumgarte_gains(parse_params("m", {}, spec), "m");
  EXPECT_DOUBLE_EQ(defaults.alpha, 10.0);  // critical damping at omega0 = 10
  EXPECT_DOUBLE_EQ(defaults.beta, 10.0);
  const auto explicit_gains =
      resolve_baumgarte_gains(parse_params("m", {{"alpha", 20.0}, {"beta", 10.0}}, spec), "m");
  EXPECT_DOUBLE_EQ(explicit_gains.alpha, 20.0);
  EXPECT_DOUBLE_EQ(explicit_gains.beta, 10.0);
}

TEST(BaumgarteGains, MixedOrIncompleteParameterizationsAreErrors) {
  const auto spec = baumgarte_param_specs(10.0);
  EXPECT_THROW(resolve_baumgarte_gains(parse_params("m", {{"alpha", 1.0}}, spec), "m"), InputError);
  EXPECT_THROW(resolve_baumgarte_gains(
                   parse_params("m", {{"alpha", 1.0}, {"beta", 1.0}, {"omega0", 3.0}}, spec), "m"),
               InputError);
}

TEST(Registry, UnknownIdsListValidOnes) {
  try {
    make_method("baumgarde", {});
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("baumgarte"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("index1"), std::string::npos);
  }
  EXPECT_THROW(make_problem("pendulum", {}), InputError);
}

// add_methods / add_problems (what an out-of-tree program's generated main calls) refuse an id
// already in the table or one that could not be a run key or file name, and leave the table as
// it was.
TEST(Registry, AddingATakenOrMalformedIdIsRefused) {
  const std::size_t methods = method_registry().size();
  MethodEntry copy = find_method("index1");
  EXPECT_THROW(add_methods({copy}), std::invalid_argument);
  copy.id = "Index-1";
  EXPECT_THROW(add_methods({copy}), std::invalid_argument);
  EXPECT_EQ(method_registry().size(), methods);
  ProblemEntry problem = find_problem("simple_pendulum");
  EXPECT_THROW(add_problems({problem}), std::invalid_argument);
  problem.id = "new_problem";
  problem.make = nullptr;
  EXPECT_THROW(add_problems({problem}), std::invalid_argument);
  EXPECT_THROW(find_problem("new_problem"), InputError);
}

TEST(Registry, ListsAreSortedAndUnique) {
  for (std::size_t i = 1; i < method_registry().size(); ++i)
    EXPECT_LT(method_registry()[i - 1].id, method_registry()[i].id);
  for (std::size_t i = 1; i < problem_registry().size(); ++i)
    EXPECT_LT(problem_registry()[i - 1].id, problem_registry()[i].id);
}

}  // namespace
}  // namespace cmb
