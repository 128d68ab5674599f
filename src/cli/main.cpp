// napkin: parse, run the calculator, print. Exit codes: 0 success, 1 a check the user asked for
// failed, 2 bad input or usage (one line on stderr naming the flag, the value and what was
// expected), or output that could not be written ("cannot write the output: <reason>").
// Messages on stderr never throw (safe_output.h); every write to stdout is checked.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>

#include "build_info.h"
#include "command.h"
#include "command_app.h"
#include "expect.h"
#include "napkin/ground/error.h"
#include "napkin/ground/sanitize.h"
#include "napkin/ground/suggest.h"
#include "napkin/report/checked_output.h"
#include "napkin/version.h"
#include "safe_output.h"

namespace {

constexpr const char* kOverview = R"(napkin: the arithmetic before you touch a GPU. Every number with its unit, formula and assumptions.

Usage: napkin COMMAND [SUBCOMMAND] [FLAGS] [--json | --jsonl | --csv | --explain]

Commands
  flops matmul     FLOP of a matrix product           napkin flops matmul --m 4096 --k 4096 --n 4096
  flops ffn        FLOP of a feed-forward block        napkin flops ffn --d 4096 --f 14336 --gated
  flops attention  FLOP of attention                   napkin flops attention --batch 1 --seq 8192 --d 4096
  flops train      training FLOP, 6·P·D                napkin flops train --params 8B --tokens 15T
  roofline         compute- or memory-bound            napkin roofline --peak 100TFLOP/s --bandwidth 1TB/s --intensity 10
  energy           time, kWh, cost and CO2             napkin energy --flops 1e18 --throughput 100TFLOP/s --power 1kW --pue 1.2
  params           exact parameter counts of a model   napkin params llama-3.1-8b
  memory           does it fit: the ledger per GPU     napkin memory llama-3.1-8b --batch 32 --context 8Ki --gpu-memory 80GiB
  serve            prefill, decode, tokens/s, bound    napkin serve llama-3.1-8b --hw h100-sxm --batch 1
  train            time, GPU-hours, kWh, cost, memory  napkin train llama-3.1-8b --tokens 15T --hw h100-sxm --gpus 1024
  presets models   bundled model presets               napkin presets models
  presets hardware bundled hardware presets (--hw)     napkin presets hardware
  kernel grid      launch grid, idle threads, warps    napkin kernel grid --n 1920x1080 --block 16x16
  kernel waves     wave quantization on SMs            napkin kernel waves --m 1793 --n 1793 --tile 256x128 --sms 108
  kernel tiling    naive vs tiled matmul HBM traffic   napkin kernel tiling --m 4096 --k 4096 --n 4096 --tile 32 --dtype fp32
  kernel flash-io  attention vs FlashAttention bytes   napkin kernel flash-io --seq 4096 --head-dim 128 --dtype bf16 --sram 100KiB
  kernel online-softmax  running softmax by block      napkin kernel online-softmax --scores 0,ln2,ln3 --values 1,2,4 --blocks 2,1

Units go with numbers: 80GiB, 3.35TB/s, 989TFLOP/s, 700W, 2.5h, 8Ki (= 8192), 15T (= 1.5e13).
Any numeric flag sweeps: a list 1,2,4,8, a range 1024..8192:+1024 or 1..64:x2.
Exit codes: 0 success, 1 a requested check failed, 2 bad input.
`napkin COMMAND --help` (or `napkin help COMMAND`) lists a command's flags.
Shell completions: napkin completions bash|zsh|fish. The manual: napkin man | man -l -
)";

// Core errors name inputs ("peak"); on the command line they are flags ("--peak").
std::string as_flag_message(const napkin::InputError& e) {
  std::string msg = e.what();
  const std::string& f = e.field();
  if (!f.empty() && f[0] != '-' && f.find('/') == std::string::npos && f.find('.') == std::string::npos &&
      msg.compare(0, f.size(), f) == 0) {
    std::string flag = "--" + f;
    for (auto& ch : flag)
      if (ch == '_') ch = '-';
    msg.replace(0, f.size(), flag);
  }
  return msg;
}

void allow_extras_everywhere(CLI::App& app) {
  app.allow_extras();
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) allow_extras_everywhere(*sub);
}

// The deepest subcommand the parser entered ("napkin flops matmul" -> matmul).
CLI::App* deepest_subcommand(CLI::App& app) {
  CLI::App* a = &app;
  while (true) {
    const auto subs = a->get_subcommands();
    if (subs.empty()) return a;
    a = subs.front();
  }
}

std::string command_path(CLI::App* a) {
  std::string path;
  for (; a != nullptr && a->get_parent() != nullptr; a = a->get_parent())
    path = a->get_name() + (path.empty() ? "" : " " + path);
  return path.empty() ? "napkin" : "napkin " + path;
}

