// The guarded boundary of the files cmbench reads: each test states an invariant for a class of
// hostile inputs and checks it over cases generated from a valid file (every nesting depth above
// the limit, a duplicate key in every object, every way a run's file name can leave its folder,
// shard blocks out of range), not over one example. A violation is exit 2 naming the file and the
// JSON path; nothing outside the directories given is ever read into or written.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "core/json_input.hpp"
#include "results_doc_support.hpp"
#include "test_support.hpp"

namespace {

namespace fs = std::filesystem;
using cmb::test::cli;
using cmb::test::CliResult;
using cmb::test::results_doc;
using nlohmann::json;

// A campaign's record of a run, naming its record file.
json run_record(const std::string& key) {
  json record = cmb::test::run_record(key);
  record["files"] = {{"record", "runs/" + key + ".json"}, {"series", nullptr}};
  return record;
}

void write_text(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary) << text;
}

std::string text_of(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A result directory holding `results_text` and the run records its runs name.
std::string result_set(const fs::path& dir, const std::string& results_text) {
  write_text(dir / "results.json", results_text);
  for (const char* key : {"a", "b"})
    write_text(dir / "runs" / (std::string(key) + ".json"), run_record(key).dump());
  return dir.string();
}

bool says(const CliResult& r, const std::string& text) {
  return r.output.find(text) != std::string::npos;
}

const json kValid = results_doc({run_record("a"), run_record("b")});

// Both readers of results files, on a set `bad` beside a valid one: the exit code and output.
std::vector<CliResult> compare_and_merge(const fs::path& dir, const std::string& bad) {
  const std::string good = result_set(dir / "good", kValid.dump());
  return {cli("compare " + good + " " + bad),
          cli("merge " + good + " " + bad + " --out " + (dir / "merged").string())};
}

// `levels` nested arrays around `inner`, written without recursion.
std::string nested(std::size_t levels, const std::string& inner) {
  return std::string(levels, '[') + inner + std::string(levels, ']');
}

TEST(Boundary, NestingDeeperThanTheLimitIsAnInputErrorAtAnyDepthAndPlace) {
  const fs::path dir = cmb::test::fresh_scratch_dir("boundary_depth");
  // Just past the limit, a few orders of magnitude beyond it, and the reported crash's depth;
  // placed at the top, inside a run's metrics and as an extra member.
  const std::vector<std::size_t> depths = {cmb::kMaxJsonDepth + 1, 1000, 200000};
  const std::string body = kValid.dump();
  for (const std::size_t depth : depths) {
    const std::vector<std::string> files = {
        nested(depth, "1"),
        std::string(body).replace(body.find("\"max_abs\":1e-09"), 15,
                                  "\"max_abs\":" + nested(depth, "1e-09")),
        body.substr(0, body.size() - 1) + ",\"extra\":" + nested(depth, "{}") + "}"};
    for (const std::string& text : files) {
      const std::string bad = result_set(dir / "bad", text);
      for (const CliResult& r : compare_and_merge(dir, bad)) {
        EXPECT_EQ(r.exit_code, 2) << depth << ": " << r.output.substr(0, 300);
        EXPECT_TRUE(says(r, bad + "/results.json")) << r.output.substr(0, 300);
        EXPECT_TRUE(says(r, "nested deeper than 64 levels")) << r.output.substr(0, 300);
      }
      EXPECT_FALSE(fs::exists(dir / "merged"));
    }
  }
  fs::remove_all(dir);
}

// `doc` as JSON text in which the non-empty object numbered `target` (in document order) repeats
// its first member with another value.
std::string with_duplicate(const json& doc, int target) {
  int seen = 0;
  std::function<std::string(const json&)> emit = [&](const json& v) -> std::string {
    if (v.is_array()) {
      std::string out = "[";
      for (std::size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + emit(v[i]);
      return out + "]";
    }
    if (!v.is_object()) return v.dump();
    const bool repeat = !v.empty() && seen++ == target;
    std::string out = "{";
    for (auto it = v.begin(); it != v.end(); ++it)
      out += (it == v.begin() ? "" : ",") + json(it.key()).dump() + ":" + emit(it.value());
    if (repeat) out += "," + json(v.begin().key()).dump() + ":\"second\"";
    return out + "}";
  };
  return emit(doc);
}

int count_objects(const json& v) {
  int n = v.is_object() && !v.empty() ? 1 : 0;
  if (v.is_structured())
    for (const auto& child : v) n += count_objects(child);
  return n;
}

TEST(Boundary, AKeyRepeatedInAnyObjectIsRefusedNamingItsPath) {
  const fs::path dir = cmb::test::fresh_scratch_dir("boundary_duplicates");
  const int objects = count_objects(kValid);
  ASSERT_GT(objects, 10);  // the document, context, campaign_file, every run and its blocks
  for (int target = 0; target < objects; ++target) {
    const std::string bad = result_set(dir / "bad", with_duplicate(kValid, target));
    for (const CliResult& r : compare_and_merge(dir, bad)) {
      EXPECT_EQ(r.exit_code, 2) << target << ": " << r.output;
      EXPECT_TRUE(says(r, "appears twice in the object at /")) << target << ": " << r.output;
    }
  }
  fs::remove_all(dir);
}

// Every way a run's file name could point elsewhere: outside the set, deeper, into the other
// folder, hidden, or not a name at all.
const std::vector<json> kEscapingNames = {"../../x",
                                          "/tmp/x.json",
                                          "runs/../../x.json",
                                          "runs/../runs/a.json",
                                          "runs/a/b.json",
                                          "runs/.json",
                                          "runs/..json",
                                          "runs\\..\\x.json",
                                          "series/a.json",
                                          "runs/a.csv",
                                          "runs/",
                                          "",
                                          "./runs/a.json",
                                          "runs//a.json",
                                          7,
                                          json::array({"runs/a.json"}),
                                          std::string("runs/a\0.json", 12)};

TEST(Boundary, ARunFileNameThatLeavesItsFolderIsRefusedBeforeAnythingIsWritten) {
  const fs::path dir = cmb::test::fresh_scratch_dir("boundary_paths");
  const fs::path victim = dir / "victim.json";
  write_text(victim, "keep me\n");
  for (const json& name : kEscapingNames)
    for (const char* kind : {"record", "series"}) {
      json doc = kValid;
      doc["runs"][1]["files"][kind] = name;
      const std::string bad = result_set(dir / "bad", doc.dump());
      for (const CliResult& r : compare_and_merge(dir, bad)) {
        EXPECT_EQ(r.exit_code, 2) << name.dump() << ": " << r.output;
        EXPECT_TRUE(says(r, std::string("/runs/1/files/") + kind)) << r.output;
      }
      EXPECT_FALSE(fs::exists(dir / "merged")) << name.dump();
    }
  EXPECT_EQ(text_of(victim), "keep me\n");
  fs::remove_all(dir);
}

TEST(Boundary, MergeFollowsNoLinkOutOfAnInputOrOutOfOut) {
  const fs::path dir = cmb::test::fresh_scratch_dir("boundary_links");
  const fs::path outside = dir / "outside";
  write_text(outside / "secret.json", "not a run\n");
  const std::string good = result_set(dir / "good", kValid.dump());

  const std::string linked = result_set(dir / "linked", kValid.dump());
  fs::remove(dir / "linked" / "runs" / "b.json");
  fs::create_symlink(outside / "secret.json", dir / "linked" / "runs" / "b.json");
  const CliResult in = cli("merge " + linked + " --out " + (dir / "m1").string());
  EXPECT_EQ(in.exit_code, 2) << in.output;
  EXPECT_TRUE(says(in, "is a link out of its result directory")) << in.output;
  EXPECT_FALSE(fs::exists(dir / "m1" / "results.json"));

  // An earlier merge (replaced with --force) whose runs/ was made a link elsewhere.
  json earlier = kValid;
  earlier["merged_from"] = {good};
  write_text(dir / "m2" / "results.json", earlier.dump());
  fs::create_symlink(outside, dir / "m2" / "runs");
  const CliResult out = cli("merge " + good + " --force --out " + (dir / "m2").string());
  EXPECT_EQ(out.exit_code, 2) << out.output;
  EXPECT_TRUE(says(out, "leads out of --out")) << out.output;
  EXPECT_FALSE(fs::exists(outside / "a.json"));
  EXPECT_EQ(text_of(dir / "m2" / "results.json"), earlier.dump());
  EXPECT_EQ(text_of(outside / "secret.json"), "not a run\n");
  fs::remove_all(dir);
}

json shard(const std::vector<json>& runs, int index, int count, const std::string& filter) {
  json doc = results_doc(runs);
  doc["shard"] = {{"index", index}, {"count", count}};
  doc["filter"] = filter;
  return doc;
}

TEST(Boundary, ShardsOfDifferentSelectionsNeverMergeAsComplete) {
  const fs::path dir = cmb::test::fresh_scratch_dir("boundary_selections");
  const std::vector<std::pair<std::string, std::string>> filters = {
      {"a", "b"}, {"", "a"}, {"a", ""}, {"simple_pendulum", "simple_pendulum/"}};
  for (const auto& [first, second] : filters) {
    const std::string s1 = result_set(dir / "s1", shard({run_record("a")}, 1, 2, first).dump());
    const std::string s2 = result_set(dir / "s2", shard({run_record("b")}, 2, 2, second).dump());
    for (const char* extra : {"", " --force", " --allow-partial"}) {
      const CliResult r = cli("merge " + s1 + " " + s2 + extra + " --out " + (dir / "m").string());
      EXPECT_EQ(r.exit_code, 2) << first << " | " << second << extra << ": " << r.output;
      EXPECT_TRUE(says(r, "are shards of different selections")) << r.output;
      EXPECT_FALSE(fs::exists(dir / "m" / "results.json"));
    }
  }
  const std::string s1 = result_set(dir / "s1", shard({run_record("a")}, 1, 2, "x").dump());
  const std::string s2 = result_set(dir / "s2", shard({run_record("b")}, 2, 2, "x").dump());
  const CliResult same = cli("merge " + s1 + " " + s2 + " --out " + (dir / "m").string());
  EXPECT_EQ(same.exit_code, 0) << same.output;
  fs::remove_all(dir);
}

TEST(Boundary, ShardNumbersMustBeWholeNumbersInRange) {
  const fs::path dir = cmb::test::fresh_scratch_dir("boundary_shard_numbers");
  const std::vector<json> blocks = {{{"index", 1}, {"count", "2"}},
                                    {{"index", 0}, {"count", 2}},
                                    {{"index", 3}, {"count", 2}},
                                    {{"index", 1}, {"count", -1}},
                                    {{"index", 1}, {"count", 2.5}},
                                    {{"index", 1}, {"count", 1e300}},
                                    {{"index", 1}, {"count", 2000000}},
                                    {{"count", 2}},
                                    {{"index", 1}},
                                    json::array({1, 2}),
                                    "1/2"};
  for (const json& block : blocks) {
    json doc = kValid;
    doc["shard"] = block;
    const std::string bad = result_set(dir / "bad", doc.dump());
    for (const CliResult& r : compare_and_merge(dir, bad)) {
      EXPECT_EQ(r.exit_code, 2) << block.dump() << ": " << r.output;
      EXPECT_TRUE(says(r, "shard")) << r.output;
    }
  }
  fs::remove_all(dir);
}

TEST(Boundary, AStatusOutsideTheEnumIsRefused) {
  const fs::path dir = cmb::test::fresh_scratch_dir("boundary_status");
  for (const json& status :
       {json("OK"), json("ok "), json(""), json("crash"), json("unreadable")}) {
    json doc = kValid;
    doc["runs"][0]["status"] = status;
    const std::string bad = result_set(dir / "bad", doc.dump());
    for (const CliResult& r : compare_and_merge(dir, bad)) {
      EXPECT_EQ(r.exit_code, 2) << status.dump() << ": " << r.output;
      EXPECT_TRUE(says(r, "/runs/0/status must be one of ok, diverged")) << r.output;
    }
  }
  fs::remove_all(dir);
}

}  // namespace
