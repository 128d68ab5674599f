#!/usr/bin/env bash
# The bad-input corpus: every case in cases.txt run through the real binary.
#
# Usage: run.sh NAPKIN DIR        (DIR holds cases.txt and files/; cases run with DIR as the
#                                  working directory, so files/... paths resolve)
#
# Each case is a block of lines, blocks separated by blank lines; '#' lines are comments:
#   args: flops matmul --m -4 --k 8 --n 8      the arguments after `napkin` (bash words: quote
#                                              with '...' to keep spaces or a '$')
#   code: 2                                    the expected exit code
#   err: --m: '-4': expected a positive integer   text stderr must contain (several allowed)
#   out: flops                                 text stdout must contain (several allowed)
#
# Checked for every case, besides its own lines:
#   - the exit code; exit 2 prints exactly one stderr line, starting "napkin: error: ", and
#     nothing on stdout
#   - no "internal:" error and no sanitizer report (runtime error, AddressSanitizer, ...)
#   - no non-finite number (nan, inf, infinity) in stdout or stderr, outside the '...' quotes
#     that echo what the user typed (a line holding a word the args hold, such as -inf in
#     --scores -inf,0, is not checked for it)
#   - a 10 s timeout: a hang fails
# Cases run several at a time (one per CPU; each writes only its own files under a temporary
# directory), and their reports are printed in the order of cases.txt.
set -u
napkin=$(realpath "$1")
dir=$2
cd "$dir" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
cases=0
lineno=0
slots=$(nproc 2> /dev/null || echo 2)

# One case, in a background job: its report (nothing when it passes) goes to stdout, its exit
# status says whether it failed.
run_case() {
  local line=$1 args=$2 code=$3
  shift 3
  local -a argv
  if ! eval "argv=($args)" 2> /dev/null; then
    echo "FAIL cases.txt:$line: cannot split the args line: $args"; return 1
  fi
  local out=$tmp/$line.out err=$tmp/$line.err
  timeout 10 "$napkin" "${argv[@]}" > "$out" 2> "$err" < /dev/null
  local got=$?
  local problems=()
  if [ "$got" = 124 ]; then
    problems+=("timed out after 10 s (a hang)")
  elif [ "$got" != "$code" ]; then
    problems+=("exit code $got, expected $code")
  fi
  if [ "$code" = 2 ]; then
    local n
    n=$(wc -l < "$err")
    [ "$n" = 1 ] || problems+=("stderr has $n lines, expected exactly 1")
    grep -q '^napkin: error: ' "$err" || problems+=("stderr does not start with 'napkin: error: '")
    [ -s "$out" ] && problems+=("stdout is not empty on a bad input")
  fi
  grep -q 'internal:' "$err" && problems+=("an internal error")
  grep -qE 'runtime error|AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|Segmentation|Aborted|terminate called' \
    "$err" && problems+=("a crash or sanitizer report")
  # Non-finite numbers, outside the quoted echo of the user's own text, the syntax of a masked
  # score ("-inf (masked)"), prose ("reported as masked, not NaN") and words the user typed
  # ("--scores -inf,0" may print -inf).
  local words='nan|[-+]?inf|infinity' typed
  typed=$(printf '%s\n' "$args" | grep -oiwE "$words" | sort -u | paste -sd'|' -)
  if sed -e "s/'[^']*'//g" -e 's/-inf (\(a \)\{0,1\}masked//g' -e 's/write -inf//g' -e 's/not NaN//g' "$out" "$err" |
      { if [ -n "$typed" ]; then grep -viwE -e "$typed"; else cat; fi; } | grep -qiwE "$words"; then
    problems+=("a non-finite number in the output")
  fi
  local want
  for want in "$@"; do
    case $want in
      err:*) grep -qF -- "${want#err:}" "$err" || problems+=("stderr lacks: ${want#err:}") ;;
      out:*) grep -qF -- "${want#out:}" "$out" || problems+=("stdout lacks: ${want#out:}") ;;
    esac
  done
  if [ ${#problems[@]} -gt 0 ]; then
    echo "FAIL cases.txt:$line: napkin $args"
    local p
    for p in "${problems[@]}"; do echo "  - $p"; done
    echo "  stderr: $(head -c 600 "$err")"
    [ -s "$out" ] && echo "  stdout: $(head -c 300 "$out")"
    return 1
  fi
  return 0
}

flush() {
  if [ -n "$args" ]; then
    if [ -z "$code" ]; then
      echo "FAIL cases.txt:$start: a case without a code: line"; fail=1
    else
      cases=$((cases + 1))
      while [ "$(jobs -rp | wc -l)" -ge "$slots" ]; do wait -n; done
      { run_case "$start" "$args" "$code" "${wants[@]}" > "$tmp/$start.report" || touch "$tmp/$start.failed"; } &
      started+=("$start")
    fi
  fi
  args="" code="" start="" wants=()
}

args="" code="" start="" wants=()
started=()
while IFS= read -r text || [ -n "$text" ]; do
  lineno=$((lineno + 1))
  case $text in
    '#'*) continue ;;
    '') flush ;;
    args:*) flush; args=${text#args:}; args=${args# }; start=$lineno ;;
    code:*) code=${text#code:}; code=${code// /} ;;
    err:*) v=${text#err:}; wants+=("err:${v# }") ;;
    out:*) v=${text#out:}; wants+=("out:${v# }") ;;
    *) echo "FAIL cases.txt:$lineno: unknown line: $text"; fail=1 ;;
  esac
done < cases.txt
flush
wait
for start in "${started[@]}"; do
  cat "$tmp/$start.report"
  [ -e "$tmp/$start.failed" ] && fail=1
done

echo "bad inputs: $cases cases run"
[ "$cases" -ge 60 ] || { echo "FAIL: fewer than 60 cases"; fail=1; }
exit $fail
