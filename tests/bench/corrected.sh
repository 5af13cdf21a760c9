#!/usr/bin/env bash
# make bench-corrected (issue 36 item 1): the decisions held out every
# other message size (`tree -r RUN --holdout sizes`, C4.5 and the exact
# decision, bcast and reduce), before (the measured times interpolated in
# log-log space between two training sizes) and after (the model's times
# corrected by the residuals measured at the two sizes: --model, the
# run's own platform's calibration), on every run with a calibration:
#   robust-NN   the 12 dense runs the between rules were developed on
#   heldout-NN  4 dense runs of platforms generated after them (seed 7)
#   grig, frodo the shipped default and wide runs
#   fe32        issue 37's 32-node Fast Ethernet cluster, never tuned on
#   unseen-NN   4 platforms generated after the corrected predictor was
#               written (tests/bench/corrected-sweep.sh, seed 20261128),
#               swept once, never tuned on
#   heldout2-NN, heldout3-NN  the generated fat trees of the model's
#               uplink work (tests/bench/model_uplink.sh)
#   final-NN, finalfe-NN  8 platforms generated at session 25's start,
#               before its rules were fixed (corrected-sweep.sh 4 20261129
#               final; 4 20261130 finalfe 0.08:0.2, Fast-Ethernet-like),
#               swept once, never shown to the rules' developers
#   last-NN, lastfe-NN  8 platforms generated at session 26's start
#               (corrected-sweep.sh 4 20261201 last; 4 20261202 lastfe
#               0.08:0.2), swept once, never shown to the rules' developers
#   fresh-NN, freshfe-NN  8 platforms generated at session 27's start
#               (corrected-sweep.sh 4 20261203 fresh; 4 20261204 freshfe
#               0.08:0.2), swept once, never shown to the rules' developers
#   next-NN, nextfe-NN  8 platforms generated at session 28's start
#               (corrected-sweep.sh 4 20261205 next; 4 20261206 nextfe
#               0.08:0.2), idem
#   after-NN, afterfe-NN  8 platforms generated in session 29, after its
#               rule was fixed (corrected-sweep.sh 4 20261207 after;
#               4 20261208 afterfe 0.08:0.2), idem
#   later-NN, laterfe-NN  8 platforms generated in session 30, after the
#               replay's latencies came first (corrected-sweep.sh 4
#               20261209 later; 4 20261210 laterfe 0.08:0.2), idem
#   anew-NN, anewfe-NN  8 platforms generated in session 30 after the
#               eager limit was located (4 20261211 anew; 4 20261212
#               anewfe 0.08:0.2), idem
#   onward-NN, onwardfe-NN  8 platforms generated in session 31 after a
#               segment between two measured sizes split a method's
#               correction (4 20261213 onward; 4 20261214 onwardfe
#               0.08:0.2), idem
# C4.5 twice: the defaults (-m 1, --leaves 25: the grown tree cut to 25
# leaves by penalty; C4.5's own pruning had up to 45 here; case weights by
# the penalty at stake; with --model, points past the largest training
# size from the corrected model), and -m 4. BENCH_JOBS runs at a time (2).
# Figures:
# results/bench/corrected.csv and .txt. CORRECTED_RUNS="next-01 ..."
# limits the runs; CORRECTED_OUT=PATH writes PATH.csv, PATH.txt instead.
set -eu -o pipefail
cd "$(dirname "$0")/../.."
. tests/bench/journals.sh
make -s all
mkdir -p results/bench build/bench/between
bin=build/autotune
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

out=${CORRECTED_OUT:-results/bench/corrected}
selected() { [ -z "${CORRECTED_RUNS:-}" ] || [[ " $CORRECTED_RUNS " == *" $1 "* ]]; }
# The runs: NAME:TABLES:CALIBRATION
runs=()
for xml in conf/platforms/robust/robust-*.xml conf/platforms/heldout/heldout-*.xml; do
    name=$(basename "$xml" .xml)
    selected "$name" || continue
    [ -s "results/bench-runs/$name/journal" ] || continue
    [ -s "results/bench-runs/model-$name/model.csv" ] || continue
    run_tables "$name" "build/bench/between/$name"
    runs+=("$name:build/bench/between/$name:results/bench-runs/model-$name/model.csv")
