#include "records/json_fields.hpp"

#include <cmath>
#include <limits>

#include "core/errors.hpp"
#include "core/json_input.hpp"

namespace cmb {

using nlohmann::json;

namespace {

// "number 3", "string \"x\"", "null": what a message says was found instead.
std::string found(const json& value) {
  if (value.is_null()) return "null";
  return std::string(value.type_name()) + " " + excerpt(value, 60);
}

}  // namespace

std::string json_pointer_append(const std::string& pointer, const std::string& key) {
  std::string out = pointer + "/";
  for (char c : key) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

ObjectFields::ObjectFields(const json& node, std::string pointer, std::string file,
                           std::string kind)
    : node_(node), pointer_(std::move(pointer)), file_(std::move(file)), kind_(std::move(kind)) {
  if (!node_.is_object())
    fail(pointer_, std::string("must be an object, found ") + node_.type_name());
}

void ObjectFields::fail(const std::string& pointer, const std::string& what) const {
  throw InputError("'" + file_ + "' is not a valid " + kind_ + ": " +
                   (pointer.empty() ? std::string("the document") : pointer) + " " + what);
}

bool ObjectFields::has(const char* key) const { return node_.contains(key); }

const json& ObjectFields::member(const char* key) {
  const auto found = node_.find(key);
  if (found == node_.end()) fail(pointer(key), "is missing");
  read_.insert(key);
  return *found;
}

const json& ObjectFields::any(const char* key) { return member(key); }

std::string ObjectFields::text(const char* key) {
  const json& value = member(key);
  if (!value.is_string()) fail(pointer(key), "must be a string, found " + found(value));
  return value.get<std::string>();
}

std::optional<std::string> ObjectFields::text_if_present(const char* key) {
  if (!has(key)) return std::nullopt;
  return text(key);
}

double ObjectFields::number(const char* key, bool null_as_nan) {
  const json& value = member(key);
  if (null_as_nan && value.is_null()) return std::numeric_limits<double>::quiet_NaN();
  if (!value.is_number() || !std::isfinite(value.get<double>()))
    fail(pointer(key), std::string("must be a number") + (null_as_nan ? " or null" : "") +
                           ", found " + found(value));
  return value.get<double>();
}

std::optional<double> ObjectFields::number_if_present(const char* key, bool null_as_nan) {
  if (!has(key)) return std::nullopt;
  return number(key, null_as_nan);
}

std::int64_t ObjectFields::count(const char* key, std::int64_t min) {
  const json& value = member(key);
  const bool whole = value.is_number_integer() &&
                     (value.is_number_unsigned()
                          ? value.get<std::uint64_t>() <=
                                static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())
                          : true);
  if (!whole || value.get<std::int64_t>() < min)
    fail(pointer(key),
         "must be a whole number from " + std::to_string(min) + ", found " + found(value));
  return value.get<std::int64_t>();
}

std::optional<std::int64_t> ObjectFields::count_if_present(const char* key, std::int64_t min) {
  if (!has(key)) return std::nullopt;
  return count(key, min);
}

bool ObjectFields::boolean(const char* key) {
  const json& value = member(key);
  if (!value.is_boolean()) fail(pointer(key), "must be true or false, found " + found(value));
  return value.get<bool>();
}

ObjectFields ObjectFields::object(const char* key) {
  return ObjectFields(member(key), pointer(key), file_, kind_);
}

const json& ObjectFields::array(const char* key) {
  const json& value = member(key);
  if (!value.is_array()) fail(pointer(key), "must be an array, found " + found(value));
  return value;
}

std::vector<double> ObjectFields::numbers(const char* key) {
  const json& values = array(key);
  std::vector<double> out;
  out.reserve(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (values[i].is_null())
      out.push_back(std::numeric_limits<double>::quiet_NaN());
    else if (values[i].is_number())
      out.push_back(values[i].get<double>());
    else
      fail(pointer(key) + "/" + std::to_string(i),
           "must be a number or null, found " + found(values[i]));
  }
  return out;
}

std::vector<std::string> ObjectFields::texts(const char* key) {
  const json& values = array(key);
  std::vector<std::string> out;
  out.reserve(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!values[i].is_string())
      fail(pointer(key) + "/" + std::to_string(i), "must be a string, found " + found(values[i]));
    out.push_back(values[i].get<std::string>());
  }
  return out;
}

void ObjectFields::finish() const {
  for (const auto& [key, value] : node_.items())
    if (!read_.count(key))
      fail(json_pointer_append(pointer_, key),
           "is not a field of " + kind_ + "s at this place (a newer writer's, or a typo)");
}

}  // namespace cmb
