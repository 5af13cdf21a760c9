#!/usr/bin/env bash
# --fresh keeps every previous sweep: its journal, tables and decisions move
# to RUN/old/1/, the next --fresh's to RUN/old/2/, and so on; nothing is
# overwritten or deleted, other files stay, and each old/N is a run
# directory the offline commands read.
set -u
. "$(dirname "$0")/lib.sh"
. tests/sh/lib_sweep.sh
moved="journal measurements.csv optimal.csv speedup.csv compare.csv tree.dec quadtree-bcast.dec"

write_cfg run
sweep run > "$tmp/1.out" 2>&1 || { cat "$tmp/1.out"; fail "first sweep"; }
build/autotune compare -r "$tmp/run" > /dev/null 2>&1 || fail "compare"
build/autotune tree -r "$tmp/run" > /dev/null 2>&1 || fail "tree"
build/autotune quadtree -r "$tmp/run" --collective bcast --depth 2 > /dev/null 2>&1 || fail "quadtree"
echo "mine" > "$tmp/run/notes.txt"
cp -r "$tmp/run" "$tmp/first"

sweep run --fresh > "$tmp/2.out" 2>&1 || { cat "$tmp/2.out"; fail "first --fresh"; }
grep -q "^autotune: starting over; the previous sweep's journal and tables are in $tmp/run/old/1/$" "$tmp/2.out" ||
    fail "--fresh did not say where the previous sweep went: $(head -2 "$tmp/2.out")"
grep -q " 0 taken from the journal" "$tmp/2.out" || fail "--fresh reused records"
for f in $moved; do
    cmp -s "$tmp/first/$f" "$tmp/run/old/1/$f" || fail "old/1/$f is not the first sweep's $f"
done
for f in compare.csv tree.dec quadtree-bcast.dec; do
    [ -e "$tmp/run/$f" ] && fail "$f of the first sweep was left beside the new journal"
done
cmp -s "$tmp/first/notes.txt" "$tmp/run/notes.txt" || fail "--fresh moved a file not its own"
cmp -s "$tmp/first/optimal.csv" "$tmp/run/optimal.csv" || fail "the fresh sweep's optimal.csv differs"
old1=$(dir_sum "$tmp/run/old/1")

# Another --fresh: old/2, and old/1 as it was.
write_cfg run exhaustive 0.25
sweep run --fresh > "$tmp/3.out" 2>&1 || { cat "$tmp/3.out"; fail "second --fresh"; }
grep -q "are in $tmp/run/old/2/$" "$tmp/3.out" || fail "second --fresh: $(head -2 "$tmp/3.out")"
[ "$(dir_sum "$tmp/run/old/1")" = "$old1" ] || fail "the second --fresh changed old/1"
[ "$(records "$tmp/run/old/2/journal")" -eq "$(records "$tmp/first/journal")" ] ||
    fail "old/2 does not hold the second sweep's journal"
grep -q "measure.rse=0.25" "$tmp/run/journal" || fail "the third sweep's journal is not in place"
ls "$tmp/run" | grep -q "journal\." && fail "--fresh left a journal.* beside the journal"
# Each old sweep is a run directory of its own.
build/autotune report -r "$tmp/run/old/1" > /dev/null 2>&1 || fail "report on old/1"
build/autotune compare -r "$tmp/run/old/2" > /dev/null 2>&1 || fail "compare on old/2"

echo "$fails failure(s)"
[ $fails -eq 0 ]
