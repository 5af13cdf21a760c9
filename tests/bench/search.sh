#!/usr/bin/env bash
# Benchmark of the search strategies (issue 3): an exhaustive sweep of bcast
# and reduce on each simulated cluster, then `autotune compare` replays every
# strategy on it. Figures go to results/bench/search-<cluster>.csv with the
# command that produced them. The journals live in results/bench-runs/, so an
# interrupted benchmark resumes where it stopped.
#   tests/bench/search.sh [small|wide|full] [cluster...]
# BENCH_SWEEP=no skips the sweep and replays the journal as it stands (the
# figures then cover the points swept so far; the file says how many).
# small: procs 2..16 (8 sizes), 1 B..1 MiB by 4, segments 0 and 512 B..64 KiB
# wide:  procs 2..64 (14 sizes, 7 of them primes), 1 B..1 MiB by 4, the same
#        segments (about an hour of CPU per cluster)
# full:  procs 2..64 (all), 1 B..1 MiB by 2, the same segments (hours of
#        CPU per cluster; it starts from the wide grid's journal when there
#        is one)
set -eu
cd "$(dirname "$0")/../.."
. tests/bench/journals.sh
scale=${1:-small}
shift || true
clusters=${*:-grig frodo}
case $scale in
small) procs="[2, 3, 4, 5, 7, 8, 13, 16]"; msgs="{ min = 1; max = 1048576; factor = 4; }"; np=16 ;;
wide)  procs="[2, 3, 4, 5, 6, 7, 8, 11, 13, 16, 24, 32, 47, 64]"; msgs="{ min = 1; max = 1048576; factor = 4; }"; np=64 ;;
full)  procs="[$(seq -s ', ' 2 64)]"; msgs="{ min = 1; max = 1048576; factor = 2; }"; np=64 ;;
*) echo "usage: $0 [small|wide|full] [cluster...]"; exit 2 ;;
esac
make -s all
mkdir -p results/bench results/bench-runs
for c in $clusters; do
    run=results/bench-runs/search-$c-$scale
    cfg=$run.cfg
    wide=results/bench-runs/search-$c-wide/journal
    if [ "$scale" = full ] && [ ! -f "$run/journal" ] && [ -f "$wide" ]; then
        # Every point of the wide grid is one of the full grid's, and the
        # journal is the sweep's cache: start from what is measured.
        mkdir -p "$run"
        cp "$wide" "$run/journal"
    fi
    sweep_cfg "$cfg" "$run" '["bcast", "reduce"]' "$procs" "$msgs"
    bench_sweep "$np" "conf/platforms/$c.xml" "$cfg"
    out=results/bench/search-$c-$scale.csv
    # compare replays a snapshot of the journal, so that a sweep may go on
    # writing it meanwhile, with the records of the sweeps of the same
    # grid run beside it (run-*, one collective or procs range each).
    snap=$(mktemp -d)
    journal_merge "$snap/journal" "$run/journal" "$run"-*/journal
    build/autotune compare -r "$snap" > "$out.tmp" 2> "$out.err" || { cat "$out.err"; exit 1; }
    total=$(awk '$1 == "p"' "$snap/journal" | wc -l)
    {
        echo "# $(date -u +%Y-%m-%d) $c ($scale grid, $total points swept so far): $sweep"
        echo "# then: build/autotune compare -r $run (on a snapshot of its journal)"
        sed 's/^/# /' "$out.err"
        cat "$out.tmp"
    } > "$out"
    rm -rf "$out.tmp" "$out.err" "$snap"
    cat "$out"
done

# Other benchmarks' exhaustive journals, when this checkout has them: the
# strategies replayed on more procs and message sizes (a copy is replayed,
# so their run directories stay as they are).
for run in results/bench-runs/default-grig; do
    [ -f "$run/journal" ] || continue
    tmp=$(mktemp -d)
    cp "$run/journal" "$tmp/journal"
    out=results/bench/search-replay-$(basename "$run").csv
    total=$(awk '$1 == "p"' "$run/journal" | wc -l)
    {
        echo "# $(date -u +%Y-%m-%d) replay of $run/journal ($total points; its config: $run.cfg)"
        echo "# build/autotune compare -r DIR, DIR holding a copy of that journal"
        build/autotune compare -r "$tmp" 2>&1
    } > "$out"
    rm -rf "$tmp"
    cat "$out"
done
