// The flag walk: every input napkin accepts changes the answer or is refused. For every option of
// every command (the CLI11 app built exactly as main.cpp builds it) tests/flag-walk/cases.txt
// gives one or more contexts, a base command line and a variant; the real binary runs both and
// the variant must either be refused (exit 2, a "napkin: error:" line naming the flag) or change
// the result (see `changed_by`). A flag with no case, or a case for a flag that no longer exists,
// fails too. The table's format is described at its top.
//
// NAPKIN_FLAG_WALK_REPORT=FILE writes one line per case (verdict, why) for review;
// NAPKIN_FLAG_WALK_STRICT=1 counts only results, not the set of assumptions.
#include <catch2/catch.hpp>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

#include "command.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// ---- the app, as main.cpp builds it -----------------------------------------------------------

struct AppUnderTest {
  CLI::App app{"napkin", "napkin"};
  int exit_code = 0;
  AppUnderTest() {
    app.set_version_flag("--version", std::string("napkin"));
    app.set_help_flag("-h,--help", "Print this help and exit");
    napkin::cli::add_all_commands(app, exit_code);
  }
};

// The name a flag goes by in the table: "--batch" (its first long name) or, for a positional,
// its name ("MODEL"). Aliases (--gpu-memory,--memory) are one option and need one case.
std::string option_key(const CLI::Option* o) {
  if (!o->get_lnames().empty()) return "--" + o->get_lnames().front();
  if (!o->get_snames().empty()) return "-" + o->get_snames().front();
  return o->get_name();
}

std::vector<std::string> option_spellings(const CLI::Option* o) {
  std::vector<std::string> s;
  for (const auto& l : o->get_lnames()) s.push_back("--" + l);
  for (const auto& l : o->get_snames()) s.push_back("-" + l);
  return s;
}

struct CommandInfo {
  CLI::App* app = nullptr;
  std::map<std::string, const CLI::Option*> options;  // by option_key
};

void collect(CLI::App* a, const std::string& path, const CLI::App* root,
             std::map<std::string, CommandInfo>& out) {
  if (!path.empty()) {
    CommandInfo info{a, {}};
    for (const CLI::Option* o : a->get_options()) {
      if (o == a->get_help_ptr() || o == a->get_help_all_ptr() || o == root->get_version_ptr()) continue;
      const auto& ln = o->get_lnames();
      if (std::find(ln.begin(), ln.end(), "help") != ln.end() ||
          std::find(ln.begin(), ln.end(), "version") != ln.end())
        continue;
      info.options[option_key(o)] = o;
    }
    out[path] = std::move(info);
  }
  for (CLI::App* s : a->get_subcommands([](CLI::App*) { return true; }))
    collect(s, path.empty() ? s->get_name() : path + " " + s->get_name(), root, out);
}

// ---- the table --------------------------------------------------------------------------------

enum class Kind { append, swap, drop, exempt };

struct Case {
  int line = 0;
  std::string command;  // "flops matmul"
  std::string flag;     // "--batch", "MODEL"
  Kind kind = Kind::append;
  std::vector<std::string> base;     // arguments after the command path
  std::vector<std::string> args;     // appended (append, swap) arguments
  std::string reason;                // exempt
  bool all_context = false;          // the case belongs to an "all:" context
};

struct Context {
  int line = 0;
  std::string command;
  std::vector<std::string> base;
  bool all = false;  // every flag of the command needs a line here
  std::set<std::string> flags;
};

struct Table {
  std::vector<Case> cases;
  std::vector<Context> contexts;
  std::vector<std::string> errors;
};

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> w;
  for (std::string t; in >> t;) w.push_back(t);
  return w;
}

std::string join(const std::vector<std::string>& w) {
  std::string s;
  for (const auto& t : w) s += (s.empty() ? "" : " ") + t;
  return s;
}

const char* const kFormatFlags[] = {"--json", "--jsonl", "--csv", "--explain"};

