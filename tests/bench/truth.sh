#!/usr/bin/env bash
# `make bench-truth` (issue 38's proof, its first figure): does the speedup
# the tuner measured hold in a benchmark timed as IMB and OSU time one?
# On each cluster, one sweep of bcast, reduce, allreduce and allgather at 8
# and 16 ranks, 1 B to 1 MiB by 4, under measure.arrival = "barrier" and
# one under "together" (a common start, as before the key existed); the
# exact decision of each (export --format dec); tests/apps/imb.c (a
# barrier before each call, each rank's own time, the largest rank's mean)
# without libautotune and with each decision. Per point: the tuner's
# speedup (speedup.csv, what `report -r` summarises: default_us /
# time_us) against imb's (time without / time with), and whether they
# agree within 10 %. Twice: the library's default collectives those of
# SMPI's Open MPI selector (as in make bench-runtime), whose barrier lets
# every rank go at nearly one instant, then those of SMPI's default
# selector, whose barrier does not (the issue's figures). Figures to
# results/bench/truth.txt with the commands; the sweeps' journals are
# results/bench-runs/truth-CLUSTER-SELECTOR-PATTERN, resumed (nothing
# measured) when complete.
# Then issue 38's second and third figures: the CG mini-app and the
# stencil (tests/apps/stencil.c) tuned from their profiles with
# measure.arrival = "profile" and with a common start (runtime.sh with
# BENCH_APP and BENCH_ARRIVAL): each collective's saving, with only its
# methods tuned, against the predicted one, the total, never slower.
#   tests/bench/truth.sh [cluster...]     (default: grig frodo)
# BENCH_SELECTORS: the selectors (default "ompi default").
set -eu
cd "$(dirname "$0")/../.."
. tests/bench/journals.sh
clusters=${*:-grig frodo}
selectors=${BENCH_SELECTORS:-ompi default}
colls='["bcast", "reduce", "allreduce", "allgather"]'
sizes='{ min = 1; max = 1048576; factor = 4; }'
segments='[0, 1024, 4096, 16384, 65536]'
imb_args="-i 20 -w 2"
make -s all build/tests/rt-smpi/imb build/tests/smpi-plain/imb
mkdir -p results/bench results/bench-runs
out=results/bench/truth.txt
imb_table() { sed -n 's/^imb: \([a-z]*\) \([0-9]*\) \([0-9]*\) time_us=\([0-9.]*\) check=ok$/\1 \2 \3 \4/p'; }
{
echo "# make bench-truth ($(date -u +%F)): tests/bench/truth.sh $clusters   (selectors: $selectors)"
echo "# every run: smpirun -np NP -platform conf/platforms/CLUSTER.xml --cfg=smpi/simulate-computation:no"
echo "#            --cfg=smpi/coll-selector:SELECTOR --log=root.thres:critical PROGRAM"
echo "# imb: build/tests/smpi-plain/imb $imb_args (without), AUTOTUNE_DECISION=RUN.dec build/tests/rt-smpi/imb $imb_args (with)"
echo "# tuner: speedup.csv of the run (default_us / time_us); imb: time without / time with; off = imb / tuner - 1"
for sel in $selectors; do
export SMPI_SELECTOR=$sel
for c in $clusters; do
    pre=results/bench-runs/truth-$c-$sel
    echo "## $c, smpi/coll-selector:$sel"
    for pattern in barrier together; do
        run=$pre-$pattern
        sweep_cfg "$run.cfg" "$run" "$colls" '[8, 16]' "$sizes" "$segments"
        sed -i "s/rse = 0.5; };/rse = 0.5; arrival = \"$pattern\"; };/; s/^baseline .*/baseline      = true;/" "$run.cfg"
        echo "# smpirun -np 16 ... build/autotune-smpi -c $run.cfg   (measure.arrival = \"$pattern\"; resumed from its journal when complete)"
        smpi_run 16 "$c" build/autotune-smpi -c "$run.cfg" >/dev/null 2>&1
        build/autotune export -r "$run" --format dec -o "$run.dec" 2>/dev/null
        echo "# build/autotune report -r $run | head -7"
        build/autotune report -r "$run" | head -7 | sed 's/^/    /'
    done
    for np in 8 16; do
        smpi_run "$np" "$c" build/tests/smpi-plain/imb $imb_args | imb_table >"$pre-$np-without.imb"
        for pattern in barrier together; do
            AUTOTUNE_DECISION=$pre-$pattern.dec smpi_run "$np" "$c" build/tests/rt-smpi/imb $imb_args |
                imb_table >"$pre-$np-$pattern.imb"
        done
        echo "# $c, $sel, $np ranks: tuned under \"barrier\" | tuned under \"together\" (common start)"
        printf '    %-10s %7s  %-22s %9s %9s %7s %4s   %-22s %9s %9s %7s %4s\n' collective msg_bytes \
            method tuner imb off '10%' method tuner imb off '10%'
        awk -v np="$np" -v pre="$pre" '
            function load(file, into,    line, f) {
                while ((getline line < file) > 0) { split(line, f, " "); into[f[1] " " f[2] " " f[3]] = f[4] }
            }
            function speedups(pattern, csv,    line, f) {
                while ((getline line < csv) > 0) {
                    split(line, f, ",")
                    if (f[2] != np) continue
                    k = f[1] " " f[2] " " f[4]
                    method[pattern, k] = f[5] "/" f[6]; tuner[pattern, k] = f[9]
                    if (!(k in seen)) { seen[k] = 1; order[++n] = k }
                }
            }
            BEGIN {
                load(pre "-" np "-without.imb", without)
                load(pre "-" np "-barrier.imb", with_b)
                load(pre "-" np "-together.imb", with_t)
                speedups("b", pre "-barrier/speedup.csv")
                speedups("t", pre "-together/speedup.csv")
                for (i = 1; i <= n; i++) {
                    k = order[i]; split(k, f, " ")
                    line = sprintf("    %-10s %7d", f[1], f[3])
                    for (p = 1; p <= 2; p++) {
                        pat = p == 1 ? "b" : "t"
                        w = p == 1 ? with_b[k] : with_t[k]
                        if (!((pat, k) in tuner) || w == "" || without[k] == "") {
                            line = line sprintf("   %-22s %9s %9s %7s %4s", "-", "-", "-", "-", "-"); continue
                        }
                        s = without[k] / w; off = 100 * (s / tuner[pat, k] - 1)
                        is_in = off <= 10 && off >= -10
                        total[pat]++; inside[pat] += is_in; slower[pat] += s < 0.995
                        a = off < 0 ? -off : off
                        if (a > worst[pat]) { worst[pat] = a; worst_at[pat] = f[1] " " f[3] " B" }
                        line = line sprintf("   %-22s %8.2fx %8.2fx %+6.1f%% %4s", method[pat, k], tuner[pat, k], s, off, is_in ? "yes" : "NO")
                    }
                    print line
                }
                for (p = 1; p <= 2; p++) {
                    pat = p == 1 ? "b" : "t"
                    printf "    %d ranks, tuned under %s: imb within 10 %% of the tuner at %d of %d points; farthest %.1f %% (%s); slower than the library in imb at %d\n",
                        np, p == 1 ? "\"barrier\"" : "\"together\"", inside[pat], total[pat], worst[pat], worst_at[pat], slower[pat] + 0
                }
            }'
    done
done
done
unset SMPI_SELECTOR
# The applications, each profiled, tuned from its profile with a common
# start and under the arrival pattern it recorded, run without and with
# libautotune by runtime.sh (figures and commands in its files).
echo "## applications tuned from their profile (make bench-runtime's machinery, 16 ranks, smpi/coll-selector:ompi)"
for app in cg stencil; do
    for arrival in together profile; do
        fig=results/bench/runtime.txt
        [ "$app" = cg ] || fig=results/bench/runtime-$app.txt
        [ "$arrival" = together ] || fig=${fig%.txt}-arrival-$arrival.txt
        echo "# BENCH_APP=$app BENCH_ARRIVAL=$arrival tests/bench/runtime.sh 16 $clusters   (all of it in $fig)"
        BENCH_APP=$app BENCH_ARRIVAL=$arrival tests/bench/runtime.sh 16 $clusters >/dev/null
        sed -n -e '/^# per collective/,/^[a-z]*: total saving/{/^#/d;p}' "$fig" | sed 's/^/    /'
    done
done
} | tee "$out"
