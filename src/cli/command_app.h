// A command's CLI11 app, whose option tree builds in linear time.
//
// CLI11 2.1's App::add_option compares the new option with every option already added, through
// Option::matching_name, which copies each option's name vectors: building `memory`'s 120-odd
// flags cost 1.7M instructions, a third of a cold start (issue 18). get_option is a linear
// scan of the same kind (check_name copies a substring per option). CommandApp adds each option
// against an empty list (the option vector is swapped out for the call) and keeps its own index
// of names, which both refuses a name added twice (CLI::OptionAlreadyAdded, as CLI11 would) and
// answers get_option by hash. Everything else is CLI::App's: parsing, help, callbacks.
//
// A run that names its command goes further (main, register_typed_only): only the options whose
// names the command line holds are added at all. Every other add returns a stand-in option that
// no parse ever sees (count 0, no results), which get_option also returns for that name, so code
// that asks "was --tp given?" reads "no" as it would from the real option. CLI11 then treats the
// command line exactly as with the whole tree (every option a token can match is there), except
// in three cases, for which main builds the whole tree and parses again: a required flag is
// missing (its stand-in was made required: missed_required), a parse error (an unknown flag,
// whose suggestion needs every name), and help.
//
// It relies on App::options_ being the protected vector of options (CLI11 2.1, Debian 12's
// libcli11-dev); the tests build every command through it and check the index against CLI11's
// own lookup (tests/command_app_test.cpp).
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace napkin::cli {

class CommandApp : public CLI::App {
 public:
  /// A subcommand of `parent`, inheriting its settings as App::add_subcommand's would
  /// (help flag, option defaults, formatter, allow_extras, ...).
  CommandApp(std::string description, std::string name, CLI::App* parent)
      : CLI::App(std::move(description), std::move(name), parent) {}

  template <typename Name, typename... Args>
  CLI::Option* add_option(Name&& name, Args&&... args) {
    if (skip(name)) return stand_in_;
    Unchecked guard(*this);
    return guard.indexed(CLI::App::add_option(std::forward<Name>(name), std::forward<Args>(args)...));
  }
  template <typename Name, typename... Args>
  CLI::Option* add_flag(Name&& name, Args&&... args) {
    if (skip(name)) return stand_in_;
    Unchecked guard(*this);
    return guard.indexed(CLI::App::add_flag(std::forward<Name>(name), std::forward<Args>(args)...));
  }

  /// From now on, CommandApps add only the options named in argv[1..argc) ("--batch" of
  /// "--batch=4"; each letter of "-xy" as "-x", "-y"); positionals always. main calls it for a run
  /// that names its command, and not for help.
  static void register_typed_only(int argc, const char* const* argv);
  /// Back to adding every option (the default).
  static void register_all();
  /// True when, in a command of `root` that argv names ("flops matmul": flops and matmul), the
  /// stand-in of an option that was not added has been made required: a required flag is
  /// missing from the command line, which the whole tree reports (CLI11's message).
  static bool missed_required(const CLI::App& root, int argc, const char* const* argv);

  /// As CLI::App's, by the index (the same option: names are unique); the stand-in for the name
  /// of an option that was not added (register_typed_only); any other name form falls back to
  /// CLI11's scan.
  CLI::Option* get_option_no_throw(const std::string& name) noexcept {
    if (const auto it = index_.find(name); it != index_.end()) return it->second;
    if (was_skipped(name)) return stand_in_;
    return CLI::App::get_option_no_throw(name);
  }
  const CLI::Option* get_option_no_throw(const std::string& name) const noexcept {
    if (const auto it = index_.find(name); it != index_.end()) return it->second;
    if (was_skipped(name)) return stand_in_;
    return CLI::App::get_option_no_throw(name);
  }
  CLI::Option* get_option(const std::string& name) {
    CLI::Option* o = get_option_no_throw(name);
    if (o == nullptr) throw CLI::OptionNotFound(name);
    return o;
  }
  const CLI::Option* get_option(const std::string& name) const {
    const CLI::Option* o = get_option_no_throw(name);
    if (o == nullptr) throw CLI::OptionNotFound(name);
    return o;
  }

  /// False when add_option(names, ...) would not add the option (register_typed_only): a caller
  /// need not build its description.
  bool adds(std::string_view names) const;
  /// The stand-in add_option(names, ...) would return, without building the option's arguments
  /// (the names then read as not given); null when the option is to be added.
  CLI::Option* stand_in_for(std::string_view names) { return skip(names) ? stand_in_ : nullptr; }
  /// False for the stand-in: `o` is an option of this run.
  bool added(const CLI::Option* o) const { return o != stand_in_; }

  /// A subcommand of this one, itself a CommandApp ("flops" -> "matmul").
  CommandApp* add_command(std::string name, std::string description);

 private:
  // Swaps the options out for one add (CLI11 then compares the new option with none), and back.
  class Unchecked {
   public:
    explicit Unchecked(CommandApp& app) : app_(app) {
      app_.index_existing();
      saved_.swap(app_.options_);
    }
    ~Unchecked() {
      for (auto& o : app_.options_) saved_.push_back(std::move(o));
      app_.options_.swap(saved_);
    }
    Unchecked(const Unchecked&) = delete;
    Unchecked& operator=(const Unchecked&) = delete;
    // As CLI11, a name already added is refused and the option not kept.
    CLI::Option* indexed(CLI::Option* o) {
      try {
        app_.index(o);
      } catch (...) {
        app_.options_.clear();  // the new option alone (the others are in saved_)
        throw;
      }
      return o;
    }

   private:
    CommandApp& app_;
    std::vector<CLI::Option_p> saved_;
  };

  void index_existing();
  void index(CLI::Option* o);
  // True (and the names remembered, and stand_in_ made) when register_typed_only is on and no
  // name of `names` ("--tp", "-h,--help", "MODEL") is typed; a positional is never skipped.
  bool skip(std::string_view names);
  bool was_skipped(std::string_view name) const noexcept;

  std::unordered_map<std::string, CLI::Option*> index_;
  std::size_t indexed_ = 0;  // options_[0, indexed_) are in index_
  std::vector<std::uint64_t> skipped_;  // hashes of the names of options not added
  CLI::Option* stand_in_ = nullptr;     // what they return: an option of an app nothing parses
};

/// A command of the top-level app ("memory"), as a CommandApp.
CommandApp* add_command(CLI::App& app, std::string name, std::string description);

}  // namespace napkin::cli