Table read_table(const std::string& path) {
  Table t;
  std::ifstream in(path);
  if (!in) {
    t.errors.push_back("cannot read " + path);
    return t;
  }
  std::string command;
  int ctx = -1;
  int n = 0;
  for (std::string raw; std::getline(in, raw);) {
    ++n;
    const std::string line = trim(raw);
    const std::string where = "cases.txt:" + std::to_string(n) + ": ";
    if (line.empty() || line[0] == '#') continue;
    if (line.front() == '[') {
      if (line.back() != ']') {
        t.errors.push_back(where + "a command line is [command path]");
        continue;
      }
      command = trim(line.substr(1, line.size() - 2));
      ctx = -1;
      continue;
    }
    if (command.empty()) {
      t.errors.push_back(where + "a line before the first [command]");
      continue;
    }
    if (line.rfind("base:", 0) == 0 || line.rfind("all:", 0) == 0) {
      const bool all = line[0] == 'a';
      t.contexts.push_back({n, command, words(line.substr(all ? 4 : 5)), all, {}});
      ctx = static_cast<int>(t.contexts.size()) - 1;
      continue;
    }
    if (line == "formats") {  // --json, --jsonl, --csv, --explain, each appended alone
      if (ctx < 0) {
        t.errors.push_back(where + "'formats' outside a base: context");
        continue;
      }
      for (const char* f : kFormatFlags) {
        Case c{n, command, f, Kind::append, t.contexts[ctx].base, {f}, "", t.contexts[ctx].all};
        t.contexts[ctx].flags.insert(f);
        t.cases.push_back(c);
      }
      continue;
    }
    const auto colon = line.find(": ");
    if (colon == std::string::npos && line.back() != ':') {
      t.errors.push_back(where + "expected 'FLAG: VARIANT', 'base: ARGS', 'all: ARGS', 'formats' or [command]");
      continue;
    }
    Case c;
    c.line = n;
    c.command = command;
    c.flag = trim(line.substr(0, colon == std::string::npos ? line.size() - 1 : colon));
    const std::string rest = colon == std::string::npos ? "" : trim(line.substr(colon + 2));
    auto w = words(rest);
    if (!w.empty() && w[0] == "exempt") {
      c.kind = Kind::exempt;
      c.reason = trim(rest.substr(6));
      if (c.reason.empty()) t.errors.push_back(where + "an exemption states its reason");
      if (ctx >= 0) t.contexts[ctx].flags.insert(c.flag);
      t.cases.push_back(c);
      continue;
    }
    if (ctx < 0) {
      t.errors.push_back(where + "a case before its command's first base: or all: line");
      continue;
    }
    c.base = t.contexts[ctx].base;
    c.all_context = t.contexts[ctx].all;
    if (!w.empty() && w[0] == "swap") {
      c.kind = Kind::swap;
      c.args.assign(w.begin() + 1, w.end());
      if (c.args.empty()) t.errors.push_back(where + "swap needs the new arguments (or use drop)");
    } else if (!w.empty() && w[0] == "drop") {
      c.kind = Kind::drop;
      if (w.size() != 1) t.errors.push_back(where + "drop takes nothing");
    } else {
      c.kind = Kind::append;
      c.args = w;
      if (w.empty()) t.errors.push_back(where + "a case needs variant arguments");
    }
    t.contexts[ctx].flags.insert(c.flag);
    t.cases.push_back(c);
  }
  return t;
}

// ---- running the binary -----------------------------------------------------------------------

struct Outcome {
  int code = -1;
  std::string out, err;
  std::map<std::string, std::string> files;  // what the run wrote in its working directory
};

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char ch : s) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return q + "'";
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs napkin in a fresh empty directory (so --plot FILE lands there and is compared too).
Outcome run_in_temp(const std::vector<std::string>& argv) {
  static std::atomic<int> counter = 0;
  const fs::path root = fs::temp_directory_path() /
                        ("napkin-flag-walk-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  const fs::path dir = root / "cwd";
  fs::create_directories(dir);
  const fs::path err = root / "stderr";
  std::string cmd = "cd " + shell_quote(dir.string()) + " && " + shell_quote(NAPKIN_BINARY);
  for (const auto& a : argv) cmd += " " + shell_quote(a);
  cmd += " 2>" + shell_quote(err.string()) + " </dev/null";
  Outcome o;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) {
    o.err = "popen failed";
    return o;
  }
  std::array<char, 8192> buf{};
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) o.out.append(buf.data(), n);
  const int status = pclose(p);
  o.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  o.err = slurp(err);
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file()) o.files[e.path().filename().string()] = slurp(e.path());
  fs::remove_all(root);
  return o;
}

