#include "records/results_file.hpp"

#include <cstdint>
#include <filesystem>
#include <map>
#include <sstream>

#include "core/errors.hpp"
#include "core/json_input.hpp"
#include "records/json_fields.hpp"
#include "records/result_set.hpp"

namespace cmb {

namespace {

using nlohmann::json;

[[noreturn]] void invalid(const std::string& name, const std::string& where,
                          const std::string& what) {
  throw InputError("'" + name + "' is not a valid cmbench results file: " + where + " " + what);
}

std::string a_or_an(const std::string& type_name) {
  return (type_name[0] == 'a' || type_name[0] == 'o' ? "an " : "a ") + type_name;
}

// The member `key` of `object` (found at `where`), which must exist and have type `type`.
const json& member(const json& object, const std::string& where, const char* key,
                   json::value_t type, const std::string& name) {
  const std::string path = json_pointer_append(where, key);
  const auto found = object.find(key);
  if (found == object.end()) invalid(name, path, "is missing");
  if (found->type() != type)
    invalid(name, path,
            "must be " + a_or_an(json(type).type_name()) + ", found " + found->type_name());
  return *found;
}

// A run's file name as a results file gives it: "<folder>/<stem><extension>", one level below
// the results directory. Anything else (an absolute path, "..", a deeper path) could make merge
// read or replace a file outside the directories it was given.
bool confined_name(const std::string& name, const std::string& folder,
                   const std::string& extension) {
  const std::string prefix = folder + "/";
  if (name.size() <= prefix.size() + extension.size() || name.compare(0, prefix.size(), prefix) ||
      name.compare(name.size() - extension.size(), extension.size(), extension))
    return false;
  const std::string stem = name.substr(prefix.size(), name.size() - prefix.size());
  return stem.find('/') == std::string::npos && stem.find('\\') == std::string::npos &&
         stem.find('\0') == std::string::npos && stem.front() != '.';
}

void check_file_name(const std::string& file, const std::string& folder,
                     const std::string& extension, const std::string& pointer,
                     const std::string& name) {
  if (!confined_name(file, folder, extension))
    invalid(name, pointer,
            "must be \"" + folder + "/<name>" + extension + "\" (a file directly in " + folder +
                "/, no '..'), found " + excerpt(json(file), 60));
}

// Two records of one run cannot be told apart by key: compare would see one, merge keep one.
// Checked before the records are read, so a file that holds a run twice says so first.
void refuse_repeated_keys(const json& runs, const std::string& name) {
  std::map<std::string, std::size_t> first_index;  // key → where it was first seen
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto key = runs[i].is_object() ? runs[i].find("key") : runs[i].end();
    if (key == runs[i].end() || !key->is_string()) continue;  // the record's reader says why
    const auto [seen, inserted] = first_index.emplace(key->get<std::string>(), i);
    if (!inserted)
      invalid(name, "/runs/" + std::to_string(i) + "/key",
              "'" + seen->first + "' repeats /runs/" + std::to_string(seen->second) +
                  "/key (a run is recorded twice)");
  }
}

void read_runs(const json& runs, const std::string& name, std::vector<RunRecord>& out) {
  refuse_repeated_keys(runs, name);
  for (std::size_t i = 0; i < runs.size(); ++i)
    out.push_back(read_result_record(runs[i], name, "/runs/" + std::to_string(i)));
}

// "shard": null (a merge), or {"index": I, "count": N} with whole numbers 1 <= I <= N.
void validate_shard(const json& doc, const std::string& name) {
  const auto found = doc.find("shard");
  if (found == doc.end() || found->is_null()) return;
  if (!found->is_object())
    invalid(name, "/shard", std::string("must be null or an object, found ") + found->type_name());
  // Far more shards than runs anyone runs; keeps the counts exact in every reader's integers.
  constexpr std::uint64_t kMaxShards = 1000000;
  auto whole = [&](const char* key, std::uint64_t max, const char* range) {
    const auto value = found->find(key);
    if (value == found->end()) invalid(name, std::string("/shard/") + key, "is missing");
    if (!value->is_number_unsigned() || value->get<std::uint64_t>() < 1 ||
        value->get<std::uint64_t>() > max)
      invalid(name, std::string("/shard/") + key,
              std::string("must be a whole number from 1 to ") + range + ", found " +
                  excerpt(*value, 40));
    return value->get<std::uint64_t>();
  };
  whole("index", whole("count", kMaxShards, "1000000"), "/shard/count");
}

}  // namespace

RunRecord read_result_record(const json& record, const std::string& name,
                             const std::string& pointer) {
  RunRecord run = read_run_record(record, name, pointer);
  if (run.files) {
    check_file_name(run.files->record, "runs", ".json", pointer + "/files/record", name);
    if (run.files->series)
      check_file_name(*run.files->series, "series", ".csv", pointer + "/files/series", name);
  }
  return run;
}

RunRecord load_record(const std::string& path) {
  return read_result_record(read_json_file(path, "run record '" + path + "'"), path, "");
}

RunRecord parse_record(const std::string& text, const std::string& name) {
  return read_result_record(parse_json_input(text, "run record '" + name + "'"), name, "");
}

void validate_results(const json& doc, const std::string& name) {
  if (!doc.is_object())
    invalid(name, "the document", std::string("must be an object, found ") + doc.type_name());
  const json& schema = member(doc, "", "schema", json::value_t::string, name);
  if (schema != "cmbench.results/1")
    invalid(name, "/schema", "must be \"cmbench.results/1\", found " + schema.dump());
  member(doc, "", "campaign_file", json::value_t::object, name);
  const json& context = member(doc, "", "context", json::value_t::object, name);
  for (const char* key : {"git_sha", "build_type", "compiler", "flags"})
    member(context, "/context", key, json::value_t::string, name);
  validate_shard(doc, name);
  if (doc.contains("filter")) member(doc, "", "filter", json::value_t::string, name);
  member(doc, "", "runs", json::value_t::array, name);
}

// The checked document with its runs read into records and taken out of the document.
ResultsFile results_file(json doc, const std::string& name) {
  validate_results(doc, name);
  ResultsFile file{name, std::move(doc), {}};
  read_runs(file.doc["runs"], name, file.runs);
  file.doc.erase("runs");
  return file;
}

ResultsFile parse_results(const std::string& text, const std::string& name) {
  return results_file(parse_json_input(text, "'" + name + "'"), name);
}

ResultsFile load_results(const std::string& path, const std::string& if_unreadable) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw InputError(if_unreadable);
  const std::string what = "'" + path + "'";
  const std::string text = read_text_file(path, what);
  // Beside its store, results.json is read only as the store's complete export.
  check_set_complete(std::filesystem::path(path).parent_path().string(), text);
  return results_file(parse_json_input(text, what), path);
}

std::string stable_hash(const std::string& text) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  std::ostringstream out;
  out << std::hex << h;
  return out.str();
}

}  // namespace cmb
