#!/usr/bin/env bash
# napkin --version names the commit the binary was built from: the source tree's HEAD (built
# since the last commit: the build refreshes it), or "unknown" when the source is not a git
# work tree of its own. The -dirty mark is not compared: the tree may change after the build.
# Usage: version_check.sh NAPKIN SOURCE_DIR
set -euo pipefail
napkin=$1 src=$2
out=$("$napkin" --version)
expected=unknown
if top=$(git -C "$src" rev-parse --show-toplevel 2> /dev/null) &&
   [ "$(realpath "$top")" = "$(realpath "$src")" ]; then
  expected=$(git -C "$src" rev-parse --short HEAD)
fi
if [[ ! $out =~ ^napkin\ [0-9]+\.[0-9]+\.[0-9]+\ \(commit\ ([0-9a-f]+|unknown)(-dirty)?\)$ ]]; then
  echo "FAIL: napkin --version printed '$out'"; exit 1
fi
commit=${BASH_REMATCH[1]}
if [ "$commit" != "$expected" ]; then
  echo "FAIL: napkin --version names commit $commit, the source is at $expected (rebuild after a commit)"; exit 1
fi
echo "version: $out"
