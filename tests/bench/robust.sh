#!/usr/bin/env bash
# Robustness benchmark of the search strategies: on every generated cluster
# of conf/platforms/robust/ (tests/bench/gen-platforms.sh, fixed seed), an
# exhaustive sweep of bcast and reduce on a dense small grid, then every
# strategy replayed on it with the long segment list and with a short one
# users write. Figures per platform and in total go to
# results/bench/robust.csv, with the commands that produced them.
#   tests/bench/robust.sh [platform...]      (default: all of them)
# BENCH_SWEEP=no replays the journals as they stand (each row says how many
# points were swept); BENCH_RUNS=DIR sweeps into DIR instead of
# results/bench-runs (a long sweep then runs outside the checkout).
# The grid: procs every value from 2 to 16, the primes above, and the
# platform's size; messages 1 B..256 KiB by 2; segments 0 and 512 B..64 KiB
# (replayed also as 0, 1, 4 and 16 KiB).
set -eu
cd "$(dirname "$0")/../.."
. tests/bench/journals.sh
runs=${BENCH_RUNS:-results/bench-runs}
short=0,1024,4096,16384
platforms=${*:-$(cd conf/platforms/robust && ls robust-*.xml | sed 's/\.xml$//')}
make -s all
mkdir -p results/bench "$runs"

procs_of() { # the grid's procs on a cluster of $1 nodes
    local n=$1 p list=""
    for p in $(seq 2 "$n"); do
        if [ "$p" -le 16 ] || [ "$p" -eq "$n" ] || is_prime "$p"; then
            list="$list${list:+, }$p"
        fi
    done
    echo "[$list]"
}
is_prime() {
    local n=$1 d
    for ((d = 2; d * d <= n; d++)); do
        [ $((n % d)) -ne 0 ] || return 1
    done
    return 0
}

for name in $platforms; do
    xml=conf/platforms/robust/$name.xml
    [ -f "$xml" ] || { echo "robust.sh: no platform $xml" >&2; exit 2; }
    nodes=$(sed -n 's/.*radical="0-\([0-9]*\)".*/\1/p' "$xml")
    nodes=$((nodes + 1))
    run=$runs/$name
    sweep_cfg "$run.cfg" "$run" '["bcast", "reduce"]' "$(procs_of "$nodes")" \
        "{ min = 1; max = 262144; factor = 2; }"
    bench_sweep "$nodes" "$xml" "$run.cfg"
done

# The replays, from the committed journals.
out=results/bench/robust.csv
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
{
    echo "# $(date -u +%Y-%m-%d) tests/bench/robust.sh: each platform swept with"
    echo "#   smpirun -np NODES -platform conf/platforms/robust/NAME.xml --cfg=smpi/simulate-computation:no build/autotune-smpi -c results/bench-runs/NAME.cfg"
    echo "# then build/autotune compare -r (a copy of) results/bench-runs/NAME [--segments $short]"
    echo "platform,segments,swept_points,strategy,points,experiments,experiment_seconds,speedup,mean_penalty_pct,max_penalty_pct,optimal_pct"
} > "$tmp/out"
for name in $(cd conf/platforms/robust && ls robust-*.xml | sed 's/\.xml$//'); do
    journal=results/bench-runs/$name/journal
    [ -s "$journal" ] || continue
    mkdir -p "$tmp/$name"
    journal_merge "$tmp/$name/journal" "$journal"
    swept=$(awk '$1 == "p"' "$tmp/$name/journal" | wc -l)
    for segs in long short; do
        opt=""
        [ $segs = long ] || opt="--segments $short"
        build/autotune compare -r "$tmp/$name" $opt 2> "$tmp/err" |
            awk -v p="$name" -v s=$segs -v n="$swept" 'NR > 1 { print p "," s "," n "," $0 }' >> "$tmp/out" ||
            { cat "$tmp/err"; exit 1; }
    done
done
# Totals over the platforms: time summed, penalties over all points.
awk -F, '/^#|^platform/ { next }
    { k = $2 "," $4; pts[k] += $5; ex[k] += $6; s[k] += $7
      pen[k] += $9 * $5; if ($10 > mx[k]) mx[k] = $10; opt[k] += $11 * $5
      if ($4 == "exhaustive") ex_s[$2] += $7 }
    END { for (k in pts) { split(k, a, ",")
        printf "total,%s,,%s,%d,%d,%.6f,%.2f,%.3f,%.3f,%.1f\n", a[1], a[2], pts[k], ex[k], s[k],
            ex_s[a[1]] / s[k], pen[k] / pts[k], mx[k], opt[k] / pts[k] } }' "$tmp/out" |
    sort -t, -k2,2 -k4,4 > "$tmp/total"
cat "$tmp/out" "$tmp/total" > "$out"
cat "$out"
