#!/usr/bin/env bash
# The README's plain build on a machine like this one without the check
# library (a cluster node with the program's libraries alone): pkg-config
# is shown every .pc file it finds here but check.pc.  Then
#   - the default configure (NQ_TESTS=AUTO) succeeds, says the tests are
#     left out, and registers no test;
#   - the program builds and counts Q(8);
#   - -DNQ_TESTS=ON is a configure error that names check.
#   without_check.sh CMAKE CTEST PKG_CONFIG GENERATOR MAKE_PROGRAM C_COMPILER
# Everything is written under one mktemp -d directory, removed on exit.
# Prints one line per failure and "N passed, M failed"; exits 1 on any.
set -u

if [ "$#" -lt 6 ]; then
  echo "usage: $0 CMAKE CTEST PKG_CONFIG GENERATOR MAKE_PROGRAM C_COMPILER" >&2
  exit 2
fi
cmake=$1
ctest=$2
pkg_config=$3
generator=$4
make_program=$5
c_compiler=$6
source_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log=$work/log
# shellcheck source=tests/test_lib.sh
. "$source_dir/tests/test_lib.sh"

# pkg-config's search path (PKG_CONFIG_PATH first, then its own) as one
# directory of links, the first .pc of each name winning as it would, less
# check.pc; PKG_CONFIG_LIBDIR then replaces the whole search path.
visible=$work/pkgconfig
mkdir "$visible"
IFS=: read -r -a search_path <<<"${PKG_CONFIG_PATH:-}:${PKG_CONFIG_LIBDIR:-$("$pkg_config" --variable pc_path pkg-config)}"
for dir in "${search_path[@]}"; do
  if [ -z "$dir" ] || [ ! -d "$dir" ]; then
    continue
  fi
  for pc in "$dir"/*.pc; do
    name=$(basename "$pc")
    if [ -e "$pc" ] && [ "$name" != check.pc ] && [ ! -e "$visible/$name" ]; then
      ln -s "$pc" "$visible/$name"
    fi
  done
done
export PKG_CONFIG_LIBDIR=$visible
unset PKG_CONFIG_PATH
if "$pkg_config" --exists check; then
  fail "check is still visible to pkg-config"
  finish
fi
if ! "$pkg_config" --exists gmp; then
  fail "gmp is not visible to pkg-config: nothing to build with"
  finish
fi

build=$work/build
configure_args=(-G "$generator" -DCMAKE_C_COMPILER="$c_compiler")
if [ -n "$make_program" ]; then
  configure_args+=(-DCMAKE_MAKE_PROGRAM="$make_program")
fi
"$cmake" -S "$source_dir" -B "$build" "${configure_args[@]}" >"$log" 2>&1
status=$?
if [ "$status" -eq 0 ] && grep -q 'check library not found: the program is built, the tests are not' "$log"; then
  pass
else
  fail "configure without check: status $status; its output ends:"
  tail -n 30 "$log"
  finish
fi
tests=$(cd "$build" && "$ctest" -N 2>&1 | sed -n 's/^Total Tests: //p')
if [ "$tests" = 0 ]; then pass; else fail "ctest -N in the build lists '$tests' tests, expected 0"; fi

if "$cmake" --build "$build" -j "$(nproc)" >"$log" 2>&1; then
  pass
else
  fail "build without check failed; its output ends:"
  tail -n 30 "$log"
  finish
fi
out=$work/out
timeout 300 "$build/nqueens-mpi" -n 8 >"$out" 2>"$work/err"
status=$?
if [ "$status" -eq 0 ] && [ "$(head -n 1 "$out")" = "Q(8) = 92 solutions on the 8x8 board" ]; then
  pass
else
  fail "nqueens-mpi -n 8: status $status, output: $(head -c 200 "$out" | tr '\n' '|')," \
    "stderr: $(head -c 200 "$work/err")"
fi

# Asked for, the tests cannot be left out.
"$cmake" -S "$source_dir" -B "$build" -DNQ_TESTS=ON >"$log" 2>&1
status=$?
if [ "$status" -ne 0 ] && grep -q 'NQ_TESTS=ON but pkg-config cannot find the check library' "$log"; then
  pass
else
  fail "-DNQ_TESTS=ON without check: status $status (expected an error naming check); output ends:"
  tail -n 30 "$log"
fi
finish