// Every distinct command line of `argvs` run once, by join(argv), several at a time: each run is
// a process (a tenth of a second under ASan), and the walk has some two thousand.
std::map<std::string, Outcome> run_all(const std::vector<std::vector<std::string>>& argvs) {
  std::map<std::string, const std::vector<std::string>*> unique;
  for (const auto& a : argvs) unique.emplace(join(a), &a);
  const std::vector<std::pair<std::string, const std::vector<std::string>*>> work(unique.begin(), unique.end());
  std::vector<Outcome> outcomes(work.size());
  std::atomic<std::size_t> next = 0;
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < std::max(2u, std::thread::hardware_concurrency()); ++t)
    pool.emplace_back([&] {
      for (std::size_t i; (i = next++) < work.size();) outcomes[i] = run_in_temp(*work[i].second);
    });
  for (auto& th : pool) th.join();
  std::map<std::string, Outcome> by_line;
  for (std::size_t i = 0; i < work.size(); ++i) by_line.emplace(work[i].first, std::move(outcomes[i]));
  return by_line;
}

// ---- deciding "changed" -----------------------------------------------------------------------

// What a JSON result says, without what merely echoes the inputs: the "inputs" object, each
// result's "label" and "formula" (a formula prints the values it used, so an ignored flag's value
// could show there), the assumptions' texts (only their keys count: an assumption that appears or
// goes is a changed answer, a text that repeats a value is not) and the warnings (a warning that a
// flag is ignored is not an answer). Everything else counts: every result's value and unit, which
// results there are, and any other section (per-op tables, traces).
json digest(const json& j) {
  if (j.is_array()) {
    json a = json::array();
    for (const auto& e : j) a.push_back(digest(e));
    return a;
  }
  if (!j.is_object()) return j;
  json d = j;
  d.erase("inputs");
  d.erase("warnings");
  if (d.contains("results") && d["results"].is_object())
    for (auto& [key, r] : d["results"].items())
      if (r.is_object()) {
        r.erase("formula");
        r.erase("label");
      }
  if (d.contains("assumptions") && d["assumptions"].is_array()) {
    std::set<std::string> keys;
    for (const auto& a : d["assumptions"])
      if (a.is_object() && a.contains("key")) keys.insert(a["key"].get<std::string>());
    d["assumptions"] = keys;
  }
  return d;
}

// A --json result (an object, or an array for a sweep) or --jsonl lines; nullopt for the table,
// CSV or --explain formats.
std::optional<json> parse_output(const std::string& out) {
  if (out.empty()) return std::nullopt;
  try {
    return json::parse(out);
  } catch (const json::exception&) {
  }
  json lines = json::array();
  std::istringstream in(out);
  for (std::string l; std::getline(in, l);) {
    if (trim(l).empty()) continue;
    try {
      lines.push_back(json::parse(l));
    } catch (const json::exception&) {
      return std::nullopt;
    }
  }
  if (lines.empty()) return std::nullopt;
  return lines;
}

// Why `v` differs from `b` ("" when it does not): the exit code, the files written, and the
// result digests when both print JSON (the whole stdout otherwise).
std::string changed_by(const Outcome& b, const Outcome& v) {
  if (b.code != v.code) return "exit code " + std::to_string(b.code) + " -> " + std::to_string(v.code);
  if (b.files != v.files) return "files written";
  const auto jb = parse_output(b.out), jv = parse_output(v.out);
  if (jb && jv) {
    const json db = digest(*jb), dv = digest(*jv);
    if (db == dv) return "";
    // Which part: results (and other sections) or only the set of assumptions?
    json rb = db, rv = dv;
    auto strip = [](json& j) {
      if (j.is_array())
        for (auto& e : j) e.erase("assumptions");
      else if (j.is_object())
        j.erase("assumptions");
    };
    strip(rb);
    strip(rv);
    return rb != rv ? "results" : "assumption keys only";
  }
  return b.out != v.out ? "stdout" : "";
}

