// Generated faults with invariants checked after each, as a class rather than examples:
// - campaign files mutated at random: exit 0, 1 or 2, and for 2 one "cmbench: error:" line and
//   nothing written;
// - signals (SIGINT, SIGTERM, SIGKILL) sent to the campaign's parent or to one of its workers at a
//   random moment: no process outlives the campaign, and --resume gives the undisturbed set,
//   every run once;
// - exported records of a finished set damaged at random (truncated, a bit flipped, another run's
//   record, deep nesting, empty, a link to a file outside): --resume rewrites them from the store
//   and leaves the file outside untouched;
// - a finished set's store cut or with a bit flipped at a random offset: compare reads it whole
//   or refuses it, and --resume gives the undisturbed set.
// The number of cases per suite is CMB_FAULT_CASES (default: a few, for CI); the seed is
// CMB_FAULT_SEED (default fixed), so a failure is reproduced by its seed.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <set>
#include <string>
#include <thread>

#include "campaign_support.hpp"
#include "cli_runner.hpp"

namespace cmb::test {
namespace {

int cases(int default_count) {
  const char* text = std::getenv("CMB_FAULT_CASES");
  return text ? std::max(1, std::atoi(text)) : default_count;
}

unsigned seed() {
  const char* text = std::getenv("CMB_FAULT_SEED");
  return text ? static_cast<unsigned>(std::strtoul(text, nullptr, 10)) : 2027u;
}

std::string text_of(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A JSON value of a random kind, some of them hostile.
json random_value(std::mt19937& random) {
  switch (random() % 9) {
    case 0:
      return nullptr;
    case 1:
      return -1;
    case 2:
      return 1e308 * 10;  // inf: written as null by the library
    case 3:
      return "";
    case 4:
      return "../../etc";
    case 5:
      return json::array();
    case 6:
      return json::object();
    case 7:
      return std::string(3000, 'x');
    default:
      return 1e-300;
  }
}

// Replaces, removes or adds one member somewhere in `doc`.
void mutate(json& doc, std::mt19937& random) {
  json* at = &doc;
  for (int depth = 0; depth < 4; ++depth) {
    if (at->is_object() && !at->empty() && random() % 2) {
      auto it = at->begin();
      std::advance(it, random() % at->size());
      at = &*it;
    } else if (at->is_array() && !at->empty() && random() % 2) {
      at = &(*at)[random() % at->size()];
    } else {
      break;
    }
  }
  if (at->is_object() && random() % 3 == 0) {
    (*at)["unknown_" + std::to_string(random() % 10)] = random_value(random);
  } else if (at->is_object() && !at->empty() && random() % 2) {
    auto it = at->begin();
    std::advance(it, random() % at->size());
    at->erase(it);
  } else {
    *at = random_value(random);
  }
}

TEST(FaultSuite, MutatedCampaignFilesExitCleanlyAndWriteNothingWhenRefused) {
  std::mt19937 random(seed());
  const json base = {
      {"name", "mutated"},
      {"repeat", 0},
      {"problems", {{{"id", "simple_pendulum"}, {"t_end", 0.05}}}},
      {"methods", {{{"id", "index1"}}, {{"id", "baumgarte"}}}},
      {"steppers", {{{"id", "rk4"}, {"dt", {0.01}}}, {{"id", "dopri5"}, {"tol", 1e-6}}}}};
  int refused = 0;
  for (int trial = 0; trial < cases(40); ++trial) {
    const fs::path dir = scratch("mutated_" + std::to_string(trial));
    json doc = base;
    const int mutations = 1 + static_cast<int>(random() % 3);
    for (int i = 0; i < mutations; ++i) mutate(doc, random);
    const fs::path file = write_campaign(dir, doc);
    const CliResult r =
        cli("campaign " + file.string() + " --jobs 1 --out " + (dir / "out").string());
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1 || r.exit_code == 2)
        << r.exit_code << " for " << doc.dump() << "\n"
        << r.output;
    if (r.exit_code == 2) {
      ++refused;
      EXPECT_EQ(r.output.rfind("cmbench: error: ", 0), 0u) << r.output;
      EXPECT_FALSE(fs::exists(dir / "out")) << doc.dump();
    }
    fs::remove_all(dir);
  }
  EXPECT_GT(refused, 0);
}

TEST(FaultSuite, SignalsAtRandomMomentsLoseNoRunAndLeaveNoProcess) {
  const fs::path dir = scratch("signals");
  const fs::path file = write_campaign(dir, campaign_of(20.0, 2e-4));
  const auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(
      cli("campaign " + file.string() + " --jobs 2 --out " + (dir / "full").string()).exit_code, 0);
  // The moments are drawn within the undisturbed campaign's duration, on any machine.
  const auto duration = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - start);
  const auto reference = comparable(dir / "full" / "results.json");
  std::mt19937 random(seed());
  const int signals[] = {SIGINT, SIGTERM, SIGKILL};
  int interrupted = 0;  // campaigns the signal reached before they ended
  for (int trial = 0; trial < cases(4); ++trial) {
    const std::string out = (dir / ("out-" + std::to_string(trial))).string();
    const int signal = signals[random() % 3];
    const bool at_worker = random() % 2;
    const auto delay =
        std::chrono::milliseconds(duration.count() * (5 + static_cast<long>(random() % 85)) / 100);
    const pid_t pid = ::fork();
    if (pid == 0) {
      std::freopen("/dev/null", "w", stdout);
      std::freopen("/dev/null", "w", stderr);
      ::execl(CMB_CLI_PATH, CMB_CLI_PATH, "campaign", file.c_str(), "--jobs", "2", "--out",
              out.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    std::this_thread::sleep_for(delay);
    const std::vector<pid_t> workers = children_of(pid);
    const pid_t target = at_worker && !workers.empty() ? workers[random() % workers.size()] : pid;
    ::kill(target, signal);
    int status = 0;
    ::waitpid(pid, &status, 0);
    interrupted += !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    const std::string what = "signal " + std::to_string(signal) + " to the " +
                             (target == pid ? "parent" : "worker") + " after " +
                             std::to_string(delay.count()) + " ms";
    for (int wait = 0; wait < 100 && processes_mentioning(out) > 0; ++wait)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));  // a SIGKILLed parent's
    EXPECT_EQ(processes_mentioning(out), 0) << what << ": a process outlived the campaign";
    const CliResult resumed = cli("campaign " + file.string() + " --jobs 2 --resume --out " + out);
    ASSERT_EQ(resumed.exit_code, 0) << what << "\n" << resumed.output;
    std::ifstream in(fs::path(out) / "results.json");
    EXPECT_EQ(json::parse(in)["runs"].size(), reference.size()) << what;
    EXPECT_EQ(comparable(fs::path(out) / "results.json"), reference) << what;
  }
  EXPECT_GT(interrupted, 0);
  fs::remove_all(dir);
}

// One damage of a record file, chosen at random.
std::string damage(const fs::path& record, const fs::path& other, const fs::path& outside,
                   std::mt19937& random) {
  std::string text = text_of(record);
  if (text.empty()) text = "{}";  // damaged already: something to cut or flip
  switch (random() % 6) {
    case 0:
      std::ofstream(record, std::ios::binary | std::ios::trunc)
          << text.substr(0, random() % text.size());
      return "truncated";
    case 1: {
      std::string flipped = text;
      flipped[random() % flipped.size()] ^= static_cast<char>(1 << (random() % 8));
      std::ofstream(record, std::ios::binary | std::ios::trunc) << flipped;
      return "a bit flipped";
    }
    case 2:
      fs::copy_file(other, record, fs::copy_options::overwrite_existing);
      return "another run's record";
    case 3:
      std::ofstream(record, std::ios::trunc) << std::string(100000, '[');
      return "deep nesting";
    case 4:
      std::ofstream(record, std::ios::trunc);
      return "empty";
    default:
      fs::remove(record);
      fs::create_symlink(outside, record);
      return "a link to a file outside";
  }
}

// The exported run files (records and series) are the store's copies: whatever is done to them,
// --resume rewrites each from the store (nothing is run again) and writes nothing outside the
// set.
TEST(FaultSuite, DamagedExportedRecordsAreRewrittenByResumeAndNothingOutsideIsTouched) {
  const fs::path dir = scratch("damaged_records");
  const fs::path file = write_campaign(dir, campaign_of(1.0, 1e-3));
  ASSERT_EQ(
      cli("campaign " + file.string() + " --jobs 2 --out " + (dir / "full").string()).exit_code, 0);
  const auto reference = comparable(dir / "full" / "results.json");
  const fs::path outside = dir / "outside.json";
  std::ofstream(outside) << "{\"not\": \"a record\"}\n";
  const std::string outside_text = text_of(outside);
  std::mt19937 random(seed());
  for (int trial = 0; trial < cases(6); ++trial) {
    const fs::path out = dir / ("damaged-" + std::to_string(trial));
    fs::copy(dir / "full", out, fs::copy_options::recursive);
    fs::remove(out / "results.json");
    std::vector<fs::path> records;  // the exported records and series
    for (const char* sub : {"runs", "series"})
      for (const auto& entry : fs::directory_iterator(out / sub)) records.push_back(entry.path());
    std::sort(records.begin(), records.end());
    std::string what;
    std::set<fs::path> damaged;
    for (int i = 0, count = 1 + static_cast<int>(random() % 3); i < count; ++i) {
      const fs::path& record = records[random() % records.size()];
      const fs::path& other = records[random() % records.size()];
      if (record == other || damaged.count(record) || damaged.count(other)) continue;
      damaged.insert(record);
      what += record.filename().string() + ": " + damage(record, other, outside, random) + "; ";
    }
    const CliResult resumed =
        cli("campaign " + file.string() + " --jobs 2 --resume --out " + out.string());
    ASSERT_EQ(resumed.exit_code, 0) << what << "\n" << resumed.output;
    EXPECT_NE(resumed.output.find("0 run(s) to do"), std::string::npos) << resumed.output;
    EXPECT_EQ(comparable(out / "results.json"), reference) << what;
    for (const fs::path& record : records)
      EXPECT_EQ(text_of(record),
                text_of(dir / "full" / record.parent_path().filename() / record.filename()))
          << what;
    EXPECT_EQ(text_of(outside), outside_text) << what << ": the file outside was written";
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cmb::test

namespace cmb::test {
namespace {

// One damage of a store's file at a generated offset: cut there, or one bit flipped there.
std::string damage_store(const fs::path& db, std::mt19937& random) {
  const auto size = static_cast<std::size_t>(fs::file_size(db));
  const std::size_t offset = random() % size;
  if (random() % 2 == 0) {
    fs::resize_file(db, offset);
    return "cut at byte " + std::to_string(offset) + " of " + std::to_string(size);
  }
  std::fstream file(db, std::ios::in | std::ios::out | std::ios::binary);
  file.seekg(static_cast<std::streamoff>(offset));
  char byte = 0;
  file.read(&byte, 1);
  const int bit = static_cast<int>(random() % 8);
  byte = static_cast<char>(byte ^ (1 << bit));
  file.seekp(static_cast<std::streamoff>(offset));
  file.write(&byte, 1);
  return "bit " + std::to_string(bit) + " of byte " + std::to_string(offset) + " flipped";
}

// A finished set's store damaged at a generated offset: a reader (compare) either reads the
// whole set unchanged (the damage fell where nothing of the set lies) or refuses it by name,
// never reads a partly changed set; and --resume gives the undisturbed set.
TEST(FaultSuite, ADamagedStoreIsWholeOrRefusedAndResumeGivesTheUndisturbedSet) {
  const fs::path dir = scratch("damaged_store");
  const fs::path file = write_campaign(dir, campaign_of(1.0, 1e-3));
  ASSERT_EQ(
      cli("campaign " + file.string() + " --jobs 2 --out " + (dir / "full").string()).exit_code, 0);
  const auto reference = comparable(dir / "full" / "results.json");
  std::mt19937 random(seed());
  int refused = 0;
  for (int trial = 0; trial < cases(8); ++trial) {
    const fs::path out = dir / ("damaged-" + std::to_string(trial));
    fs::copy(dir / "full", out, fs::copy_options::recursive);
    const std::string what = damage_store(out / "results.db", random);
    const CliResult read = cli("compare " + (dir / "full").string() + " " + out.string());
    EXPECT_TRUE(read.exit_code == 0 || read.exit_code == 2) << what << "\n" << read.output;
    if (read.exit_code == 2) {
      ++refused;
      EXPECT_NE(read.output.find("results.db"), std::string::npos) << what << "\n" << read.output;
    }
    const CliResult resumed =
        cli("campaign " + file.string() + " --jobs 2 --resume --out " + out.string());
    ASSERT_EQ(resumed.exit_code, 0) << what << "\n" << resumed.output;
    EXPECT_EQ(comparable(out / "results.json"), reference) << what;
    EXPECT_EQ(cli("compare " + (dir / "full").string() + " " + out.string()).exit_code, 0) << what;
  }
  EXPECT_GT(refused, 0);  // the damage reached the set
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cmb::test
