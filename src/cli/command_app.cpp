#include "command_app.h"

#include <algorithm>
#include <array>
#include <memory>

namespace napkin::cli {

namespace {

// register_typed_only's state: the names typed, and the stand-in's app (null: add every option).
struct Typed {
  std::vector<std::string_view> names;  // into argv
  std::unique_ptr<CLI::App> stand_ins;  // the app of the stand-ins, which nothing parses; null: off
};
Typed& typed() {
  static Typed t;
  return t;
}

// "-x" for every byte x, for short names typed in a cluster ("-xy").
constexpr std::array<char, 512> kShortNameTable = [] {
  std::array<char, 512> s{};
  for (std::size_t c = 0; c < 256; ++c) {
    s[2 * c] = '-';
    s[2 * c + 1] = static_cast<char>(c);
  }
  return s;
}();
constexpr std::string_view kShortNames{kShortNameTable.data(), kShortNameTable.size()};

// FNV-1a: the skipped names are remembered by hash, not copied.
std::uint64_t name_hash(std::string_view s) noexcept {
  std::uint64_t h = 14695981039346656037ULL;
  for (const char c : s) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  return h;
}

// Splits CLI11's name list ("-h,--help", a flag's "--x{default}", "!--no-x") and calls
// `f(name)` for each name until it returns false; false if it did.
template <typename F>
bool each_name(std::string_view names, F&& f) {
  while (!names.empty()) {
    const auto comma = names.find(',');
    std::string_view part = names.substr(0, comma);
    names = comma == std::string_view::npos ? std::string_view{} : names.substr(comma + 1);
    while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
    while (!part.empty() && part.back() == ' ') part.remove_suffix(1);
    if (!part.empty() && part.front() == '!') part.remove_prefix(1);
    if (const auto brace = part.find('{'); brace != std::string_view::npos) part = part.substr(0, brace);
    if (!part.empty() && !f(part)) return false;
  }
  return true;
}

}  // namespace

void CommandApp::register_typed_only(int argc, const char* const* argv) {
  Typed& t = typed();
  t.names.clear();
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a.size() < 2 || a[0] != '-') continue;
    if (a[1] == '-') {
      t.names.push_back(a.substr(0, a.find('=')));
    } else {
      for (std::size_t k = 1; k < a.size(); ++k) t.names.push_back(kShortNames.substr(2 * static_cast<unsigned char>(a[k]), 2));
    }
  }
  // Not CLI::App's public constructor, which adds a help flag the stand-ins' app never needs.
  t.stand_ins = std::make_unique<CommandApp>("", "stand-ins", nullptr);
}

void CommandApp::register_all() {
  Typed& t = typed();
  t.names.clear();
  t.stand_ins.reset();
}

bool CommandApp::missed_required(const CLI::App& root, int argc, const char* const* argv) {
  for (const CLI::App* sub : root.get_subcommands([](const CLI::App*) { return true; })) {
    const auto* c = dynamic_cast<const CommandApp*>(sub);
    if (c != nullptr && c->stand_in_ != nullptr && c->stand_in_->get_required() &&
        std::find(argv + 1, argv + argc, std::string_view(c->get_name())) != argv + argc)
      return true;
    if (missed_required(*sub, argc, argv)) return true;
  }
  return false;
}

bool CommandApp::adds(std::string_view names) const {
  const Typed& t = typed();
  if (t.stand_ins == nullptr) return true;
  // Added when a name is positional (no dash) or typed.
  return !each_name(names, [&](std::string_view n) {
    return n.front() == '-' && std::find(t.names.begin(), t.names.end(), n) == t.names.end();
  });
}

bool CommandApp::skip(std::string_view names) {
  if (adds(names)) return false;
  if (stand_in_ == nullptr)  // one per command, so that a required flag missing is told by command
    stand_in_ = static_cast<CLI::App&>(*typed().stand_ins)
                    .add_option("--stand-in-" + std::to_string(typed().stand_ins->get_options().size()));
  each_name(names, [&](std::string_view n) {
    skipped_.push_back(name_hash(n));
    return true;
  });
  return true;
}

bool CommandApp::was_skipped(std::string_view name) const noexcept {
  if (skipped_.empty()) return false;
  return std::find(skipped_.begin(), skipped_.end(), name_hash(name)) != skipped_.end();
}

void CommandApp::index_existing() {
  // Options added through CLI::App itself (the help flag the constructor adds).
  while (indexed_ < options_.size()) index(options_[indexed_].get());
}

void CommandApp::index(CLI::Option* o) {
  std::vector<std::string> keys;
  for (const auto& s : o->get_snames()) keys.push_back("-" + s);
  for (const auto& l : o->get_lnames()) keys.push_back("--" + l);
  if (keys.empty()) keys.push_back(o->get_name());  // a positional
  for (const auto& k : keys)
    if (index_.count(k) != 0) throw CLI::OptionAlreadyAdded("added option matched existing option name: " + k);
  for (auto& k : keys) index_.emplace(std::move(k), o);
  ++indexed_;
}

CommandApp* CommandApp::add_command(std::string name, std::string description) {
  return cli::add_command(*this, std::move(name), std::move(description));
}

CommandApp* add_command(CLI::App& app, std::string name, std::string description) {
  auto sub = std::make_shared<CommandApp>(std::move(description), std::move(name), &app);
  CommandApp* raw = sub.get();
  app.add_subcommand(std::move(sub));
  return raw;
}

}  // namespace napkin::cli
