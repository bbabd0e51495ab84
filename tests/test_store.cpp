// The result store (records/store.hpp) keeps a set whole whatever happens to its writer or its
// file: a writer killed at a generated moment leaves every run it committed and no part of any
// other; a file truncated or with a bit flipped at a generated offset is refused by name or reads
// back exactly what was stored (never a changed run); two writers at once both land.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/errors.hpp"
#include "records/store.hpp"
#include "test_support.hpp"

namespace {

namespace fs = std::filesystem;
using cmb::ResultStore;
using cmb::StoredRun;

// Run `i` of a writer seeded `seed`: its content follows from the two, so a reader can tell an
// intact run from a changed one. The series is long enough that a commit takes a while.
StoredRun generated_run(unsigned seed, int i) {
  std::mt19937 random(seed * 7919u + static_cast<unsigned>(i));
  const std::string key = "w" + std::to_string(seed) + "/run" + std::to_string(i);
  const bool pending = random() % 2 == 0;
  const std::string status = random() % 3 == 0 ? "singular" : "ok";
  StoredRun run{key,
                "file_" + std::to_string(seed) + "_" + std::to_string(i),
                status,
                R"({"key": ")" + key + R"(", "status": ")" + status +
                    R"(", "timing": {"pending": )" + (pending ? "true" : "false") + "}}",
                std::nullopt,
                pending};
  if (random() % 4 != 0) {
    std::string series = "t,x\n";
    const int rows = 10 + static_cast<int>(random() % 4000);
    for (int r = 0; r < rows; ++r)
      series += std::to_string(r) + "," + std::to_string(random() % 100000) + "\n";
    run.series = series;
  }
  return run;
}

bool same_run(const StoredRun& a, const StoredRun& b) {
  return a.key == b.key && a.file == b.file && a.status == b.status && a.record == b.record &&
         a.series == b.series && a.timing_pending == b.timing_pending;
}

// Commits runs of `seed` in batches of 1 to 4 for ever, writing the count committed so far to
// `report` after each commit; never returns.
[[noreturn]] void write_for_ever(const std::string& path, ResultStore::Journal journal,
                                 unsigned seed, int report) {
  ResultStore store(path, journal);
  std::mt19937 random(seed);
  for (int next = 0;;) {
    std::vector<StoredRun> batch;
    for (int k = 1 + static_cast<int>(random() % 4); k > 0; --k)
      batch.push_back(generated_run(seed, next++));
    store.commit(batch);
    const std::string line = std::to_string(next) + "\n";
    if (::write(report, line.data(), line.size()) < 0) _exit(1);
  }
}

TEST(ResultStore, ARunReadsBackAsCommittedAndAReplacementReplacesIt) {
  const fs::path dir = cmb::test::fresh_scratch_dir("store_round_trip");
  const std::string path = (dir / "results.db").string();
  {
    ResultStore store(path, ResultStore::Journal::local);
    store.commit({generated_run(1, 0), generated_run(1, 1)});
    store.commit(generated_run(2, 0));
    store.set_fact("campaign", R"({"name": "x"})");
  }
  ResultStore store(path, ResultStore::Journal::local);
  EXPECT_EQ(store.verify(), 3u);
  EXPECT_EQ(store.keys(), (std::vector<std::string>{"w1/run0", "w1/run1", "w2/run0"}));
  EXPECT_TRUE(same_run(*store.run("w1/run1"), generated_run(1, 1)));
  EXPECT_EQ(store.fact("campaign"), R"({"name": "x"})");
  EXPECT_FALSE(store.run("absent").has_value());
  StoredRun changed = generated_run(1, 1);
  changed.status = "diverged";
  changed.record = R"({"key": "w1/run1", "status": "diverged"})";
  changed.series.reset();
  changed.timing_pending = false;
  store.commit(changed);
  EXPECT_EQ(store.size(), 3u);
  EXPECT_TRUE(same_run(*store.run("w1/run1"), changed));
  fs::remove_all(dir);
}

TEST(ResultStore, AWriterKilledAtAGeneratedMomentLeavesExactlyWholeRuns) {
  const fs::path dir = cmb::test::fresh_scratch_dir("store_killed");
  std::mt19937 random(48);
  std::size_t stored_in_all = 0;
  for (int trial = 0; trial < 12; ++trial) {
    const auto journal = trial % 2 ? ResultStore::Journal::shared : ResultStore::Journal::local;
    const std::string path = (dir / ("killed" + std::to_string(trial) + ".db")).string();
    int report[2];
    ASSERT_EQ(::pipe(report), 0);
    const pid_t writer = ::fork();
    ASSERT_GE(writer, 0);
    if (writer == 0) {
      ::close(report[0]);
      write_for_ever(path, journal, static_cast<unsigned>(trial), report[1]);
    }
    ::close(report[1]);
    std::this_thread::sleep_for(std::chrono::microseconds(2000 + random() % 150000));
    ::kill(writer, SIGKILL);
    ::waitpid(writer, nullptr, 0);
    std::string reported;
    char buffer[4096];
    for (ssize_t n; (n = ::read(report[0], buffer, sizeof buffer)) > 0;) reported.append(buffer, n);
    ::close(report[0]);
    int committed = 0;  // the last count reported (a line that short reaches a pipe whole)
    std::istringstream lines(reported);
    for (std::string line; std::getline(lines, line);) committed = std::stoi(line);

    ResultStore store(path, journal);
    const std::string at = "trial " + std::to_string(trial);
    ASSERT_NO_THROW(store.verify()) << at;
    EXPECT_GE(store.size(), static_cast<std::size_t>(committed)) << at << ": a commit was lost";
    EXPECT_LE(store.size(), static_cast<std::size_t>(committed) + 4) << at;  // one more batch
    for (int i = 0; i < static_cast<int>(store.size()); ++i) {
      const auto run = store.run("w" + std::to_string(trial) + "/run" + std::to_string(i));
      ASSERT_TRUE(run.has_value()) << at << ": run " << i << " missing, a later one stored";
      EXPECT_TRUE(same_run(*run, generated_run(static_cast<unsigned>(trial), i))) << at;
    }
    stored_in_all += store.size();
  }
  EXPECT_GT(stored_in_all, 12u) << "the writers were killed before they committed anything";
  fs::remove_all(dir);
}

