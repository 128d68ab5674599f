// The command table read back from CLI11, and the bash, zsh and fish completion scripts made
// from it. Each script walks the words typed so far through the same table: subcommands extend
// the command path, a flag that takes a value swallows the next word, and the word under the
// cursor completes to the subcommands, the flags, or the values of the flag before it.
#include "completions.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "napkin/engines/llamacpp.h"
#include "napkin/ground/dtype.h"
#include "napkin/ground/error.h"
#include "napkin/memory/ledgers.h"
#include "napkin/report/checked_output.h"
#include "napkin/specs/hardware.h"
#include "napkin/specs/hf_config.h"
#include "napkin/specs/presets.h"
#include "napkin/version.h"
#include "flag_checks.h"
#include "safe_output.h"

namespace napkin::cli {

std::string CommandInfo::path_text() const {
  std::string s;
  for (const auto& p : path) s += (s.empty() ? "" : " ") + p;
  return s;
}

namespace {

std::vector<std::string> split(std::string_view s, std::string_view sep) {
  std::vector<std::string> out;
  for (std::size_t start = 0;;) {
    const std::size_t at = s.find(sep, start);
    out.emplace_back(s.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    if (at == std::string_view::npos) return out;
    start = at + sep.size();
  }
}

std::string join(const std::vector<std::string>& v, std::string_view sep) {
  std::string s;
  for (const auto& w : v) s += (s.empty() ? "" : std::string(sep)) + w;
  return s;
}

// Every enumerator from `first` to `last`, by name.
template <typename E, typename F>
std::vector<std::string> enum_names(E first, E last, F name) {
  std::vector<std::string> out;
  for (int i = static_cast<int>(first); i <= static_cast<int>(last); ++i) out.emplace_back(name(static_cast<E>(i)));
  return out;
}

// What a flag's value completes to, from its type_name: an `a|b|c` list of lower-case names is
// its own set of values (`COUNT|NxM` names shapes: placeholders, not values); the placeholders
// below name a set the library holds.
void classify(const CLI::Option* o, FlagInfo& f) {
  const std::string& t = f.value_name;
  const auto& lnames = o->get_lnames();
  const auto named = [&](std::string_view n) { return std::find(lnames.begin(), lnames.end(), n) != lnames.end(); };
  const bool names_values =
      t.find('|') != std::string::npos && std::none_of(t.begin(), t.end(), [](char ch) { return ch >= 'A' && ch <= 'Z'; });
  f.kind = ValueKind::words;
  if (names_values) {
    f.words = split(t, "|");
  } else if (t == "MODEL") {
    f.kind = ValueKind::model;
    f.words = specs::model_preset_names();
  } else if (t == "HARDWARE") {
    f.kind = ValueKind::hardware;
    f.words = specs::hardware_preset_names();
    for (auto& a : specs::hardware_alias_names()) f.words.push_back(std::move(a));
    for (auto& a : specs::hardware_sized_names()) f.words.push_back(std::move(a));
  } else if (t == "FILE.svg") {
    f.kind = ValueKind::svg;
  } else if (t == "COMMAND") {
    f.kind = ValueKind::command;
  } else if (t == "DTYPE") {
    f.words = enum_names(Dtype::fp64, Dtype::fp4, [](Dtype d) { return dtype_name(d); });
  } else if (t == "FAMILY") {
    f.words = split(specs::family_names(), ", ");
  } else if (t == "0-3") {  // --zero
    f.words = {"0", "1", "2", "3"};
  } else if (named("optimizer")) {
    f.words = enum_names(Optimizer::adamw, Optimizer::adafactor, [](Optimizer x) { return to_string(x); });
  } else if (named("v-dtype")) {  // llama.cpp's cache types
    f.words = enum_names(CacheType::f32, CacheType::iq4_nl, [](CacheType x) { return cache_type_name(x); });
  } else {
    f.kind = ValueKind::free;  // a number, a key, a list
  }
}

FlagInfo flag_info(const CLI::Option* o) {
  FlagInfo f;
  f.positional = o->get_positional() && o->get_lnames().empty() && o->get_snames().empty();
  if (f.positional) f.names.push_back(o->get_name(true));
  for (const auto& l : o->get_lnames()) f.names.push_back("--" + l);
  for (const auto& s : o->get_snames()) f.names.push_back("-" + s);
  f.help = o->get_description();
  f.group = o->get_group();
  if (o->get_expected_max() == 0) return f;  // a switch
  f.value_name = o->get_type_name();
  classify(o, f);
  return f;
}

void walk(const CLI::App& a, const std::vector<std::string>& path, std::vector<CommandInfo>& out) {
  CommandInfo c;
  c.path = path;
  c.help = a.get_description();
  c.footer = a.get_footer();
  const auto visible = a.get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); });
  for (const CLI::App* s : visible) c.subcommands.push_back(s->get_name());
  for (const CLI::Option* o : a.get_options())
    if (o->get_positional() && o->get_lnames().empty()) c.flags.push_back(flag_info(o));
  for (const CLI::Option* o : a.get_options())
    if (!(o->get_positional() && o->get_lnames().empty()) && !o->get_group().empty()) c.flags.push_back(flag_info(o));
  out.push_back(std::move(c));
  for (const CLI::App* s : visible) {
    std::vector<std::string> p = path;
    p.push_back(s->get_name());
    walk(*s, p, out);
  }
}

