// A result set's store (records/result_set.hpp) seen from the commands that use it: a merge
// takes each run from its shard's store, checked against its digests, never from the shard's
// exported files.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include "campaign_support.hpp"
#include "cli_runner.hpp"

namespace cmb::test {
namespace {

json set_json(const fs::path& file) {
  std::ifstream in(file);
  return json::parse(in);
}

std::string set_file_bytes(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// A merge takes each run from its shard's store, checked against its digests, not from the
// shard's exported files: a record edited (its digest dropped) or a series removed there leaves
// the merged set as the undisturbed shards give it.
TEST(Cluster, AMergeTakesEachRunFromItsShardsStoreNotFromItsFiles) {
  const fs::path dir = scratch("cluster_merge_store");
  const fs::path file = write_campaign(dir, campaign_of(1.0, 1e-3));
  const std::string shards = run_shards(file, dir, 2, 2);
  ASSERT_FALSE(shards.empty());
  ASSERT_EQ(cli("merge" + shards + " --out " + (dir / "clean").string()).exit_code, 0);
  const fs::path record = *fs::directory_iterator(dir / "shard-1" / "runs");
  json edited = set_json(record);
  edited.erase("digest");
  edited["metrics"]["error"]["max_abs"] = 1.0;
  std::ofstream(record) << edited.dump(1);
  const fs::path series = *fs::directory_iterator(dir / "shard-2" / "series");
  fs::remove(series);
  ASSERT_EQ(cli("merge" + shards + " --out " + (dir / "merged").string()).exit_code, 0);
  for (const char* sub : {"runs", "series"})
    for (const auto& entry : fs::directory_iterator(dir / "clean" / sub))
      EXPECT_EQ(set_file_bytes(dir / "merged" / sub / entry.path().filename()),
                set_file_bytes(entry.path()))
          << entry.path().filename();
  EXPECT_EQ(comparable(dir / "merged" / "results.json"),
            comparable(dir / "clean" / "results.json"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cmb::test
