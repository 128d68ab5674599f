// CommandApp (src/cli/command_app.h): a command's option tree built in linear time, and, for a
// run that names its command, only from the options its command line names (issue 18's cold
// start). The goldens, the bad-input corpus and the flag walk run the binary through both paths
// (a run; a missing required flag, an unknown flag and help fall back to the whole tree).
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "command.h"
#include "command_app.h"
#include "run_napkin.h"

using napkin::cli::CommandApp;
using napkin_test::run_napkin;

namespace {

struct Root {
  CLI::App app{"napkin", "napkin"};
  int exit_code = 0;
  Root() { app.set_help_flag("-h,--help", "Print this help and exit"); }
};

// Every CommandApp under `a`, depth first.
void each_command(CLI::App* a, const std::function<void(CommandApp*)>& f) {
  for (CLI::App* s : a->get_subcommands([](CLI::App*) { return true; })) {
    if (auto* c = dynamic_cast<CommandApp*>(s)) f(c);
    each_command(s, f);
  }
}

std::vector<std::string> names_of(const CLI::Option* o) {
  std::vector<std::string> n;
  for (const auto& s : o->get_snames()) n.push_back("-" + s);
  for (const auto& l : o->get_lnames()) n.push_back("--" + l);
  if (n.empty()) n.push_back(o->get_name());
  return n;
}

// argv for register_typed_only.
struct Argv {
  std::vector<std::string> words;
  std::vector<const char*> ptrs;
  explicit Argv(std::vector<std::string> w) : words(std::move(w)) {
    for (const auto& s : words) ptrs.push_back(s.c_str());
  }
  int argc() const { return static_cast<int>(ptrs.size()); }
  const char* const* argv() const { return ptrs.data(); }
};

// Turns register_typed_only off again however a test ends.
struct TypedOnly {
  explicit TypedOnly(const Argv& a) { CommandApp::register_typed_only(a.argc(), a.argv()); }
  ~TypedOnly() { CommandApp::register_all(); }
  TypedOnly(const TypedOnly&) = delete;
  TypedOnly& operator=(const TypedOnly&) = delete;
};

}  // namespace

TEST_CASE("every option of every command is found by its index exactly as CLI11 finds it") {
  Root r;
  napkin::cli::add_all_commands(r.app, r.exit_code);
  std::size_t checked = 0;
  each_command(&r.app, [&](CommandApp* c) {
    for (const CLI::Option* o : c->get_options()) {
      for (const auto& name : names_of(o)) {
        INFO(c->get_name() << " " << name);
        CHECK(c->get_option(name) == o);
        CHECK(static_cast<CLI::App*>(c)->get_option(name) == o);  // CLI11's own scan
        ++checked;
      }
    }
    CHECK(c->get_option_no_throw("--no-such-flag") == nullptr);
    CHECK_THROWS_AS(c->get_option("--no-such-flag"), CLI::OptionNotFound);
  });
  CHECK(checked > 400);
}

TEST_CASE("a flag added twice to a command is refused as CLI11 refuses it") {
  Root r;
  CommandApp* c = napkin::cli::add_command(r.app, "demo", "a test command");
  std::string a, b;
  c->add_option("--alpha,--first", a, "one");
  CHECK_THROWS_AS(c->add_option("--first", b, "two"), CLI::OptionAlreadyAdded);
  bool f = false;
  CHECK_THROWS_AS(c->add_flag("-h", f, "help again"), CLI::OptionAlreadyAdded);
  CHECK_NOTHROW(c->add_option("--beta", b, "three"));
}

TEST_CASE("a run builds only the options its command line names; the others read as not given") {
  Root r;
  const Argv argv({"napkin", "memory", "llama-3.1-8b", "--batch", "4", "--tp=2", "-x"});
  std::vector<std::string> added;
  {
    TypedOnly typed(argv);
    napkin::cli::add_command_named(r.app, r.exit_code, "memory");
    CommandApp* c = dynamic_cast<CommandApp*>(r.app.get_subcommand("memory"));
    REQUIRE(c != nullptr);
    for (const CLI::Option* o : c->get_options()) added.push_back(names_of(o).back());
    // A flag not typed: a stand-in that no parse sees, never the real option.
    const CLI::Option* context = c->get_option("--context");
    CHECK(context->count() == 0);
    CHECK(context->results().empty());
    CHECK(c->get_option("--gpu-memory") == context);
    // A name that is no option of the command is still unknown.
    CHECK(c->get_option_no_throw("--no-such-flag") == nullptr);
    CHECK_THROWS_AS(c->get_option("--no-such-flag"), CLI::OptionNotFound);
    CHECK_FALSE(CommandApp::missed_required(r.app, argv.argc(), argv.argv()));
  }
  std::sort(added.begin(), added.end());
  CHECK(added == std::vector<std::string>{"--batch", "--help", "--tp", "MODEL"});
}

TEST_CASE("a required flag missing from a run's command line sends it to the whole tree") {
  Root r;
  const Argv argv({"napkin", "flops", "matmul", "--m", "4", "--k", "4"});
  TypedOnly typed(argv);
  napkin::cli::add_command_named(r.app, r.exit_code, "flops");
  CHECK(CommandApp::missed_required(r.app, argv.argc(), argv.argv()));  // --n is required, not typed
}

TEST_CASE("every required flag typed keeps a run on its own options") {
  Root r;
  const Argv argv({"napkin", "flops", "matmul", "--m", "4", "--k", "4", "--n=4"});
  TypedOnly typed(argv);
  napkin::cli::add_command_named(r.app, r.exit_code, "flops");
  // flops ffn's --d and --f are required too, but ffn is not the command run.
  CHECK_FALSE(CommandApp::missed_required(r.app, argv.argc(), argv.argv()));
}

TEST_CASE("the whole tree answers what a run's own options cannot: help, a typo, a missing flag") {
  // Each of these first parses with only the typed options, then again with every option.
  const auto help = run_napkin("memory --batch 4 --help");
  CHECK(help.code == 0);
  CHECK(help.out.find("--gpu-memory") != std::string::npos);  // an option not typed is listed
  const auto typo = run_napkin("memory llama-3.1-8b --batch 4 --contex 8");
  CHECK(typo.code == 2);
  CHECK(typo.out.find("did you mean '--context'?") != std::string::npos);
  const auto missing = run_napkin("flops matmul --m 4 --k 4");
  CHECK(missing.code == 2);
  CHECK(missing.out.find("--n is required") != std::string::npos);
}
