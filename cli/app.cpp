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
#include "core/memory_reserve.hpp"
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

constexpr std::size_t kQuoteChars = 80;        // what a message keeps of a long quoted value
constexpr std::size_t kLongestQuote = 120;     // longer than this, a piece of a message is cut
constexpr std::size_t kLongestMessage = 4000;  // and a whole message longer than this

// The first `keep` bytes of `text`, cut before a UTF-8 character.
std::string utf8_prefix(const std::string& text, std::size_t keep) {
  while (keep > 0 && keep < text.size() && (static_cast<unsigned char>(text[keep]) & 0xC0) == 0x80)
    --keep;
  return text.substr(0, keep);
}

// The first kQuoteChars characters of `text`, cut before a UTF-8 character, and its length.
std::string shortened(const std::string& text) {
  return utf8_prefix(text, kQuoteChars) + "… (" + std::to_string(text.size()) + " characters)";
}

// `message` with every long value it quotes shortened: the command-line arguments (and what
// follows their first '=') and any run of non-space characters longer than kLongestQuote, which
// is what an id, a key or a value from a file becomes. Messages list valid ids separated by
// spaces, so nothing cmbench wrote itself is cut. Last, a message is kept to kLongestMessage
// (a long value from a file with spaces in it).
std::string with_quotes_shortened(std::string message, int argc, char** argv) {
  auto replace_all = [&message](const std::string& piece) {
    if (piece.size() <= kLongestQuote) return;
    const std::string short_piece = shortened(piece);
    for (std::size_t at = message.find(piece); at != std::string::npos;
         at = message.find(piece, at + short_piece.size()))
      message.replace(at, piece.size(), short_piece);
  };
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    replace_all(argument);
    const std::size_t equals = argument.find('=');
    if (equals != std::string::npos) {
      replace_all(argument.substr(0, equals));
      replace_all(argument.substr(equals + 1));
    }
  }
  std::string out;
  std::size_t start = 0;
  while (start < message.size()) {
    const std::size_t space = message.find_first_of(" \n", start);
    const std::size_t end = space == std::string::npos ? message.size() : space;
    const std::string word = message.substr(start, end - start);
    if (word.size() <= kLongestQuote) {
      out += word;
    } else {  // the quotes and punctuation around the value stay
      // One opening character and up to two closing ones ("'," or "')").
      const std::size_t first = std::string("'\"(").find(word.front()) != std::string::npos;
      std::size_t last = word.size() - 1;
      for (int i = 0; i < 2 && std::string("'\"),:;").find(word[last]) != std::string::npos; ++i)
        --last;
      if (last < first || last - first < kQuoteChars)
        out += shortened(word);
      else
        out += word.substr(0, first) + shortened(word.substr(first, last + 1 - first)) +
               word.substr(last + 1);
    }
    if (end < message.size()) out += message[end];
    start = end + 1;
  }
  if (out.size() <= kLongestMessage) return out;
  return utf8_prefix(out, kLongestMessage) + "… (the message's other " +
         std::to_string(out.size() - utf8_prefix(out, kLongestMessage).size()) + " characters cut)";
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

// Parses the command line and runs the command; main() adds what may fail before that.
int parse_and_run(int argc, char** argv) {
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
    std::cerr << "cmbench: error: " << with_quotes_shortened(e.what(), argc, argv)
              << "\n(run `cmbench "
              << (parsed.empty() ? std::string() : parsed.front()->get_name() + " ")
              << "--help` for usage)\n";
    return 2;
  } catch (const InputError& e) {
    std::cerr << "cmbench: error: " << with_quotes_shortened(e.what(), argc, argv) << "\n";
    return 2;
  } catch (const std::bad_alloc&) {
    throw;  // main() reports it, with nothing else to allocate
  } catch (const std::exception& e) {
    // Never a crash: anything else is a cmbench bug, reported as such.
    std::cerr << "cmbench: internal error (please report): "
              << with_quotes_shortened(e.what(), argc, argv) << "\n";
    return 3;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (!standard_descriptors_ready()) return 2;
  // Past a file-size limit (ulimit -f) a write fails with EFBIG and is reported, instead of the
  // process dying of SIGXFSZ with half-written temporary files.
  std::signal(SIGXFSZ, SIG_IGN);
  keep_memory_reserve();  // a shortage is reported, not a SIGABRT from a clean-up that allocates
  try {
    return parse_and_run(argc, argv);
  } catch (const std::bad_alloc&) {
    std::cerr << "cmbench: error: not enough memory for `cmbench " << (argc > 1 ? argv[1] : "")
              << "` (an allocation failed): give it more (ulimit -v, the job's memory request); "
                 "nothing half-written is left behind\n";
    return 2;
  }
}

}  // namespace cmb::cli
