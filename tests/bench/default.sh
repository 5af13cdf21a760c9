#!/usr/bin/env bash
# Benchmark of the tuned choice against the MPI library's default decision
# (issue 4): an exhaustive sweep of bcast and reduce on each simulated
# cluster, with SMPI's Open MPI selector (--cfg=smpi/coll-selector:ompi) as
# the default, timed at every point as default/0. Figures go to
# results/bench/default-<cluster>.csv: the command, the per-collective
# median and maximum speedup (autotune report), then speedup.csv.
# The journals live in results/bench-runs/, so an interrupted run resumes.
#   tests/bench/default.sh [cluster...]
set -eu
cd "$(dirname "$0")/../.."
clusters=${*:-grig frodo}
make -s all
mkdir -p results/bench results/bench-runs
for c in $clusters; do
    run=results/bench-runs/default-$c
    cfg=$run.cfg
    cat > "$cfg" <<CFG
output        = "$run";
collectives   = ["bcast", "reduce"];
procs         = [4, 8, 16, 32];
message_sizes = [1, 16, 256, 4096, 65536, 1048576];
segment_sizes = [0, 4096, 32768];
search        = "exhaustive";
measure       = { warmup = 0; min_reps = 1; max_reps = 1; rse = 0.5; };
CFG
    sweep="smpirun -np 32 -platform conf/platforms/$c.xml --cfg=smpi/simulate-computation:no --cfg=smpi/coll-selector:ompi --log=root.thres:critical build/autotune-smpi -c $cfg"
    echo "$sweep"
    start=$SECONDS
    nice -n 10 $sweep
    out=results/bench/default-$c.csv
    {
        echo "# $(date -u +%Y-%m-%d) $c: $sweep ($((SECONDS - start)) s wall)"
        echo "# then: build/autotune report -r $run"
        build/autotune report -r "$run" | sed 's/^/# /'
        cat "$run/speedup.csv"
    } > "$out"
    cat "$out"
done
