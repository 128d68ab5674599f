#!/usr/bin/env bash
# Shell completions and the man page (issue 17): each script parses in its shell and completes
# what the command table holds; napkin.1 renders; the files the build wrote are what the binary
# prints. Usage: run.sh NAPKIN [BUILD_DIR]. A shell that is not installed is skipped, with a line
# saying so (scripts/deps installs zsh and fish).
set -uo pipefail
napkin=$1
build=${2:-}
fails=0 checks=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
check() { checks=$((checks + 1)); }

for shell in bash zsh fish; do
  "$napkin" completions "$shell" > "$tmp/napkin.$shell" || fail "napkin completions $shell: exit $?"
done
"$napkin" man > "$tmp/napkin.1" || fail "napkin man: exit $?"

mkdir -p "$tmp/files/models"
touch "$tmp/files/chart.svg" "$tmp/files/notes.txt" "$tmp/files/h100-custom.json"

# complete_SHELL WORD... : what SHELL's completion offers for the last WORD (the one under the
# cursor, "" for a new word), one per line, run in $tmp/files.
complete_bash() {  # the function itself, with COMP_WORDS as readline splits the line
  (
    cd "$tmp/files" || exit 1
    # shellcheck disable=SC1090
    source "$tmp/napkin.bash"
    COMP_WORDS=("$@")
    COMP_CWORD=$(($# - 1))
    COMP_LINE="$*"
    COMP_POINT=${#COMP_LINE}
    _napkin
    printf '%s\n' "${COMPREPLY[@]}"
  )
}
complete_zsh() {  # words/CURRENT/PREFIX as compsys sets them; compadd, _describe and _files print
  (
    cd "$tmp/files" || exit 1
    zsh -f -c '
      compset() { [[ $1 == -P ]] && [[ $PREFIX == ${~2}* ]] && PREFIX=${PREFIX#${~2}}; return 0; }
      compadd() { [[ $1 == -a ]] && print -l -- ${(P)2}; }
      _describe() { print -l -- ${${(P)${@[-1]}}%%:*}; }
      _files() { print -r -- "FILES $*"; }
      compdef() { :; }
      source "$1"; shift
      words=("$@"); CURRENT=$#; PREFIX=${words[-1]}
      _napkin' _ "$tmp/napkin.zsh" "$@"
  )
}
complete_fish() {  # fish's own engine
  (cd "$tmp/files" && fish --no-config -c "source '$tmp/napkin.fish'; complete -C '$*'" | cut -f1)
}

# expect SHELL "WORDS" CUR WANTED... : completing CUR after WORDS offers every WANTED; one
# written !NAME must not be offered.
expect() {
  local shell=$1 words=$2 cur=$3
  shift 3
  local got
  # shellcheck disable=SC2086
  got=$("complete_$shell" $words "$cur")
  for want in "$@"; do
    check
    if [[ $want == '!'* ]]; then
      ! grep -qxF -- "${want#!}" <<< "$got" || fail "$shell: '$words $cur<TAB>' offers '${want#!}'"
    else
      grep -qxF -- "$want" <<< "$got" || fail "$shell: '$words $cur<TAB>' does not offer '$want' (offers: $(echo $got))"
    fi
  done
}

# ---- bash --------------------------------------------------------------------------------------
check
bash -n "$tmp/napkin.bash" || fail "bash -n rejects the bash completion"
expect bash "napkin" mem memory '!flops'
expect bash "napkin" "" flops roofline energy memory params serve train presets kernel help completions man
expect bash "napkin flops" ma matmul
expect bash "napkin kernel" "" grid waves tiling flash-io online-softmax
expect bash "napkin memory --hw" h1 h100-sxm h100-pcie h100-nvl h100 h100-80gb h100-custom.json '!h200' '!notes.txt'
expect bash "napkin memory --hw =" h1 h100-sxm         # --hw=h1, split at '=' by COMP_WORDBREAKS
expect bash "napkin serve --hw" = h100-sxm l40s        # --hw=<TAB>
expect bash "napkin memory --hw" h100-sxm,l4 h100-sxm,l4 h100-sxm,l40s
expect bash "napkin memory --batch 4 --json --hw" h1 h100-sxm   # a value is skipped, a switch is not
expect bash "napkin memory --batch" "" '!llama-3.1-8b' '!--json' # a number: nothing offered
expect bash "napkin memory" llama-3.1-8 llama-3.1-8b
expect bash "napkin params" mo models                  # a directory (readline adds the /)
expect bash "napkin memory --plot" "" chart.svg models '!notes.txt'
expect bash "napkin memory" --tr --train
expect bash "napkin memory" --gpu-m --gpu-memory
expect bash "napkin train" --hw=h1 --hw=h100-sxm
expect bash "napkin roofline --op" r relu
expect bash "napkin memory --engine" "" none llama.cpp vllm
expect bash "napkin memory --optimizer" "" adamw adam-8bit sgd sgd-momentum adafactor
expect bash "napkin memory --zero" "" 0 1 2 3
expect bash "napkin memory --weights-dtype" b bf16
expect bash "napkin memory --v-dtype" q8 q8_0
expect bash "napkin memory --as" lla llama
expect bash "napkin completions" "" bash zsh fish
expect bash "napkin help" fl flops
expect bash "napkin help flops" m matmul
expect bash "napkin presets" "" models hardware
expect bash "napkin roofline" --p --peak --plot
expect bash "napkin roofline" "" --peak                 # no subcommand, no positional: the flags

# ---- zsh: syntax, and the completion function with compsys stubbed out -----------------------
if command -v zsh > /dev/null; then
  check
  zsh -n "$tmp/napkin.zsh" || fail "zsh -n rejects the zsh completion"
  expect zsh "napkin" mem memory
  expect zsh "napkin flops" "" matmul ffn attention train
  expect zsh "napkin memory --hw" h1 h100-sxm h100 "FILES -g *.json"
  expect zsh "napkin serve" --hw=h1 h100-sxm
  expect zsh "napkin memory --batch 4 --hw" "" h100-sxm
  expect zsh "napkin memory" "" llama-3.1-8b "FILES "
  expect zsh "napkin memory --plot" "" "FILES -g *.svg"
  expect zsh "napkin memory" --tr --train
  expect zsh "napkin roofline --op" "" relu matmul
  expect zsh "napkin help flops" "" matmul
  expect zsh "napkin completions" "" bash zsh fish
else
  echo "SKIP: zsh is not installed (scripts/deps installs it): the zsh completion was not checked"
fi

# ---- fish: syntax, and fish's own completion engine ------------------------------------------
if command -v fish > /dev/null; then
  check
  fish -n "$tmp/napkin.fish" || fail "fish -n rejects the fish completion"
  expect fish "napkin" mem memory
  expect fish "napkin flops" "" matmul ffn attention train
  expect fish "napkin memory --hw" h1 h100-sxm h100 h100-custom.json
  expect fish "napkin memory" --hw=h1 --hw=h100-sxm
  expect fish "napkin memory --batch 4 --hw" "" h100-sxm '!notes.txt' '!chart.svg'
  expect fish "napkin memory --batch" "" '!llama-3.1-8b' '!notes.txt' '!--json'
  expect fish "napkin memory" llama-3.1-8 llama-3.1-8b
  expect fish "napkin memory --plot" "" chart.svg models/ '!notes.txt' '!h100-custom.json'
  expect fish "napkin memory" --tr --train
  expect fish "napkin roofline --op" "" relu matmul
  expect fish "napkin help flops" "" matmul
  expect fish "napkin completions" "" bash zsh fish
else
  echo "SKIP: fish is not installed (scripts/deps installs it): the fish completion was not checked"
fi

# ---- the man page ----------------------------------------------------------------------------
page=$tmp/napkin.1
check
head -2 "$page" | grep -q '^\.TH NAPKIN 1 ' || fail "napkin.1 does not start with .TH NAPKIN 1"
for section in NAME SYNOPSIS DESCRIPTION COMMANDS "COMMON FLAGS" "EXIT STATUS" ENVIRONMENT EXAMPLES "SEE ALSO"; do
  check
  grep -qx "\.SH $section" "$page" || fail "napkin.1 has no $section section"
done
for cmd in "flops matmul" memory "presets hardware" "kernel online-softmax" completions help man; do
  check
  grep -qxF ".SS \"napkin ${cmd//-/\\-}\"" "$page" || fail "napkin.1 has no subsection for napkin $cmd"
done
# Every '-' in text is \- (a minus, so flags copied from the page work) and every '\' an escape.
check
bare=$(grep -v '^\.\\"' "$page" | grep -n '[^\\]-\|^-' | head -3)
[[ -z $bare ]] || fail "napkin.1 has a bare '-': $bare"
check
grep -q -- '\\-\\-gpu\\-memory' "$page" || fail "napkin.1 does not list --gpu-memory"
if command -v groff > /dev/null; then
  check
  warnings=$(groff -man -Tutf8 -ww -z "$page" 2>&1)
  [[ -z $warnings ]] || fail "groff warns on napkin.1: $(head -3 <<< "$warnings")"
fi
if command -v man > /dev/null; then
  check
  rendered=$(MANWIDTH=100 man -l "$page" 2>&1 | col -b 2> /dev/null || true)
  for want in "NAPKIN(1)" "napkin - the arithmetic before you touch a GPU" "--gpu-memory" "EXIT STATUS" "HF_HUB_CACHE" NAPKIN_HW \
    "napkin flops matmul --m 4096 --k 4096 --n 4096"; do
    check
    grep -qF -- "$want" <<< "$rendered" || fail "man -l napkin.1 does not show '$want'"
  done
else
  echo "SKIP: man is not installed: napkin.1 was checked as text only"
fi

# ---- the files the build wrote are what the binary prints -------------------------------------
if [[ -n $build ]]; then
  for pair in "napkin.1:napkin.1" "completions/napkin:napkin.bash" "completions/_napkin:napkin.zsh" \
    "completions/napkin.fish:napkin.fish"; do
    check
    built=$build/${pair%%:*}
    if [[ ! -f $built ]]; then fail "the build did not write $built"; continue; fi
    cmp -s "$built" "$tmp/${pair#*:}" || fail "$built differs from what $napkin prints (rebuild)"
  done
fi

# ---- refused ----------------------------------------------------------------------------------
check
err=$("$napkin" completions tcsh 2>&1 > /dev/null)
code=$?
[[ $code == 2 && $err == "napkin: error: SHELL: 'tcsh': expected bash, zsh or fish" ]] ||
  fail "napkin completions tcsh: exit $code, '$err'"

echo "$((checks - fails)) passed, $fails failed"
[[ $fails == 0 ]]
