#include "records/reference_cache.hpp"

#include <cmath>
#include <filesystem>

#include "core/errors.hpp"
#include "core/json_input.hpp"
#include "records/output.hpp"
#include "records/store.hpp"

namespace cmb {

namespace {

using nlohmann::json;

// A violation of the expected layout: the JSON path and what is wrong there.
struct Violation {
  std::string text;
};

[[noreturn]] void violation(const std::string& path, const std::string& what) {
  throw Violation{path + " " + what};
}

const json& member(const json& doc, const char* key) {
  const auto found = doc.find(key);
  if (found == doc.end()) violation(std::string("/") + key, "is missing");
  return *found;
}

double finite_number(const json& value, const std::string& path) {
  if (!value.is_number() || !std::isfinite(value.get<double>()))
    violation(path, "must be a finite number, found " + excerpt(value, 40));
  return value.get<double>();
}

std::vector<double> read_grid(const json& grid, double t_end) {
  if (!grid.is_array() || grid.size() < 17 || grid.size() > kMaxReferenceIntervals + 1 ||
      grid.size() % 2 == 0)
    violation("/grid", "must be an array of an even number of intervals (from 16 to " +
                           std::to_string(kMaxReferenceIntervals) + ") plus one times");
  const double intervals = static_cast<double>(grid.size() - 1);
  std::vector<double> times;
  for (std::size_t k = 0; k < grid.size(); ++k) {
    times.push_back(finite_number(grid[k], "/grid/" + std::to_string(k)));
    if (times.back() != t_end * static_cast<double>(k) / intervals)
      violation("/grid/" + std::to_string(k), "is not the grid time of the run's horizon");
  }
  return times;
}

double nonnegative_number(const json& value, const std::string& path) {
  const double number = finite_number(value, path);
  if (number < 0) violation(path, "must not be negative");
  return number;
}

std::vector<double> read_interval_errors(const json& errors, std::size_t intervals) {
  if (!errors.is_array() || errors.size() != intervals)
    violation("/interval_errors", "must be an array of " + std::to_string(intervals) +
                                      " numbers (one per grid interval)");
  std::vector<double> out;
  for (std::size_t k = 0; k < intervals; ++k)
    out.push_back(nonnegative_number(errors[k], "/interval_errors/" + std::to_string(k)));
  return out;
}

Mat read_outputs(const json& rows, std::size_t n_rows, std::size_t n_columns) {
  if (!rows.is_array() || rows.size() != n_rows)
    violation("/outputs", "must be an array of " + std::to_string(n_rows) + " rows");
  Mat table(static_cast<Eigen::Index>(n_rows), static_cast<Eigen::Index>(n_columns));
  for (std::size_t i = 0; i < n_rows; ++i) {
    const std::string row_path = "/outputs/" + std::to_string(i);
    if (!rows[i].is_array() || rows[i].size() != n_columns)
      violation(row_path, "must be an array of " + std::to_string(n_columns) +
                              " values (one per scored output)");
    for (std::size_t j = 0; j < n_columns; ++j)
      table(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) =
          finite_number(rows[i][j], row_path + "/" + std::to_string(j));
  }
  return table;
}

// An entry carries the digest of the rest of it: an edit that keeps the layout (a value changed
// in the table) is "not this reference" like any other damage.
void check_digest(json doc) {
  const json digest = member(doc, "digest");
  doc.erase("digest");
  if (!digest.is_string() || digest.get<std::string>() != store_digest(doc.dump()))
    violation("/digest", "does not match the entry's content (the file was altered)");
}

CachedReference read_entry(const json& doc, const ReferenceCacheExpectation& expected) {
  if (!doc.is_object()) violation("/", "must be an object");
  check_digest(doc);
  if (member(doc, "key") != expected.key)
    violation("/key", "is another reference's (problem, parameters, horizon, recipe or format)");
  CachedReference entry;
  entry.grid = read_grid(member(doc, "grid"), expected.t_end);
  entry.outputs = read_outputs(member(doc, "outputs"), entry.grid.size(), expected.outputs);
  entry.interval_errors =
      read_interval_errors(member(doc, "interval_errors"), entry.grid.size() - 1);
  entry.agreement = nonnegative_number(member(doc, "agreement"), "/agreement");
  entry.provenance = member(doc, "provenance");
  if (!entry.provenance.is_object()) violation("/provenance", "must be an object");
  return entry;
}

}  // namespace

std::optional<CachedReference> parse_reference_cache(const std::string& text,
                                                     const ReferenceCacheExpectation& expected,
                                                     std::string& why) {
  try {
    return read_entry(parse_json_input(text, "the reference cache"), expected);
  } catch (const InputError& e) {
    why = e.what();
  } catch (const Violation& v) {
    why = v.text;
  }
  return std::nullopt;
}

std::optional<CachedReference> read_reference_cache(const std::string& path,
                                                    const ReferenceCacheExpectation& expected,
                                                    std::string& why) {
  why.clear();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::nullopt;
  try {
    return read_entry(read_json_file(path, "reference cache '" + path + "'"), expected);
  } catch (const InputError& e) {
    why = e.what();
  } catch (const Violation& v) {
    why = "reference cache '" + path + "': " + v.text;
  }
  return std::nullopt;
}

void write_reference_cache(const std::string& path, const json& key,
                           const CachedReference& reference) {
  json rows = json::array();
  for (Eigen::Index i = 0; i < reference.outputs.rows(); ++i) {
    json row = json::array();
    for (Eigen::Index j = 0; j < reference.outputs.cols(); ++j)
      row.push_back(reference.outputs(i, j));
    rows.push_back(std::move(row));
  }
  json doc = {{"key", key},
              {"grid", reference.grid},
              {"outputs", std::move(rows)},
              {"agreement", reference.agreement},
              {"interval_errors", reference.interval_errors},
              {"provenance", reference.provenance}};
  doc["digest"] = store_digest(doc.dump());
  write_file_atomically(path, doc.dump(1) + "\n");
}

}  // namespace cmb
