// What the subcommands of the command line share: each is added to the application by its own
// function, which declares its options and returns what runs it; option checks with messages
// that name the value.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

namespace cmb::cli {

struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;  // after a successful parse: the exit code
};

Command add_list_command(CLI::App& app);
Command add_describe_command(CLI::App& app);
Command add_run_command(CLI::App& app);
Command add_campaign_command(CLI::App& app);
Command add_merge_command(CLI::App& app);
Command add_compare_command(CLI::App& app);

// An integer option's lower bound, with a message that names the value (CLI11's own range check
// prints the largest double instead).
CLI::Validator integer_at_least(long minimum);
// A value that must be given when its option is: an empty one would read as the option left out
// (`--campaign ''` would skip the stale-shard check, `--integrator ''` choose method and stepper).
CLI::Validator not_empty(const std::string& what);
// A path cmbench writes to: neither empty nor "-" (records/output.hpp, output_path_problem).
CLI::Validator output_path();

// "key=value" with a JSON value (a bare word is a string): the one parser of --param.
std::pair<std::string, nlohmann::json> parse_assignment(const std::string& text);

}  // namespace cmb::cli
