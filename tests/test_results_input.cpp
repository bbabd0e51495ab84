// `cmbench merge` and `cmbench compare` on results files that are malformed, hold a run twice,
// or disagree, and merge told to write where it must not: each is an input error (exit 2) whose
// message names the file and the key, never an internal error (exit 3) or a silent merge.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "results_doc_support.hpp"
#include "test_support.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using cmb::test::cli;
using cmb::test::CliResult;
using cmb::test::results_doc;
using cmb::test::run_record;

// Writes `doc` as dir/name/results.json; returns the directory.
std::string put(const fs::path& dir, const std::string& name, const json& doc) {
  fs::create_directories(dir / name);
  std::ofstream(dir / name / "results.json") << doc.dump(1);
  return (dir / name).string();
}

std::string results_of(const std::string& results_dir) { return results_dir + "/results.json"; }

std::string text_of(const fs::path& file) {
  std::ifstream in(file);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool says(const CliResult& r, const std::string& text) {
  return r.output.find(text) != std::string::npos;
}

const json kTwoRuns = results_doc({run_record("a"), run_record("b")});

TEST(ResultsInput, MergeAndCompareNameAMissingKey) {
  const fs::path dir = cmb::test::fresh_scratch_dir("results_input_missing");
  const std::string good = put(dir, "good", kTwoRuns);
  const std::vector<std::pair<json::json_pointer, std::string>> cases = {
      {json::json_pointer("/context"), "/context is missing"},
      {json::json_pointer("/runs"), "/runs is missing"},
      {json::json_pointer("/campaign_file"), "/campaign_file is missing"},
      {json::json_pointer("/runs/1/status"), "/runs/1/status is missing"}};
  for (const auto& [pointer, message] : cases) {
    json doc = kTwoRuns;
    doc[pointer.parent_pointer()].erase(pointer.back());
    const std::string bad = put(dir, "bad", doc);
    const CliResult merged = cli("merge " + good + " " + bad + " --out " + (dir / "m").string());
    EXPECT_EQ(merged.exit_code, 2) << message << ": " << merged.output;
    EXPECT_TRUE(
        says(merged, "'" + results_of(bad) + "' is not a valid cmbench results file: " + message))
        << merged.output;
    EXPECT_FALSE(fs::exists(dir / "m")) << message;
    const CliResult compared = cli("compare " + good + " " + bad);
    EXPECT_EQ(compared.exit_code, 2) << message << ": " << compared.output;
    EXPECT_TRUE(
        says(compared, results_of(bad) + "' is not a valid cmbench results file: " + message))
        << compared.output;
  }
  fs::remove_all(dir);
}

TEST(ResultsInput, MergeAndCompareNameAMistypedKey) {
  const fs::path dir = cmb::test::fresh_scratch_dir("results_input_mistyped");
  const std::string good = put(dir, "good", kTwoRuns);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"([{"op": "replace", "path": "/context", "value": "x"}])",
       "/context must be an object, found string"},
      {R"([{"op": "replace", "path": "/runs/1", "value": 5}])",
       "/runs/1 must be an object, found number"},
      {R"([{"op": "replace", "path": "/runs/1/key", "value": 7}])",
       "/runs/1/key must be a string, found number"},
      {R"([{"op": "replace", "path": "/context/git_sha", "value": 1}])",
       "/context/git_sha must be a string, found number"},
      {R"([{"op": "replace", "path": "/schema", "value": "cmbench.run/1"}])",
       "/schema must be \"cmbench.results/1\""}};
  for (const auto& [patch, message] : cases) {
    const std::string bad = put(dir, "bad", kTwoRuns.patch(json::parse(patch)));
    const CliResult merged = cli("merge " + bad + " " + good + " --out " + (dir / "m").string());
    EXPECT_EQ(merged.exit_code, 2) << message << ": " << merged.output;
    EXPECT_TRUE(
        says(merged, "'" + results_of(bad) + "' is not a valid cmbench results file: " + message))
        << merged.output;
    EXPECT_FALSE(fs::exists(dir / "m")) << message;
  }
  fs::remove_all(dir);
}