std::string first_error_line(const std::string& err) {
  std::istringstream in(err);
  for (std::string l; std::getline(in, l);)
    if (l.rfind("napkin: error:", 0) == 0) return l;
  return "";
}

// ---- building a variant's command line --------------------------------------------------------

const CLI::Option* find_option(const CommandInfo& info, const std::string& token) {
  const std::string name = token.substr(0, token.find('='));
  for (const auto& [key, o] : info.options)
    for (const auto& s : option_spellings(o))
      if (s == name) return o;
  return nullptr;
}

bool takes_value(const CLI::Option* o) { return o->get_items_expected_max() > 0; }

// Removes the occurrence of `o` from `base` (the flag and its value; a positional: its word).
// Returns false when `base` does not hold it.
bool remove_option(const CommandInfo& info, std::vector<std::string>& base, const CLI::Option* o) {
  const std::vector<std::string> spell = option_spellings(o);
  for (std::size_t i = 0; i < base.size(); ++i) {
    const std::string& tok = base[i];
    if (tok.rfind("-", 0) == 0) {
      const CLI::Option* t = find_option(info, tok);
      const bool inline_value = tok.find('=') != std::string::npos;
      const std::size_t width = (t != nullptr && takes_value(t) && !inline_value) ? 2 : 1;
      if (t == o) {
        base.erase(base.begin() + static_cast<long>(i),
                   base.begin() + static_cast<long>(std::min(base.size(), i + width)));
        return true;
      }
      i += width - 1;
    } else if (o->get_positional()) {
      base.erase(base.begin() + static_cast<long>(i));
      return true;
    }
  }
  return false;
}

bool base_holds(const CommandInfo& info, const std::vector<std::string>& base, const CLI::Option* o) {
  std::vector<std::string> copy = base;
  return remove_option(info, copy, o);
}

std::string table_path() { return std::string(NAPKIN_SOURCE_DIR) + "/tests/flag-walk/cases.txt"; }

struct Walk {
  AppUnderTest app;
  std::map<std::string, CommandInfo> commands;
  Table table;
  Walk() {
    collect(&app.app, "", &app.app, commands);
    table = read_table(table_path());
  }
};

std::vector<std::string> command_words(const std::string& command) { return words(command); }

}  // namespace

TEST_CASE("flag walk: the table names every flag of every command and only those", "[flag_walk]") {
  Walk w;
  for (const auto& e : w.table.errors) FAIL_CHECK(e);
  REQUIRE(w.commands.count("memory") == 1);
  REQUIRE(w.commands.count("flops matmul") == 1);

  std::map<std::string, std::set<std::string>> covered;  // command -> flags with a case
  for (const Case& c : w.table.cases) {
    const auto it = w.commands.find(c.command);
    if (it == w.commands.end()) {
      FAIL_CHECK("cases.txt:" << c.line << ": [" << c.command << "] is not a napkin command");
      continue;
    }
    if (it->second.options.count(c.flag) == 0) {
      FAIL_CHECK("cases.txt:" << c.line << ": '" << c.command << "' has no flag " << c.flag
                              << " (a removed or renamed flag: drop or rename its case)");
      continue;
    }
    covered[c.command].insert(c.flag);
  }
  for (const auto& [path, info] : w.commands)
    for (const auto& [key, o] : info.options)
      if (covered[path].count(key) == 0)
        FAIL_CHECK("flag " << key << " of '" << path << "' has no flag-walk case: add one to tests/flag-walk/cases.txt");

  // An "all:" context walks every flag of its command: a new flag needs a line in each.
  for (const Context& ctx : w.table.contexts) {
    if (!ctx.all) continue;
    const auto it = w.commands.find(ctx.command);
    if (it == w.commands.end()) continue;
    for (const auto& [key, o] : it->second.options)
      if (ctx.flags.count(key) == 0 &&
          std::find(std::begin(kFormatFlags), std::end(kFormatFlags), key) == std::end(kFormatFlags))
        FAIL_CHECK("cases.txt:" << ctx.line << ": the all: context '" << ctx.command << " " << join(ctx.base)
                                << "' has no line for " << key);
  }
}

