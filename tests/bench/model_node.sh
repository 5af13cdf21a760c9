#!/usr/bin/env bash
# make bench-model-node (issue 35 item 2): the model on node-aware methods.
# Exhaustive SMPI sweeps at 8 ranks per node on ndr (32 ranks, 4 nodes)
# and ddr (16 ranks, 2 nodes) of bcast, reduce, allreduce and allgather,
# every flat algorithm at every segment size and node-aware methods of
# unsegmented phases (results/bench-runs/model-node-PLAT-8, journaled:
# BENCH_SWEEP=no reuses them); the calibration of make bench-model-ppn
# with both sets (results/bench-runs/model-ppn-PLAT-two/model.csv). Per
# platform: autotune predict's accuracy (measured time of the model's
# choice over the measured optimum: median, p90, max) with every method a
# candidate, with the node-aware ones alone and with the flat ones alone;
# and autotune compare's replay of the searches (search = "model": its
# experiments and experiment time against exhaustive's, its penalty).
# Figures: results/bench/model-node.txt.
set -eu
cd "$(dirname "$0")/../.."
. tests/bench/journals.sh
. tests/sh/lib.sh # max_penalty
b=build/bench/model-node
rm -rf "$b"
mkdir -p "$b" results/bench
out=results/bench/model-node.txt
# only all|node|flat SRC DST: SRC's measurements, every row or those of
# node-aware or of flat methods (predict scores each point against its
# least time there); with all, its journal too (compare replays it)
only() {
    mkdir -p "$3"
    awk -F, -v keep="$1" 'NR == 1 || (keep == "node" ? $5 ~ /^node/ : keep == "flat" ? $5 !~ /^node/ : 1)' \
        "$2/measurements.csv" >"$3/measurements.csv"
    if [ "$1" = all ]; then
        cp "$2/journal" "$3/journal"
    fi
}
# errors RUN: |predicted / measured - 1| of every method predict scored in
# RUN (its predicted.csv), node-aware and flat apart: median, p90, max
errors() {
    join -t, <(awk -F, 'NR > 1 { print $1 ":" $2 ":" $3 ":" $4 ":" $5 ":" $6 "," $7 }' "$1/predicted.csv" | sort) \
        <(awk -F, 'NR > 1 { print $1 ":" $2 ":" $3 ":" $4 ":" $5 ":" $6 "," $8 }' "$1/measurements.csv" | sort) |
        awk -F, '{ e = $2 / $3 - 1; print ($1 ~ /:node/ ? "node" : "flat"), (e < 0 ? -e : e) }' |
        sort -k1,1 -k2,2g | awk '
            { v[$1, ++n[$1]] = $2 }
            END { for (k in n) printf "%s methods: %d predictions, |error| median %.1f %%, p90 %.1f %%, max %.1f %%\n",
                      k, n[k], 100 * v[k, int((n[k] + 1) / 2)], 100 * v[k, int(0.9 * n[k] + 0.999)], 100 * v[k, n[k]] }' | sort
}
# accuracy RUN MODEL: predict's table (collectives and all)
accuracy() {
    nice -n 10 build/autotune predict -r "$1" --model "$2" |
        awk '/^collective/ || (NF == 9 && $2 ~ /^[0-9]+$/)'
}
{
    echo "# make bench-model-node ($(date -u +%F)): the model on node-aware methods, 8 ranks per node"
    echo "# accuracy: build/autotune predict -r RUN --model results/bench-runs/model-ppn-PLAT-two/model.csv"
    echo "#   (median, p90, max: measured time of the model's choice over the measured optimum;"
    echo "#   all = every method a candidate, node = the node-aware ones alone, flat = the flat ones alone)"
    echo "# searches: build/autotune compare -r RUN --model results/bench-runs/model-ppn-PLAT-two/model.csv"
} >"$out"
for spec in ddr-16 ndr-32; do
    host=${spec%-*}
    procs=${spec#*-}
    run=results/bench-runs/model-node-$spec-8
    prefix=$(cluster_prefix "$host")
    hosts=()
    for ((i = 0; i < procs / 8; i++)); do hosts+=("$prefix$i:8"); done
    printf '%s\n' "${hosts[@]}" >"$run.hosts"
    sweep_cfg "$run.cfg" "$run" '["bcast", "reduce", "allreduce", "allgather"]' "[$procs]" \
        '[1, 8, 64, 512, 4096, 32768, 262144, 1048576]' '[0, 1024, 8192, 32768]' exhaustive \
        'ranks_per_node = [8];
algorithms    = { bcast = ["*", "node:*+*"]; reduce = ["*", "node:*+*"];
                  allreduce = ["*", "node:*+*+binomial", "node:binomial+*+*"];
                  allgather = ["*", "node:*+*+binomial", "node:linear+*+*"]; };'
    cmd="smpirun -np $procs -hostfile $run.hosts -platform conf/platforms/$host.xml --cfg=smpi/simulate-computation:no --log=root.thres:critical build/autotune-smpi -c $run.cfg"
    if [ "${BENCH_SWEEP:-yes}" != no ]; then
        start=$(date +%s)
        nice -n 10 $cmd >"$b/$spec.sweep.out" 2>&1 || { cat "$b/$spec.sweep.out"; exit 1; }
        [ -s "$run.wall" ] || echo $(($(date +%s) - start)) >"$run.wall"
    fi
    cal=results/bench-runs/model-ppn-$spec-two/model.csv
    {
        echo
        echo "## $spec at 8 ranks per node ($((procs / 8)) nodes): $cmd"
        echo "# $(grep 'experiments run' "$b/$spec.sweep.out" 2>/dev/null || echo "sweep reused (BENCH_SWEEP=no)"); first sweep's wall: $(cat "$run.wall") s"
        for keep in all node flat; do
            only "$keep" "$run" "$b/$spec-$keep"
            echo "# candidates: $keep"
            accuracy "$b/$spec-$keep" "$cal"
        done
        echo "# each prediction against its measurement (every method):"
        errors "$b/$spec-all"
        echo "# searches replayed on the sweep (every method a candidate):"
        nice -n 10 build/autotune compare -r "$b/$spec-all" --model "$cal"
        echo "# the model's choice per point (autotune compare --misses: where it is not the optimum):"
        nice -n 10 build/autotune compare -r "$b/$spec-all" --model "$cal" --misses 2>&1 | grep '^miss model' || true
        # search = "model" live, on the same grid with the same calibration
        live=$b/$spec-live
        mkdir -p "$live"
        cp "$cal" "$live/model.csv"
        sed "s#^output *=.*#output        = \"$live\";#; s#^search *=.*#search        = \"model\";#" "$run.cfg" >"$live.cfg"
        start=$(date +%s)
        nice -n 10 ${cmd/%$run.cfg/$live.cfg} >"$live.out" 2>&1 || { cat "$live.out"; exit 1; }
        echo "# search = \"model\" live (${cmd/%$run.cfg/$live.cfg}, the calibration copied in): $(($(date +%s) - start)) s wall"
        echo "# $(grep 'experiments run' "$live.out")"
        echo "# of them node-aware: $(grep -c ',node' "$live/measurements.csv"); its choices against the exhaustive optimum:" \
            "$(max_penalty "$run" "$live" 1)"
    } >>"$out"
done
cat "$out"
