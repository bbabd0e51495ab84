// Built only into cmb_extension_tests, whose program adds entries defined outside the catalog
// (the out-of-tree example's and the test-only ones of tests/extension/): they must show up in the
// tables (and so in every conformance suite compiled into that binary) without any other edit,
// and work end to end.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include "catalog/catalog.hpp"
#include "core/kkt.hpp"
#include "harness/campaign/campaign.hpp"
#include "harness/campaign/campaign_workers.hpp"
#include "test_support.hpp"

namespace cmb::test {
namespace {

TEST(Extension, EntriesDefinedOutsideTheCatalogAreAdded) {
  EXPECT_NO_THROW(find_method("example_kkt_lu"));
  EXPECT_NO_THROW(find_method("test_penalty"));
  EXPECT_NO_THROW(find_problem("example_incline"));
  EXPECT_NO_THROW(find_stepper("test_midpoint"));
  EXPECT_NO_THROW(find_integrator("test_euler_dae"));
}

// A DAE integrator steps itself: a run of it has no stepper, and its record names it as the
// method and its own stepping as the stepper "dae", whose kind and order are its scheme's.
// Semi-implicit Euler is first order: halving the step from 2 ms to 1 ms halves the pendulum's
// final error (next term O(h) smaller: ±0.2).
TEST(Extension, ATestOnlyIntegratorRunsAndConvergesAtItsOrder) {
  auto final_error = [](double dt) {
    RunConfig c;
    c.problem = "simple_pendulum";
    c.integrator = "test_euler_dae";
    c.dt = dt;
    c.t_end = 1.0;
    const auto r = quick_run(c);
    EXPECT_EQ(r["status"], "ok") << r["message"];
    EXPECT_EQ(r["key"], "simple_pendulum/test_euler_dae/dae/dt=" +
                            std::string(dt == 0.002 ? "0.002" : "0.001") + "/t_end=1");
    EXPECT_EQ(r["method"]["id"], "test_euler_dae");
    EXPECT_EQ(r["stepper"]["id"], "dae");
    EXPECT_EQ(r["stepper"]["kind"], "fixed");
    EXPECT_EQ(r["stepper"]["order"], 1);
    EXPECT_EQ(r["work"]["rhs_calls"], std::lround(1.0 / dt));
    return r["metrics"]["error"]["final_abs_max"].get<double>();
  };
  const double order = std::log2(final_error(0.002) / final_error(0.001));
  EXPECT_NEAR(order, 1.0, 0.2);
  // An integrator is not a method for an ODE stepper, a method no integrator, "dae" no stepper a
  // method can take, and a run has an integrator or a method with a stepper, not both.
  auto refused = [](const std::string& method, const std::string& stepper,
                    const std::string& integrator, const std::string& says) {
    RunConfig wrong;
    wrong.problem = "simple_pendulum";
    wrong.method = method;
    wrong.stepper = stepper;
    wrong.integrator = integrator;
    wrong.dt = 1e-3;
    try {
      prepare_run(wrong);
      ADD_FAILURE() << method << "/" << stepper << "/" << integrator << " was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  refused("test_euler_dae", "rk4", "", "is a DAE integrator: it steps itself");
  refused("", "", "index1", "unknown integrator 'index1'");
  refused("index1", "dae", "", "unknown stepper 'dae'");
  refused("index1", "rk4", "test_euler_dae", "not both");
}

// Campaigns list integrators beside methods and steppers, each with its own step sizes.
TEST(Extension, ACampaignRunsIntegratorsBesideMethods) {
  const nlohmann::json doc = {{"name", "integrators"},
                              {"problems", {{{"id", "simple_pendulum"}, {"t_end", 0.5}}}},
                              {"methods", {{{"id", "index1"}}}},
                              {"steppers", {{{"id", "rk4"}, {"dt", 0.01}}}},
                              {"integrators", {{{"id", "test_euler_dae"}, {"dt", {0.01, 0.005}}}}}};
  const Campaign campaign = parse_campaign(doc.dump(), "test");
  std::vector<std::string> keys;
  for (const auto& run : campaign.runs) keys.push_back(run.key);
  EXPECT_EQ(keys,
            (std::vector<std::string>{"simple_pendulum/index1/rk4/dt=0.01/t_end=0.5",
                                      "simple_pendulum/test_euler_dae/dae/dt=0.01/t_end=0.5",
                                      "simple_pendulum/test_euler_dae/dae/dt=0.005/t_end=0.5"}));
  nlohmann::json adaptive = doc;
  adaptive["integrators"][0] = {{"id", "test_euler_dae"}, {"tol", 1e-6}};
  EXPECT_THROW(parse_campaign(adaptive.dump(), "test"), InputError);  // fixed-step: dt only
  // An integrator entry may carry its own RHS-call budget; the methods keep the campaign's.
  nlohmann::json budgets = doc;
  budgets["max_rhs_calls"] = 1000;
  budgets["integrators"][0]["max_rhs_calls"] = 50000;
  const Campaign with_budgets = parse_campaign(budgets.dump(), "test");
  EXPECT_EQ(with_budgets.runs[0].config.limits.max_rhs_calls, 1000);
  EXPECT_EQ(with_budgets.runs[1].config.limits.max_rhs_calls, 50000);
  EXPECT_EQ(with_budgets.runs[2].config.limits.max_rhs_calls, 50000);
  budgets["integrators"][0]["max_rhs_calls"] = 0;
  EXPECT_THROW(parse_campaign(budgets.dump(), "test"), InputError);
}

// Every record the harness writes of a run names it alike — the run's own record, and the one a
// worker that crashed or overran leaves — whether a method with a stepper or an integrator runs.
TEST(Extension, EveryRecordOfARunNamesItsMethodAndStepperAlike) {
  const nlohmann::json doc = {
      {"name", "identities"},
      {"problems", {{{"id", "simple_pendulum"}, {"t_end", 0.5}}, {{"id", "crank_rocker"}}}},
      {"methods",
       {{{"id", "index1"}}, {{"id", "baumgarte"}, {"params", {{"alpha", 5}, {"beta", 5}}}}}},
      {"steppers", {{{"id", "rk4"}, {"dt", 0.01}}, {{"id", "dopri5"}, {"tol", 1e-6}}}},
      {"integrators",
       {{{"id", "test_euler_dae"}, {"dt", 0.01}}, {{"id", "ida"}, {"tol", {1e-6, 1e-8}}}}}};
  const Campaign campaign = parse_campaign(doc.dump(), "test");
  int integrator_runs = 0;
  for (const auto& run : campaign.runs) {
    const nlohmann::json header = to_json(record_header(prepare_run(run.config)));
    const nlohmann::json crashed = to_json(workers::crash_record(run, "test", RunStatus::crashed));
    EXPECT_EQ(crashed["key"], header["key"]);
    for (const char* block : {"problem", "method", "stepper"})
      EXPECT_EQ(crashed[block]["id"], header[block]["id"]) << run.key << ": " << block;
    EXPECT_EQ(crashed["method"]["params"], run.config.method_params) << run.key;
    integrator_runs += header["stepper"]["id"] == "dae";
  }
  EXPECT_EQ(integrator_runs, 2 * 3);  // two problems × (one dt + two tolerances)
  EXPECT_EQ(campaign.runs.size(), 2u * (2 * 2 + 3));
}

// The test-only stepper is in the table like a built-in one, and it is the second-order method
// it claims: on the pendulum (exact elliptic-function reference, 1e-13) with index1, halving the
// step from 2 ms to 1 ms divides the final error by 2^p. At these steps the next term of the
// error expansion is O(h) smaller than the leading one (a few per cent), so the observed order
// lies within ±0.2 of 2 — where an order-1 (Euler) or order-4 (RK4) stepper would give 1 or 4.
TEST(Extension, TestOnlyStepperIsListedAndConvergesAtItsOrder) {
  const StepperSpec& midpoint = find_stepper("test_midpoint");
  EXPECT_EQ(midpoint.kind, StepperKind::fixed);
  EXPECT_EQ(midpoint.order, 2);
  auto final_error = [](double dt) {
    RunConfig c;
    c.problem = "simple_pendulum";
    c.method = "index1";
    c.stepper = "test_midpoint";
    c.dt = dt;
    c.t_end = 2.0;
    const auto r = quick_run(c);
    EXPECT_EQ(r["status"], "ok") << r["message"];
    return r["metrics"]["error"]["final_abs_max"].get<double>();
  };
  const double order = std::log2(final_error(0.002) / final_error(0.001));
  EXPECT_NEAR(order, 2.0, 0.2);
}

// Exact methods keep the conformance suite's 1e-9: none of the catalog's declares approximate
// accelerations. The penalty method does, and must: at its default penalty (alpha_rel 1e7) its
// q̈ is O(1/alpha_rel) off the KKT oracle's — 3e-6 and 7e-7 relative on these two problems
// (measured at the suite's states), far beyond 1e-9 — yet within the bound it states.
TEST(Extension, OnlyThePenaltyMethodDeclaresApproximateAccelerations) {
  for (const auto& entry : method_registry())
    EXPECT_EQ(entry.capabilities.approximate(), entry.id == "test_penalty") << entry.id;
  for (const std::string problem_id : {"crank_rocker", "slider_crank"}) {
    const auto problem = make_problem(problem_id, nlohmann::json::object());
    const auto method = make_method("test_penalty", nlohmann::json::object());
    method->bind(*problem);
    std::mt19937 rng(3);
    ConsistentState s;
    ASSERT_TRUE(random_consistent_state(*problem, rng, 0.05, s));
    Vec x(method->state_size()), dxdt(method->state_size());
    method->pack(s.t, s.q, s.v, x);
    method->rhs(x, dxdt, s.t);
    const KktSolution oracle = kkt_oracle(*problem, s.t, s.q, s.v);
    const double error = (method->accelerations() - oracle.qdd).lpNorm<Eigen::Infinity>();
    const double exact_tol = 1e-9 * std::max(1.0, oracle.qdd.lpNorm<Eigen::Infinity>());
    EXPECT_GT(error, exact_tol) << problem_id;
    EXPECT_LE(error, exact_tol + method->approximation_bounds().accelerations.total())
        << problem_id;
  }
}

// Every numerical fault of test_faulty, in one campaign with healthy runs around it: each faulty
// run ends with the status its fault must produce and a message saying when; every other run
// completes. Only `slow` needs a wall-time limit, and its runs take a campaign of their own: under
// the limit a healthy run would end time_limit on a slow enough machine (or a sanitized build).
TEST(Extension, InjectedFaultsBecomeRecordedStatusesAndTheCampaignGoesOn) {
  namespace fs = std::filesystem;
  const fs::path dir = scratch_path("faults");
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::vector<std::string> faults = {
      "none", "nan_force", "singular_mass", "no_solution", "rough_force", "slow", "crash"};
  auto campaign_of = [](const std::string& name, const std::vector<std::string>& chosen) {
    nlohmann::json problems = nlohmann::json::array();
    for (const auto& f : chosen) {
      nlohmann::json params = {{"fault", f}};
      // Slow from the start: the wall-time check runs every 64 steps, and must see the slowness.
      if (f == "slow") params["fault_time"] = 1e-6;
      problems.push_back({{"id", "test_faulty"}, {"params", params}});
    }
    return nlohmann::json{
        {"name", name},
        {"repeat", 0},
        {"max_steps", 100000},
        {"problems", problems},
        {"methods", {{{"id", "index1"}}, {{"id", "projection"}}}},
        {"steppers", {{{"id", "dopri5"}, {"tol", 1e-8}}, {{"id", "rk4"}, {"dt", 1e-3}}}}};
  };
  std::vector<std::string> unlimited = faults;
  unlimited.erase(std::find(unlimited.begin(), unlimited.end(), "slow"));
  nlohmann::json campaign = campaign_of("faults", unlimited);
  campaign["problems"].push_back({{"id", "example_incline"}});
  nlohmann::json slow = campaign_of("slow", {"slow"});
  slow["time_limit"] = 0.2;

  // Runs a campaign; its runs are appended to `runs`, the crashes it reports returned.
  nlohmann::json runs = nlohmann::json::array();
  auto collect = [&dir, &runs](const nlohmann::json& c) {
    const fs::path file = dir / (c["name"].get<std::string>() + ".json");
    std::ofstream(file) << c.dump();
    CampaignOptions options;
    options.jobs = 2;
    options.out_dir = (dir / c["name"].get<std::string>()).string();
    std::string crashes;
    try {
      run_campaign(load_campaign(file.string()), options);
    } catch (const InternalRunErrors& e) {
      crashes = e.what();
    }
    std::ifstream in(fs::path(options.out_dir) / "results.json");
    const auto results = nlohmann::json::parse(in);
    for (const auto& r : results["runs"]) runs.push_back(r);
    return crashes;
  };
  // The four crashed workers are recorded, the campaign finishes, and then it reports them
  // (cmbench campaign exits 3): a crash is a bug to report, not a numerical outcome.
  const std::string crashes = collect(campaign);
  EXPECT_EQ(crashes.rfind("4 run(s) ended in a crash", 0), 0u) << crashes;
  EXPECT_EQ(collect(slow), "");

  // What each fault must produce, whatever the method and stepper (exceptions below).
  const std::map<std::string, std::string> expected = {{"none", "ok"},
                                                       {"nan_force", "diverged"},
                                                       {"singular_mass", "singular"},
                                                       {"no_solution", "newton_failed"},
                                                       {"rough_force", "step_limit"},
                                                       {"slow", "time_limit"},
                                                       {"crash", "crashed"}};
  int not_ok = 0;
  ASSERT_EQ(runs.size(), (faults.size() + 1) * 2 * 2);
  for (const auto& run : runs) {
    const std::string status = run["status"], key = run["key"];
    const std::string message = run.value("message", "");
    if (status != "ok") ++not_ok;
    if (run["problem"]["id"] == "example_incline") {
      EXPECT_EQ(status, "ok") << key;
      continue;
    }
    const std::string fault = run["problem"]["params"]["fault"];
    std::string want = expected.at(fault);
    // index1 never projects, so an unsatisfiable Φ goes unnoticed (its drift shows it).
    if (fault == "no_solution" && run["method"]["id"] == "index1") want = "ok";
    // A fixed-step stepper has no error estimate and takes the 1e10 N kicks (1e7 m/s per step)
    // at face value: index1 overflows within tens of steps; projection's position Newton
    // iteration fails first, the kicks having thrown the state far off the circle.
    if (fault == "rough_force" && run["stepper"]["id"] == "rk4")
      want = run["method"]["id"] == "index1" ? "diverged" : "newton_failed";
    EXPECT_EQ(status, want) << key << ": " << message;
    if (fault == "crash") {
      EXPECT_NE(message.find("signal"), std::string::npos) << message;
    } else if (status != "ok") {
      EXPECT_NE(message.find("t = "), std::string::npos)
          << key << ": no time in '" << message << "'";
    }
  }
  // nan_force, singular_mass, rough_force, slow and crash in all 4 runs; no_solution in 2.
  EXPECT_EQ(not_ok, 5 * 4 + 2);
  if (!HasFailure()) fs::remove_all(dir);  // kept for inspection otherwise
}

}  // namespace
}  // namespace cmb::test
