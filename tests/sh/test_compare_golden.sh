#!/usr/bin/env bash
# A one-rank-per-node journal written before ranks per node replays as it
# did then: compare's table, its remarks, the adaptive grid's table and a
# strategy's trace equal what compare printed before (tests/sh/data/
# compare-golden/README says how they were made).
set -u
. "$(dirname "$0")/lib.sh"
data=tests/sh/data/compare-golden
mkdir -p "$tmp/run"
cp "$data/journal" "$tmp/run/journal"

same() { # NAME FILE: FILE matches the golden NAME, both non-empty
    [ -s "$data/$1" ] || { fail "golden $1 is empty"; return; }
    [ -s "$2" ] || { fail "$1: compare printed nothing"; return; }
    diff "$data/$1" "$2" > "$tmp/$1.diff" || fail "$1 differs: $(head -5 "$tmp/$1.diff")"
}
build/autotune compare -r "$tmp/run" --misses > "$tmp/compare.out" 2> "$tmp/compare.err" ||
    fail "compare: $(cat "$tmp/compare.err")"
same compare.out "$tmp/compare.out"
same compare.err "$tmp/compare.err"
cmp -s "$tmp/compare.out" "$tmp/run/compare.csv" || fail "compare.csv differs from what was printed"
build/autotune compare -r "$tmp/run" --grid adaptive > "$tmp/grid.out" 2> "$tmp/grid.err" ||
    fail "compare --grid: $(cat "$tmp/grid.err")"
same grid.out "$tmp/grid.out"
[ ! -s "$tmp/grid.err" ] || fail "compare --grid said: $(head -3 "$tmp/grid.err")"
build/autotune compare -r "$tmp/run" --trace smgd > /dev/null 2> "$tmp/trace.all" ||
    fail "compare --trace smgd"
grep '^trace ' "$tmp/trace.all" > "$tmp/trace.err"
same trace.err "$tmp/trace.err"
[ "$fails" = 0 ] && echo "compare golden: one rank per node replays as before"
exit $((fails > 0))
