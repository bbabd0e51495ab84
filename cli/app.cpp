#include "cli/app.hpp"

#include <algorithm>
#include <csignal>
#include <iostream>

#include "cli/command.hpp"
#include "core/errors.hpp"
#include "core/params.hpp"
#include "harness/run/context.hpp"

namespace cmb::cli {

int main(int argc, char** argv) {
  // Past a file-size limit (ulimit -f) a write fails with EFBIG and is reported, instead of the
  // process dying of SIGXFSZ with half-written temporary files.
  std::signal(SIGXFSZ, SIG_IGN);
  CLI::App app{
      "cmbench: swap constraint-enforcement methods on the same mechanism and stepper, "
      "and measure accuracy, drift, energy and cost."};
  app.require_subcommand(1);
  app.set_version_flag("--version", version_line());
  const std::vector<Command> commands = {add_list_command(app),  add_describe_command(app),
                                         add_run_command(app),   add_campaign_command(app),
                                         add_merge_command(app), add_compare_command(app)};
  std::vector<std::string> names;
  for (const auto& c : commands) names.push_back(c.app->get_name());

  if (argc > 1 && argv[1][0] != '-' &&
      std::find(names.begin(), names.end(), argv[1]) == names.end()) {
    std::cerr << "cmbench: error: unknown command '" << argv[1] << "' (valid: " << join(names, ", ")
              << ")\n";
    return 2;
  }
  try {
    app.parse(argc, argv);
    for (const auto& c : commands)
      if (c.app->parsed()) return c.run();
    return 2;  // unreachable: require_subcommand(1)
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    const auto parsed = app.get_subcommands();
    std::cerr << "cmbench: error: " << e.what() << "\n(run `cmbench "
              << (parsed.empty() ? std::string() : parsed.front()->get_name() + " ")
              << "--help` for usage)\n";
    return 2;
  } catch (const InputError& e) {
    std::cerr << "cmbench: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    // Never a crash: anything else is a cmbench bug, reported as such.
    std::cerr << "cmbench: internal error (please report): " << e.what() << "\n";
    return 3;
  }
}

}  // namespace cmb::cli