TEST_CASE("flag walk: every flag changes a result or is refused", "[flag_walk]") {
  Walk w;
  REQUIRE(w.table.errors.empty());
  // A case to run: its base and variant command lines (the table checked), run all at once below.
  struct Job {
    const Case* c;
    const CLI::Option* opt;
    std::vector<std::string> base_argv, var_argv;
    std::string where, context, variant_text;
  };
  std::vector<Job> jobs;

  std::ofstream report;
  if (const char* r = std::getenv("NAPKIN_FLAG_WALK_REPORT")) report.open(r);

  // NAPKIN_FLAG_WALK_STRICT=1: an assumption that appears or goes, with every number the same, no
  // longer counts as a change (to list the flags that only add an assumption line).
  const bool strict = std::getenv("NAPKIN_FLAG_WALK_STRICT") != nullptr;
  for (const Case& c : w.table.cases) {
    if (c.kind == Kind::exempt) continue;
    const auto it = w.commands.find(c.command);
    if (it == w.commands.end() || it->second.options.count(c.flag) == 0) continue;  // the coverage test reports it
    const CommandInfo& info = it->second;
    const CLI::Option* opt = info.options.at(c.flag);
    const std::string where = "cases.txt:" + std::to_string(c.line) + ": ";
    const std::string context = c.command + " " + join(c.base);

    // The variant's arguments.
    std::vector<std::string> vargs = c.base;
    if (c.kind == Kind::append) {
      if (base_holds(info, c.base, opt)) {
        FAIL_CHECK(where << "the base '" << context << "' already gives " << c.flag
                         << ": appending it again would be refused for repeating it (use swap or drop)");
        continue;
      }
      bool names_flag = opt->get_positional();
      for (const auto& a : c.args)
        if (find_option(info, a) == opt) names_flag = true;
      if (!names_flag) {
        FAIL_CHECK(where << "the variant '" << join(c.args) << "' does not give " << c.flag);
        continue;
      }
    } else if (!remove_option(info, vargs, opt)) {
      FAIL_CHECK(where << (c.kind == Kind::swap ? "swap" : "drop") << ": the base '" << context
                       << "' does not give " << c.flag);
      continue;
    }
    vargs.insert(vargs.end(), c.args.begin(), c.args.end());

    std::vector<std::string> base_argv = command_words(c.command), var_argv = command_words(c.command);
    base_argv.insert(base_argv.end(), c.base.begin(), c.base.end());
    var_argv.insert(var_argv.end(), vargs.begin(), vargs.end());
    const std::string variant_text =
        c.kind == Kind::append ? join(c.args)
                               : (c.kind == Kind::drop ? "without " + c.flag : "swapped to " + join(c.args));

    jobs.push_back({&c, opt, std::move(base_argv), std::move(var_argv), where, context, variant_text});
  }

  std::vector<std::vector<std::string>> argvs;
  for (const Job& j : jobs) {
    argvs.push_back(j.base_argv);
    argvs.push_back(j.var_argv);
  }
  const std::map<std::string, Outcome> cache = run_all(argvs);  // by command line
  int walked = 0;
  for (const Job& j : jobs) {
    const Case& c = *j.c;
    const CLI::Option* opt = j.opt;
    const std::string& where = j.where;
    const std::string& context = j.context;
    const std::string& variant_text = j.variant_text;
    const std::vector<std::string>& base_argv = j.base_argv;
    const std::vector<std::string>& var_argv = j.var_argv;
    const Outcome& b = cache.at(join(base_argv));
    const Outcome& v = cache.at(join(var_argv));
    ++walked;
    INFO("base:    napkin " << join(base_argv));
    INFO("variant: napkin " << join(var_argv));

    std::string verdict, why;
    if (b.code != 0 && b.code != 1) {
      verdict = "BASE-FAILS";
      why = first_error_line(b.err);
      FAIL_CHECK(where << "the base '" << context << "' does not run (exit " << b.code << "): " << why);
    } else if (v.code == 2) {
      const std::string err = first_error_line(v.err);
      bool named = opt->get_positional();
      for (const auto& s : option_spellings(opt))
        if (err.find(s) != std::string::npos) named = true;
      if (err.empty()) {
        verdict = "FAIL";
        why = "exit 2 without a 'napkin: error:' line";
        FAIL_CHECK(where << context << ": " << variant_text << " exits 2 without a 'napkin: error:' line: " << v.err);
      } else if (!named) {
        verdict = "FAIL";
        why = "refused for a reason that does not name " + c.flag + ": " + err;
        FAIL_CHECK(where << context << ": " << variant_text << " refused, but the message does not name "
                         << c.flag << " (a bad value in the table, or a message naming the wrong flag): " << err);
      } else {
        verdict = "refused";
        why = err;
      }
    } else if (v.code != 0 && v.code != 1) {
      verdict = "FAIL";
      why = "exit " + std::to_string(v.code);
      FAIL_CHECK(where << context << ": " << variant_text << " exits " << v.code << ": " << v.err);
    } else {
      why = changed_by(b, v);
      if (strict && why == "assumption keys only") why.clear();
      if (why.empty()) {
        verdict = "FAIL";
        why = "accepted and ignored";
        FAIL_CHECK(c.command << " " << join(c.base) << ": " << variant_text << " accepted and ignored (" << where
                             << "flag " << c.flag << ")");
      } else {
        verdict = "changed";
      }
    }
    if (report.is_open())
      report << verdict << "\t" << c.command << "\t" << c.flag << "\t" << join(c.base) << "\t" << variant_text
             << "\t" << why << "\n";
  }
  CHECK(walked > 0);
}