// Runs without a key used to be merged into one run with key "" (exit 0).
TEST(ResultsInput, MergeRefusesRunsWithoutAKey) {
  const fs::path dir = cmb::test::fresh_scratch_dir("results_input_keyless");
  json keyless = kTwoRuns;
  for (auto& run : keyless["runs"]) run.erase("key");
  const std::string bad = put(dir, "bad", keyless);
  const std::string good = put(dir, "good", results_doc({run_record("c")}));
  const CliResult r = cli("merge " + good + " " + bad + " --out " + (dir / "m").string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(says(
      r, "'" + results_of(bad) + "' is not a valid cmbench results file: /runs/0/key is missing"))
      << r.output;
  EXPECT_FALSE(fs::exists(dir / "m"));
  fs::remove_all(dir);
}

// A numeric status used to escape compare as a JSON type error (exit 3).
TEST(ResultsInput, CompareRefusesANumericStatus) {
  const fs::path dir = cmb::test::fresh_scratch_dir("results_input_status");
  const std::string good = put(dir, "good", kTwoRuns);
  json doc = kTwoRuns;
  doc["runs"][1]["status"] = 3;
  const std::string bad = put(dir, "bad", doc);
  const CliResult r = cli("compare " + good + " " + results_of(bad));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(says(r, "'" + results_of(bad) +
                          "' is not a valid cmbench results file: "
                          "/runs/1/status must be a string, found number"))
      << r.output;
  fs::remove_all(dir);
}

// Compare matches runs by key, so a key recorded twice is an input error (which record would it
// compare?), not a difference; merge refuses it within one input for the same reason.
TEST(ResultsInput, CompareAndMergeRefuseAKeyRecordedTwiceInOneFile) {
  const fs::path dir = cmb::test::fresh_scratch_dir("results_input_duplicate");
  const std::string good = put(dir, "good", kTwoRuns);
  const std::string twice = put(
      dir, "twice", results_doc({run_record("a"), run_record("b"), run_record("a", "diverged")}));
  const std::string message = "'" + results_of(twice) +
                              "' is not a valid cmbench results file: "
                              "/runs/2/key 'a' repeats /runs/0/key";
  const CliResult compared = cli("compare " + good + " " + twice);
  EXPECT_EQ(compared.exit_code, 2) << compared.output;
  EXPECT_TRUE(says(compared, message)) << compared.output;
  const CliResult merged = cli("merge " + good + " " + twice + " --out " + (dir / "m").string());
  EXPECT_EQ(merged.exit_code, 2) << merged.output;
  EXPECT_TRUE(says(merged, message)) << merged.output;
  EXPECT_FALSE(fs::exists(dir / "m"));
  fs::remove_all(dir);
}

// Inputs from different builds are refused unless --force: the program's build fields and the
// cmbench libraries' (context.cmbench_build), which an out-of-tree program records apart.
TEST(ResultsInput, MergeRefusesInputsWhoseLibrariesWereBuiltDifferently) {
  const fs::path dir = cmb::test::fresh_scratch_dir("results_input_builds");
  json o3 = results_doc({run_record("a")}), o0 = results_doc({run_record("b")});
  o3["context"]["cmbench_build"] = {{"build_type", "Release"}, {"flags", "-O3"}};
  o0["context"]["cmbench_build"] = {{"build_type", ""}, {"flags", ""}};
  const std::string s1 = put(dir, "s1", o3), s2 = put(dir, "s2", o0);
  const CliResult refused = cli("merge " + s1 + " " + s2 + " --out " + (dir / "m").string());
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_TRUE(says(refused, "was produced by a different build (cmbench_build: "))
      << refused.output;
  const CliResult forced = cli("merge " + s1 + " " + s2 + " --force --out " + (dir / "f").string());
  EXPECT_EQ(forced.exit_code, 0) << forced.output;
  fs::remove_all(dir);
}

// The same run in two inputs is kept once (the first record) when both records are identical
// apart from timing and context; when they differ otherwise, neither is right by default: exit 2
// naming the key and both files, even with --force.
TEST(ResultsInput, MergeKeepsIdenticalOverlapsAndRefusesConflictingOnes) {
  const fs::path dir = cmb::test::fresh_scratch_dir("results_input_overlap");
  const std::string s1 = put(dir, "s1", results_doc({run_record("a"), run_record("b")}));
  json slower = run_record("b");
  slower["timing"]["min_s"] = 0.002;
  slower["context"]["date"] = "later";
  const std::string s2 = put(dir, "s2", results_doc({slower, run_record("c")}));
  const CliResult same = cli("merge " + s1 + " " + s2 + " --out " + (dir / "m").string());
  ASSERT_EQ(same.exit_code, 0) << same.output;
  std::ifstream in(dir / "m" / "results.json");
  const json merged = json::parse(in);
  ASSERT_EQ(merged["runs"].size(), 3u);
  // Each merged record carries the digest of the rest of it.
  json kept = merged["runs"][1];
  const json digest = kept["digest"];
  kept.erase("digest");
  EXPECT_EQ(kept, run_record("b"));
  EXPECT_EQ(digest, cmb::record_digest(kept));
  EXPECT_EQ(merged["runs"][2]["key"], "c");

  const std::string s3 =
      put(dir, "s3", results_doc({run_record("c"), run_record("b", "diverged")}));
  for (const std::string force : {"", " --force"}) {
    const CliResult r = cli("merge " + s1 + " " + s3 + force + " --out " + (dir / "bad").string());
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_TRUE(says(r, "run 'b' is recorded differently in '" + results_of(s1) + "' and '" +
                            results_of(s3) + "' (differs in: status)"))
        << r.output;
    EXPECT_FALSE(fs::exists(dir / "bad"));
  }
  fs::remove_all(dir);
}

// --out naming a file used to be a filesystem_error escaping as an internal error (exit 3).
TEST(ResultsInput, MergeOutMustBeADirectory) {
  const fs::path dir = cmb::test::fresh_scratch_dir("results_input_out_file");
  const std::string s1 = put(dir, "s1", results_doc({run_record("a")}));
  const std::string s2 = put(dir, "s2", results_doc({run_record("b")}));
  std::ofstream(dir / "afile") << "keep me\n";
  const CliResult r = cli("merge " + s1 + " " + s2 + " --out " + (dir / "afile").string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(says(r, "--out '" + (dir / "afile").string() + "' is not a directory")) << r.output;
  EXPECT_EQ(text_of(dir / "afile"), "keep me\n");
  fs::remove_all(dir);
}

// An --out that cannot be created. Tests run as root, for whom a chmod'ed read-only directory is
// writable, so these are directories no user can create: one under a regular file (ENOTDIR) and
// one in /proc (ENOENT).
TEST(ResultsInput, MergeOutThatCannotBeCreatedIsAnInputError) {
  const fs::path dir = cmb::test::fresh_scratch_dir("results_input_out_unwritable");
  const std::string s1 = put(dir, "s1", results_doc({run_record("a")}));
  const std::string s2 = put(dir, "s2", results_doc({run_record("b")}));
  std::ofstream(dir / "afile") << "keep me\n";
  const std::string under_file = (dir / "afile" / "sub").string();
  const CliResult r = cli("merge " + s1 + " " + s2 + " --out " + under_file);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(says(r, "cannot write '" + under_file + "/results.json': '" +
                          (dir / "afile").string() + "' is not a directory"))
      << r.output;
  const CliResult in_proc = cli("merge " + s1 + " " + s2 + " --out /proc/cmb_results_input_test");
  EXPECT_EQ(in_proc.exit_code, 2) << in_proc.output;
  EXPECT_TRUE(says(in_proc, "/proc/cmb_results_input_test")) << in_proc.output;
  fs::remove_all(dir);
}

// --out holding results: a campaign's are never replaced, nor a results.json merge did not write
// (even with --force); an earlier merge's only with --force.
TEST(ResultsInput, MergeNeverReplacesACampaignsResults) {
  const fs::path dir = cmb::test::fresh_scratch_dir("results_input_out_taken");
  const std::string s1 = put(dir, "s1", results_doc({run_record("a")}));
  const std::string s2 = put(dir, "s2", results_doc({run_record("b")}));
  std::ofstream(dir / "s1" / "campaign.json") << R"({"name": "t"})";
  const std::string before = text_of(results_of(s1));
  for (const std::string force : {"", " --force"}) {
    const CliResult into_input = cli("merge " + s1 + " " + s2 + force + " --out " + s1);
    EXPECT_EQ(into_input.exit_code, 2) << into_input.output;
    EXPECT_TRUE(says(into_input, "--out '" + s1 + "' is a campaign's directory"))
        << into_input.output;
    const CliResult foreign = cli("merge " + s1 + " " + s2 + force + " --out " + s2);
    EXPECT_EQ(foreign.exit_code, 2) << foreign.output;
    EXPECT_TRUE(
        says(foreign, "--out '" + s2 + "' already holds a results.json that merge did not write"))
        << foreign.output;
  }
  EXPECT_EQ(text_of(results_of(s1)), before);
  EXPECT_EQ(text_of(results_of(s2)), results_doc({run_record("b")}).dump(1));

  const std::string merged = (dir / "m").string();
  ASSERT_EQ(cli("merge " + s1 + " " + s2 + " --out " + merged).exit_code, 0);
  const CliResult again = cli("merge " + s1 + " " + s2 + " --out " + merged);
  EXPECT_EQ(again.exit_code, 2) << again.output;
  EXPECT_TRUE(says(again, "--out '" + merged + "' already holds merged results: use --force"))
      << again.output;
  const std::string s3 = put(dir, "s3", results_doc({run_record("c")}));
  const CliResult replaced = cli("merge " + merged + " " + s3 + " --force --out " + merged);
  EXPECT_EQ(replaced.exit_code, 0) << replaced.output;
  std::ifstream in(results_of(merged));
  EXPECT_EQ(json::parse(in)["runs"].size(), 3u);
  fs::remove_all(dir);
}

}  // namespace
