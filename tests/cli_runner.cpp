#include "cli_runner.hpp"

#include <cstdio>

#include <sys/wait.h>

namespace cmb::test {

CliResult cli(const std::string& args) {
  const std::string command = std::string(CMB_CLI_PATH) + " " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  std::string output;
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, pipe)) output += buffer;
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

}  // namespace cmb::test