// A store of `runs` runs, closed (its journal done with: the one file holds them).
std::vector<StoredRun> write_store(const std::string& path, int runs) {
  std::vector<StoredRun> stored;
  for (int i = 0; i < runs; ++i) stored.push_back(generated_run(99, i));
  ResultStore store(path, ResultStore::Journal::shared);
  store.commit(stored);
  store.set_fact("campaign", R"({"name": "damaged"})");
  return stored;
}

TEST(ResultStore, ADamagedFileIsRefusedByNameOrReadsBackUnchanged) {
  const fs::path dir = cmb::test::fresh_scratch_dir("store_damaged");
  const std::string original = (dir / "original.db").string();
  const std::vector<StoredRun> stored = write_store(original, 30);
  const auto size = static_cast<std::uintmax_t>(fs::file_size(original));
  std::mt19937_64 random(48);
  int refused = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const fs::path copy = dir / ("damaged" + std::to_string(trial) + ".db");
    fs::copy_file(original, copy, fs::copy_options::overwrite_existing);
    const std::uintmax_t offset = random() % size;
    std::string what;
    if (trial % 2 == 0) {
      fs::resize_file(copy, offset);
      what = "truncated to " + std::to_string(offset) + " bytes";
    } else {
      std::fstream file(copy, std::ios::in | std::ios::out | std::ios::binary);
      file.seekg(static_cast<std::streamoff>(offset));
      char byte = 0;
      file.get(byte);
      byte = static_cast<char>(byte ^ (1 << (random() % 8)));
      file.seekp(static_cast<std::streamoff>(offset));
      file.put(byte);
      what = "a bit flipped at byte " + std::to_string(offset);
    }
    try {
      ResultStore store(copy.string(), ResultStore::Journal::shared);
      store.verify();
      for (const std::string& key : store.keys()) {
        const auto run = store.run(key);
        const auto it = std::find_if(stored.begin(), stored.end(),
                                     [&](const StoredRun& s) { return s.key == key; });
        ASSERT_NE(it, stored.end()) << what << ": a key that was never stored: " << key;
        EXPECT_TRUE(same_run(*run, *it)) << what << ": run " << key << " changed";
      }
      EXPECT_EQ(store.fact("campaign"), R"({"name": "damaged"})") << what;
    } catch (const cmb::InputError& e) {
      ++refused;
      EXPECT_NE(std::string(e.what()).find(copy.string()), std::string::npos) << e.what();
    }
  }
  EXPECT_GT(refused, 0) << "no damage was noticed: the offsets missed the file's contents";
  fs::remove_all(dir);
}

TEST(ResultStore, TwoWritersAtOnceBothLand) {
  const fs::path dir = cmb::test::fresh_scratch_dir("store_two_writers");
  const std::string path = (dir / "results.db").string();
  { ResultStore create(path, ResultStore::Journal::local); }
  std::vector<pid_t> writers;
  for (unsigned seed : {5u, 6u}) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int code = 0;
      try {
        ResultStore store(path, ResultStore::Journal::local);
        for (int i = 0; i < 40; ++i) store.commit(generated_run(seed, i));
      } catch (...) {
        code = 1;
      }
      _exit(code);
    }
    writers.push_back(pid);
  }
  for (const pid_t pid : writers) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  ResultStore store(path, ResultStore::Journal::local);
  EXPECT_EQ(store.verify(), 80u);
  fs::remove_all(dir);
}

TEST(ResultStore, AFileThatIsNotAStoreIsRefusedByName) {
  const fs::path dir = cmb::test::fresh_scratch_dir("store_not_a_store");
  const std::string json = (dir / "results.json").string();
  std::ofstream(json) << R"({"schema": "cmbench.results/1", "runs": []})";
  EXPECT_THROW(ResultStore(json, ResultStore::Journal::local), cmb::InputError);
  const std::string fifo = (dir / "pipe.db").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  try {
    ResultStore store(fifo, ResultStore::Journal::local);
    ADD_FAILURE() << "a FIFO was opened as a store";
  } catch (const cmb::InputError& e) {
    EXPECT_NE(std::string(e.what()).find(fifo), std::string::npos) << e.what();
  }
  fs::remove_all(dir);
}

}  // namespace
