#include "harness/results_file.hpp"

#include <cstdint>
#include <fstream>
#include <map>
#include <sstream>

#include "core/errors.hpp"

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

void validate_runs(const json& runs, const std::string& name) {
  std::map<std::string, std::size_t> first_index;  // key → where it was first seen
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const std::string where = "runs[" + std::to_string(i) + "]";
    if (!runs[i].is_object())
      invalid(name, where, std::string("must be an object, found ") + runs[i].type_name());
    const json& key = member(runs[i], where, "key", json::value_t::string, name);
    member(runs[i], where, "status", json::value_t::string, name);
    const std::string& text = key.get_ref<const std::string&>();
    if (text.empty()) invalid(name, where + ".key", "is empty");
    // Two records of one run cannot be told apart by key: compare would see one, merge keep one.
    const auto [seen, inserted] = first_index.emplace(text, i);
    if (!inserted)
      invalid(name, where + ".key",
              "'" + text + "' repeats runs[" + std::to_string(seen->second) +
                  "].key (a run is recorded twice)");
  }
}

}  // namespace

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
  validate_runs(member(doc, "", "runs", json::value_t::array, name), name);
}

ResultsFile parse_results(const std::string& text, const std::string& name) {
  ResultsFile file{name, json()};
  try {
    file.doc = json::parse(text);
  } catch (const json::exception& e) {
    throw InputError("'" + name + "' is not valid JSON: " + e.what());
  }
  validate_results(file.doc, name);
  return file;
}

ResultsFile load_results(const std::string& path, const std::string& if_unreadable) {
  std::ifstream in(path);
  if (!in) throw InputError(if_unreadable);
  std::ostringstream text;
  text << in.rdbuf();
  return parse_results(text.str(), path);
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
