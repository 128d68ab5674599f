#!/usr/bin/env bash
# Golden tests. Each examples/<case>/ holds:
#   cmd              the arguments after `napkin`, one line (words split by the shell)
#   expected.txt     the default table           expected.json     with --json
#   expected.jsonl   with --jsonl                 expected.csv      with --csv
#   expected.explain with --explain               expected.err      stderr (error cases)
#   expected.compact.jsonl  with --jsonl --compact
#   expected.code    the exit code when not 0
# Only the files present are checked. Every --json and --jsonl output must parse with jq.
# Usage: run.sh NAPKIN EXAMPLES_DIR [--update]
set -u
napkin=$1
dir=$2
update=${3:-}
fail=0
checked=0
declare -A flag=([txt]="" [json]="--json" [jsonl]="--jsonl" [csv]="--csv" [explain]="--explain" [compact.jsonl]="--jsonl --compact")
for case_dir in "$dir"/*/; do
  [ -f "$case_dir/cmd" ] || continue
  name=$(basename "$case_dir")
  read -r -a args < "$case_dir/cmd"
  for fmt in txt json jsonl csv explain compact.jsonl; do
    expected="$case_dir/expected.$fmt"
    [ -f "$expected" ] || [ "$update" = "--update" -a "$fmt" = txt ] || continue
    extra=${flag[$fmt]}
    actual=$("$napkin" "${args[@]}" $extra 2>/tmp/napkin_golden_err.$$)
    code=$?
    want_code=0
    [ -f "$case_dir/expected.code" ] && want_code=$(cat "$case_dir/expected.code")
    if [ "$update" = "--update" ]; then
      printf '%s\n' "$actual" > "$expected"
      [ -s /tmp/napkin_golden_err.$$ ] && cp /tmp/napkin_golden_err.$$ "$case_dir/expected.err"
      [ "$code" != 0 ] && echo "$code" > "$case_dir/expected.code"
      continue
    fi
    checked=$((checked + 1))
    if [ "$code" != "$want_code" ]; then
      echo "FAIL $name ($fmt): exit code $code, expected $want_code"; fail=1
    fi
    if ! diff -u "$expected" <(printf '%s\n' "$actual") > /tmp/napkin_golden_diff.$$; then
      echo "FAIL $name ($fmt): output differs"; cat /tmp/napkin_golden_diff.$$; fail=1
    fi
    if [ -f "$case_dir/expected.err" ] && ! diff -u "$case_dir/expected.err" /tmp/napkin_golden_err.$$; then
      echo "FAIL $name ($fmt): stderr differs"; fail=1
    fi
    if [ "$fmt" = json ] || [ "$fmt" = jsonl ] || [ "$fmt" = compact.jsonl ]; then
      if [ -n "$actual" ] && ! printf '%s\n' "$actual" | jq -e . > /dev/null; then
        echo "FAIL $name ($fmt): jq cannot parse the output"; fail=1
      fi
    fi
  done
done
rm -f /tmp/napkin_golden_err.$$ /tmp/napkin_golden_diff.$$
[ "$update" = "--update" ] && { echo "updated"; exit 0; }
echo "golden: $checked outputs checked"
[ "$checked" -gt 0 ] || { echo "FAIL: no golden outputs found in $dir"; exit 1; }
exit $fail
