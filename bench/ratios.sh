#!/usr/bin/env bash
# Issue 18's figures as ratios, measured side by side in one run (the machines are noisy; only
# the ratios mean something). Every command is timed by spawn_timer.c (fork+exec, no shell,
# output to /dev/null), the commands of one table alternating round by round; medians.
#   cold start:  napkin memory llama-3.1-8b vs a static C hello world; an exit-2 run vs a normal one
#   sweeps:      rows/s of memory (CSV, JSONL) and serve (CSV) sweeps
# Usage: bench/ratios.sh [NAPKIN [BASELINE_NAPKIN]]   (default build/napkin; with a baseline,
# e.g. a copy of main's binary, each figure is printed for both, side by side)
# Env: ROUNDS (cold runs, default 200), SWEEP_ROUNDS (default 3).
set -euo pipefail
cd "$(dirname "$0")/.."
new=$(realpath "${1:-build/napkin}")
old=${2:+$(realpath "$2")}
rounds=${ROUNDS:-200}
sweep_rounds=${SWEEP_ROUNDS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -o "$tmp/spawn_timer" bench/spawn_timer.c
cc -O2 -static -o "$tmp/hello" bench/hello.c
timer="$tmp/spawn_timer"
bins=("$new")
[[ -n "$old" ]] && bins+=("$old")
label() { [[ "$1" == "$new" ]] && echo "new" || echo "baseline"; }

echo "== cold start ($rounds alternating rounds, median µs)"
cmds=("$tmp/hello")
for b in "${bins[@]}"; do
  cmds+=("$b memory llama-3.1-8b" "$b memory llama-3.1-8b --batch -1" "$b --version")
done
mapfile -t med < <("$timer" "$rounds" "${cmds[@]}")
hello=${med[0]}
printf '%-10s %10s %12s %10s %12s %14s\n' binary normal_us vs_hello exit2_us exit2/normal version_us
i=1
for b in "${bins[@]}"; do
  printf '%-10s %10s %12s %10s %12s %14s\n' "$(label "$b")" "${med[i]}" \
    "$(awk -v a="${med[i]}" -v h="$hello" 'BEGIN{printf "%.2fx", a/h}')" "${med[i+1]}" \
    "$(awk -v a="${med[i+1]}" -v n="${med[i]}" 'BEGIN{printf "%.2fx", a/n}')" "${med[i+2]}"
  i=$((i + 3))
done
echo "static C hello world: ${hello} µs"

echo
echo "== sweeps ($sweep_rounds alternating rounds, median; rows/s)"
serve_n=${SERVE_ROWS:-20000}
names=("memory 1..1000 x 1..1000 --csv" "memory 1..1000 x 1..200 --jsonl" "serve --batch 1..$serve_n --csv")
rows=(1000000 200000 "$serve_n")
sweep_args=("memory llama-3.1-8b --batch 1..1000:+1 --context 1..1000:+1 --csv"
            "memory llama-3.1-8b --batch 1..1000:+1 --context 1..200:+1 --jsonl"
            "serve llama-3.1-8b --hw h100-sxm --batch 1..$serve_n:+1 --csv")
cmds=()
for b in "${bins[@]}"; do
  for a in "${sweep_args[@]}"; do cmds+=("$b $a"); done
done
mapfile -t med < <("$timer" "$sweep_rounds" "${cmds[@]}")
printf '%-34s' sweep
for b in "${bins[@]}"; do printf ' %14s' "$(label "$b") rows/s"; done
[[ -n "$old" ]] && printf ' %10s' new/base
echo
for k in "${!names[@]}"; do
  printf '%-34s' "${names[k]}"
  r_new=$(awk -v n="${rows[k]}" -v us="${med[k]}" 'BEGIN{printf "%.0f", n / (us / 1e6)}')
  printf ' %14s' "$r_new"
  if [[ -n "$old" ]]; then
    j=$((k + ${#sweep_args[@]}))
    r_old=$(awk -v n="${rows[k]}" -v us="${med[j]}" 'BEGIN{printf "%.0f", n / (us / 1e6)}')
    printf ' %14s %10s' "$r_old" "$(awk -v a="$r_new" -v b="$r_old" 'BEGIN{printf "%.2fx", a/b}')"
  fi
  echo
done
