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
# are suppressed; full stacks so the suppressions match.
export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp:fast_unwind_on_malloc=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
logs=build/tests/logs
mkdir -p "$logs"
passed=0 failed=0 skipped=0 failures=()
only=${TESTS:-}

run_one() {
    local name=$1; shift
    if [ -n "$only" ] && [[ "$name" != *$only* ]]; then return; fi
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
