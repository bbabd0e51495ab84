// cmbench._core: the harness seen from Python (pybind11). Everything crosses as JSON text, the
// vocabulary of the command line, campaign files and records, so the Python side (cmbench/api.py)
// gets plain dicts and the C++ side needs no Python types. Long calls release the GIL (a
// campaign's progress callback takes it back for each call).
#include <pybind11/pybind11.h>

#include <chrono>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

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

// Progress for a Python callable, called as callback(done, total, eta_seconds, info) with the
// GIL held, from the thread running the campaign: done of total runs of the pass info["phase"]
// ("runs", then "timing" for the timing pass), eta_seconds the whole campaign's remaining wall
// time (cli::EtaEstimate; None before a run finished), info {"phase", "key", "status",
// "seconds" (the run's), "elapsed_s", "not_ok", "unsupported"}. At most one call per
// kMinInterval, but always at the start and end of each pass. An exception from the callback
// stops the campaign as a stop signal does (CampaignProgress) and is raised again to the caller.
class CallbackProgress : public cmb::CampaignProgress {
 public:
  explicit CallbackProgress(py::object callback) : callback_(std::move(callback)) {}
  struct Raised {};  // thrown through the campaign while the callback's exception waits

  void timing_pass_follows() override { timing_pass_ = true; }
  void started(const std::vector<const cmb::CampaignRun*>& pending, int jobs) override {
    total_ = pending.size();
    start_ = std::chrono::steady_clock::now();
    eta_.start(total_, jobs, timing_pass_, cmb::cli::EtaEstimate::timing_cores());
    call("runs", 0, total_, nullptr, "", 0.0, true);
  }
  void finished(const cmb::CampaignRun& run, const std::string& status, double seconds) override {
    ++done_;
    if (cmb::is_expected_status(status))
      ++unsupported_;
    else if (status != "ok")
      ++not_ok_;
    eta_.finished(run, seconds, status == "ok");
    call("runs", done_, total_, &run, status, seconds, done_ == 1 || done_ == total_);
  }
  void timed(const cmb::CampaignRun& run, std::size_t done, std::size_t total,
             double seconds) override {
    eta_.timed(run, done, total, seconds);
    call("timing", done, total, &run, "timed", seconds, done == 1 || done == total);
  }
  void ended() override {}
  // With the GIL held: raises the callback's exception again.
  [[noreturn]] void raise_again() { throw std::move(*raised_); }

 private:
  static constexpr std::chrono::milliseconds kMinInterval{200};
  void call(const char* phase, std::size_t done, std::size_t total, const cmb::CampaignRun* run,
            const std::string& status, double seconds, bool always) {
    const auto now = std::chrono::steady_clock::now();
    if (!always && now - last_call_ < kMinInterval) return;
    last_call_ = now;
    const double eta = eta_.remaining_seconds();
    py::gil_scoped_acquire gil;
    try {
      py::dict info;
      info["phase"] = phase;
      info["key"] = run ? run->key : std::string();
      info["status"] = status;
      info["seconds"] = seconds;
      info["elapsed_s"] = std::chrono::duration<double>(now - start_).count();
      info["not_ok"] = not_ok_;
      info["unsupported"] = unsupported_;
      callback_(done, total, std::isfinite(eta) ? py::object(py::float_(eta)) : py::none(), info);
    } catch (py::error_already_set& e) {
      raised_.emplace(std::move(e));
      throw Raised{};
    }
  }

  py::object callback_;
  std::optional<py::error_already_set> raised_;
  cmb::cli::EtaEstimate eta_;
  bool timing_pass_ = false;
  std::size_t total_ = 0, done_ = 0, not_ok_ = 0, unsupported_ = 0;
  std::chrono::steady_clock::time_point start_, last_call_;
};

// A campaign from the text of its file; `options`: jobs, out, filter, resume, force, shard
// ("I/N"), dry_run, progress (console lines on standard output). `progress_callback`, when not
// None, gets the progress instead (CallbackProgress). Returns the summary.
std::string campaign(const std::string& text, const std::string& origin, const std::string& options,
                     const py::object& progress_callback) {
  const json o = parse_arguments(options);
  cmb::CampaignOptions settings = cmb::campaign_options_from_json(o);
  cmb::cli::ConsoleProgress console;
  std::optional<CallbackProgress> callback;
  if (!progress_callback.is_none())
    settings.progress = &callback.emplace(progress_callback);
  else if (o.value("progress", json(false)) == json(true))
    settings.progress = &console;
  cmb::CampaignSummary summary;
  try {
    py::gil_scoped_release release;
    summary = cmb::run_campaign(cmb::parse_campaign(text, origin), settings);
  } catch (const CallbackProgress::Raised&) {
    callback->raise_again();  // the GIL is held again: the release ended with the try block
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
  m.def("campaign", &campaign, py::arg("text"), py::arg("origin"), py::arg("options") = "{}",
        py::arg("progress") = py::none());
}
