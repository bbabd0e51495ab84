// The typed run record (records/run_record.hpp) and its one reader and writer: every record
// committed with the project reads and writes back byte for byte; over generated damage of every
// field of a record (removed, of another JSON kind, an unknown field beside it) the reader either
// refuses with a message naming the file and a JSON Pointer into the document, or accepts a
// document that the writer gives back unchanged; the records a run and a crashed worker produce
// round-trip too.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "core/json_input.hpp"
#include "harness/campaign/campaign.hpp"
#include "harness/campaign/campaign_workers.hpp"
#include "harness/run/run.hpp"
#include "records/run_record.hpp"
#include "test_support.hpp"

namespace cmb::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Every run record of the committed result sets: runs/*.json and the runs of each results.json,
// by the file (and index) they come from.
std::map<std::string, json> committed_records() {
  std::map<std::string, json> records;
  const fs::path root = fs::path(CMB_SOURCE_DIR) / "results";
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    const fs::path& path = entry.path();
    if (path.extension() != ".json") continue;
    if (path.parent_path().filename() == "runs") {
      records[path.string()] = read_json_file(path.string(), path.string());
    } else if (path.filename() == "results.json") {
      const json doc = read_json_file(path.string(), path.string());
      for (std::size_t i = 0; i < doc.at("runs").size(); ++i)
        records[path.string() + "#/runs/" + std::to_string(i)] = doc["runs"][i];
    }
  }
  return records;
}

TEST(RunRecord, EveryCommittedRecordReadsAndWritesBackByteForByte) {
  const auto records = committed_records();
  std::map<std::string, int> statuses;
  for (const auto& [where, document] : records) {
    const RunRecord record = read_run_record(document, where);
    json written = to_json(record);
    // Per-run files (runs/*.json, not committed: a local campaign's) carry their digest.
    if (document.contains("digest")) written["digest"] = record_digest(written);
    EXPECT_EQ(written.dump(1), document.dump(1)) << where;
    ++statuses[to_string(record.status)];
  }
  // The sets hold records of finished, failed and refused runs alike; each kind must be read.
  EXPECT_GT(records.size(), 1000u);
  for (const char* status :
       {"ok", "step_limit", "singular", "newton_failed", "unsupported", "branch_switch"})
    EXPECT_GT(statuses[status], 0) << status;
}

// A committed record with every block a run can fill: error, energy, multipliers and branch.
json rich_record() {
  for (const auto& [where, document] : committed_records()) {
    const json& metrics = document.value("metrics", json());
    if (metrics.is_object() && metrics["error"].is_object() && metrics["energy"].is_object() &&
        metrics["multipliers"].is_object() && metrics["branch"].is_object() &&
        document.contains("files"))
      return document;
  }
  return json();
}

// The JSON Pointer of every value under `node`, depth first.
void pointers_under(const json& node, const std::string& at, std::vector<std::string>& out) {
  if (node.is_object())
    for (const auto& [key, value] : node.items()) {
      const std::string here = at + "/" + key;
      out.push_back(here);
      pointers_under(value, here, out);
    }
  if (node.is_array())
    for (std::size_t i = 0; i < node.size(); ++i) {
      const std::string here = at + "/" + std::to_string(i);
      out.push_back(here);
      pointers_under(node[i], here, out);
    }
}

// What the reader must do with `damaged`: refuse it naming the file and a place in it (one that
// exists, or a missing member of an object that exists), or read it and write it back unchanged.
void expect_refused_by_name_or_kept_whole(const json& damaged, const std::string& what) {
  const std::string prefix = "'record.json' is not a valid cmbench run record: ";
  try {
    const RunRecord record = read_run_record(damaged, "record.json");
    EXPECT_EQ(to_json(record), damaged) << what << ": accepted but not written back as read";
  } catch (const InputError& e) {
    const std::string message = e.what();
    ASSERT_EQ(message.rfind(prefix, 0), 0u) << what << ": " << message;
    const std::string pointer =
        message.substr(prefix.size(), message.find(' ', prefix.size()) - prefix.size());
    const json::json_pointer place(pointer);
    const bool missing = message.find(pointer + " is missing") != std::string::npos;
    EXPECT_TRUE(damaged.contains(place) || (missing && damaged.contains(place.parent_pointer())))
        << what << ": the message names " << pointer << ", not a place in the record";
  }
}

TEST(RunRecord, GeneratedDamageIsRefusedByNameOrKeptWhole) {
  const json record = rich_record();
  ASSERT_TRUE(record.is_object()) << "no committed record fills every metrics block";
  std::vector<std::string> pointers;
  pointers_under(record, "", pointers);
  const std::vector<json> others = {nullptr, 1, -1, 1.5, "x", true, json::array(), json::object()};
  int refused_or_kept = 0;
  for (const auto& text : pointers) {
    const json::json_pointer pointer(text);
    json removed = record;
    if (removed[pointer.parent_pointer()].is_object()) {
      removed[pointer.parent_pointer()].erase(pointer.back());
      expect_refused_by_name_or_kept_whole(removed, "without " + text);
    }
    for (const json& other : others) {
      json replaced = record;
      replaced[pointer] = other;
      expect_refused_by_name_or_kept_whole(replaced, text + " = " + other.dump());
    }
    if (record[pointer].is_object()) {
      json extended = record;
      extended[pointer]["a_field_nobody_writes"] = 1;
      expect_refused_by_name_or_kept_whole(extended, "with " + text + "/a_field_nobody_writes");
    }
    ++refused_or_kept;
  }
  EXPECT_GT(refused_or_kept, 100);  // the rich record has well over a hundred values
}

// A field nobody reads is refused, wherever it is: a newer writer's field or a typo is never
// dropped silently (the damage test above covers every object; these are the messages).
TEST(RunRecord, UnknownFieldsAndWrongKindsAreNamedByPointer) {
  json record = rich_record();
  ASSERT_TRUE(record.is_object());
  record["metrics"]["drift"]["acceleration"] = 0.0;
  try {
    read_run_record(record, "r.json");
    FAIL() << "accepted an unknown field";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("r.json' is not a valid cmbench run record: "
                                         "/metrics/drift/acceleration is not a field"),
              std::string::npos)
        << e.what();
  }
  record = rich_record();
  record["work"]["rhs_calls"] = 1.5;
  try {
    read_run_record(record, "r.json");
    FAIL() << "accepted a count of 1.5";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/work/rhs_calls must be a whole number from 0, found "
                                         "number 1.5"),
              std::string::npos)
        << e.what();
  }
}

// What a run and a crashed worker produce reads back as written, for a method with an ODE
// stepper and for a DAE integrator, ended ok and ended early.
TEST(RunRecord, RecordsOfRunsAndCrashesRoundTrip) {
  std::vector<RunConfig> configs(3);
  configs[0].problem = configs[1].problem = configs[2].problem = "simple_pendulum";
  configs[0].method = "baumgarte";
  configs[0].stepper = "rk4";
  configs[0].dt = 1e-3;
  configs[1].integrator = "generalized_alpha";
  configs[1].dt = 1e-3;
  configs[2].method = "index1";
  configs[2].stepper = "dopri5";
  configs[2].abs_tol = configs[2].rel_tol = 1e-10;
  configs[2].limits.max_steps = 10;  // ends step_limit (fixed steps past it are refused)
  for (RunConfig& config : configs) {
    config.repeat = 1;
    config.timing_min_s = 0.0;
    PreparedRun run = prepare_run(config);
    const RunRecord record = execute_run(run).record;
    const json written = to_json(record);
    EXPECT_EQ(to_json(read_run_record(written, "run")), written) << run.key;
    CampaignRun campaign_run{config, run.key, "file"};
    const json crashed = to_json(workers::crash_record(campaign_run, "test"));
    EXPECT_EQ(to_json(read_run_record(crashed, "crash")), crashed) << run.key;
  }
}

// A message quoting a damaged file is written all the same: an excerpt is cut between
// characters, never inside one (for every cut of text in 1-, 2-, 3- and 4-byte characters), and
// a record whose message holds bytes that are not UTF-8 (a parse error quotes what it read) is
// written with them replaced, not refused by the JSON writer.
TEST(RunRecord, MessagesQuotingDamagedFilesAreWritten) {
  const std::string text = "a\u00e9\u20ac\U0001F600b\u00e9\u00e9\u20ac\U0001F600";
  const json value = json::parse("\"" + text + "\"");
  for (std::size_t cut = 1; cut < 40; ++cut)
    EXPECT_NO_THROW(json(excerpt(value, cut)).dump()) << "cut at " << cut;
  RunRecord record = read_run_record(rich_record(), "r.json");
  record.message = std::string("last read: '\xff\xfe\xc3'");
  const fs::path file = cmb::test::scratch_path("run_record_message.json");
  ASSERT_NO_THROW(write_run_record(file.string(), record));
  EXPECT_NE(read_json_file(file.string(), "r")["message"].get<std::string>().find("\xef\xbf\xbd"),
            std::string::npos);
  fs::remove(file);
}

// The names in brackets of a key segment: "baumgarte[alpha=1][beta=5]" → alpha, beta.
std::vector<std::string> bracketed_names(const std::string& segment) {
  std::vector<std::string> names;
  for (std::size_t at = segment.find('['); at != std::string::npos; at = segment.find('[', at + 1))
    names.push_back(segment.substr(at + 1, segment.find('=', at) - at - 1));
  return names;
}

// A record names the parameters its run was given (other than by default) as its key does: on
// every run of the committed Baumgarte study, which gives alpha and beta over a grid (some at
// their defaults) with perturbed initial states.
TEST(RunRecord, GivenParametersAreThoseTheKeyNames) {
  const fs::path file = fs::path(CMB_SOURCE_DIR) / "results" / "baumgarte_study" /
                        "2026-11-23_20a9b21a4f30" / "campaign.json";
  const Campaign campaign = parse_campaign(read_json_file(file.string(), "").dump(), "study");
  int with_given = 0;
  for (const CampaignRun& run : campaign.runs) {
    const RunRecord header = record_header(prepare_run(run.config));
    const std::string problem = run.key.substr(0, run.key.find('/'));
    const std::string rest = run.key.substr(problem.size() + 1);
    const std::string method = rest.substr(0, rest.find('/'));
    ASSERT_TRUE(header.problem.given && header.method.given) << run.key;
    EXPECT_EQ(*header.problem.given, bracketed_names(problem)) << run.key;
    EXPECT_EQ(*header.method.given, bracketed_names(method)) << run.key;
    with_given += !header.method.given->empty();
  }
  EXPECT_GT(with_given, 100);
}

}  // namespace
}  // namespace cmb::test
