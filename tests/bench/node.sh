#!/usr/bin/env bash
# make bench-node (issue 35's proof): node-aware methods swept beside the
# flat algorithms. Per platform and ranks per node, one exhaustive sweep
# (one repetition: the simulation is deterministic) of bcast, reduce,
# allreduce and allgather, 1 B .. 1 MiB by factors of 4, on whole nodes
# (block placement), every flat algorithm at segments 0, 8 KiB and 64 KiB,
# and node-aware methods: every inter-node algorithm and segment with the
# intra-node phases linear, binomial (unsegmented) or an 8 KiB pipeline
# (allgather: a linear or binomial gather up, a linear or binomial bcast
# down), allreduce with 4 leaders per node too;
# the library's default (SMPI's ompi selector) timed at every point. Then
# per point (results/bench/node.csv) the best node-aware method against
# the best flat one and the default, the tuned choice (either kind)
# against both; SMPI's own SMP-aware algorithms, each forced for a whole
# sweep, against the tuned choice and the best node-aware method
# (node-refs.csv); the decisions held out every other message size.
# Summary and commands in results/bench/node.txt, runs in
# results/bench-runs/node-*.
#   tests/bench/node.sh [PLATFORM:PPN:PROCS ...]
# default: ndr:32:128 ddr:32:128 ndr:8:32 ddr:8:32 (4 nodes each; the
# longest first).
# BENCH_SWEEP=no only reads the runs; BENCH_JOBS=N sweeps N at once (2).
set -eu
cd "$(dirname "$0")/../.."
. tests/bench/journals.sh
runs=${BENCH_RUNS:-results/bench-runs}
specs=${*:-ndr:32:128 ddr:32:128 ndr:8:32 ddr:8:32}
colls='["bcast", "reduce", "allreduce", "allgather"]'
msgs='{ min = 1; max = 1048576; factor = 4; }'
segs='[0, 8192, 65536]'
out=${BENCH_OUT:-results/bench/node}
algorithms='algorithms     = {
    bcast     = ["*", "node:*/*+linear/0", "node:*/*+binomial/0", "node:*/*+pipeline/8192"];
    reduce    = ["*", "node:linear/0+*/*", "node:binomial/0+*/*", "node:pipeline/8192+*/*"];
    allreduce = ["*", "node:linear/0+*/*+linear/0", "node:binomial/0+*/*+binomial/0",
                 "node:pipeline/8192+*/*+pipeline/8192", "node4:binomial/0+*/*+binomial/0"];
    allgather = ["*", "node:linear+*+linear/0", "node:linear+*+binomial/0", "node:binomial/0+*+binomial/0"];
};'
# SMPI 3.32's algorithms that know the nodes (two-level, SMP-aware): each
# takes its node size from the ranks sharing a host in the communicator
# (comm->get_intra_comm()), not from the platform's core count.
references="bcast:SMP_binomial bcast:SMP_binary bcast:SMP_linear bcast:mvapich2 reduce:mvapich2_two_level allreduce:smp_rdb allreduce:smp_rsag allreduce:smp_rsag_lr allreduce:smp_rsag_rab allreduce:smp_binomial allreduce:smp_binomial_pipeline allgather:SMP_NTS allgather:smp_simple allgather:loosely_lr"
make -s all
mkdir -p results/bench "$runs"

# prepare SPEC: sets plat, ppn, procs, name and writes its hostfile and
# config.
prepare() {
    IFS=: read -r plat ppn procs <<< "$1"
    name=node-$plat-$ppn
    ppn_hosts "$(cluster_prefix "$plat")" "$procs" "$ppn" > "$runs/$name.hosts"
    ppn_config "$runs/$name.cfg" "$runs/$name" "$colls" "$procs" "$ppn" "$algorithms"
}

# The sweeps, BENCH_JOBS at once: every main sweep, then the references
# (which need only the hostfile). Their lines go to the log below.
if [ "${BENCH_SWEEP:-yes}" != no ]; then
    log=/dev/null
    jobs_max=${BENCH_JOBS:-2}
    throttle() {
        while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; done
    }
    for spec in $specs; do
        prepare "$spec"
        throttle
        ppn_sweep "$name" "$plat" "$runs/$name.hosts" "$runs/$name.cfg" &
    done
    for spec in $specs; do
        prepare "$spec"
        for ref in $references; do
            throttle
            ppn_reference "$name" "$plat" "$runs/$name.hosts" "${ref%%:*}" "${ref#*:}" "$procs" "$ppn" \
                /dev/null > /dev/null &
        done
    done
    wait