done
for name in default-grig search-grig-wide default-frodo search-frodo-wide; do
    cluster=${name#*-}
    cluster=${cluster%-wide}
    selected "$name" || continue
    runs+=("$name:results/bench-runs/$name:results/bench-runs/model-$cluster/model.csv")
done
# fe32: issue 37's 32-node Fast Ethernet cluster (never tuned on), its
# tables from the committed journal by a resumed sweep that measures nothing
if [ -s results/bench-runs/model-fe32/model.csv ] && selected fe32; then
    dir=build/bench/corrected/fe32
    if [ ! -s "$dir/optimal.csv" ]; then
        mkdir -p "$dir"
        cp results/bench-runs/fe32/journal "$dir/journal"
        sed "s#^output *=.*#output = \"$dir\";#" results/bench-runs/fe32.cfg > "$dir.cfg"
        BENCH_SWEEP=yes bench_sweep 32 results/bench-runs/fe32.xml "$dir.cfg" > /dev/null
    fi
    runs+=("fe32:$dir:results/bench-runs/model-fe32/model.csv")
fi
for xml in conf/platforms/unseen/unseen-*.xml conf/platforms/heldout2/heldout2-*.xml \
    conf/platforms/heldout3/heldout3-*.xml conf/platforms/final/final-*.xml \
    conf/platforms/finalfe/finalfe-*.xml conf/platforms/last/last-*.xml \
    conf/platforms/lastfe/lastfe-*.xml conf/platforms/fresh/fresh-*.xml \
    conf/platforms/freshfe/freshfe-*.xml conf/platforms/next/next-*.xml \
    conf/platforms/nextfe/nextfe-*.xml conf/platforms/after/after-*.xml \
    conf/platforms/afterfe/afterfe-*.xml conf/platforms/later/later-*.xml \
    conf/platforms/laterfe/laterfe-*.xml conf/platforms/anew/anew-*.xml \
    conf/platforms/anewfe/anewfe-*.xml conf/platforms/onward/onward-*.xml \
    conf/platforms/onwardfe/onwardfe-*.xml; do
    name=$(basename "$xml" .xml)
    selected "$name" || continue
    [ -s "results/bench-runs/$name/journal" ] || continue
    [ -s "results/bench-runs/model-$name/model.csv" ] || continue
    run_tables "$name" "build/bench/between/$name"
    runs+=("$name:build/bench/between/$name:results/bench-runs/model-$name/model.csv")
done


# row NAME DIR VARIANT BUILDER OPTIONS: one CSV row per collective.
row() {
    local name=$1 dir=$2 variant=$3 builder=$4 options=$5 coll cmd
    local x=$tmp/$name.$variant.$builder
    for coll in bcast reduce; do
        cmd="$bin tree -r $dir --collectives $coll $options"
        # shellcheck disable=SC2086
        nice -n 10 $cmd --holdout sizes -o "$x" > "$x.out"
        [ -s "$x.out" ]
        echo "  $cmd --holdout sizes" >> "$tmp/commands.$variant.$name"
        awk -v run="$name" -v coll="$coll" -v b="$builder" -v v="$variant" '
            / leaves, size / { leaves = $1 }
            $1 == coll && $3 == "held" { m = $8; x = $7 }
            END { printf "%s,%s,%s,%s,%s,%s,%s\n", run, coll, b, v,
                  leaves == "" ? "-" : leaves, m, x }' "$x.out"
    done
}

# run_rows I NAME:DIR:CALIBRATION: the run's 12 rows into $tmp/rows.I
run_rows() {
    local name dir model v m
    IFS=: read -r name dir model <<< "$2"
    for v in before after; do
        m=""
        [ $v = after ] && m="--model $model"
        row "$name" "$dir" $v c45 "$m"
        row "$name" "$dir" $v c45-m4 "-m 4 $m"
        row "$name" "$dir" $v exact "--exact $m"
    done > "$tmp/rows.$1"
}

# BENCH_JOBS runs at a time (2), in the runs' order in the file
jobs_max=${BENCH_JOBS:-2}
for i in "${!runs[@]}"; do
    run_rows "$i" "${runs[$i]}" &
    while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do
        wait -n || true
    done
done
wait
{
    echo "# $(date -u +%F) tests/bench/corrected.sh (make bench-corrected): held out every other message size"
    echo "run,collective,builder,variant,leaves,sizes_mean_pct,sizes_max_pct"
    for i in "${!runs[@]}"; do
        # every run's 12 rows, or no figures at all
        [ "$(wc -l < "$tmp/rows.$i")" -eq 12 ] ||
            { echo "corrected.sh: ${runs[$i]%%:*}: rows missing" >&2; exit 1; }
        cat "$tmp/rows.$i"
    done
} > "$tmp/csv"
cat "$tmp"/commands.before.* > "$tmp/commands.before"
cat "$tmp"/commands.after.* > "$tmp/commands.after"
{
    echo "# commands, for example:"
    sort -u "$tmp/commands.before" | awk 'NR <= 3 { print "#" $0 }'
    sort -u "$tmp/commands.after" | awk 'NR <= 3 { print "#" $0 }'
} >> "$tmp/csv"
mv "$tmp/csv" "$out.csv"
{
    echo "# $(date -u +%F) make bench-corrected (tests/bench/corrected.sh): held out every other message size, per family,"
    echo "# builder and variant over its runs and both collectives: the mean of the means, the worst mean and the worst max (%),"
    echo "# the most C4.5 leaves (targets: mean <= 1.5 %, max <= 20 %, C4.5 <= 25 leaves, every run and collective)"
    echo "# before: measured times interpolated between the two training sizes; after: the corrected model (--model)"
    awk -F, '/^#|^run/ { next }
        { f = $1; sub(/-[0-9]+$/, "", f); if (f ~ /grig|frodo/) f = "grig+frodo"
          if (f ~ /fe32|unseen/) f = "unseen+fe32"
          k = sprintf("%-11s %-6s %-6s %-6s", f, $2, $3, $4)
          n[k]++; s[k] += $6; if ($6 > wm[k]) wm[k] = $6; if ($7 > wx[k]) wx[k] = $7
          if ($5 != "-" && $5 > wl[k]) wl[k] = $5 }
        END { for (k in n) printf "%s n %2d  mean %5.2f  worst mean %5.2f  worst max %6.2f  most leaves %s\n",
                  k, n[k], s[k] / n[k], wm[k], wx[k], wl[k] == "" ? "-" : wl[k] }' "$out.csv" | sort
} > "$out.txt"
cat "$out.txt"