// An unexpected word or flag: name it, and the closest command or flag when there is one.
std::string unexpected_message(CLI::App& app, const std::vector<std::string>& extras) {
  CLI::App* where = deepest_subcommand(app);
  const std::string& token = extras.front();
  std::vector<std::string> candidates;
  std::string what;
  if (token.rfind("-", 0) == 0) {
    what = "unknown flag";
    for (const CLI::Option* o : where->get_options())
      for (const auto& l : o->get_lnames()) candidates.push_back("--" + l);
  } else {
    what = where->get_subcommands([](CLI::App*) { return true; }).empty() ? "unexpected argument"
                                                                            : "unknown command";
    for (const CLI::App* s : where->get_subcommands([](CLI::App*) { return true; }))
      candidates.push_back(s->get_name());
  }
  const std::string flag = token.substr(0, token.find('='));
  std::string msg = what + " '" + token + "' for '" + command_path(where) + "'";
  if (const auto best = napkin::closest(flag, candidates)) msg += "; did you mean '" + *best + "'?";
  msg += " (" + command_path(where) + " --help)";
  return msg;
}

// CLI11's help and version text, written through the checked writer (a failed write reports
// its own errno rather than a stream's lost state).
int print_exit(const CLI::App& app, const CLI::Error& e) {
  std::ostringstream out, err;
  const int code = app.exit(e, out, err);
  napkin::cli::print_stderr(err.str());
  napkin::report::write_checked(stdout, out.str());
  return code;
}

// parse_and_run's answer when the command line needs the whole option tree after all.
constexpr int kWholeTree = -1;

// Builds the option tree, parses and runs. `typed_only`: only the options the command line names
// (CommandApp::register_typed_only is on); kWholeTree when that tree cannot answer as the whole
// one would (a required flag missing, a parse error, help), before anything is printed.
int parse_and_run(int argc, char** argv, const std::string& version, bool typed_only) {
  using napkin::cli::print_stderr;
  CLI::App app{"napkin: the arithmetic before you touch a GPU", "napkin"};
  app.set_version_flag("--version", version);
  app.set_help_flag("-h,--help", "Print this help and exit");
  int exit_code = 0;
  // A run names its command first: only that one is built (most of a cold start was building
  // the option trees of all of them). Anything else (help, completions, man, a typo that wants
  // a suggestion, --version) gets the whole table.
  if (argc < 2 || !napkin::cli::add_command_named(app, exit_code, argv[1]))
    napkin::cli::add_all_commands(app, exit_code);
  if (typed_only && napkin::cli::CommandApp::missed_required(app, argc, argv)) return kWholeTree;

  // Extras are collected rather than rejected so that an unknown flag is reported by name (with
  // a suggestion) even when it also leaves a required flag missing; run_sweep refuses to run a
  // command while extras remain.
  allow_extras_everywhere(app);
  app.require_subcommand(1);

  // "--m=" with nothing after '=': CLI11 takes the flag without a value and the next words
  // shift ("unexpected argument '8'"). Named here, as an empty value is everywhere.
  for (int i = 2; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--") break;
    if (a.size() > 3 && a.rfind("--", 0) == 0 && a.find('=') == a.size() - 1) {
      const std::string flag(a.substr(0, a.size() - 1));
      print_stderr(fmt::format("napkin: error: {}: '' is empty; expected a value after '=' ({}=VALUE or {} VALUE)\n",
                               napkin::sanitize_message(flag), napkin::sanitize_message(flag),
                               napkin::sanitize_message(flag)));
      return 2;
    }
  }
  napkin::cli::hold_warnings();  // until the first row: an exit-2 run prints its error alone
  try {
    try {
      app.parse(argc, argv);
      napkin::cli::release_warnings();
    } catch (const CLI::ParseError&) {
      // Thrown before a command prints: by CLI11, or by reject_extras first thing in a command.
      if (typed_only) return kWholeTree;
      throw;
    }
  } catch (const CLI::CallForHelp& e) {
    napkin::cli::drop_warnings();
    return print_exit(app, e);
  } catch (const CLI::CallForAllHelp& e) {
    napkin::cli::drop_warnings();
    return print_exit(app, e);
  } catch (const CLI::CallForVersion& e) {
    napkin::cli::drop_warnings();
    return print_exit(app, e);
  } catch (const CLI::ParseError& e) {
    napkin::cli::drop_warnings();
    if (e.get_exit_code() == 0) return print_exit(app, e);
    // An unknown flag or word explains most other parse errors ("--peek" makes "--peak" missing).
    if (const auto extras = app.remaining(true); !extras.empty()) {
      print_stderr(fmt::format("napkin: error: {}\n", napkin::sanitize_message(unexpected_message(app, extras))));
      return 2;
    }
    std::string what = e.what();
    for (auto& ch : what)
      if (ch == '\n') ch = ' ';  // CLI11's own line breaks
    // A flag that takes one value given twice (--engine vllm --engine llama.cpp): CLI11 says
    // "--engine: At Most 1 required but received 2"; napkin says which values, as for numbers.
    if (const auto at = what.find(": At Most 1 required but received "); at != std::string::npos) {
      const std::string flag = what.substr(0, at);
      std::string values;
      if (const CLI::Option* o = deepest_subcommand(app)->get_option_no_throw(flag); o != nullptr)
        for (const std::string& v : o->results()) values += (values.empty() ? "'" : ", '") + v + "'";
      constexpr std::string_view kMismatch = ": At Most 1 required but received ";
      std::string times = what.substr(at + kMismatch.size());
      times = times.substr(0, times.find_first_not_of("0123456789"));
      times = times == "2" ? "twice" : times + " times";
      print_stderr(fmt::format("napkin: error: {}: given {}{}; expected it once\n", napkin::sanitize_message(flag),
                               times, values.empty() ? "" : " (" + napkin::sanitize_message(values) + ")"));
      return 2;
    }
    print_stderr(fmt::format("napkin: error: {} (napkin --help)\n", napkin::sanitize_message(what)));
    return 2;
  } catch (const napkin::InputError& e) {
    napkin::cli::drop_warnings();
    std::fflush(stdout);  // what was printed comes before the message; exit 2 either way
    // Every message echoes input (flags, paths, tensor names, config strings): one line, no
    // terminal controls, bounded length (sanitize.h).
    print_stderr(fmt::format("napkin: error: {}\n", napkin::sanitize_message(as_flag_message(e))));
    return 2;
  } catch (const napkin::report::OutputError& e) {
    napkin::cli::drop_warnings();
    // stdout failed: the sweep stopped at the failed write; a --plot file was not replaced.
    print_stderr(fmt::format("napkin: error: {}\n", napkin::sanitize_message(e.what())));
    return 2;
  } catch (const std::exception& e) {
    napkin::cli::drop_warnings();
    std::fflush(stdout);
    print_stderr(fmt::format("napkin: error: internal: {} (please report this input)\n",
                             napkin::sanitize_message(e.what())));
    return 2;
  }
  // A missed --expect is a failed check (its lines are on stderr), whatever else passed.
  return std::max(exit_code, napkin::cli::report_expectation_misses() ? 1 : 0);
}

