// Reading one JSON object of a file into typed fields: each member is looked up by name, its
// type and range checked, and a violation named by the file and the member's JSON Pointer
// (RFC 6901: "/runs/3/metrics/drift"). finish() refuses the members nobody read, so a reader
// built on it accepts exactly the fields it knows.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace cmb {

// `pointer` with the member `key` appended, escaped as RFC 6901 asks ('~' → ~0, '/' → ~1).
std::string json_pointer_append(const std::string& pointer, const std::string& key);

class ObjectFields {
 public:
  // `node` must be an object (InputError otherwise). `kind` names what the file should be in
  // messages: "'<file>' is not a valid <kind>: <pointer> <what is wrong>".
  ObjectFields(const nlohmann::json& node, std::string pointer, std::string file, std::string kind);

  bool has(const char* key) const;
  // The member whatever its type; absent: InputError.
  const nlohmann::json& any(const char* key);
  std::string text(const char* key);
  std::optional<std::string> text_if_present(const char* key);
  // A finite number; `null_as_nan` accepts null and returns NaN for it.
  double number(const char* key, bool null_as_nan = false);
  std::optional<double> number_if_present(const char* key, bool null_as_nan = false);
  // A whole number from `min` up.
  std::int64_t count(const char* key, std::int64_t min = 0);
  std::optional<std::int64_t> count_if_present(const char* key, std::int64_t min = 0);
  bool boolean(const char* key);
  // Members that are objects or arrays, to be read by the caller.
  ObjectFields object(const char* key);
  const nlohmann::json& array(const char* key);
  // An array of finite numbers (null as NaN) or of strings.
  std::vector<double> numbers(const char* key);
  std::vector<std::string> texts(const char* key);

  // InputError unless every member was read.
  void finish() const;

  // Another object of the same file (an array element), read the same way.
  ObjectFields nested(const nlohmann::json& node, std::string pointer) const {
    return ObjectFields(node, std::move(pointer), file_, kind_);
  }
  const nlohmann::json& node() const { return node_; }
  std::string pointer(const char* key) const { return json_pointer_append(pointer_, key); }
  [[noreturn]] void fail(const std::string& pointer, const std::string& what) const;

 private:
  const nlohmann::json& member(const char* key);  // marks it read
  const nlohmann::json& node_;
  std::string pointer_, file_, kind_;
  std::set<std::string> read_;
};

}  // namespace cmb
