#!/usr/bin/env bash
# make bench-ppn (issue 34, its first measurement): what a one-rank-per-node
# table loses when applied at N ranks per node, with the tool as it is
# today. The sweep places its communicator on the ranks it is started with;
# started by smpirun -hostfile with "host:N" lines, N consecutive ranks
# share a simulated node, so a sweep of procs = P on P/N lines runs at N
# ranks per node. Per platform, one exhaustive sweep (one repetition: the
# simulation is deterministic) of bcast, reduce, allreduce and allgather,
# 1 B .. 1 MiB by 8 and 1 MiB, on P ranks at each ranks per node; then, by
# joining the runs' measurements.csv, at every N-per-node point: the
# optimum measured at 1 per node, looked up at N per node, against the
# optimum at N per node. Figures go to results/bench/ppn.csv (one row a
# point) and ppn.txt (the commands, and per platform and N: how many
# optima differ, the penalty's mean, median and max).
#   tests/bench/ppn.sh [PLATFORM:PROCS:PPN,PPN... ...]
# default: grig:16:1,8 ddr:16:1,8 ndr:32:1,8,32 ndr:64:1,8,32 (grig as issue 34 measured
# it: 8 ranks on each of its 2-core nodes, over-subscribed, which SMPI does
# not mind with simulate-computation:no). BENCH_SWEEP=no only joins the
# journals' tables as they stand; BENCH_RUNS=DIR sweeps into DIR instead
# of results/bench-runs; BENCH_SEGMENTS="[0, 512, ...]" sweeps other
# segment sizes (into other run directories); BENCH_OUT=PREFIX writes
# PREFIX.csv and PREFIX.txt instead of results/bench/ppn.*.
set -eu
cd "$(dirname "$0")/../.."
. tests/bench/journals.sh
runs=${BENCH_RUNS:-results/bench-runs}
specs=${*:-grig:16:1,8 ddr:16:1,8 ndr:32:1,8,32 ndr:64:1,8,32}
colls='["bcast", "reduce", "allreduce", "allgather"]'
msgs="[1, 8, 64, 512, 4096, 32768, 262144, 1048576]"
segs=${BENCH_SEGMENTS:-[0, 1024, 8192, 32768]}
out=${BENCH_OUT:-results/bench/ppn}
# Run directories of another segment list get a suffix of its sizes.
tag=""
[ -z "${BENCH_SEGMENTS:-}" ] || tag=-s$(echo "$segs" | tr -dc '0-9,' | tr , _)
make -s all
mkdir -p results/bench "$runs"
log=$out.txt.part
: > "$log"

# sweep PLATFORM PROCS PPN: the sweep of one (platform, ranks per node).
sweep() {
    local plat=$1 procs=$2 ppn=$3 run prefix hosts k cmd start
    run=$runs/ppn-$plat-$procs-$ppn$tag
    prefix=$(cluster_prefix "$plat") || exit 1
    hosts=$run.hosts
    : > "$hosts"
    for ((k = 0; k < procs / ppn; k++)); do
        echo "$prefix$k:$ppn" >> "$hosts"
    done
    sweep_cfg "$run.cfg" "$run" "$colls" "[$procs]" "$msgs" "$segs"
    cmd="smpirun -np $procs -hostfile $hosts -platform conf/platforms/$plat.xml --cfg=smpi/simulate-computation:no --log=root.thres:critical build/autotune-smpi -c $run.cfg"
    if [ "${BENCH_SWEEP:-yes}" != no ]; then
        echo "$cmd"
        start=$SECONDS
        nice -n 19 $cmd >/dev/null
        echo "$((SECONDS - start))" > "$run.wall"
    fi
    local wall="journal as it stands"
    [ ! -s "$run.wall" ] || wall="$(cat "$run.wall") s wall when swept"
    echo "# $plat $procs ranks, $ppn per node: $cmd ($wall)" >> "$log"
}

