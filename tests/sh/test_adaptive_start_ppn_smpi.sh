#!/usr/bin/env bash
# The walk that starts from the model (grid_options.start = "model") with
# ranks_per_node = [1, 2, 4] under SMPI: one seeded walk per ranks per node
# (search/seed.c, each layer its own budget): every point of every ppn in
# optimal.csv, each layer measuring at most floor(budget x its points),
# the end layers (1 and 4 per node) at least their seed (a middle layer's
# point where both ends' choices hold takes it, search/refine.c), every
# inferred point with a predicted time;
# killed (kill -9) at a third of its records and resumed, it ends
# byte-identical to an uninterrupted sweep.
set -u
. "$(dirname "$0")/lib.sh"
command -v smpirun >/dev/null || { echo "smpirun not found (apt-get install libsimgrid-dev)"; exit 77; }

write_cfg() { # NAME
    cat > "$tmp/$1.cfg" <<CFG
output        = "$tmp/$1";
collectives   = ["bcast"];
procs         = [2, 4, 6, 8];
ranks_per_node = [1, 2, 4];
message_sizes = { min = 1; max = 65536; factor = 2; };
segment_sizes = [0, 1024, 8192];
algorithms    = { bcast = ["linear", "binomial", "pipeline", "split_binary", "scatter_allgather"]; };
measure       = { warmup = 0; min_reps = 1; max_reps = 1; rse = 0.5; };
baseline      = false;
search        = "model";
grid          = "adaptive";
grid_options  = { start = "model"; budget = 0.3; };
CFG
}
# Nodes that hold every layout: 8 ranks at 1 per node need 8 nodes, at 2
# per node 4 nodes of 2, at 4 per node 2 nodes of 4.
printf 'grig-0:4\ngrig-1:4\ngrig-2:2\ngrig-3:2\ngrig-4:1\ngrig-5:1\ngrig-6:1\ngrig-7:1\n' > "$tmp/hosts"
smpi() { # ARGS...
    smpirun -np 16 -hostfile "$tmp/hosts" -platform conf/platforms/grig.xml --cfg=smpi/simulate-computation:no \
        --log=root.thres:critical build/autotune-smpi "$@"
}
write_cfg calib
smpi model -c "$tmp/calib.cfg" > "$tmp/calib.out" 2>&1 || { cat "$tmp/calib.out"; fail "model"; }
for name in whole part; do
    write_cfg $name
    mkdir -p "$tmp/$name"
    cp "$tmp/calib/model.csv" "$tmp/calib/model.journal" "$tmp/$name/"
done
smpi -c "$tmp/whole.cfg" > "$tmp/whole.out" 2>&1 || { cat "$tmp/whole.out"; fail "adaptive sweep from the model"; }
opt=$tmp/whole/optimal.csv
# per ppn: 17 sizes x 4 procs (2 at 4 per node: 4 divides 4 and 8 only);
# the seed min(3, procs) x 4 sizes, the budget floor(0.3 x points)
for ppn in 1 2 4; do
    n_procs=$((ppn == 4 ? 2 : 4))
    points=$((17 * n_procs))
    seed=$((ppn == 2 ? 1 : (n_procs < 3 ? n_procs : 3) * 4))
    budget=$((3 * points / 10))
    got=$(awk -F, -v p=$ppn 'NR > 1 && $3 == p' "$opt" | wc -l)
    measured=$(awk -F, -v p=$ppn 'NR > 1 && $3 == p { n += $8 } END { print n + 0 }' "$opt")
    [ "$got" -eq "$points" ] || fail "optimal.csv: $got rows at ppn $ppn, expected $points"
    [ "$measured" -ge "$seed" ] && [ "$measured" -le "$budget" ] ||
        fail "ppn $ppn: $measured points measured, expected $seed to $budget (the budget)"
    echo "ppn $ppn: $measured of $points points measured (at least $seed, budget $budget)"
done
awk -F, 'NR > 1 && $8 == 0 && !($7 > 0) { bad++ } END { exit bad > 0 }' "$opt" ||
    fail "an inferred point has no predicted time"

n_records=$(records "$tmp/whole/journal")
killed_at=$(kill_at_records "$tmp/part/journal" $((n_records / 3)) "$tmp/part1.out" smpi -c "$tmp/part.cfg")
[ "$killed_at" -lt "$n_records" ] || fail "the sweep finished before it could be killed"
smpi -c "$tmp/part.cfg" > "$tmp/part2.out" 2>&1 || { cat "$tmp/part2.out"; fail "resumed sweep"; }
echo "killed with $killed_at of $n_records records, then resumed"
for t in optimal.csv measurements.csv; do
    [ -s "$tmp/whole/$t" ] && [ -s "$tmp/part/$t" ] || fail "$t missing or empty"
    cmp "$tmp/whole/$t" "$tmp/part/$t" || fail "$t differs from the uninterrupted run"
done
exit $((fails > 0))