// ---- shared by the three scripts ---------------------------------------------------------------

// The first clause of a help text, short enough for a completion menu.
std::string short_help(std::string_view help) {
  std::size_t end = help.size();
  for (std::string_view stop : {". ", "; "})
    if (const std::size_t at = help.find(stop); at != std::string_view::npos && at > 0) end = std::min(end, at);
  std::string s(help.substr(0, end));
  std::replace(s.begin(), s.end(), '\n', ' ');
  if (s.size() > 72) s = s.substr(0, s.rfind(' ', 69)) + "...";
  return s;
}

// 'text' for sh, bash, zsh and fish: a ' inside becomes '\'' (fish reads \' inside quotes).
std::string sh_quote(std::string_view s, bool fish = false) {
  std::string out = "'";
  for (char ch : s) {
    if (ch == '\'') out += fish ? "\\'" : "'\\''";
    else if (ch == '\\' && fish) out += "\\\\";
    else out += ch;
  }
  return out + "'";
}

const CommandInfo* help_command(const std::vector<CommandInfo>& t) {
  for (const auto& c : t)
    for (const auto& f : c.flags)
      if (f.positional && f.kind == ValueKind::command) return &c;
  return nullptr;
}

// The flags of a command that take a value (all their names).
std::vector<std::string> value_flags(const CommandInfo& c) {
  std::vector<std::string> out;
  for (const auto& f : c.flags)
    if (!f.positional && f.kind != ValueKind::none) out.insert(out.end(), f.names.begin(), f.names.end());
  return out;
}

std::vector<std::string> flag_names(const CommandInfo& c) {
  std::vector<std::string> out;
  for (const auto& f : c.flags)
    if (!f.positional) out.insert(out.end(), f.names.begin(), f.names.end());
  return out;
}

// How one shell completes each kind of value.
struct ShellActions {
  std::function<std::string(const std::vector<std::string>&)> words;  // one of these (a comma list of them)
  std::function<std::string(std::string_view)> files;                 // files matching a glob ("": any)
  std::string command;                                                // a command path after `help`
};

// The arms of _napkin_values' `case "$1 $2"` (PATH FLAG, or "PATH " for the positional), one per
// distinct action with every key that shares it, and the function's end.
std::string value_cases(const std::vector<CommandInfo>& t, const ShellActions& a) {
  const auto action = [&](const FlagInfo& f) -> std::string {
    switch (f.kind) {
      case ValueKind::words: return a.words(f.words);
      case ValueKind::files: return a.files("");
      case ValueKind::svg: return a.files("*.svg");
      case ValueKind::model: return a.words(f.words) + "; " + a.files("");
      case ValueKind::hardware: return a.words(f.words) + "; " + a.files("*.json");
      case ValueKind::command: return a.command;
      default: return ":";
    }
  };
  std::vector<std::pair<std::string, std::vector<std::string>>> arms;
  for (const auto& c : t)
    for (const auto& f : c.flags) {
      if (f.kind == ValueKind::none || f.kind == ValueKind::free) continue;
      const std::string act = action(f);
      auto it = std::find_if(arms.begin(), arms.end(), [&](const auto& p) { return p.first == act; });
      if (it == arms.end()) it = arms.insert(arms.end(), {act, {}});
      if (f.positional) it->second.push_back(sh_quote(c.path_text() + " "));
      else
        for (const auto& n : f.names) it->second.push_back(sh_quote(c.path_text() + " " + n));
    }
  std::string s;
  for (const auto& [act, keys] : arms) s += fmt::format("    {})\n      {} ;;\n", join(keys, "|"), act);
  return s + "    *) return 1 ;;\n  esac\n  return 0\n}\n";
}

