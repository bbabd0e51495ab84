// Runs the cmbench binary as a user would and captures its exit code and output.
#pragma once

#include <string>

namespace cmb::test {

struct CliResult {
  int exit_code;
  std::string output;  // stdout and stderr together
};

CliResult cli(const std::string& args);
// The same with another program built on cmbench's command line (CMB_STUCK_CLI_PATH, ...).
CliResult cli_of(const std::string& program, const std::string& args);
// cli() under a CPU-time limit (ulimit -t): a command that would not end is killed by SIGXCPU and
// fails (exit code not 0) instead of hanging, and the machine's load does not count.
CliResult cli_cpu_limited(int cpu_seconds, const std::string& args);
// cli_in() under an address-space limit of `kib` KiB (ulimit -v): a memory shortage at a chosen
// size, with the machine's own memory out of it.
CliResult cli_memory_limited(const std::string& dir, long kib, const std::string& args);
// cli_in() with standard output sent by the shell redirection `stdout_redirection`
// (">/dev/full", ">&-"): `output` is then what the command wrote to standard error.
CliResult cli_with_stdout(const std::string& dir, const std::string& stdout_redirection,
                          const std::string& args);
// The same with `dir` as the working directory.
CliResult cli_in(const std::string& dir, const std::string& args);

}  // namespace cmb::test
