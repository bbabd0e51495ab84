// What committing a run costs: the result store (records/store.hpp, one SQLite transaction per
// run or per batch) against the two files per run the campaigns wrote before it (the record and the
// series, each written to a temporary file and renamed). A run of the default campaign: a record of
// about 4.8 kB and a series of 101 samples × 10 columns (about 12 kB). Items per second are runs
// committed.
//   build/bench/cmb_bench_store --benchmark_min_time=2
#include <benchmark/benchmark.h>

#include <filesystem>
#include <string>
#include <vector>

#include "records/output.hpp"
#include "records/store.hpp"

namespace {

namespace fs = std::filesystem;

std::string record_text(long i) {
  std::string text = "{\"key\": \"bench/run" + std::to_string(i) + "\", \"status\": \"ok\"";
  while (text.size() < 4800) text += ", \"metric_" + std::to_string(text.size()) + "\": 1.2345e-06";
  return text + "}";
}

std::string series_text() {
  std::string text = "t,q0,q1,q2,v0,v1,v2,energy,phi,dphi\n";
  for (int row = 0; row <= 100; ++row) {
    text += std::to_string(row * 0.01);
    for (int column = 1; column < 10; ++column) text += ",0.123456789012";
    text += "\n";
  }
  return text;
}

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("cmb_bench_store_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir / "runs");
  fs::create_directories(dir / "series");
  return dir;
}

void files_per_run(benchmark::State& state) {
  const fs::path dir = fresh_dir("files");
  const std::string series = series_text();
  long i = 0;
  for (auto _ : state) {
    const std::string name = "run" + std::to_string(i);
    cmb::write_file_atomically((dir / "series" / (name + ".csv")).string(), series);
    cmb::write_file_atomically((dir / "runs" / (name + ".json")).string(), record_text(i++));
  }
  state.SetItemsProcessed(state.iterations());
  fs::remove_all(dir);
}

void store(benchmark::State& state, cmb::ResultStore::Journal journal) {
  const fs::path dir = fresh_dir(journal == cmb::ResultStore::Journal::local ? "local" : "shared");
  const std::string series = series_text();
  const auto batch = static_cast<long>(state.range(0));
  long i = 0;
  {
    cmb::ResultStore db((dir / "results.db").string(), journal);
    for (auto _ : state) {
      std::vector<cmb::StoredRun> runs;
      for (long k = 0; k < batch; ++k, ++i) {
        const std::string key = "bench/run" + std::to_string(i);
        runs.push_back({key, "run" + std::to_string(i), "ok", record_text(i), series, false});
      }
      db.commit(runs);
    }
  }
  state.SetItemsProcessed(state.iterations() * batch);
  fs::remove_all(dir);
}

void store_local(benchmark::State& state) { store(state, cmb::ResultStore::Journal::local); }
void store_shared(benchmark::State& state) { store(state, cmb::ResultStore::Journal::shared); }

}  // namespace

BENCHMARK(files_per_run)->Name("commit/files_per_run")->UseRealTime();
BENCHMARK(store_local)->Name("commit/store_local/batch")->Arg(1)->Arg(32)->UseRealTime();
BENCHMARK(store_shared)->Name("commit/store_shared/batch")->Arg(1)->Arg(32)->UseRealTime();
BENCHMARK_MAIN();
