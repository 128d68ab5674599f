#!/usr/bin/env bash
# napkin as others get it: `cmake --install` of this build into a staged prefix, then
#   - the install holds bin/napkin, the headers, the libraries, the CMake package and napkin.pc,
#     and no installed header includes nlohmann-json or CLI11; the shell completions and napkin.1
#     (which man -l renders) when the build wrote them;
#   - examples/library configures against it with find_package(napkin), builds, runs, and prints
#     examples/library/expected.txt;
#   - pkg-config finds napkin.pc, and a program including every installed header compiles and
#     links with its flags alone (no JSON_DIAGNOSTICS, no nlohmann, no fmt) and runs.
# Usage: run.sh BUILD_DIR SOURCE_DIR LIBDIR CXX [COMPILER_LAUNCHER]
# NAPKIN_CONSUMER_FLAGS: extra compile and link flags for the consumers (the sanitizer build's).
set -euo pipefail
build=$1 src=$2 libdir=$3 cxx=$4 launcher=${5:-}
flags=${NAPKIN_CONSUMER_FLAGS:-}
work=$build/install-test
prefix=$work/prefix
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }

cmake --install "$build" --prefix "$prefix" > "$work/install.log" || { cat "$work/install.log"; fail "cmake --install"; }
for f in bin/napkin include/napkin/version.h include/napkin/specs/load.h include/napkin/memory/ledgers.h \
         "$libdir/libnapkin_core.a" "$libdir/libnapkin_io.a" "$libdir/cmake/napkin/napkinConfig.cmake" \
         "$libdir/cmake/napkin/napkinConfigVersion.cmake" "$libdir/cmake/napkin/napkinTargets.cmake" \
         "$libdir/pkgconfig/napkin.pc"; do
  [ -f "$prefix/$f" ] || fail "$f is not installed"
done
"$prefix/bin/napkin" --version | grep -q '^napkin ' || fail "the installed napkin does not run"
# The shell completions and napkin.1 (cmake/shell_docs.cmake), when this build wrote them.
if [ -f "$build/napkin.1" ]; then
  for f in share/man/man1/napkin.1 share/bash-completion/completions/napkin share/zsh/site-functions/_napkin \
           share/fish/vendor_completions.d/napkin.fish; do
    [ -f "$prefix/$f" ] || fail "$f is not installed"
  done
  if command -v man > /dev/null && command -v col > /dev/null; then
    page=$(MANWIDTH=80 man -l "$prefix/share/man/man1/napkin.1" 2> /dev/null | col -b) || true
    grep -q '^NAPKIN(1)' <<< "$page" || fail "man -l share/man/man1/napkin.1 does not render"
  fi
fi
if grep -rlE '#include *[<"](nlohmann|CLI)/' "$prefix/include"; then
  fail "installed headers (above) include nlohmann-json or CLI11"
fi

# The CMake package, through examples/library.
launch=()
[ -n "$launcher" ] && launch=(-DCMAKE_CXX_COMPILER_LAUNCHER="$launcher")
cmake -S "$src/examples/library" -B "$work/example" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" "${launch[@]}" \
  > "$work/example-configure.log" 2>&1 || { cat "$work/example-configure.log"; fail "examples/library does not configure"; }
cmake --build "$work/example" > "$work/example-build.log" 2>&1 ||
  { cat "$work/example-build.log"; fail "examples/library does not build"; }
"$work/example/napkin_library_example" > "$work/example.out" || fail "napkin_library_example exit $?"
diff -u "$src/examples/library/expected.txt" "$work/example.out" || fail "examples/library's output differs"

# pkg-config.
command -v pkg-config > /dev/null || fail "pkg-config is not installed (scripts/deps installs it)"
export PKG_CONFIG_PATH=$prefix/$libdir/pkgconfig
pc_flags=$(pkg-config --cflags --libs napkin) || fail "pkg-config --cflags --libs napkin"
version=$(pkg-config --modversion napkin)
{
  for h in $(cd "$prefix/include" && find napkin -name '*.h' | sort); do echo "#include <$h>"; done
  cat << 'CPP'
#include <cstdio>
int main() {
  const napkin::specs::ModelSpec m = napkin::specs::load_model("llama-3.1-8b");
  std::printf("%s %lld\n", napkin::kVersion, static_cast<long long>(napkin::count_params(m).total));
}
CPP
} > "$work/consumer.cpp"
# shellcheck disable=SC2086  # the flags are words
$launcher "$cxx" -std=c++20 $flags "$work/consumer.cpp" -o "$work/consumer" $pc_flags ||
  fail "a program with every installed header does not build with: $pc_flags"
out=$("$work/consumer")
[ "$out" = "$version 8030261248" ] || fail "the pkg-config consumer printed '$out', expected '$version 8030261248'"
echo "install: $prefix; examples/library and a pkg-config consumer ($pc_flags) built and ran"
