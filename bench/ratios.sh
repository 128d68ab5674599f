#!/usr/bin/env bash
# Issue 18's figures as ratios, measured side by side in one run (the machines are noisy; only
# the ratios mean something). Every command is timed by spawn_timer.c (fork+exec, no shell,
# output to /dev/null), the commands of one table alternating round by round; medians.
#   cold start:  napkin memory llama-3.1-8b vs a static C hello world; an exit-2 run vs a normal one
#   sweeps:      rows/s of memory (CSV, JSONL, compact JSONL) and serve (CSV) sweeps
#   peak RSS:    a memory sweep of RSS_ROWS rows (10M) in every output format (wait4's ru_maxrss)
# Every figure is printed beside issue 18's target.
# Usage: bench/ratios.sh [NAPKIN [BASELINE_NAPKIN]]   (default build/napkin; with a baseline,
# e.g. a copy of main's binary, each figure is printed for both, side by side)
# Env: ROUNDS (cold runs, default 200), SWEEP_ROUNDS (default 3), SERVE_BATCH (serve's --batch
# 1..N at --prompt 1..100, default 200), RSS_ROWS (default 10000000; a multiple of 1000),
# RSS_FORMATS (default: all seven; e.g. "csv jsonl-compact"), SKIP (any of: cold sweeps rss).
set -euo pipefail
cd "$(dirname "$0")/.."
new=$(realpath "${1:-build/napkin}")
old=${2:+$(realpath "$2")}
rounds=${ROUNDS:-200}
sweep_rounds=${SWEEP_ROUNDS:-3}
skip=" ${SKIP:-} "
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -o "$tmp/spawn_timer" bench/spawn_timer.c
cc -O2 -static -o "$tmp/hello" bench/hello.c
timer="$tmp/spawn_timer"
bins=("$new")
[[ -n "$old" ]] && bins+=("$old")
label() { [[ "$1" == "$new" ]] && echo "new" || echo "baseline"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2fx", a/b}'; }
# A binary without --compact (a baseline from before it) gets the plain JSONL row instead.
has_compact() { "$1" memory llama-3.1-8b --jsonl --compact > /dev/null 2>&1; }

if [[ "$skip" != *" cold "* ]]; then
  echo "== cold start ($rounds alternating rounds, median µs)   targets: normal ≤ 2.00x hello, exit-2 ≤ 1.30x normal"
  cmds=("$tmp/hello")
  for b in "${bins[@]}"; do
    cmds+=("$b memory llama-3.1-8b" "$b memory llama-3.1-8b --batch -1" "$b --version")
  done
  mapfile -t med < <("$timer" "$rounds" "${cmds[@]}" 2>/dev/null | cut -d' ' -f1)  # --batch -1 exits 2
  hello=${med[0]}
  printf '%-10s %10s %12s %10s %12s %14s\n' binary normal_us vs_hello exit2_us exit2/normal version_us
  i=1
  for b in "${bins[@]}"; do
    printf '%-10s %10s %12s %10s %12s %14s\n' "$(label "$b")" "${med[i]}" "$(ratio "${med[i]}" "$hello")" \
      "${med[i+1]}" "$(ratio "${med[i+1]}" "${med[i]}")" "${med[i+2]}"
    i=$((i + 3))
  done
  echo "static C hello world: ${hello} µs"
  echo
fi

if [[ "$skip" != *" sweeps "* ]]; then
  echo "== sweeps ($sweep_rounds alternating rounds, median; rows/s)"
  sb=${SERVE_BATCH:-200}
  names=("memory 1..1000 x 1..1000 --csv" "memory 1..1000 x 1..200 --jsonl" "memory 1..1000 x 1..200 --jsonl --compact"
         "serve 1..$sb x 1..100 --csv")
  targets=(2000000 "" 500000 100000)
  rows=(1000000 200000 200000 $((sb * 100)))
  m="memory llama-3.1-8b --batch 1..1000:+1"
  cmds=()
  for b in "${bins[@]}"; do
    compact="--jsonl --compact"
    has_compact "$b" || compact="--jsonl"
    cmds+=("$b $m --context 1..1000:+1 --csv" "$b $m --context 1..200:+1 --jsonl" "$b $m --context 1..200:+1 $compact"
           "$b serve llama-3.1-8b --hw h100-sxm --batch 1..$sb:+1 --prompt 1..100:+1 --csv")
  done
  mapfile -t med < <("$timer" "$sweep_rounds" "${cmds[@]}" | cut -d' ' -f1)
  printf '%-42s %10s' sweep target
  for b in "${bins[@]}"; do printf ' %16s' "$(label "$b") rows/s"; done
  [[ -n "$old" ]] && printf ' %10s' new/base
  echo
  for k in "${!names[@]}"; do
    printf '%-42s %10s' "${names[k]}" "${targets[k]:--}"
    r_new=$(awk -v n="${rows[k]}" -v us="${med[k]}" 'BEGIN{printf "%.0f", n / (us / 1e6)}')
    printf ' %16s' "$r_new"
    if [[ -n "$old" ]]; then
      j=$((k + ${#names[@]}))
      r_old=$(awk -v n="${rows[k]}" -v us="${med[j]}" 'BEGIN{printf "%.0f", n / (us / 1e6)}')
      printf ' %16s %10s' "$r_old" "$(ratio "$r_new" "$r_old")"
    fi
    echo
  done
  has_compact "${bins[-1]}" || echo "(the baseline has no --compact: its compact row is plain --jsonl)"
  echo
fi

if [[ "$skip" != *" rss "* ]]; then
  n=${RSS_ROWS:-10000000}
  echo "== peak RSS of a $n-row memory sweep (--batch 1..$((n / 1000)) --context 1..1000; KiB)   target ≤ 8192"
  declare -A flag=([table]="" [csv]="--csv" [jsonl]="--jsonl" [jsonl-compact]="--jsonl --compact" [json]="--json"
                   [explain]="--explain" [value]="--value per_gpu")
  formats=(${RSS_FORMATS:-table csv jsonl jsonl-compact json explain value})
  printf '%-14s' format
  for b in "${bins[@]}"; do printf ' %14s' "$(label "$b") KiB"; done
  echo
  for f in "${formats[@]}"; do
    printf '%-14s' "$f"
    for b in "${bins[@]}"; do
      a=${flag[$f]}
      [[ "$f" == jsonl-compact ]] && ! has_compact "$b" && { printf ' %14s' "-"; continue; }
      printf ' %14s' "$("$timer" 1 "$b memory llama-3.1-8b --batch 1..$((n / 1000)):+1 --context 1..1000:+1 --max-rows $n $a" | cut -d' ' -f2)"
    done
    echo
  done
fi
