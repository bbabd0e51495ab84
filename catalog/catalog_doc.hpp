// The catalog as data: what `cmbench list --json` prints and the Python module's list() and
// describe() return, so that scripts read fields instead of parsing the text listing.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace cmb {

// {"schema": "cmbench.catalog/1", "problems": [...], "methods": [...], "integrators": [...],
// "steppers": [...]}: ids, summaries, capabilities, kinds and orders, parameters with types,
// defaults, ranges and choices. `what` limits it to one of the four lists; empty: all.
nlohmann::json catalog_json(const std::string& what = "");

// What `cmbench describe` shows of a problem built with `params`, as data: title, source, tags,
// sizes and the rank of J at t = 0, outputs, horizon, energy, reference (kind, provenance,
// accuracy), branch indicators, parameter declarations and values.
nlohmann::json problem_description(const std::string& id, const nlohmann::json& params);

}  // namespace cmb
