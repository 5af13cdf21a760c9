#!/usr/bin/env bash
# Benchmark of the tuned choice against the MPI library's default decision
# (issue 4): exhaustive sweeps on each simulated cluster, with SMPI's Open
# MPI selector (--cfg=smpi/coll-selector:ompi) as the default, timed at every
# point as default/0. Figures go to results/bench/default-<cluster>[-all].csv:
# the command, the per-collective median and maximum speedup (autotune
# report), then speedup.csv. The journals live in results/bench-runs/, so an
# interrupted run resumes.
#   tests/bench/default.sh [two|all] [cluster...]
# two: bcast and reduce, procs 4..32, 1 B..1 MiB (about 25 min of CPU a cluster)
# all: the eight collectives, procs 4, 8, 16, 1 B..256 KiB (about 10 min)
set -eu
cd "$(dirname "$0")/../.."
scale=${1:-two}
shift || true
clusters=${*:-grig frodo}
case $scale in
two) suffix=""; np=32
     colls='["bcast", "reduce"]'; procs="[4, 8, 16, 32]"
     msgs="[1, 16, 256, 4096, 65536, 1048576]" ;;
all) suffix="-all"; np=16
     colls='["bcast", "reduce", "allreduce", "scatter", "gather", "allgather", "alltoall", "barrier"]'
     procs="[4, 8, 16]"; msgs="[1, 64, 4096, 65536, 262144]" ;;
*) echo "usage: $0 [two|all] [cluster...]"; exit 2 ;;
esac
make -s all
mkdir -p results/bench results/bench-runs
for c in $clusters; do
    run=results/bench-runs/default-$c$suffix
    cfg=$run.cfg
    cat > "$cfg" <<CFG
output        = "$run";
collectives   = $colls;
procs         = $procs;
message_sizes = $msgs;
segment_sizes = [0, 4096, 32768];
search        = "exhaustive";
measure       = { warmup = 0; min_reps = 1; max_reps = 1; rse = 0.5; };
CFG
    sweep="smpirun -np $np -platform conf/platforms/$c.xml --cfg=smpi/simulate-computation:no --cfg=smpi/coll-selector:ompi --log=root.thres:critical build/autotune-smpi -c $cfg"
    echo "$sweep"
    start=$SECONDS
    nice -n 10 $sweep
    out=results/bench/default-$c$suffix.csv
    {
        echo "# $(date -u +%Y-%m-%d) $c: $sweep ($((SECONDS - start)) s wall)"
        echo "# then: build/autotune report -r $run"
        build/autotune report -r "$run" | sed 's/^/# /'
        cat "$run/speedup.csv"
    } > "$out"
    cat "$out"
done
