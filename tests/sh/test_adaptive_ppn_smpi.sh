#!/usr/bin/env bash
# grid = "adaptive" with ranks_per_node = [1, 2, 4] under SMPI: one walk of
# ppn x procs x sizes per collective (search/refine.h), which
# `compare --grid adaptive` on a full exhaustive sweep of the same grid
# replays: per ranks per node, it measures exactly the points the live
# sweep measured; optimal.csv has every point of every ppn; killed
# (kill -9) at a third of its records and resumed, it ends byte-identical.
set -u
. "$(dirname "$0")/lib.sh"
command -v smpirun >/dev/null || { echo "smpirun not found (apt-get install libsimgrid-dev)"; exit 77; }

write_cfg() { # NAME GRID
    cat > "$tmp/$1.cfg" <<CFG
output        = "$tmp/$1";
collectives   = ["bcast", "allreduce"];
procs         = [2, 4, 6, 8];
ranks_per_node = [1, 2, 4];
message_sizes = { min = 1; max = 65536; factor = 2; };
segment_sizes = [0, 1024, 8192];
measure       = { warmup = 0; min_reps = 1; max_reps = 1; rse = 0.5; };
baseline      = false;
grid          = "$2";
CFG
}
# Nodes that hold every layout: 8 ranks at 1 per node need 8 nodes, at 2
# per node 4 nodes of 2, at 4 per node 2 nodes of 4.
printf 'grig-0:4\ngrig-1:4\ngrig-2:2\ngrig-3:2\ngrig-4:1\ngrig-5:1\ngrig-6:1\ngrig-7:1\n' > "$tmp/hosts"
sweep() { # NAME
    smpirun -np 16 -hostfile "$tmp/hosts" -platform conf/platforms/grig.xml --cfg=smpi/simulate-computation:no \
        --log=root.thres:critical build/autotune-smpi -c "$tmp/$1.cfg"
}
write_cfg adaptive adaptive
write_cfg part adaptive
write_cfg full full
sweep adaptive > "$tmp/adaptive.out" 2>&1 || { cat "$tmp/adaptive.out"; fail "adaptive sweep"; }
sweep full > "$tmp/full.out" 2>&1 || { cat "$tmp/full.out"; fail "full sweep"; }
# 2 collectives x 17 sizes x the layouts: 4 procs at ppn 1 and 2, 2 at 4
# (4 divides 4 and 8 only)
for ppn in 1 2 4; do
    want=$((2 * 17 * (ppn == 4 ? 2 : 4)))
    got=$(awk -F, -v p=$ppn 'NR > 1 && $3 == p' "$tmp/adaptive/optimal.csv" | wc -l)
    [ "$got" -eq "$want" ] || fail "optimal.csv: $got rows at ppn $ppn, expected $want"
done
# the points measured live, per ppn, against the replay's
live() { awk -F, -v p=$1 'NR > 1 && $3 == p { n += $8 } END { print n + 0 }' "$tmp/adaptive/optimal.csv"; }
build/autotune compare -r "$tmp/full" --grid adaptive > "$tmp/grid.csv" 2> "$tmp/grid.err" ||
    fail "compare --grid: $(head -3 "$tmp/grid.err")"
total=0
for ppn in 1 2 4; do
    replayed=$(awk -F, -v s="exhaustive@ppn$ppn" '$1 == s { print $3 }' "$tmp/grid.csv")
    [ -n "$replayed" ] && [ "$replayed" = "$(live $ppn)" ] ||
        fail "ppn $ppn: the replay measured ${replayed:-?} points, the live sweep $(live $ppn)"
    total=$((total + $(live $ppn)))
done
grep -q "adaptive grid: $total of 340 points measured" "$tmp/adaptive.out" ||
    fail "the summary does not say $total of 340: $(grep 'adaptive grid' "$tmp/adaptive.out")"
[ "$(live 1)" -gt 0 ] && [ "$(live 4)" -gt 0 ] || fail "nothing measured at ppn 1 or 4"

n_records=$(records "$tmp/adaptive/journal")
killed_at=$(kill_at_records "$tmp/part/journal" $((n_records / 3)) "$tmp/part1.out" sweep part)
[ "$killed_at" -lt "$n_records" ] || fail "the sweep finished before it could be killed"
sweep part > "$tmp/part2.out" 2>&1 || { cat "$tmp/part2.out"; fail "resumed sweep"; }
echo "killed with $killed_at of $n_records records, then resumed"
for t in optimal.csv measurements.csv; do
    cmp "$tmp/adaptive/$t" "$tmp/part/$t" || fail "$t differs from the uninterrupted run"
done
[ "$fails" = 0 ] && echo "adaptive, 3 ranks per node: $total of 340 points measured; the replay measures the same per ppn"
exit $((fails > 0))
