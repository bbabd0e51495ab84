#include "cli/app.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <iostream>

#include "cli/command.hpp"
#include "core/errors.hpp"
#include "core/params.hpp"
#include "harness/run/context.hpp"

namespace cmb::cli {

namespace {

bool is_open(int fd) { return ::fcntl(fd, F_GETFD) != -1 || errno != EBADF; }

// A closed standard descriptor would be taken by the next file cmbench opens, and what it
// prints would land in a record or a database. Standard input and error are held by /dev/null
// (nothing to read, nobody to tell); a closed standard output is refused, since printing is
// what every command does.
bool standard_descriptors_ready() {
  for (const int fd : {STDIN_FILENO, STDERR_FILENO})
    if (!is_open(fd)) {
      const int null = ::open("/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY);
      if (null != fd && null >= 0) ::close(null);  // only the lowest free descriptor is reused
    }
  if (is_open(STDOUT_FILENO)) return true;
  std::cerr << "cmbench: error: standard output is closed (give it a file or /dev/null)\n";
  return false;
}

// A command's exit code, or 2 when what it printed did not reach standard output (a full disk,
// a closed pipe): its output is part of its result, so success must not be claimed.
int with_output_checked(int code) {
  std::cout.flush();
  if (std::cout) return code;
  const int error = errno;
  std::cerr << "cmbench: error: cannot write to standard output ("
            << (error != 0 ? std::strerror(error) : "write failed") << ")\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (!standard_descriptors_ready()) return 2;
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
      if (c.app->parsed()) return with_output_checked(c.run());
    return 2;  // unreachable: require_subcommand(1)
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return with_output_checked(app.exit(e));  // --help, --version
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
