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
grep -q '^p [a-z]* [0-9]* [0-9]* [0-9]* smgd ' "$tmp/exh/journal" || fail "no smgd point in the journal"
build/autotune compare -r "$tmp/exh" > "$tmp/after.csv" 2> "$tmp/after.err" ||
    fail "compare refused an exhaustive run resumed with smgd: $(cat "$tmp/after.err")"
cmp -s "$tmp/before.csv" "$tmp/after.csv" || fail "compare differs after the smgd sweep"

# The oracle row: one experiment per point, every point optimal, and no
# strategy spends less. --trace lists what smgd asked for; their count is
# its experiments (every experiment is charged once).
awk -F, '$1 == "oracle" { exit !($2 == $3 && $8 == "100.0") } END { if (NR < 6) exit 1 }' "$tmp/before.csv" ||
    fail "oracle row: $(cat "$tmp/before.csv")"
awk -F, '$1 == "oracle" { o = $4 } $1 != "strategy" && $1 != "oracle" && $4 + 0 < o + 0 { bad = 1 } END { exit bad }' "$tmp/before.csv" ||
    fail "a strategy spent less than the oracle: $(cat "$tmp/before.csv")"
build/autotune compare -r "$tmp/exh" --trace smgd > /dev/null 2> "$tmp/trace.err" || fail "compare --trace"
traced=$(grep -c '^trace smgd [a-z]* P=[0-9]* [0-9]* B: [a-z_]*/[0-9]* ' "$tmp/trace.err")
[ "$traced" = "$(awk -F, '$1 == "smgd" { print $3 }' "$tmp/before.csv")" ] ||
    fail "--trace smgd printed $traced experiments: $(head -3 "$tmp/trace.err")"
# --segments: a sub-list holding 0 replays fewer methods; one without 0, or
# with a size the run never swept, is refused with the reason.
build/autotune compare -r "$tmp/exh" --segments 0 > "$tmp/seg0.csv" 2> /dev/null || fail "compare --segments 0"
[ "$(awk -F, '$1 == "exhaustive" { print $3 }' "$tmp/seg0.csv")" -lt "$(awk -F, '$1 == "exhaustive" { print $3 }' "$tmp/before.csv")" ] ||
    fail "--segments 0 replayed as many experiments"
expect_status() { # expected command...
    local want=$1 got
    shift
    "$@" > /dev/null 2> "$tmp/status.err"
    got=$?
    [ "$got" = "$want" ] || fail "$* exited $got, not $want: $(cat "$tmp/status.err")"
}
expect_status 2 build/autotune compare -r "$tmp/exh" --segments 1024
grep -q "the list must hold 0" "$tmp/status.err" || fail "--segments without 0: $(cat "$tmp/status.err")"
expect_status 1 build/autotune compare -r "$tmp/exh" --segments 0,1000
grep -q "no record with 1000-byte segments" "$tmp/status.err" || fail "--segments 0,1000: $(cat "$tmp/status.err")"
expect_status 2 build/autotune compare -r "$tmp/exh" --trace nosuch

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