std::string header(std::string_view shell, std::string_view install) {
  return fmt::format(
      "# {} completion for napkin {}, generated from its command table by `napkin completions {}`:\n"
      "# commands, flags, the values of flags with a fixed set, model and hardware presets, files.\n"
      "# {}\n",
      shell, kVersion, shell, install);
}

// ---- bash ------------------------------------------------------------------------------------

std::string bash_script(const std::vector<CommandInfo>& t) {
  std::string s = header("bash", "Install as share/bash-completion/completions/napkin, or source it.");
  s += "\n_napkin_subcommands() {  # the subcommands of the command path $1\n  case \"$1\" in\n";
  for (const auto& c : t)
    if (!c.subcommands.empty())
      s += fmt::format("    {}) printf '%s ' {} ;;\n", sh_quote(c.path_text()), join(c.subcommands, " "));
  s += "  esac\n}\n\n_napkin_flags() {  # the flags of $1\n  case \"$1\" in\n";
  for (const auto& c : t)
    if (const auto f = flag_names(c); !f.empty())
      s += fmt::format("    {}) printf '%s ' {} ;;\n", sh_quote(c.path_text()), join(f, " "));
  s += "  esac\n}\n\n_napkin_value_flags() {  # the flags of $1 that take a value\n  case \"$1\" in\n";
  for (const auto& c : t)
    if (const auto f = value_flags(c); !f.empty())
      s += fmt::format("    {}) printf '%s ' {} ;;\n", sh_quote(c.path_text()), join(f, " "));
  s += R"SH(  esac
}

_napkin_words() {  # $1 the word typed, $2 the candidates; a comma list completes its last item
  local pre="" cur="$1" w
  if [[ $cur == *,* ]]; then pre="${cur%,*},"; cur="${cur##*,}"; fi
  for w in $(compgen -W "$2" -- "$cur"); do COMPREPLY+=("$pre$w"); done
}

_napkin_files() {  # $1 the word typed, $2 a pattern the names must match (directories always do)
  local IFS=$'\n'
  compopt -o filenames 2>/dev/null
  if [[ -n ${2-} ]]; then
    COMPREPLY+=($(compgen -f -X "!$2" -- "$1") $(compgen -d -- "$1"))
  else
    COMPREPLY+=($(compgen -f -- "$1"))
  fi
}

_napkin_values() {  # $1 the command path, $2 the flag ("" the positional), $3 the word, $4 the path after help
  case "$1 $2" in
)SH";
  s += value_cases(t, {[](const std::vector<std::string>& w) { return "_napkin_words \"$3\" " + sh_quote(join(w, " ")); },
                      [](std::string_view glob) {
                        return "_napkin_files \"$3\"" + (glob.empty() ? "" : " " + sh_quote(glob));
                      },
                      "_napkin_words \"$3\" \"$(_napkin_subcommands \"$4\")\""});
  const CommandInfo* help = help_command(t);
  const std::string help_path = help != nullptr ? help->path_text() : std::string();
  s += R"SH(