int run(int argc, char** argv) {
  // "napkin 0.1.0 (commit 26bfb9f)": the version and the commit the binary was built from.
  const std::string version = fmt::format("napkin {} (commit {})", napkin::kVersion, napkin::cli::build_commit());
  if (argc == 2 && std::string_view(argv[1]) == "--version") {
    // As CLI11 prints it, without building every command to throw CallForVersion.
    napkin::report::write_checked(stdout, version + "\n");
    return 0;
  }
  if (argc == 1 || (argc == 2 && (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h" ||
                                   std::string(argv[1]) == "help"))) {
    napkin::report::write_checked(stdout, kOverview);
    return 0;
  }
  // A calculator command builds only the options its command line names (command_app.h): a
  // third of the instructions of a cold start were spent building options a run never reads.
  if (napkin::cli::is_command_name(argv[1])) {
    napkin::cli::CommandApp::register_typed_only(argc, argv);
    const int code = parse_and_run(argc, argv, version, true);
    napkin::cli::CommandApp::register_all();
    if (code != kWholeTree) return code;
  }
  return parse_and_run(argc, argv, version, false);
}

// The process ends here, without running static destructors: they only free memory the process
// is about to lose (CLI11 defines its validators in every file that includes it, ~20 sets), and
// they were 5% of a cold start's instructions (issue 18). Everything written is flushed first.
// A sanitizer build exits normally, for LeakSanitizer's check at exit.
[[noreturn]] void leave(int code) {
#if defined(__SANITIZE_ADDRESS__)
  std::exit(code);
#else
  std::fflush(nullptr);
  std::_Exit(code);
#endif
}

}  // namespace

int main(int argc, char** argv) {
  // Before anything opens a file: a closed fd 0-2 would be handed to the next open().
  napkin::cli::occupy_standard_fds();
  try {
    const int code = run(argc, argv);
    if (code == 2) leave(code);  // reported already
    // Whatever stdio still buffers: a failure to write it is an error too.
    napkin::report::flush_checked(stdout);
    leave(code);
  } catch (const napkin::report::OutputError& e) {  // the overview, --help, --version
    napkin::cli::print_stderr(fmt::format("napkin: error: {}\n", e.what()));
    leave(2);
  }
}