csv=$out.csv
echo "platform,procs,ppn,collective,msg_bytes,method_1ppn,method_ppn,time_1ppn_method_us,time_best_us,penalty" > "$csv.part"
for spec in $specs; do
    IFS=: read -r plat procs ppns <<< "$spec"
    for ppn in ${ppns//,/ }; do
        sweep "$plat" "$procs" "$ppn"
    done
    one=$runs/ppn-$plat-$procs-1$tag/measurements.csv
    for ppn in ${ppns//,/ }; do
        [ "$ppn" != 1 ] || continue
        # The best method (algorithm/segment) per point of each run, and the
        # 1-per-node best's time at N per node. Times: median_us (one
        # repetition: the simulated time).
        awk -F, -v plat="$plat" -v procs="$procs" -v ppn="$ppn" '
            # tables with the ppn column (after procs) or without
            FNR == 1 { file++; o = $3 == "ppn"; next }
            { key = $1 "," $(3 + o); m = $(4 + o) "/" $(5 + o); t = $(8 + o) + 0 }
            file == 1 { if (!(key in b1) || t < t1[key]) { b1[key] = m; t1[key] = t } }
            file == 2 {
                tn[key, m] = t
                if (!(key in bn) || t < tb[key]) { bn[key] = m; tb[key] = t }
                if (!(key in seen)) { seen[key] = 1; order[++n] = key }
            }
            END {
                for (i = 1; i <= n; i++) {
                    key = order[i]
                    if (!(key in b1) || !((key, b1[key]) in tn)) continue
                    t = tn[key, b1[key]]
                    printf "%s,%s,%s,%s,%s,%s,%.3f,%.3f,%.4f\n", plat, procs, ppn, key,
                        b1[key], bn[key], t, tb[key], t / tb[key] - 1
                }
            }' "$one" "$runs/ppn-$plat-$procs-$ppn$tag/measurements.csv" >> "$csv.part"
    done
done
mv "$csv.part" "$csv"

# summary: per platform and N, over the points (and, as issue 34 counted,
# over 1 B .. 256 KiB).
{
    echo "# make bench-ppn ($(date -u +%F), $(nproc) cores): ${BENCH_SEGMENTS:+BENCH_SEGMENTS=\"$segs\" }tests/bench/ppn.sh $specs"
    echo "# exhaustive search, one repetition; segments $segs; sizes $msgs"
    cat "$log"
    echo "# penalty = time at N per node of the method best at 1 per node / the best time at N per node - 1"
    for lim in 1048576 262144; do
        echo
        echo "points up to $lim B:"
        awk -F, -v lim="$lim" 'NR > 1 && $5 <= lim {
                g = $1 " " $2 " ranks, " $3 " per node"
                if (!(g in n)) order[++k] = g
                n[g]++; if ($6 != $7) d[g]++; if ($10 > 0) w[g]++
                p[g, n[g]] = $10; s[g] += $10
                if (!(g in mx) || $10 > mx[g]) { mx[g] = $10; at[g] = $4 " " $5 " B: " $6 " where " $7 " is best" }
            }
            END {
                for (i = 1; i <= k; i++) {
                    g = order[i]; c = n[g]
                    for (a = 1; a <= c; a++) v[a] = p[g, a]
                    for (a = 2; a <= c; a++) for (b = a; b > 1 && v[b] < v[b - 1]; b--) { x = v[b]; v[b] = v[b - 1]; v[b - 1] = x }
                    med = c % 2 ? v[(c + 1) / 2] : (v[c / 2] + v[c / 2 + 1]) / 2
                    printf "  %s: optimum differs at %d of %d points (the 1-per-node one slower at %d); penalty mean %.1f %%, median %.1f %%, max %.2fx (%s)\n",
                        g, d[g] + 0, c, w[g] + 0, 100 * s[g] / c, 100 * med, 1 + mx[g], at[g]
                }
            }' "$csv"
    done
} > "$out.txt"
rm -f "$log"
cat "$out.txt"