_napkin() {
  local cur="${COMP_WORDS[COMP_CWORD]}" path="" hsub="" vflag="" w i
  COMPREPLY=()
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="${COMP_WORDS[i]}"
    if [[ -n $vflag ]]; then
      [[ $w == "=" ]] || vflag=""  # --flag=value, split at '=' (COMP_WORDBREAKS)
      continue
    fi
    case "$w" in
      --*=*) ;;
      -*) [[ " $(_napkin_value_flags "$path") " == *" $w "* ]] && vflag="$w" ;;
      *)
        if [[ -n $HELP && $path == $HELP ]]; then
          [[ " $(_napkin_subcommands "$hsub") " == *" $w "* ]] && hsub="${hsub:+$hsub }$w"
        elif [[ " $(_napkin_subcommands "$path") " == *" $w "* ]]; then
          path="${path:+$path }$w"
        fi ;;
    esac
  done
  if [[ -n $vflag ]]; then
    [[ $cur == "=" ]] && cur=""
    _napkin_values "$path" "$vflag" "$cur" "$hsub"
    return 0
  fi
  if [[ $cur == --*=* ]]; then
    local flag="${cur%%=*}"
    _napkin_values "$path" "$flag" "${cur#*=}" "$hsub"
    COMPREPLY=("${COMPREPLY[@]/#/$flag=}")
    return 0
  fi
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$(_napkin_flags "$path")" -- "$cur"))
    return 0
  fi
  local subs
  subs="$(_napkin_subcommands "$path")"
  if [[ -n $subs ]]; then
    COMPREPLY=($(compgen -W "$subs" -- "$cur"))
    return 0
  fi
  _napkin_values "$path" "" "$cur" "$hsub" || COMPREPLY=($(compgen -W "$(_napkin_flags "$path")" -- "$cur"))
  return 0
}

complete -F _napkin napkin
)SH";
  // The command whose positional is a command path.
  const std::string marker = "$HELP";
  for (std::size_t at; (at = s.find(marker)) != std::string::npos;)
    s.replace(at, marker.size(), help_path.empty() ? std::string("''") : sh_quote(help_path));
  return s;
}

// ---- zsh -------------------------------------------------------------------------------------

std::string zsh_entries(const std::vector<std::pair<std::string, std::string>>& items) {
  std::string s;
  for (const auto& [name, help] : items) s += " " + sh_quote(name + ":" + short_help(help));
  return s;
}

std::string zsh_script(const std::vector<CommandInfo>& t) {
  std::string s = "#compdef napkin\n" + header("zsh", "Install as _napkin in a directory of $fpath "
                                                       "(share/zsh/site-functions), or source it after compinit.");
  s += "\n_napkin_subcommands() {  # reply: the subcommands of the command path $1, as name:help\n  case $1 in\n";
  std::map<std::vector<std::string>, const CommandInfo*> by_path;
  for (const auto& c : t) by_path[c.path] = &c;
  for (const auto& c : t) {
    if (c.subcommands.empty()) continue;
    std::vector<std::pair<std::string, std::string>> items;
    for (const auto& sc : c.subcommands) {
      std::vector<std::string> p = c.path;
      p.push_back(sc);
      items.emplace_back(sc, by_path.at(p)->help);
    }
    s += fmt::format("    {}) reply=({}) ;;\n", sh_quote(c.path_text()), zsh_entries(items).substr(1));
  }
  s += "    *) reply=() ;;\n  esac\n}\n\n_napkin_flags() {  # reply: the flags of $1, as name:help\n  case $1 in\n";
  for (const auto& c : t) {
    std::vector<std::pair<std::string, std::string>> items;
    for (const auto& f : c.flags)
      if (!f.positional)
        for (const auto& n : f.names) items.emplace_back(n, f.help);
    if (!items.empty()) s += fmt::format("    {}) reply=({}) ;;\n", sh_quote(c.path_text()), zsh_entries(items).substr(1));
  }
  s += "    *) reply=() ;;\n  esac\n}\n\n_napkin_value_flags() {  # reply: the flags of $1 that take a value\n  case $1 in\n";
  for (const auto& c : t)
    if (const auto f = value_flags(c); !f.empty()) s += fmt::format("    {}) reply=({}) ;;\n", sh_quote(c.path_text()), join(f, " "));
  s += R"SH(    *) reply=() ;;
  esac
}

_napkin_values() {  # $1 the command path, $2 the flag ('' the positional), $3 the path after help
  local -a cands
  case "$1 $2" in
)SH";
  s += value_cases(t, {[](const std::vector<std::string>& w) {
                        std::string quoted;
                        for (const auto& x : w) quoted += (quoted.empty() ? "" : " ") + sh_quote(x);
                        return "cands=(" + quoted + "); compset -P '*,'; compadd -a cands";
                      },
                      [](std::string_view glob) { return "_files" + (glob.empty() ? "" : " -g " + sh_quote(glob)); },
                      "_napkin_subcommands \"$3\"; _describe -t commands 'napkin command' reply"});
  const CommandInfo* help = help_command(t);
  s += R"SH(
