// Self-converged references, checked against a problem whose independent reference is known:
// the crank-rocker's reduced one-coordinate ODE (accurate to 1e-9, tests/test_references.cpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "catalog/catalog.hpp"
#include "harness/run/self_converged.hpp"
#include "records/reference_cache.hpp"
#include "records/store.hpp"
#include "test_support.hpp"

namespace cmb::test {
namespace {

TEST(SelfConverged, AgreesWithAnIndependentReferenceAndIsCached) {
  const std::string cache = scratch_path("self_converged_test").string();
  std::filesystem::remove_all(cache);
  auto problem = make_problem("crank_rocker", {});
  const double t_end = 2.0;
  const SelfConvergedReference ref = self_converged_reference(*problem, t_end, nullptr, cache);
  EXPECT_FALSE(ref.from_cache);
  // Two tolerance-1e-12 runs over 2 s agree to ~1e-12; 1e-9 is the accuracy claimed for the
  // reduced-ODE reference they are compared with below.
  EXPECT_LT(ref.agreement, 1e-9);
  const Mat independent = problem->reference_outputs(ref.grid);
  EXPECT_LT((ref.outputs - independent).cwiseAbs().maxCoeff(), 1e-9);
  EXPECT_TRUE(std::filesystem::exists(ref.cache_file));

  const SelfConvergedReference again = self_converged_reference(*problem, t_end, nullptr, cache);
  EXPECT_TRUE(again.from_cache);
  EXPECT_EQ((again.outputs - ref.outputs).cwiseAbs().maxCoeff(), 0.0);

  // Grid times get their grid values; times between them the interpolant's, as accurate as the
  // grid plus the interpolation error it states.
  const SampledReference at_grid = sample_reference(ref, {0.02, 2.0});
  EXPECT_FALSE(at_grid.interpolated);
  EXPECT_EQ(at_grid.values(1, 0), ref.outputs(ref.outputs.rows() - 1, 0));
  const std::vector<double> between = {0.0213, 0.77777, 1.9991};
  const SampledReference read = sample_reference(ref, between);
  EXPECT_TRUE(read.interpolated);
  EXPECT_LT((read.values - problem->reference_outputs(between)).cwiseAbs().maxCoeff(),
            1e-9 + read.interpolation_error);
  std::filesystem::remove_all(cache);
}

// Steps longer than the sampling interval (here Bricard's first 0.2 s sampled every 2 ms at
// tolerance 1e-12) must still stop on every grid time, including those inside the last
// step: an earlier version jumped from the last-but-few sample straight to t_end, leaving the
// two reference runs with different row counts.
TEST(SelfConverged, EveryGridTimeIsLandedOnEvenInsideTheLastStep) {
  const std::string cache = scratch_path("self_converged_grid").string();
  std::filesystem::remove_all(cache);
  auto problem = make_problem("bricard", {});
  const SelfConvergedReference ref = self_converged_reference(*problem, 0.2, nullptr, cache);
  ASSERT_EQ((ref.grid.size() - 1) % 200, 0u);  // the 100 sampling intervals cut in 2, 8, …
  EXPECT_EQ(ref.outputs.rows(), static_cast<Eigen::Index>(ref.grid.size()));
  // Both tolerance-1e-12 runs over 0.2 s: agreement near 1e-12, far below any step error.
  EXPECT_LT(ref.agreement, 1e-9);
  std::filesystem::remove_all(cache);
}

// A run is a leaf: its self-converged reference is resolved before it starts, and when that
// reference cannot be computed the run ends reference_failed without integrating — never `ok`
// with errors silently missing. Here the recipe cannot pass A02's singular position (t ≈ 0.72 s,
// every rocker horizontal): its augmented-Lagrangian run stops there (newton_failed), as every
// method without rank truncation does.
TEST(SelfConverged, AReferenceThatCannotBeComputedEndsTheRunReferenceFailed) {
  const std::string cache = scratch_path("self_converged_failed").string();
  std::filesystem::remove_all(cache);
  RunConfig c;
  c.problem = "n_four_bar";
  c.problem_params = {{"N", 20}, {"t_end", 1.0}};
  c.method = "index1";
  c.stepper = "dopri5";
  c.abs_tol = c.rel_tol = 1e-6;
  c.repeat = 0;
  c.reference = "self_converged";
  c.reference_cache = cache;
  PreparedRun run = prepare_run(c);
  // Without resolving first, execute_run refuses to run without the reference it needs.
  EXPECT_THROW(execute_run(run), std::logic_error);
  resolve_reference(run);
  ASSERT_FALSE(run.reference_failure.empty());
  const nlohmann::json record = to_json(execute_run(run).record);
  EXPECT_EQ(record["status"], "reference_failed");
  const std::string message = record["message"];
  EXPECT_EQ(message.rfind("the self-converged reference could not be computed: "
                          "self-converged reference run n_four_bar[N=20]/",
                          0),
            0u)
      << message;
  EXPECT_FALSE(record.contains("metrics"));
  EXPECT_EQ(record["reference"]["kind"], "self_converged");
  EXPECT_EQ(record["reference"]["accuracy"], nullptr);
  // The cache may hold the lock its computation took, but no reference.
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(cache, ec))
    EXPECT_NE(entry.path().extension(), ".json")
        << "a failed reference was cached: " << entry.path();
  std::filesystem::remove_all(cache);
}

// A valid entry of 17 grid times and 2 outputs, as write_reference_cache writes it.
struct ValidEntry {
  ReferenceCacheExpectation expected;
  CachedReference entry;
  nlohmann::json doc;
};

ValidEntry valid_entry(const std::string& dir) {
  ValidEntry v;
  v.expected.key = {{"problem", "p"}, {"params", {{"a", 1}}}, {"t_end", 1.0}, {"format", 4}};
  v.expected.t_end = 1.0;
  v.expected.outputs = 2;
  std::vector<double> grid;
  for (int k = 0; k <= 16; ++k) grid.push_back(1.0 * k / 16);
  v.entry = {grid, Mat::Random(17, 2), 1e-12, std::vector<double>(16, 3e-13), {{"note", "test"}}};
  const std::string file = dir + "/valid.json";
  write_reference_cache(file, v.expected.key, v.entry);
  std::ifstream in(file);
  in >> v.doc;
  return v;
}

// `doc` with its digest made again for its content, as a writer of a wrong layout would.
nlohmann::json signed_again(nlohmann::json doc) {
  doc.erase("digest");
  doc["digest"] = cmb::store_digest(doc.dump());
  return doc;
}

// Damaged copies of a valid entry: every row one value short or long, rows missing or extra,
// every kind of wrong value in cells, grid, agreement and provenance, another key, and members
// missing. Each carries a digest of its own content, so that the layout checks are what refuses
// it; each must be refused, none read.
std::vector<nlohmann::json> damaged_variants(const nlohmann::json& valid) {
  std::vector<nlohmann::json> variants;
  auto add = [&](const std::function<void(nlohmann::json&)>& damage) {
    nlohmann::json copy = valid;
    damage(copy);
    variants.push_back(signed_again(copy));
  };
  const std::vector<nlohmann::json> wrong_values = {
      nullptr, "1", true, nlohmann::json::array(), nlohmann::json::object(), -1};
  for (std::size_t i = 0; i < valid["outputs"].size(); ++i) {
    add([i](nlohmann::json& d) { d["outputs"][i].erase(d["outputs"][i].size() - 1); });
    add([i](nlohmann::json& d) { d["outputs"][i].push_back(0.5); });
    add([i](nlohmann::json& d) { d["outputs"].erase(i); });
    for (const auto& wrong : wrong_values)
      if (!wrong.is_number()) add([&, i](nlohmann::json& d) { d["outputs"][i][i % 2] = wrong; });
  }
  add([](nlohmann::json& d) { d["outputs"].push_back(d["outputs"][0]); });
  for (std::size_t k = 0; k < valid["grid"].size(); ++k) {
    add([k](nlohmann::json& d) { d["grid"][k] = d["grid"][k].get<double>() + 1e-3; });
    add([k](nlohmann::json& d) { d["grid"].erase(k); });
  }
  for (const auto& wrong : wrong_values) {
    add([&](nlohmann::json& d) { d["agreement"] = wrong; });
    add([&](nlohmann::json& d) { d["interval_errors"] = wrong; });
    add([&](nlohmann::json& d) { d["interval_errors"][3] = wrong; });
    if (!wrong.is_object()) add([&](nlohmann::json& d) { d["provenance"] = wrong; });
  }
  for (const auto& [member, value] : valid["key"].items())
    add([member = member](nlohmann::json& d) { d["key"][member] = "another"; });
  // A grid of another size is another table: the rows must follow it, and an odd number of
  // intervals has no even subgrid to estimate the interpolation error from.
  add([](nlohmann::json& d) {
    d["grid"].erase(16);
    d["outputs"].erase(16);
    d["interval_errors"].erase(15);
  });
  add([](nlohmann::json& d) { d["interval_errors"].erase(15); });

  for (const char* member :
       {"key", "grid", "outputs", "agreement", "interval_errors", "provenance"})
    add([member](nlohmann::json& d) { d.erase(member); });
  return variants;
}

TEST(ReferenceCache, EveryDamagedEntryIsRefusedNamingWhereAndNoneIsRead) {
  const std::string dir = scratch_path("reference_cache_variants").string();
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const ValidEntry v = valid_entry(dir);
  std::string why;
  const auto read = parse_reference_cache(v.doc.dump(), v.expected, why);
  ASSERT_TRUE(read) << why;
  EXPECT_EQ(read->outputs, v.entry.outputs);  // the writer's numbers round-trip exactly
  const auto variants = damaged_variants(v.doc);
  ASSERT_GT(variants.size(), 100u);
  for (const auto& bad : variants) {
    EXPECT_FALSE(parse_reference_cache(bad.dump(), v.expected, why)) << bad.dump();
    EXPECT_EQ(why.front(), '/') << why;  // names the JSON path of the violation
  }
  // Nor is an entry edited within its layout (any value changed): its digest refuses it.
  for (std::size_t i = 0; i < v.doc["outputs"].size(); ++i)
    for (std::size_t j = 0; j < 2; ++j) {
      nlohmann::json edited = v.doc;
      edited["outputs"][i][j] = edited["outputs"][i][j].get<double>() * (1 + 1e-9) + 1e-12;
      EXPECT_FALSE(parse_reference_cache(edited.dump(), v.expected, why)) << i << "," << j;
      EXPECT_EQ(why.rfind("/digest", 0), 0u) << why;
    }
  nlohmann::json unsigned_entry = v.doc;
  unsigned_entry.erase("digest");
  EXPECT_FALSE(parse_reference_cache(unsigned_entry.dump(), v.expected, why));
  // A file cut short anywhere is no entry either.
  const std::string text = v.doc.dump(1);
  for (std::size_t cut = 0; cut + 2 < text.size(); cut += 3)
    EXPECT_FALSE(parse_reference_cache(text.substr(0, cut), v.expected, why)) << cut;
  std::filesystem::remove_all(dir);
}

// The reported failures: a cache entry whose outputs table lost its last value was read past its
// end, and one whose values were edited was read as they were, and the run ended ok with a wild
// error. A damaged entry is recomputed and replaced, and the run scores against the same
// reference as with a clean cache.
TEST(ReferenceCache, ADamagedEntryIsRecomputedAndTheRunScoresAsWithACleanCache) {
  const std::string cache = scratch_path("reference_cache_damaged").string();
  std::filesystem::remove_all(cache);
  RunConfig c;
  c.problem = "crank_rocker";
  c.method = "index1";
  c.stepper = "dopri5";
  c.abs_tol = c.rel_tol = 1e-8;
  c.t_end = 0.2;
  c.repeat = 0;
  c.reference = "self_converged";
  c.reference_cache = cache;
  PreparedRun clean = prepare_run(c);
  const nlohmann::json first = to_json(run_with_reference(clean).record);
  ASSERT_EQ(first["status"], "ok");
  const std::string file = first["reference"]["cache_file"];
  const std::vector<std::function<void(nlohmann::json&)>> damages = {
      [](nlohmann::json& doc) { doc["outputs"].back().erase(doc["outputs"].back().size() - 1); },
      [](nlohmann::json& doc) {  // every value moved by 1e-2: the layout kept
        for (auto& row : doc["outputs"])
          for (auto& value : row) value = value.get<double>() + 1e-2;
      }};
  for (const auto& damage : damages) {
    nlohmann::json doc;
    std::ifstream(file) >> doc;
    damage(doc);
    std::ofstream(file) << doc.dump(1);

    PreparedRun damaged = prepare_run(c);
    const nlohmann::json second = to_json(run_with_reference(damaged).record);
    EXPECT_EQ(second["reference"]["from_cache"], false);
    EXPECT_EQ(second["status"], "ok");
    EXPECT_EQ(second["metrics"]["error"], first["metrics"]["error"]);
    PreparedRun again = prepare_run(c);
    EXPECT_EQ(to_json(run_with_reference(again).record)["reference"]["from_cache"],
              true);  // replaced whole
  }
  std::filesystem::remove_all(cache);
}

}  // namespace
}  // namespace cmb::test
