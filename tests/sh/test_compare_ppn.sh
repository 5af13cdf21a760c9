#!/usr/bin/env bash
# compare on a run of two ranks per node (Grig, 16 ranks, on 16 nodes and on
# 2 nodes of 8: the real sweeps of results/bench-runs joined into one
# journal) gives each ranks per node its own figures: the rows of one
# equal what compare says on that ranks per node's journal alone, and the
# run's rows add them up (and --grid's too). Before, the two were one
# point (one run's records at the other's): compare aborted.
set -u
. "$(dirname "$0")/lib.sh"
command -v python3 > /dev/null || { echo "FAIL: python3 is needed (CI installs it)"; exit 1; }
runs=results/bench-runs
join() { # RUN PPN:JOURNAL...
    local run=$1
    shift
    mkdir -p "$tmp/$run"
    python3 tests/sh/journal_ppn.py "$tmp/$run/journal" "$@" || fail "joining $*"
}
join two 1:$runs/ppn-grig-16-1/journal 8:$runs/ppn-grig-16-8/journal
join one 1:$runs/ppn-grig-16-1/journal
join eight 8:$runs/ppn-grig-16-8/journal
for run in two one eight; do
    build/autotune compare -r "$tmp/$run" > "$tmp/$run.csv" 2> "$tmp/$run.err" ||
        fail "compare -r $run: $(head -3 "$tmp/$run.err")"
    [ "$(wc -l < "$tmp/$run.csv")" -gt 2 ] || fail "compare -r $run printed $(wc -l < "$tmp/$run.csv") lines"
done
# ranks per node N's rows, as a run of N alone prints them
rows_of() { # PPN
    awk -F, -v tag="@ppn$1" 'index($1, tag) { sub(tag, "", $1); print }' OFS=, "$tmp/two.csv"
}
tail -n +2 "$tmp/one.csv" > "$tmp/one.rows"
tail -n +2 "$tmp/eight.csv" > "$tmp/eight.rows"
rows_of 1 > "$tmp/two-1.rows"
rows_of 8 > "$tmp/two-8.rows"
[ -s "$tmp/two-1.rows" ] && [ -s "$tmp/two-8.rows" ] || fail "no per-ppn rows: $(cat "$tmp/two.csv")"
cmp -s "$tmp/one.rows" "$tmp/two-1.rows" || fail "ppn 1's rows differ from the run of ppn 1 alone: $(diff "$tmp/one.rows" "$tmp/two-1.rows")"
cmp -s "$tmp/eight.rows" "$tmp/two-8.rows" || fail "ppn 8's rows differ from the run of ppn 8 alone: $(diff "$tmp/eight.rows" "$tmp/two-8.rows")"
# the layouts' figures differ, so a mix would have changed them
cmp -s "$tmp/one.rows" "$tmp/eight.rows" && fail "ppn 1 and 8 have the same figures: the test shows nothing"
# the run's own rows: points and experiments of both (32 points each:
# 4 collectives x 8 message sizes at 16 ranks)
awk -F, '$1 == "exhaustive" || $1 == "oracle" { print $1, $2, $3 }' "$tmp/two.csv" > "$tmp/whole"
awk -F, 'FNR > 1 && ($1 == "exhaustive" || $1 == "oracle") { p[$1] += $2; e[$1] += $3 }
    END { print "exhaustive", p["exhaustive"], e["exhaustive"]; print "oracle", p["oracle"], e["oracle"] }' \
    "$tmp/one.csv" "$tmp/eight.csv" > "$tmp/sum"
cmp -s "$tmp/whole" "$tmp/sum" || fail "the run's rows are not the sum: $(cat "$tmp/whole") vs $(cat "$tmp/sum")"
grep -q '^exhaustive,64,' "$tmp/two.csv" || fail "exhaustive: not 64 points: $(grep '^exhaustive,' "$tmp/two.csv")"
# messages that name a point say its ranks per node when it is not 1
build/autotune compare -r "$tmp/two" --trace smgd > /dev/null 2> "$tmp/trace" || fail "compare --trace"
grep -q '^trace smgd bcast P=16 ppn=8 1 B: ' "$tmp/trace" || fail "no ppn=8 in the trace: $(grep -m1 'P=16 ppn' "$tmp/trace")"
grep -q '^trace smgd bcast P=16 1 B: ' "$tmp/trace" || fail "the ppn 1 points' trace lines changed"

# --grid: the adaptive walk refines along the ranks per node too. The
# smallest and the largest ppn are walked as a run of that ppn alone is;
# a ppn between them (NDR, 32 ranks at 1, 8 and 32 per node) measures its
# coarse grid and takes its neighbours' method where they agree at a
# point it would refine: fewer points measured than alone.
grid_rows() { # CSV PPN (empty: the run's rows)
    if [ -n "$2" ]; then
        awk -F, -v tag="@ppn$2" 'index($1, tag) { sub(tag, "", $1); print }' OFS=, "$1"
    else
        awk -F, 'NR > 1 && !index($1, "@ppn")' "$1"
    fi
}
join ndr 1:$runs/ppn-ndr-32-1/journal 8:$runs/ppn-ndr-32-8/journal 32:$runs/ppn-ndr-32-32/journal
for k in 1 8 32; do
    join ndr$k $k:$runs/ppn-ndr-32-$k/journal
done
for run in two one eight ndr ndr1 ndr8 ndr32; do
    build/autotune compare -r "$tmp/$run" --grid adaptive > "$tmp/$run.grid" 2> "$tmp/$run.grid.err" ||
        fail "compare --grid -r $run: $(head -3 "$tmp/$run.grid.err")"
    [ "$(wc -l < "$tmp/$run.grid")" -gt 2 ] || fail "compare --grid -r $run printed too little"
done
for pair in "two 1 one" "two 8 eight" "ndr 1 ndr1" "ndr 32 ndr32"; do
    set -- $pair
    grid_rows "$tmp/$1.grid" "$2" > "$tmp/a.rows"
    grid_rows "$tmp/$3.grid" "" > "$tmp/b.rows"
    [ -s "$tmp/a.rows" ] || fail "--grid -r $1: no ppn $2 rows"
    cmp -s "$tmp/a.rows" "$tmp/b.rows" || fail "--grid -r $1: ppn $2's rows differ from the run of ppn $2 alone: $(diff "$tmp/a.rows" "$tmp/b.rows" | head -4)"
done
mid=$(grid_rows "$tmp/ndr.grid" 8 | awk -F, '$1 == "exhaustive" { print $3 }')
alone=$(grid_rows "$tmp/ndr8.grid" "" | awk -F, '$1 == "exhaustive" { print $3 }')
[ -n "$mid" ] && [ -n "$alone" ] && [ "$mid" -lt "$alone" ] ||
    fail "--grid: ppn 8 between 1 and 32 measured ${mid:-?} points, alone ${alone:-?}"
grep -q '^full@ppn8,32,32,' "$tmp/ndr.grid" || fail "--grid: no full@ppn8 row of 32 points"
[ "$fails" = 0 ] && echo "compare: each ranks per node has its own figures"
exit $((fails > 0))