TEST_CASE("flag walk: what counts as a changed result", "[flag_walk]") {
  const std::string base =
      R"({"command":"x","inputs":{"batch":1},"results":{"w":{"value":2,"unit":"B","label":"w","formula":"1 · 2"}},)"
      R"("assumptions":[{"key":"a","text":"batch 1","flag":"--batch"}],"warnings":[]})";
  Outcome b{0, base, "", {}};
  auto with = [&](std::string from, std::string to) {
    std::string s = base;
    s.replace(s.find(from), from.size(), to);
    return Outcome{0, s, "", {}};
  };
  // Echoes of the inputs do not count.
  CHECK(changed_by(b, with(R"("batch":1)", R"("batch":64)")).empty());
  CHECK(changed_by(b, with(R"("formula":"1 · 2")", R"("formula":"64 · 2")")).empty());
  CHECK(changed_by(b, with(R"("label":"w")", R"("label":"w, 64")")).empty());
  CHECK(changed_by(b, with("batch 1", "batch 64")).empty());
  CHECK(changed_by(b, with(R"("warnings":[])", R"("warnings":["--batch ignored"])")).empty());
  // Results, the set of assumptions, the exit code and the files written do.
  CHECK(changed_by(b, with(R"("value":2)", R"("value":3)")) == "results");
  CHECK(changed_by(b, with(R"("unit":"B")", R"("unit":"s")")) == "results");
  CHECK(changed_by(b, with(R"("results":{)", R"("results":{"v":{"value":1},)")) == "results");
  CHECK(changed_by(b, with(R"("key":"a")", R"("key":"b")")) == "assumption keys only");
  CHECK(changed_by(b, Outcome{1, base, "", {}}) == "exit code 0 -> 1");
  CHECK(changed_by(b, Outcome{0, base, "", {{"c.svg", "<svg/>"}}}) == "files written");
  // A sweep: an array of result sets, compared element by element.
  CHECK(changed_by(Outcome{0, "[" + base + "," + base + "]", "", {}},
                   Outcome{0, "[" + base + "," + with(R"("value":2)", R"("value":3)").out + "]", "", {}}) == "results");
  // JSON lines (--jsonl) too; other formats compare all of stdout.
  CHECK(changed_by(Outcome{0, "{\"results\":{}}\n{\"results\":{}}\n", "", {}},
                   Outcome{0, "{\"results\":{}}\n{\"results\":{\"x\":{\"value\":1}}}\n", "", {}}) == "results");
  CHECK(changed_by(Outcome{0, "a table", "", {}}, Outcome{0, "a table", "", {}}).empty());
  CHECK(changed_by(Outcome{0, "a table", "", {}}, Outcome{0, "another", "", {}}) == "stdout");
}
