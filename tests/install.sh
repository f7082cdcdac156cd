#!/usr/bin/env bash
# What `cmake --install` gives a user, checked in a temporary prefix:
#   - bin/nqueens-mpi runs and counts Q(8);
#   - include/ holds the public headers (include/nqueens/*.h) and nothing of
#     src/; the library is there, the command line's nqueens_app is not;
#   - another project (tests/consumer) finds the package with
#     find_package(nqueens), builds against nqueens::nqueens and counts Q(8).
#   install.sh CMAKE BUILD_DIR CONFIG GENERATOR MAKE_PROGRAM C_COMPILER WERROR [CMAKE_ARGS...]
# CONFIG may be empty (a single-configuration build without a type);
# CMAKE_ARGS go to the consumer's configure (how the build found MPI).
# Everything is written under one mktemp -d directory, removed on exit, but
# for install_manifest.txt, which `cmake --install` always writes into
# BUILD_DIR: the one found there is put back (or the new one removed).
# Prints one line per failure and "N passed, M failed"; exits 1 on any.
set -u

if [ "$#" -lt 7 ]; then
  echo "usage: $0 CMAKE BUILD_DIR CONFIG GENERATOR MAKE_PROGRAM C_COMPILER WERROR [CMAKE_ARGS...]" >&2
  exit 2
fi
cmake=$1
build=$2
config=$3
generator=$4
make_program=$5
c_compiler=$6
werror=$7
shift 7
source_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

work=$(mktemp -d)
manifest=$build/install_manifest.txt
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
  if [ -e "$work/install_manifest.txt" ]; then
    cp -p "$work/install_manifest.txt" "$manifest"
  else
    rm -f "$manifest"
  fi
  rm -rf "$work"
}
trap cleanup EXIT
if [ -e "$manifest" ]; then
  cp -p "$manifest" "$work/install_manifest.txt"
fi

prefix=$work/prefix
log=$work/log
# shellcheck source=tests/test_lib.sh
. "$source_dir/tests/test_lib.sh"
# step DESCRIPTION COMMAND...: COMMAND's output goes to the log, shown when
# it fails; returns its status.
step() {
  local what=$1
  shift
  local status
  "$@" >"$log" 2>&1
  status=$?
  if [ "$status" -eq 0 ]; then
    pass
    return 0
  fi
  fail "$what (status $status):"
  tail -n 40 "$log"
  return 1
}
# A hung run fails instead of stalling the suite.
limit=300

config_args=()
if [ -n "$config" ]; then
  config_args=(--config "$config")
fi
step "cmake --install $build --prefix TMP" \
  "$cmake" --install "$build" --prefix "$prefix" "${config_args[@]}" || finish

# ---- what is installed ----------------------------------------------------

check_installed() {
  local what=$1 path=$2
  if [ -e "$prefix/$path" ]; then pass; else fail "not installed: $what ($path)"; fi
}
check_installed "the program" bin/nqueens-mpi
libraries=$(cd "$prefix" && find . -name 'libnqueens*' | sort)
if [ "$(wc -w <<<"$libraries")" -eq 1 ] && grep -qE '^\./lib[^/]*/libnqueens\.a$' <<<"$libraries"; then
  pass
else
  fail "expected one library, lib*/libnqueens.a; found: '$libraries'"
fi
package_dir=$(cd "$prefix" && find . -path '*/cmake/nqueens' -type d)
check_installed "the package configuration" "$package_dir/nqueensConfig.cmake"
check_installed "the package version" "$package_dir/nqueensConfigVersion.cmake"
# Exactly the public headers: the private ones in src/ stay private.
expected_headers=$(cd "$source_dir/include" && find . -type f | sort)
installed_headers=$(cd "$prefix/include" 2>/dev/null && find . -type f | sort)
if [ "$installed_headers" = "$expected_headers" ]; then
  pass
else
  fail "include/ holds '$(tr '\n' ' ' <<<"$installed_headers")'," \
    "expected '$(tr '\n' ' ' <<<"$expected_headers")'"
fi

# ---- the installed program ------------------------------------------------

out=$work/out
timeout "$limit" "$prefix/bin/nqueens-mpi" -n 8 >"$out" 2>"$work/err"
status=$?
if [ "$status" -eq 0 ] && [ "$(head -n 1 "$out")" = "Q(8) = 92 solutions on the 8x8 board" ]; then
  pass
else
  fail "TMP/bin/nqueens-mpi -n 8: status $status, output: $(head -c 200 "$out" | tr '\n' '|')," \
    "stderr: $(head -c 200 "$work/err")"
fi

# ---- a project that uses the package ---------------------------------------

consumer_args=(-G "$generator" -DCMAKE_C_COMPILER="$c_compiler"
  -DCMAKE_PREFIX_PATH="$prefix" -DCONSUMER_WERROR="$werror" "$@")
if [ -n "$make_program" ]; then
  consumer_args+=(-DCMAKE_MAKE_PROGRAM="$make_program")
fi
if [ -n "$config" ]; then
  consumer_args+=(-DCMAKE_BUILD_TYPE="$config")
fi
step "configure tests/consumer (find_package(nqueens))" \
  "$cmake" -S "$source_dir/tests/consumer" -B "$work/consumer" "${consumer_args[@]}" || finish
step "build tests/consumer" "$cmake" --build "$work/consumer" "${config_args[@]}" || finish
consumer=$(find "$work/consumer" -type f -name count_q8 -perm -u+x | head -n 1)
if [ -z "$consumer" ]; then
  fail "the consumer built, but no count_q8 executable is in its build directory"
  finish
fi
timeout "$limit" "$consumer" >"$out" 2>"$work/err"
status=$?
if [ "$status" -eq 0 ] && [ "$(cat "$out")" = "Q(8) = 92" ]; then
  pass
else
  fail "the consumer: status $status, output: $(head -c 200 "$out" | tr '\n' '|')," \
    "stderr: $(head -c 200 "$work/err")"
fi
finish
