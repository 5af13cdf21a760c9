#!/usr/bin/env bash
# grid = "adaptive" under SMPI: the sweep measures a part of the grid and
# infers the rest (optimal.csv says which); killed (kill -9) and resumed it
# ends byte-identical to an uninterrupted one; and `compare --grid adaptive`
# on a full exhaustive sweep of the same grid replays the walk: it measures
# the same number of points as the live adaptive sweep.
set -u
. "$(dirname "$0")/lib.sh"
command -v smpirun >/dev/null || { echo "smpirun not found (apt-get install libsimgrid-dev)"; exit 77; }

platform=conf/platforms/grig.xml
np=9
points=$((8 * 17))
write_cfg() { # NAME GRID
    cat > "$tmp/$1.cfg" <<CFG
output        = "$tmp/$1";
collectives   = ["bcast"];
procs         = [2, 3, 4, 5, 6, 7, 8, 9];
message_sizes = { min = 1; max = 65536; factor = 2; };
segment_sizes = [0, 1024, 8192];
algorithms    = { bcast = ["linear", "binomial", "pipeline", "split_binary", "scatter_allgather"]; };
measure       = { warmup = 0; min_reps = 1; max_reps = 1; rse = 0.5; };
baseline      = false;
grid          = "$2";
CFG
}
sweep() { # NAME
    smpirun -np $np -platform $platform --cfg=smpi/simulate-computation:no \
        --log=root.thres:critical build/autotune-smpi -c "$tmp/$1.cfg"
}

write_cfg full-grid full
write_cfg adaptive adaptive
write_cfg part adaptive
start=$SECONDS
AUTOTUNE_PROGRESS_INTERVAL=0 sweep adaptive > "$tmp/adaptive.out" 2>&1 ||
    { cat "$tmp/adaptive.out"; fail "adaptive sweep"; }
opt=$tmp/adaptive/optimal.csv
head -1 "$opt" | grep -qx 'collective,procs,ppn,msg_bytes,algorithm,segment_bytes,time_us,measured' ||
    fail "optimal.csv header: $(head -1 "$opt")"
rows=$(($(wc -l < "$opt") - 1))
measured=$(grep -c ',1$' "$opt")
echo "adaptive: $measured of $rows points measured in $((SECONDS - start)) s"
[ "$rows" -eq $points ] || fail "optimal.csv has $rows rows, expected $points"
grep -q "adaptive grid: $measured of $points points measured" "$tmp/adaptive.out" ||
    fail "the summary does not say how many points were measured"
# the coarse grid alone is procs 2, 3, 4, 5, 7, 8, 9 by messages 1, 16, 256, 4096, 65536
[ "$measured" -ge 35 ] && [ "$measured" -lt $points ] || fail "$measured points measured"
# every point of the grid measured is in measurements.csv, and only those
[ "$(cut -d, -f2,4 "$tmp/adaptive/measurements.csv" | sed 1d | sort -u | wc -l)" -eq "$measured" ] ||
    fail "measurements.csv does not cover exactly the measured points"
# the progress lines name the points the walk measured, as many as it
# measured, against the most it may measure
progress=$(sed -n 's/^\[autotune\] [0-9]* of at most '$points' points (adaptive)  bcast P=\([0-9]*\) \([0-9]*\) B  .*/\1,\2/p' "$tmp/adaptive.out" | sort -u)
[ "$progress" = "$(cut -d, -f2,4 "$tmp/adaptive/measurements.csv" | sed 1d | sort -u)" ] ||
    fail "the progress lines do not name the measured points"
grep -q "^\[autotune\] $measured of at most $points points (adaptive)" "$tmp/adaptive.out" ||
    fail "no progress line counts $measured points measured"
# the offline commands read the marked table
build/autotune export -r "$tmp/adaptive" --format csv -o "$tmp/x.csv" > /dev/null 2>&1 ||
    fail "export of an adaptive run"
# the report marks the inferred points, in the terminal and in the page
inferred=$((rows - measured))
# a decision is scored at the measured points only; the others are counted
build/autotune tree -r "$tmp/adaptive" -o "$tmp/t" > "$tmp/tree.txt" 2>&1 || fail "tree -r of an adaptive run"
grep -q "^bcast tree  *$measured " "$tmp/tree.txt" &&
    grep -q "($inferred more points were inferred by the adaptive grid, not timed: not scored)" "$tmp/tree.txt" ||
    fail "tree -r scores other than the $measured measured points: $(grep -A1 '^bcast tree' "$tmp/tree.txt")"
build/autotune report -r "$tmp/adaptive" --map bcast > "$tmp/map.txt" 2>&1 ||
    fail "report --map of an adaptive run"
[ "$(grep -o '~' "$tmp/map.txt" | wc -l)" -eq $((inferred + 1)) ] ||
    fail "report --map marks $(grep -o '~' "$tmp/map.txt" | wc -l) cells (and its note), expected $inferred"
build/autotune report -r "$tmp/adaptive" --html "$tmp/a.html" > /dev/null 2>&1 ||
    fail "report --html of an adaptive run"
[ "$(grep -o 'data-inferred="1"' "$tmp/a.html" | wc -l)" -eq "$inferred" ] ||
    fail "report --html marks $(grep -o 'data-inferred="1"' "$tmp/a.html" | wc -l) cells inferred, expected $inferred"

# Killed at a third of its records, then resumed.
total=$(records "$tmp/adaptive/journal")
killed_at=$(kill_at_records "$tmp/part/journal" $((total / 3)) "$tmp/part1.out" sweep part)
[ "$killed_at" -lt "$total" ] || fail "the sweep finished before it could be killed"
sweep part > "$tmp/part2.out" 2>&1 || { cat "$tmp/part2.out"; fail "resumed sweep"; }
new=$(sed -n 's/.* \([0-9]*\) experiments\{0,1\} run.*/\1/p' "$tmp/part2.out")
na=$(sed -n 's/.*, \([0-9]*\) not applicable.*/\1/p' "$tmp/part2.out")
echo "killed with $killed_at of $total records; the resumed sweep ran $new (+$na not applicable)"
[ $((new + na)) -eq $((total - killed_at)) ] || fail "resume re-measured"
for t in optimal.csv measurements.csv; do
    cmp "$tmp/adaptive/$t" "$tmp/part/$t" || fail "$t differs from the uninterrupted run"
done

# The replay of the walk on the full grid measures as many points.
sweep full-grid > "$tmp/full.out" 2>&1 || { cat "$tmp/full.out"; fail "full sweep"; }
build/autotune compare -r "$tmp/full-grid" --grid adaptive > "$tmp/grid.out" 2>&1 ||
    { cat "$tmp/grid.out"; fail "compare --grid adaptive"; }
head -1 "$tmp/full-grid/grid.csv" | grep -qx 'strategy,points_total,points_measured,measured_pct,experiment_seconds,speedup,mean_penalty_pct,max_penalty_pct' ||
    fail "grid.csv header"
replayed=$(grep '^exhaustive,' "$tmp/full-grid/grid.csv" | cut -d, -f2,3)
[ "$replayed" = "$points,$measured" ] || fail "replay measured $replayed, the sweep $points,$measured"
grep -q '^smgd@uniform,' "$tmp/full-grid/grid.csv" || fail "no uniform row"
# a bad --grid value is a usage error naming it
build/autotune compare -r "$tmp/full-grid" --grid dense > "$tmp/bad.out" 2>&1
[ $? -eq 2 ] && grep -q -- "--grid: 'dense' is not one of adaptive" "$tmp/bad.out" || fail "--grid dense accepted"

echo "$fails failure(s)"
[ $fails -eq 0 ]
