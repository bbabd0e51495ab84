/// \file
/// JSON that comes from users (campaign files, --param values, result sets handed to merge and
/// compare): parsed with limits, and quoted briefly in messages.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

namespace cmb {

/// Deeper than any campaign or result set needs; deep enough values would exhaust the stack of the
/// recursive code that prints or compares them.
constexpr int kMaxJsonDepth = 64;

/// Parses `text`; throws InputError naming `origin` for a syntax error, a number beyond double
/// range, nesting deeper than kMaxJsonDepth, or a key that appears twice in one object (the JSON
/// standard leaves that to the reader; silently keeping the last would hide a typo).
nlohmann::json parse_json_input(const std::string& text, const std::string& origin);

/// Larger than any file cmbench writes needs (a results.json holds about 5 KB per run, so this is
/// some 50 000 runs), small enough that the parsed document (about ten times the text) fits in
/// memory: a larger file is refused before it is parsed. Python's reader uses the same limit.
constexpr std::size_t kMaxJsonFileBytes = std::size_t(256) << 20;

/// Reads the file at `path` and parses it as parse_json_input does. Throws InputError naming
/// `what` (e.g. "results file 'a/results.json'") when the file cannot be opened, is not a regular
/// file, is larger than kMaxJsonFileBytes, or is not acceptable JSON.
nlohmann::json read_json_file(const std::string& path, const std::string& what);
/// The text of that file, with the same checks but for the JSON.
std::string read_text_file(const std::string& path, const std::string& what);

/// `value` as JSON text for a message, cut to about `max_chars` characters.
std::string excerpt(const nlohmann::json& value, std::size_t max_chars = 80);

}  // namespace cmb
