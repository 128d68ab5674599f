#!/usr/bin/env sh
# Runs validate.py with a python3 that has the jsonschema module: `python3` on PATH, else
# Debian's /usr/bin/python3 (where scripts/deps installs python3-jsonschema). Without one the
# test fails and says what to install; it never skips.
# Usage: run.sh NAPKIN SCHEMA EXAMPLES_DIR
here=$(dirname "$0")
for py in python3 /usr/bin/python3; do
  if command -v "$py" > /dev/null 2>&1 && "$py" -c 'import jsonschema' > /dev/null 2>&1; then
    exec "$py" "$here/validate.py" "$@"
  fi
done
echo "FAIL: no python3 with the jsonschema module; install Debian's python3-jsonschema (scripts/deps does)"
exit 1