_napkin() {
  local cmdpath='' hsub='' vflag='' w i
  local -a reply names
  for (( i = 2; i < CURRENT; i++ )); do
    w=${words[i]}
    if [[ -n $vflag ]]; then
      vflag=''
      continue
    fi
    case $w in
      --*=*) ;;
      -*)
        _napkin_value_flags "$cmdpath"
        (( ${reply[(Ie)$w]} )) && vflag=$w ;;
      *)
        if [[ -n $HELP && $cmdpath == $HELP ]]; then
          _napkin_subcommands "$hsub"; names=(${reply%%:*})
          (( ${names[(Ie)$w]} )) && hsub=${hsub:+$hsub }$w
        else
          _napkin_subcommands "$cmdpath"; names=(${reply%%:*})
          (( ${names[(Ie)$w]} )) && cmdpath=${cmdpath:+$cmdpath }$w
        fi ;;
    esac
  done
  if [[ -n $vflag ]]; then
    _napkin_values "$cmdpath" "$vflag" "$hsub"
    return
  fi
  if [[ $PREFIX == --*=* ]]; then
    local flag=${PREFIX%%=*}
    compset -P '*='
    _napkin_values "$cmdpath" "$flag" "$hsub"
    return
  fi
  if [[ $PREFIX == -* ]]; then
    _napkin_flags "$cmdpath"
    _describe -t options 'napkin flag' reply
    return
  fi
  _napkin_subcommands "$cmdpath"
  if (( $#reply )); then
    _describe -t commands 'napkin command' reply
    return
  fi
  _napkin_values "$cmdpath" '' "$hsub" && return
  _napkin_flags "$cmdpath"
  _describe -t options 'napkin flag' reply
}

if [[ $funcstack[1] == _napkin ]]; then
  _napkin "$@"
else
  compdef _napkin napkin
fi
)SH";
  const std::string marker = "$HELP";
  for (std::size_t at; (at = s.find(marker)) != std::string::npos;)
    s.replace(at, marker.size(), help == nullptr ? std::string("''") : sh_quote(help->path_text()));
  return s;
}

// ---- fish ------------------------------------------------------------------------------------

