#!/usr/bin/env bash
# Runs every test: the unit programs (no MPI) and the scripts in tests/sh/
# (mpirun and smpirun). Each program or script is one test; its output is
# kept in build/tests/logs/ and shown when it fails. A test that exits 77
# is skipped (an optional tool it needs is missing): neither a pass nor a
# failure. Ends with "N passed, N failed, N skipped".
set -u
cd "$(dirname "$0")/.."
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
# For `make SANITIZE=address,undefined check`: the MPI library's own leaks
# are suppressed; full stacks so the suppressions match; and no table of the
# suppressions used on stderr, which tests read (libautotune says one line).
export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp:fast_unwind_on_malloc=0:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
# SMPI loads the program with dlopen, after the ASan runtime was set up:
# not a link-order error.
export ASAN_OPTIONS="verify_asan_link_order=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
# Under `make SANITIZE=...` (make exports SANITIZE), an smpirun in front of
# the real one: SMPI's default privatization dlopens a copy of the program
# per rank with RTLD_DEEPBIND, which the sanitizer runtimes do not support
# (glibc's free then gets ASan's blocks: "free(): invalid size"), so ranks
# get their globals by mmap instead; and LeakSanitizer's stop-the-world
# crashes on SimGrid's rank contexts (from 16 ranks up), so simulated runs
# are checked for memory errors and undefined behaviour but not for leaks.
# Tests that bound a run's time allow for the sanitizers' slowdown.
if [ -n "${SANITIZE:-}" ]; then
    if real_smpirun=$(command -v smpirun); then
        mkdir -p build/tests/bin
        printf '#!/bin/sh\nSMPI_PRIVATIZATION=mmap ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" exec %s "$@"\n' \
            "$real_smpirun" >build/tests/bin/smpirun
        chmod +x build/tests/bin/smpirun
        export PATH="$PWD/build/tests/bin:$PATH"
    fi
    export TEST_TIME_SCALE=${TEST_TIME_SCALE:-4}
fi
logs=build/tests/logs
mkdir -p "$logs"
passed=0 failed=0 skipped=0 failures=()
only=${TESTS:-}

run_one() {
    local name=$1; shift
    if [ -n "$only" ]; then
        # TESTS holds one or more patterns; a test runs if its name has one.
        local pattern is_wanted=0
        for pattern in $only; do
            [[ "$name" == *"$pattern"* ]] && is_wanted=1
        done
        [ "$is_wanted" -eq 1 ] || return
    fi
    local start=$SECONDS
    mkdir -p "$(dirname "$logs/$name.log")"
    "$@" >"$logs/$name.log" 2>&1
    local rc=$?
    if [ "$rc" -eq 0 ]; then
        passed=$((passed + 1))
        printf 'PASS %-40s %3ds\n' "$name" $((SECONDS - start))
    elif [ "$rc" -eq 77 ]; then
        skipped=$((skipped + 1))
        printf 'SKIP %-40s %3ds  %s\n' "$name" $((SECONDS - start)) \
            "$(tail -n 1 "$logs/$name.log")"
    else
        failed=$((failed + 1)); failures+=("$name")
        printf 'FAIL %-40s %3ds\n' "$name" $((SECONDS - start))
        tail -n 40 "$logs/$name.log" | sed 's/^/    /'
    fi
}

for t in build/tests/unit/*; do
    [ -x "$t" ] && [ -f "$t" ] && run_one "unit/$(basename "$t")" "$t"
done
for t in tests/sh/test_*.sh; do
    [ -f "$t" ] && run_one "sh/$(basename "$t" .sh)" bash "$t"
done

[ ${#failures[@]} -gt 0 ] && echo "failed: ${failures[*]}"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
