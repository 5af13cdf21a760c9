#!/usr/bin/env bash
# make bench-ppn-tuned (issue 34's proof, with ranks per node tuned): one
# sweep per platform over every ranks per node at once (ranks_per_node),
# bcast, reduce, allreduce and allgather, 1 B .. 1 MiB by factors of 2,
# exhaustive, one repetition (deterministic), the library's default timed
# at every point (SMPI's ompi selector). Then, per platform and ranks per
# node:
#  - the decisions held out every other message size (`tree -r --holdout
#    sizes`: the exact table and C4.5 over procs, ranks per node and size);
#  - the tuned choice against the library default (speedup.csv);
#  - SMPI's own SMP-aware algorithms, each forced for a whole sweep
#    (--cfg=smpi/COLL:ALG) and timed as the default there: the tuned
#    optimum against each, per point.
# Figures go to results/bench/ppn-tuned.txt (and .csv: one row per point
# and reference), runs to results/bench-runs/ppn-tuned-*.
#   tests/bench/ppn_tuned.sh [PLATFORM:PROCS:PPN,PPN... ...]
# default: ndr:32:1,8,32 ddr:16:1,8. BENCH_SWEEP=no only reads the runs.
set -eu
cd "$(dirname "$0")/../.."
. tests/bench/journals.sh
runs=${BENCH_RUNS:-results/bench-runs}
specs=${*:-ndr:32:1,8,32 ddr:16:1,8}
colls='["bcast", "reduce", "allreduce", "allgather"]'
msgs='{ min = 1; max = 1048576; factor = 2; }'
segs='[0, 1024, 8192, 32768]'
out=${BENCH_OUT:-results/bench/ppn-tuned}
# SMPI's algorithms that know the nodes (SMP-aware, two-level).
references="allreduce:smp_rdb allreduce:smp_rsag allreduce:smp_binomial allreduce:mvapich2_two_level allgather:smp_simple reduce:mvapich2_two_level bcast:mvapich2"
make -s all
mkdir -p results/bench "$runs"
log=$out.txt.part
: > "$log"

csv=$out.csv
echo "platform,ppn,collective,msg_bytes,reference,reference_us,tuned_us,ratio" > "$csv.part"
summary=$out.summary.part
: > "$summary"
for spec in $specs; do
    IFS=: read -r plat procs ppns <<< "$spec"
    prefix=$(cluster_prefix "$plat")
    name=ppn-tuned-$plat-$procs
    ppn_hosts "$prefix" "$procs" "$ppns" > "$runs/$name.hosts"
    ppn_config "$runs/$name.cfg" "$runs/$name" "$colls" "$procs" "$ppns"
    ppn_sweep "$name" "$plat" "$runs/$name.hosts" "$runs/$name.cfg"
    run=$runs/$name
    {
        echo
        echo "== $plat, $procs ranks, ranks per node $ppns"
        echo "held out every other message size (autotune tree -r $run --holdout sizes; penalty %: n, min, max, mean, median):"
        for kind in --exact ""; do
            # shellcheck disable=SC2086
            build/autotune tree -r "$run" $kind --holdout sizes -o "$run/held" 2> /dev/null |
                sed -n '/held out (every other/,$p' | grep -E '^(ppn [0-9]+|all) .*held out' | sed 's/^/  /'
        done
        echo "tuned against the library default (SMPI's ompi selector; speedup.csv):"
        awk -F, 'NR > 1 { k = $3; n[k]++; s[k] += $9; if ($9 > mx[k]) mx[k] = $9; if ($9 < 1) slow[k]++
                          v[k, n[k]] = $9; if (!(k in seen)) { seen[k] = 1; order[++m] = k } }
            END { for (i = 1; i <= m; i++) { k = order[i]; c = n[k]
                      for (a = 1; a <= c; a++) w[a] = v[k, a]
                      for (a = 2; a <= c; a++) for (b = a; b > 1 && w[b] < w[b - 1]; b--) { x = w[b]; w[b] = w[b - 1]; w[b - 1] = x }
                      med = c % 2 ? w[(c + 1) / 2] : (w[c / 2] + w[c / 2 + 1]) / 2
                      printf "  ppn %s: %d points, speedup median %.2fx, mean %.2fx, max %.2fx; the default faster at %d\n", k, c, med, s[k] / c, mx[k], slow[k] + 0 } }' \
            "$run/speedup.csv"
    } >> "$summary"
    for ref in $references; do
        ppn_reference "$name" "$plat" "$runs/$name.hosts" "${ref%%:*}" "${ref#*:}" "$procs" "$ppns" \
            "$run/optimal.csv" >> "$csv.part"
    done
    {
        echo "SMPI's node-aware algorithms, each forced for a whole sweep, against the tuned optimum (ratio = reference / tuned):"
        awk -F, -v plat="$plat" 'NR > 1 && $1 == plat { k = $3 " " $5 " ppn " $2; if (!(k in n)) order[++m] = k
                n[k]++; s[k] += log($8); if ($8 < 1) better[k]++; if (!(k in mn) || $8 < mn[k]) mn[k] = $8 }
            END { for (i = 1; i <= m; i++) { k = order[i]
                      printf "  %s: tuned faster at %d of %d sizes, geometric mean %.2fx, the reference at best %.2fx\n",
                          k, n[k] - better[k], n[k], exp(s[k] / n[k]), mn[k] } }' "$csv.part"
    } >> "$summary"
done
mv "$csv.part" "$csv"
{
    echo "# make bench-ppn-tuned ($(date -u +%F), $(nproc) cores): tests/bench/ppn_tuned.sh $specs"
    echo "# exhaustive search, one repetition; segments $segs; sizes $msgs; baseline SMPI's ompi selector"
    cat "$log"
    cat "$summary"
} > "$out.txt"
rm -f "$log" "$summary"
cat "$out.txt"