fi

export BENCH_SWEEP=no
log=$out.txt.part
: > "$log"
csv=$out.csv
refs=$out-refs.csv
echo "platform,ppn,collective,msg_bytes,best_flat,flat_us,best_node,node_us,default_us,tuned,tuned_us" > "$csv.part"
echo "platform,ppn,collective,msg_bytes,reference,reference_us,tuned_us,ratio" > "$refs.part"
summary=$out.summary.part
: > "$summary"
# stats: "KEY VALUE" lines in, per KEY (in first-seen order) the number of
# values, their median, min and max, and how many are above 1.
stats() {
    awk '{ k = $1; if (!(k in n)) order[++m] = k; v[k, ++n[k]] = $2; if ($2 > 1.0005) up[k]++ }
        END { for (i = 1; i <= m; i++) { k = order[i]; c = n[k]
                  for (a = 1; a <= c; a++) w[a] = v[k, a]
                  for (a = 2; a <= c; a++) for (b = a; b > 1 && w[b] < w[b - 1]; b--) { x = w[b]; w[b] = w[b - 1]; w[b - 1] = x }
                  med = c % 2 ? w[(c + 1) / 2] : (w[c / 2] + w[c / 2 + 1]) / 2
                  printf "%s %d %.2f %.2f %.2f %d\n", k, c, med, w[1], w[c], up[k] + 0 } }'
}
for spec in $specs; do
    prepare "$spec"
    run=$runs/$name
    ppn_sweep "$name" "$plat" "$runs/$name.hosts" "$runs/$name.cfg"
    # Per point: the best flat and node-aware methods, the default, the
    # tuned choice (optimal.csv).
    awk -F, -v plat="$plat" '
        FNR == 1 { file++; next }
        file == 1 { k = $1 "," $3 "," $4; if (!(k in seen)) { seen[k] = 1; order[++m] = k }
                    name = $5 "/" $6
                    if ($5 == "default") def[k] = $9
                    else if ($5 ~ /^node/) { if (!(k in node) || $9 < node[k]) { node[k] = $9; nname[k] = $5 } }
                    else if (!(k in flat) || $9 < flat[k]) { flat[k] = $9; fname[k] = name } }
        file == 2 { k = $1 "," $3 "," $4; tuned[k] = $7; tname[k] = $5 ($5 ~ /^node/ ? "" : "/" $6) }
        END { for (i = 1; i <= m; i++) { k = order[i]; split(k, f, ",")
                  printf "%s,%s,%s,%s,%s,%.3f,%s,%s,%.3f,%s,%.3f\n", plat, f[2], f[1], f[3], fname[k], flat[k],
                      (k in node) ? nname[k] : "", (k in node) ? sprintf("%.3f", node[k]) : "", def[k], tname[k], tuned[k] } }' \
        "$run/measurements.csv" "$run/optimal.csv" > "$run.points"
    cat "$run.points" >> "$csv.part"
    for ref in $references; do
        ppn_reference "$name" "$plat" "$runs/$name.hosts" "${ref%%:*}" "${ref#*:}" "$procs" "$ppn" \
            "$run/optimal.csv" >> "$refs.part" 2> /dev/null
    done
    {
        echo
        echo "== $plat, $procs ranks on $((procs / ppn)) nodes of $ppn (block placement)"
        echo "best node-aware method against the best flat one (flat/node > 1: node-aware faster):"
        awk -F, '$8 != "" { print $3, $6 / $8 }' "$run.points" | stats |
            awk '{ printf "  %-9s %2d sizes: median %.2fx, min %.2fx, max %.2fx; node-aware faster at %d\n", $1, $2, $3, $4, $5, $6 }'
        echo "best node-aware method against the library default (default/node):"
        awk -F, '$8 != "" { print $3, $9 / $8 }' "$run.points" | stats |
            awk '{ printf "  %-9s %2d sizes: median %.2fx, min %.2fx, max %.2fx\n", $1, $2, $3, $4, $5 }'
        echo "the tuned choice (either kind) against the library default (default/tuned) and the best flat method (flat/tuned):"
        awk -F, '{ print $3, $9 / $11 }' "$run.points" | stats > "$run.stats1"
        awk -F, '{ print $3, $6 / $11 }' "$run.points" | stats > "$run.stats2"
        awk -F, '{ n[$3]++; if ($10 ~ /^node/) k[$3]++; if ($11 > $9 * 1.0005) slow[$3]++ }
            END { for (c in n) print c, k[c] + 0, slow[c] + 0 }' "$run.points" > "$run.stats3"
        awk 'FILENAME ~ /stats1$/ { d[$1] = $0; order[++m] = $1; next }
             FILENAME ~ /stats2$/ { f[$1] = $0; next }
             { kind[$1] = $2; slow[$1] = $3 }
             END { for (i = 1; i <= m; i++) { c = order[i]; split(d[c], a, " "); split(f[c], b, " ")
                       printf "  %-9s default/tuned median %.2fx, max %.2fx (the default faster at %d); flat/tuned median %.2fx, max %.2fx; node-aware chosen at %d of %d\n",
                           c, a[3], a[5], slow[c], b[3], b[5], kind[c], a[2] } }' \
            "$run.stats1" "$run.stats2" "$run.stats3"
        rm -f "$run.stats1" "$run.stats2" "$run.stats3"
        echo "where node-aware wins (flat/node > 1.02; bytes: best flat -> best node-aware, us):"
        awk -F, '$8 != "" && $6 / $8 > 1.02 { printf "  %-9s %7s: %s %.2f -> %s %.2f (%.2fx)\n", $3, $4, $5, $6, $7, $8, $6 / $8 }' "$run.points"
        echo "SMPI's SMP-aware algorithms, each forced for a whole sweep (ratio = reference / tuned; node = reference / best node-aware):"
        awk -F, -v plat="$plat" -v ppn="$ppn" 'NR == FNR { node[$3 "," $4] = $8; next }
            $1 == plat && $2 == ppn { k = $3 " " $5; if (!(k in n)) order[++m] = k
                n[k]++; s[k] += log($8); if ($8 < 1) better[k]++; if (!(k in mn) || $8 < mn[k]) mn[k] = $8
                if (node[$3 "," $4] != "") { nn[k]++; sn[k] += log($6 / node[$3 "," $4]) } }
            END { for (i = 1; i <= m; i++) { k = order[i]
                      printf "  %s: tuned faster at %d of %d sizes, geometric mean %.2fx, the reference at best %.2fx; against the best node-aware %.2fx\n",
                          k, n[k] - better[k], n[k], exp(s[k] / n[k]), mn[k], nn[k] ? exp(sn[k] / nn[k]) : 0 } }' \
            "$run.points" "$refs.part"
        echo "held out every other message size (autotune tree -r $run --holdout sizes; penalty %: n, min, max, mean, median):"
        for kind in --exact ""; do
            # shellcheck disable=SC2086
            build/autotune tree -r "$run" $kind --holdout sizes -o "$run/held" 2> /dev/null |
                sed -n '/held out (every other/,$p' | grep ' held out ' |
                awk '{ print "  " $0; n += $(NF - 4); s += $(NF - 4) * $(NF - 1); if ($(NF - 2) > mx) mx = $(NF - 2)
                           if (n == $(NF - 4) || $(NF - 3) < mn) mn = $(NF - 3); k = $2 }
                     END { printf "  %-30s %5d %9.2f %9.2f %9.2f\n", "all " k " held out", n, mn, mx, s / n }'
        done
    } >> "$summary"
    rm -f "$run.points"
done
mv "$csv.part" "$csv"
mv "$refs.part" "$refs"
{
    echo "# make bench-node ($(date -u +%F), $(nproc) cores): tests/bench/node.sh $specs"
    echo "# exhaustive search, one repetition; segments $segs; sizes $msgs; baseline SMPI's ompi selector"
    echo "# $algorithms" | tr -s ' \n' ' '
    echo
    echo "# SimGrid 3.32's loopback is a FATPIPE: ranks of one node copy at once without sharing memory bandwidth,"
    echo "# so intra-node contention, where node-aware methods win most on real nodes, is not simulated."
    cat "$log"
    cat "$summary"
} > "$out.txt"
rm -f "$log" "$summary"
cat "$out.txt"
