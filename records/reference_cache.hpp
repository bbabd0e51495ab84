// The reference-cache file: one self-converged reference (harness/run/self_converged.hpp) on its
// grid, under the key of everything it was computed from. Every cache file is untrusted — a
// truncated copy, a hand edit, another version's layout — so the reader checks the whole
// document against what the run expects before any number is used, and anything else is "not
// this reference" (the caller recomputes it), never a run scored against the wrong values.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/types.hpp"

namespace cmb {

struct CachedReference {
  std::vector<double> grid;             // the sample times, t_end·k/intervals
  Mat outputs;                          // one row per grid time, one column per scored output
  double agreement = 0.0;               // max |A − B| over the grid: the estimated accuracy
  std::vector<double> interval_errors;  // per interval: bound on the error of values read in it
  nlohmann::json provenance;
};

// What the reader requires of a cache entry: its key (problem, parameters, horizon, recipe,
// format), the horizon its grid spans and the number of outputs its table holds. The grid's size
// is the entry's own (an even number of intervals up to kMaxReferenceIntervals), its times
// exactly t_end·k/intervals.
struct ReferenceCacheExpectation {
  nlohmann::json key;
  double t_end = 0.0;
  std::size_t outputs = 0;
};
constexpr long kMaxReferenceIntervals = 102400;

// The entry in `text` when it is exactly the expected one: an object with "digest" the digest
// (records/store.hpp's store_digest) of the compact text of the rest, "key" equal to the
// expected key, "grid" the uniform grid of the expected horizon, "outputs" a grid-long array of
// rows of `outputs` finite numbers, "interval_errors" one finite number >= 0 per interval,
// "agreement" a finite number >= 0 and "provenance" an object. Otherwise nullopt, with the first
// violation (and its JSON path) in `why`.
std::optional<CachedReference> parse_reference_cache(const std::string& text,
                                                     const ReferenceCacheExpectation& expected,
                                                     std::string& why);

// The same for the file at `path`; a missing file is nullopt with `why` empty.
std::optional<CachedReference> read_reference_cache(const std::string& path,
                                                    const ReferenceCacheExpectation& expected,
                                                    std::string& why);

// Writes the entry atomically (records/output.hpp); throws OutputError.
void write_reference_cache(const std::string& path, const nlohmann::json& key,
                           const CachedReference& reference);

}  // namespace cmb
