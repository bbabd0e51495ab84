// cmbench._core: the harness seen from Python (pybind11). Everything crosses as JSON text, the
// vocabulary of the command line, campaign files and records, so the Python side (cmbench/api.py)
// gets plain dicts and the C++ side needs no Python types. Long calls release the GIL.
#include <pybind11/pybind11.h>

#include <string>

#include "catalog/catalog.hpp"
#include "catalog/catalog_doc.hpp"
#include "cli/progress.hpp"
#include "core/errors.hpp"
#include "harness/campaign/campaign.hpp"
#include "harness/run/context.hpp"
#include "harness/run/metrics.hpp"
#include "harness/run/run_request.hpp"
#include "harness/run/self_converged.hpp"
#include "records/output.hpp"

namespace py = pybind11;
using nlohmann::json;

namespace {

// What the Python side sends; it writes valid JSON, so a failure here is a value JSON cannot
// carry as a double (10**400), which is the caller's input like any other.
json parse_arguments(const std::string& text) {
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    throw cmb::InputError(std::string("arguments cannot be read as JSON numbers and text: ") +
                          e.what());
  }
}

std::string catalog(const std::string& what) { return cmb::catalog_json(what).dump(); }

std::string describe(const std::string& id, const std::string& params) {
  return cmb::problem_description(id, parse_arguments(params)).dump();
}

// One run: its record, and the sampled series as CSV text when asked for (empty otherwise).
py::tuple run(const std::string& request, bool with_series) {
  std::string record, series;
  {
    py::gil_scoped_release release;
    cmb::PreparedRun prepared =
        cmb::prepare_run(cmb::run_config_from_json(parse_arguments(request)));
    const cmb::RunResult result = cmb::run_with_reference(prepared);
    if (result.record.status == cmb::RunStatus::invalid_input)
      throw cmb::InputError(result.record.message);
    record = cmb::to_json(result.record).dump();
    if (with_series && result.problem)
      cmb::stream_series_csv(*result.problem, result.series, result.reference,
                             [&series](const std::string& piece) { series += piece; });
  }
  return py::make_tuple(record, series);
}

// A campaign from the text of its file; `options`: jobs, out, filter, resume, force, shard
// ("I/N"), dry_run, progress (console lines on standard output). Returns the summary.
std::string campaign(const std::string& text, const std::string& origin,
                     const std::string& options) {
  const json o = parse_arguments(options);
  cmb::CampaignOptions settings = cmb::campaign_options_from_json(o);
  cmb::cli::ConsoleProgress console;
  if (o.value("progress", json(false)) == json(true)) settings.progress = &console;
  cmb::CampaignSummary summary;
  {
    py::gil_scoped_release release;
    summary = cmb::run_campaign(cmb::parse_campaign(text, origin), settings);
  }
  return json{{"runs", summary.runs},
              {"statuses", summary.statuses},
              {"results", summary.results.string()},
              {"summary", cmb::summary_line(summary)}}
      .dump();
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "cmbench's harness (C++): catalog, runs and campaigns, as JSON text";
  static py::exception<cmb::InputError> input_error(m, "InputError", PyExc_ValueError);
  static py::exception<cmb::CampaignStopped> stopped(m, "CampaignStopped", PyExc_KeyboardInterrupt);
  static py::exception<cmb::InternalRunErrors> internal(m, "InternalRunErrors", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const cmb::InputError& e) {  // OutputError too: a path the user gave
      input_error(e.what());
    } catch (const cmb::CampaignStopped& e) {
      stopped(e.what());
    } catch (const cmb::InternalRunErrors& e) {
      internal((cmb::summary_line(e.summary()) + "; " + e.what()).c_str());
    }
  });
  m.def("version", &cmb::version_text, "cmbench's version, git sha, build type and flags");
  m.def("catalog", &catalog, py::arg("what") = "");
  m.def("describe", &describe, py::arg("id"), py::arg("params") = "{}");
  m.def("run", &run, py::arg("request"), py::arg("series") = false);
  m.def("campaign", &campaign, py::arg("text"), py::arg("origin"), py::arg("options") = "{}");
}
