#!/usr/bin/env bash
# The README's samples are real: every ```console block in README.md starts with a
# `$ napkin ...` line followed by that command's output, and this test runs the command and
# compares. Usage: readme_check.sh NAPKIN README.md
set -u
napkin=$1
readme=$2
fail=0
n=0
lines=()
cmd=""
in_block=0
while IFS= read -r line || [ -n "$line" ]; do
  if [ $in_block -eq 0 ] && [ "$line" = '```console' ]; then
    in_block=1; lines=(); cmd=""; continue
  fi
  if [ $in_block -eq 1 ] && [ "$line" = '```' ]; then
    in_block=0
    n=$((n + 1))
    block=$(printf '%s\n' "${lines[@]}")
    read -r -a args <<< "${cmd#\$ napkin}"
    actual=$("$napkin" "${args[@]}" 2>&1)
    if [ "$actual" != "$block" ]; then
      echo "FAIL README sample: $cmd"
      diff <(printf '%s\n' "$block") <(printf '%s\n' "$actual")
      fail=1
    fi
    continue
  fi
  if [ $in_block -eq 1 ]; then
    if [ -z "$cmd" ]; then cmd=$line; else lines+=("$line"); fi
  fi
done < "$readme"
echo "README: $n samples checked"
[ $n -gt 0 ] || { echo "FAIL: no samples found"; exit 1; }
exit $fail
