#!/usr/bin/env bash
# `make bench-runtime`: the profile workflow end to end on each simulated
# cluster. The CG mini-app (tests/apps/cg.c) runs under libautotune with
# AUTOTUNE_PROFILE; a sweep tunes exactly its points (profile = ...); the
# app then runs without libautotune and with the run's exact decision
# (export --format dec). SMPI's Open MPI selector is the library's default
# in every run, as in the sweep's default/0. Figures: the app's simulated
# time without and with, and the saving the tuner predicts from the profile
# and the run (autotune profile -r: calls x (default - tuned)), in
# results/bench/runtime.txt with the commands.
#   tests/bench/runtime.sh [NP] [cluster...]     (default: 16 grig frodo)
# BENCH_PPN=N: N consecutive ranks on each simulated node (a hostfile of
# NP / N lines "host:N"), so the profile, the sweep (its points at N ranks
# per node), the decision and the app all run at that layout; figures to
# results/bench/runtime-ppnN.txt.
set -eu
cd "$(dirname "$0")/../.."
. tests/bench/journals.sh
np=${1:-16}
shift || true
clusters=${*:-grig frodo}
app_args="-n 8192 -i 40 -k 5"
make -s all build/tests/rt-smpi/cg build/tests/smpi-plain/cg
mkdir -p results/bench results/bench-runs
ppn=${BENCH_PPN:-1}
out=results/bench/runtime.txt
tag=
[ "$ppn" = 1 ] || { out=results/bench/runtime-ppn$ppn.txt; tag=-ppn$ppn; }
smpi() { # CLUSTER PROGRAM ARGS...
    local c=$1 hosts=()
    shift
    if [ "$ppn" != 1 ]; then
        local prefix k
        prefix=$(cluster_prefix "$c") || exit 1
        for ((k = 0; k < np / ppn; k++)); do echo "$prefix$k:$ppn"; done > "results/bench-runs/runtime-$c$tag.hosts"
        hosts=(-hostfile "results/bench-runs/runtime-$c$tag.hosts")
    fi
    nice -n 10 smpirun -np "$np" "${hosts[@]}" -platform "conf/platforms/$c.xml" \
        --cfg=smpi/simulate-computation:no --cfg=smpi/coll-selector:ompi \
        --log=root.thres:critical "$@"
}
app_time() { sed -n 's/^cg: .* time_s=//p'; }
{
echo "# make bench-runtime ($(date -u +%F)): tests/bench/runtime.sh $np $clusters"
echo "# app: cg $app_args on $np ranks ($ppn a node); smpirun -np $np${tag:+ -hostfile results/bench-runs/runtime-CLUSTER$tag.hosts} -platform conf/platforms/CLUSTER.xml"
echo "#      --cfg=smpi/simulate-computation:no --cfg=smpi/coll-selector:ompi for every run"
for c in $clusters; do
    run=results/bench-runs/runtime-$c$tag
    prof=$run.prof
    rm -rf "$run"
    echo "## $c"
    echo "# AUTOTUNE_PROFILE=$prof smpirun ... build/tests/rt-smpi/cg $app_args"
    AUTOTUNE_PROFILE=$prof smpi "$c" build/tests/rt-smpi/cg $app_args >/dev/null
    cat >"$run.cfg" <<CFG
output        = "$run";
profile       = "$prof";
segment_sizes = [0, 1024, 4096, 16384, 65536];
search        = "exhaustive";
measure       = { warmup = 0; min_reps = 1; max_reps = 1; rse = 0.5; };
CFG
    echo "# smpirun ... build/autotune-smpi -c $run.cfg"
    smpi "$c" build/autotune-smpi -c "$run.cfg" >/dev/null 2>&1
    build/autotune export -r "$run" --format dec -o "$run.dec" 2>/dev/null
    echo "# build/autotune profile $prof -r $run"
    build/autotune profile "$prof" -r "$run" | sed 's/^/    /'
    echo "# smpirun ... build/tests/smpi-plain/cg $app_args   (without libautotune)"
    without=$(smpi "$c" build/tests/smpi-plain/cg $app_args | app_time)
    echo "# AUTOTUNE_DECISION=$run.dec smpirun ... build/tests/rt-smpi/cg $app_args"
    with=$(AUTOTUNE_DECISION=$run.dec smpi "$c" build/tests/rt-smpi/cg $app_args | app_time)
    saved=$(build/autotune profile "$prof" -r "$run" | sed -n 's/^predicted .* = \([0-9.]*\) s saved.*/\1/p')
    # Where the saving is: each point's time in the app, profiled without
    # and with the decision, against the prediction.
    echo "# AUTOTUNE_DECISION=$run.dec AUTOTUNE_PROFILE=$run-tuned.prof smpirun ... build/tests/rt-smpi/cg $app_args"
    AUTOTUNE_DECISION=$run.dec AUTOTUNE_PROFILE=$run-tuned.prof smpi "$c" build/tests/rt-smpi/cg $app_args >/dev/null
    echo "# per point: seconds in the app (the profiles), without and with, and the predicted saving"
    build/autotune profile "$prof" -r "$run" -n 1000 | awk -v tuned="$run-tuned.prof" '
        BEGIN { while ((getline line < tuned) > 0) { split(line, f, " ")
                    if (line !~ /^#/ && f[6] != "") t[f[1] " " f[2] " " f[4]] = f[6] } }
        $1 ~ /^[a-z]+$/ && NF == 14 && ($1 " " $2 " " $4) in t {
            k = $1 " " $2 " " $4
            printf "    %-10s %4d %8d  without %.6f s  with %.6f s  saved %+.6f s  predicted %.6f s\n",
                $1, $2, $4, $6, t[k], $6 - t[k], $14 }'
    awk -v c="$c" -v w="$without" -v t="$with" -v s="$saved" 'BEGIN {
        measured = w - t; predicted_t = w - s
        off = measured > 0 ? 100 * (s - measured) / measured : 0
        verdict = t <= w ? "not slower" : "SLOWER"
        printf "%s: app time without %.6f s, with %.6f s: measured speedup %.4fx (%.6f s saved)\n", c, w, t, w / t, measured
        printf "%s: predicted from the profile and the run: %.6f s saved, speedup %.4fx\n", c, s, w / predicted_t
        printf "%s: predicted against measured: time with libautotune %+.2f %%, speedup %+.2f %%, saving %+.1f %%; tuned run %s\n", c,
            100 * (predicted_t - t) / t, 100 * ((w / predicted_t) - (w / t)) / (w / t),
            off, verdict
    }'
done
} | tee "$out"
