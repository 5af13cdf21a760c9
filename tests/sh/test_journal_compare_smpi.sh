#!/usr/bin/env bash
# compare needs every point searched exhaustively once, whatever searched
# it later: an exhaustive run resumed with smgd replays as before; a run
# whose points were partly searched with smgd alone is refused, naming one.
set -u
. "$(dirname "$0")/lib.sh"
. tests/sh/lib_sweep.sh

write_cfg exh
sweep exh > "$tmp/exh.out" 2>&1 || { cat "$tmp/exh.out"; fail "exhaustive sweep"; }
cp "$tmp/exh/journal" "$tmp/exh.journal"
build/autotune compare -r "$tmp/exh" > "$tmp/before.csv" 2> /dev/null || fail "compare of the exhaustive run"

# The same run resumed once with smgd: nothing to measure, smgd's choices
# journaled beside exhaustive's.
write_cfg exh smgd
sweep exh > "$tmp/smgd.out" 2>&1 || { cat "$tmp/smgd.out"; fail "smgd sweep on the exhaustive run"; }
grep -q " 0 experiments run" "$tmp/smgd.out" || fail "smgd measured: $(grep experiments "$tmp/smgd.out")"
grep -q '^p [a-z]* [0-9]* [0-9]* smgd ' "$tmp/exh/journal" || fail "no smgd point in the journal"
build/autotune compare -r "$tmp/exh" > "$tmp/after.csv" 2> "$tmp/after.err" ||
    fail "compare refused an exhaustive run resumed with smgd: $(cat "$tmp/after.err")"
cmp -s "$tmp/before.csv" "$tmp/after.csv" || fail "compare differs after the smgd sweep"

# Stopped after the first 100 lines, finished with smgd: the rest of the
# points were never searched exhaustively.
mkdir "$tmp/part"
head -n 100 "$tmp/exh.journal" > "$tmp/part/journal"
write_cfg part smgd
sweep part > "$tmp/part.out" 2>&1 || { cat "$tmp/part.out"; fail "smgd sweep on the part run"; }
build/autotune compare -r "$tmp/part" > /dev/null 2> "$tmp/part.err" && fail "compare accepted points smgd alone searched"
grep -q "^compare: $tmp/part is not an exhaustive run ([a-z]* P=[0-9]* [0-9]* B was searched with smgd); compare needs every point searched once with search = \"exhaustive\"$" "$tmp/part.err" ||
    fail "refusal: $(cat "$tmp/part.err")"

echo "$fails failure(s)"
[ $fails -eq 0 ]
