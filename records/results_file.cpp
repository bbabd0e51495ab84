#include "records/results_file.hpp"

#include <cstdint>
#include <filesystem>
#include <map>
#include <sstream>

#include "core/errors.hpp"
#include "core/json_input.hpp"

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
  const std::string path = where.empty() ? key : where + "." + key;
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

void validate_files(const json& run, const std::string& where, const std::string& name) {
  const auto found = run.find("files");
  if (found == run.end() || found->is_null()) return;
  if (!found->is_object())
    invalid(name, where + ".files", std::string("must be an object, found ") + found->type_name());
  static const std::map<std::string, std::pair<std::string, std::string>> kinds = {
      {"record", {"runs", ".json"}}, {"series", {"series", ".csv"}}};
  for (const auto& [kind, file] : found->items()) {
    const std::string path = where + ".files." + kind;
    const auto layout = kinds.find(kind);
    if (layout == kinds.end()) invalid(name, path, "is not a run file (record, series)");
    if (file.is_null()) continue;
    if (!file.is_string() ||
        !confined_name(file.get<std::string>(), layout->second.first, layout->second.second))
      invalid(name, path,
              "must be null or \"" + layout->second.first + "/<name>" + layout->second.second +
                  "\" (a file directly in " + layout->second.first + "/, no '..'), found " +
                  excerpt(file, 60));
  }
}

void validate_runs(const json& runs, const std::string& name) {
  std::map<std::string, std::size_t> first_index;  // key → where it was first seen
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const std::string where = "runs[" + std::to_string(i) + "]";
    validate_record(runs[i], where, name);
    const std::string& text = runs[i]["key"].get_ref<const std::string&>();
    // Two records of one run cannot be told apart by key: compare would see one, merge keep one.
    const auto [seen, inserted] = first_index.emplace(text, i);
    if (!inserted)
      invalid(name, where + ".key",
              "'" + text + "' repeats runs[" + std::to_string(seen->second) +
                  "].key (a run is recorded twice)");
  }
}

// "shard": null (a merge), or {"index": I, "count": N} with whole numbers 1 <= I <= N.
void validate_shard(const json& doc, const std::string& name) {
  const auto found = doc.find("shard");
  if (found == doc.end() || found->is_null()) return;
  if (!found->is_object())
    invalid(name, "shard", std::string("must be null or an object, found ") + found->type_name());
  // Far more shards than runs anyone runs; keeps the counts exact in every reader's integers.
  constexpr std::uint64_t kMaxShards = 1000000;
  auto whole = [&](const char* key, std::uint64_t max, const char* range) {
    const auto value = found->find(key);
    if (value == found->end()) invalid(name, std::string("shard.") + key, "is missing");
    if (!value->is_number_unsigned() || value->get<std::uint64_t>() < 1 ||
        value->get<std::uint64_t>() > max)
      invalid(name, std::string("shard.") + key,
              std::string("must be a whole number from 1 to ") + range + ", found " +
                  excerpt(*value, 40));
    return value->get<std::uint64_t>();
  };
  whole("index", whole("count", kMaxShards, "1000000"), "shard.count");
}

}  // namespace

void validate_record(const json& record, const std::string& where, const std::string& name) {
  if (!record.is_object())
    invalid(name, where, std::string("must be an object, found ") + record.type_name());
  const json& key = member(record, where, "key", json::value_t::string, name);
  if (key.get_ref<const std::string&>().empty()) invalid(name, where + ".key", "is empty");
  const json& status = member(record, where, "status", json::value_t::string, name);
  if (!run_status_from(status.get<std::string>()))
    invalid(name, where + ".status",
            "must be one of " + run_status_names() + ", found " + excerpt(status, 60));
  validate_files(record, where, name);
}

json load_record(const std::string& path) {
  json record = read_json_file(path, "run record '" + path + "'");
  validate_record(record, "the record", path);
  return record;
}

json parse_record(const std::string& text, const std::string& name) {
  json record = parse_json_input(text, "run record '" + name + "'");
  validate_record(record, "the record", name);
  return record;
}

void validate_results(const json& doc, const std::string& name) {
  if (!doc.is_object())
    invalid(name, "the document", std::string("must be an object, found ") + doc.type_name());
  const json& schema = member(doc, "", "schema", json::value_t::string, name);
  if (schema != "cmbench.results/1")
    invalid(name, "schema", "must be \"cmbench.results/1\", found " + schema.dump());
  member(doc, "", "campaign_file", json::value_t::object, name);
  const json& context = member(doc, "", "context", json::value_t::object, name);
  for (const char* key : {"git_sha", "build_type", "compiler", "flags"})
    member(context, "context", key, json::value_t::string, name);
  validate_shard(doc, name);
  if (doc.contains("filter")) member(doc, "", "filter", json::value_t::string, name);
  validate_runs(member(doc, "", "runs", json::value_t::array, name), name);
}

ResultsFile parse_results(const std::string& text, const std::string& name) {
  ResultsFile file{name, parse_json_input(text, "'" + name + "'")};
  validate_results(file.doc, name);
  return file;
}

ResultsFile load_results(const std::string& path, const std::string& if_unreadable) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw InputError(if_unreadable);
  ResultsFile file{path, read_json_file(path, "'" + path + "'")};
  validate_results(file.doc, path);
  return file;
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
