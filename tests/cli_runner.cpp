#include "cli_runner.hpp"

#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace cmb::test {

namespace {

CliResult run_shell(const std::string& command) {
  FILE* pipe = popen(command.c_str(), "r");
  std::string output;
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, pipe)) output += buffer;
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

}  // namespace

CliResult cli(const std::string& args) { return cli_of(CMB_CLI_PATH, args); }

CliResult cli_of(const std::string& program, const std::string& args) {
  return run_shell(program + " " + args + " 2>&1");
}

CliResult cli_cpu_limited(int cpu_seconds, const std::string& args) {
  return run_shell("ulimit -t " + std::to_string(cpu_seconds) + " && " + std::string(CMB_CLI_PATH) +
                   " " + args + " 2>&1");
}

CliResult cli_memory_limited(const std::string& dir, long kib, const std::string& args) {
  return run_shell("cd '" + dir + "' && ulimit -v " + std::to_string(kib) + " && exec " +
                   std::string(CMB_CLI_PATH) + " " + args + " 2>&1");
}

CliResult cli_with_stdout(const std::string& dir, const std::string& stdout_redirection,
                          const std::string& args) {
  return run_shell("cd '" + dir + "' && " + std::string(CMB_CLI_PATH) + " " + args + " 2>&1 " +
                   stdout_redirection);
}

CliResult cli_in(const std::string& dir, const std::string& args) {
  return run_shell("cd '" + dir + "' && " + std::string(CMB_CLI_PATH) + " " + args + " 2>&1");
}

}  // namespace cmb::test
