#include "core/json_input.hpp"

#include <filesystem>
#include <fstream>
#include <set>
#include <vector>

#include "core/errors.hpp"

namespace cmb {

namespace {

using nlohmann::json;

// One open object or array while parsing, enough to name the path of a duplicate key.
struct OpenContainer {
  bool is_object = false;
  std::string key;           // object: the member being read
  std::size_t elements = 0;  // array: elements seen so far
  std::set<std::string> keys;
};

std::string path_of(const std::vector<OpenContainer>& open) {
  std::string path;
  for (const auto& c : open) path += "/" + (c.is_object ? c.key : std::to_string(c.elements - 1));
  return path;
}

}  // namespace

json parse_json_input(const std::string& text, const std::string& origin) {
  std::vector<OpenContainer> open;
  auto check = [&](int /*depth*/, json::parse_event_t event, json& parsed) {
    using E = json::parse_event_t;
    const bool starts = event == E::object_start || event == E::array_start;
    if ((starts || event == E::value) && !open.empty() && !open.back().is_object)
      ++open.back().elements;
    if (starts) {
      if (static_cast<int>(open.size()) >= kMaxJsonDepth)
        throw InputError(origin + ": nested deeper than " + std::to_string(kMaxJsonDepth) +
                         " levels at " + path_of(open));
      open.push_back(OpenContainer{event == E::object_start, {}, 0, {}});
    } else if (event == E::object_end || event == E::array_end) {
      open.pop_back();
    } else if (event == E::key) {
      const std::string key = parsed.get<std::string>();
      if (!open.back().keys.insert(key).second) {
        open.pop_back();  // the path of the object holding the key, not of the key
        throw InputError(origin + ": key " + excerpt(json(key), 60) +
                         " appears twice in the object at " +
                         (open.empty() ? std::string("/") : path_of(open)));
      }
      OpenContainer& object = open.back();
      object.key = key;
    }
    return true;
  };
  try {
    return json::parse(text, check);
  } catch (const json::exception& e) {  // syntax errors, and numbers beyond double range
    throw InputError(origin + " is not valid JSON: " + e.what());
  }
}

std::string read_text_file(const std::string& path, const std::string& what) {
  std::error_code ec;
  // A device or a FIFO could stream forever; only a regular file has a size to check.
  if (!std::filesystem::is_regular_file(path, ec))
    throw InputError("cannot read " + what + ": " +
                     (std::filesystem::exists(path, ec) ? "not a regular file" : "no such file"));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("cannot read " + what);
  std::string text;
  char chunk[1 << 16];
  while (text.size() <= kMaxJsonFileBytes && in.read(chunk, sizeof chunk).gcount() > 0)
    text.append(chunk, static_cast<std::size_t>(in.gcount()));
  if (in.bad()) throw InputError("cannot read " + what);
  if (text.size() > kMaxJsonFileBytes)
    throw InputError(what + " is larger than " + std::to_string(kMaxJsonFileBytes >> 20) +
                     " MiB, more than any file cmbench writes: refused");
  return text;
}

json read_json_file(const std::string& path, const std::string& what) {
  return parse_json_input(read_text_file(path, what), what);
}

std::string excerpt(const json& value, std::size_t max_chars) {
  std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  if (text.size() <= max_chars) return text;
  const std::size_t total = text.size();
  // Cut before a character, never inside one: a message stays valid UTF-8 where it is written.
  std::size_t cut = max_chars;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  text.resize(cut);
  return text + "… (" + std::to_string(total) + " characters)";
}

}  // namespace cmb