std::string fish_script(const std::vector<CommandInfo>& t) {
  std::string s = header("fish", "Install as share/fish/vendor_completions.d/napkin.fish, or source it.");
  s += "\nfunction __napkin_subcommands --description 'the subcommands of the command path $argv[1]'\n"
       "    switch \"$argv[1]\"\n";
  for (const auto& c : t)
    if (!c.subcommands.empty())
      s += fmt::format("        case {}\n            printf '%s\\n' {}\n", sh_quote(c.path_text(), true),
                       join(c.subcommands, " "));
  s += "    end\nend\n\nfunction __napkin_value_flags --description 'the flags of $argv[1] that take a value'\n"
       "    switch \"$argv[1]\"\n";
  for (const auto& c : t)
    if (const auto f = value_flags(c); !f.empty())
      s += fmt::format("        case {}\n            printf '%s\\n' {}\n", sh_quote(c.path_text(), true), join(f, " "));
  const CommandInfo* help = help_command(t);
  const std::string help_path = sh_quote(help == nullptr ? "" : help->path_text(), true);
  s += fmt::format(R"SH(    end
end

# The command path typed so far (argv[1] = help: the path after `napkin help`).
function __napkin_walk
    set -l toks (commandline -opc)
    set -e toks[1]
    set -l p ''
    set -l h ''
    set -l skip 0
    for t in $toks
        if test $skip = 1
            set skip 0
            continue
        end
        switch $t
            case '--*=*'
            case '-*'
                if contains -- $t (__napkin_value_flags "$p")
                    set skip 1
                end
            case '*'
                if test -n {0}; and test "$p" = {0}
                    if contains -- $t (__napkin_subcommands "$h")
                        set h (string trim -- "$h $t")
                    end
                else if contains -- $t (__napkin_subcommands "$p")
                    set p (string trim -- "$p $t")
                end
        end
    end
    if test "$argv[1]" = help
        echo $h
    else
        echo $p
    end
end

function __napkin_files --description 'directories, and the files whose names end in $argv[1]'
    set -l suffix (string escape --style=regex -- $argv[1])
    __fish_complete_suffix $argv[1] | string match -r -- "^[^\t]*($suffix|/)(\t.*)?\$"
end

function __napkin_help_at --description 'napkin help, then the command path $argv[1]'
    set -l p (__napkin_walk)
    set -l h (__napkin_walk help)
    test "$p" = {0}; and test "$h" = "$argv[1]"
end

function __napkin_at --description 'the command path typed so far is $argv[1]'
    set -l p (__napkin_walk)
    test "$p" = "$argv[1]"
end

complete -c napkin -f
)SH",
                   help_path);
  std::map<std::vector<std::string>, const CommandInfo*> by_path;
  for (const auto& c : t) by_path[c.path] = &c;
  for (const auto& c : t) {
    const std::string at = sh_quote("__napkin_at " + sh_quote(c.path_text()), true);
    s += fmt::format("\n# {}\n", c.path.empty() ? "napkin" : "napkin " + c.path_text());
    for (const auto& sc : c.subcommands) {
      std::vector<std::string> p = c.path;
      p.push_back(sc);
      s += fmt::format("complete -c napkin -n {} -a {} -d {}\n", at, sc, sh_quote(short_help(by_path.at(p)->help), true));
    }
    for (const auto& f : c.flags) {
      std::string names;
      for (const auto& n : f.names)
        if (!f.positional) names += (n.rfind("--", 0) == 0 ? " -l " + n.substr(2) : " -s " + n.substr(1));
      const std::string words = sh_quote(join(f.words, " "), true);
      std::string value;
      switch (f.kind) {
        case ValueKind::none: break;
        case ValueKind::free: value = " -x"; break;
        case ValueKind::words: value = " -x -a " + words; break;
        case ValueKind::files: value = " -r -F"; break;
        case ValueKind::svg: value = " -x -a '(__napkin_files .svg)'"; break;
        case ValueKind::model: value = " -r -F -a " + words; break;
        case ValueKind::hardware:
          value = " -x -a " + sh_quote(join(f.words, " ") + " (__napkin_files .json)", true);
          break;
        case ValueKind::command: break;  // below: each command with its help
      }
      if (f.kind == ValueKind::command) {
        for (const auto& parent : t)
          for (const auto& sc : parent.subcommands) {
            std::vector<std::string> p = parent.path;
            p.push_back(sc);
            s += fmt::format("complete -c napkin -n {} -a {} -d {}\n",
                             sh_quote("__napkin_help_at " + sh_quote(parent.path_text()), true), sc,
                             sh_quote(short_help(by_path.at(p)->help), true));
          }
        continue;
      }
      if (f.positional && (f.kind == ValueKind::free || f.kind == ValueKind::none)) continue;
      if (f.positional) {  // a positional has no -r: its values stand alone
        const auto r = value.find(" -r");
        if (r != std::string::npos) value.erase(r, 3);
        const auto x = value.find(" -x");
        if (x != std::string::npos) value.erase(x, 3);
      }
      s += fmt::format("complete -c napkin -n {}{}{} -d {}\n", at, names, value, sh_quote(short_help(f.help), true));
    }
  }
  return s;
}

}  // namespace

std::vector<CommandInfo> command_table(const CLI::App& app) {
  std::vector<CommandInfo> out;
  walk(app, {}, out);
  return out;
}

std::string completion_script(const CLI::App& app, std::string_view shell) {
  const auto t = command_table(app);
  if (shell == "bash") return bash_script(t);
  if (shell == "zsh") return zsh_script(t);
  if (shell == "fish") return fish_script(t);
  throw InputError("SHELL: '" + std::string(shell) + "': expected bash, zsh or fish");
}

void add_completions_command(CLI::App& app, int& exit_code) {
  auto* sub = add_command(app, "completions", "Shell completion script for bash, zsh or fish");
  auto shell = std::make_shared<std::string>();
  sub->add_option("SHELL", *shell, "The shell whose completion script is printed")->type_name("bash|zsh|fish");
  sub->footer("Example: napkin completions bash > ~/.local/share/bash-completion/completions/napkin\n"
              "         napkin completions zsh > ~/.zfunc/_napkin   (a directory in $fpath)\n"
              "         napkin completions fish > ~/.config/fish/completions/napkin.fish");
  sub->callback([sub, shell, &app, &exit_code] {
    reject_extras(sub);
    if (shell->empty()) throw InputError("SHELL: '(missing)': expected bash, zsh or fish");
    report::write_checked(stdout, completion_script(app, *shell));
    exit_code = 0;
  });
}

}  // namespace napkin::cli
