#!/usr/bin/env bash
# The adaptive grid (grid = "adaptive", search/refine.c) replayed on the
# committed dense exhaustive journals, no new sweep: per platform, every
# strategy at the points the walk measures and at a uniform sub-grid of as
# many points, scored at every point of the grid against its exhaustive
# optimum (build/autotune compare --grid adaptive --model: search = "model"
# with each platform's calibration from make bench-model, charged).
#   results/bench/adaptive.csv         Grig and Frodo full grids (procs 2..64,
#                                      1 B..1 MiB): where the rule was developed
#   results/bench/adaptive-robust.csv  the 12 generated clusters, held out
#   results/bench/adaptive-heldout.csv the 4 clusters generated after it all
set -eu
cd "$(dirname "$0")/../.."
. tests/bench/journals.sh
make -s all
mkdir -p results/bench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

header='platform,strategy,points_total,points_measured,measured_pct,experiment_seconds,speedup,mean_penalty_pct,max_penalty_pct'

# replay OUT NAME JOURNAL...: the journals merged into one run, replayed.
replay() {
    local out=$1 name=$2
    shift 2
    mkdir -p "$tmp/$name"
    journal_merge "$tmp/$name/journal" "$@"
    # search = "model" too, with the platform's calibration (make bench-model)
    local model=results/bench-runs/model-$name/model.csv
    build/autotune compare -r "$tmp/$name" --grid adaptive --model "$model" 2> "$tmp/$name.err" |
        awk -v p="$name" 'NR > 1 { print p "," $0 }' >> "$out" ||
        { cat "$tmp/$name.err"; exit 1; }
    sed -e "s|$tmp/||" -e "s/^/# $name: /" "$tmp/$name.err" >> "$out.notes"
}

# Totals: points and seconds summed, the mean penalty over all points,
# the max of the maxima; speedup against the summed full-grid seconds.
totals() {
    awk -F, '/^#|^platform/ { next }
        { k = $2; pts[k] += $3; meas[k] += $4; s[k] += $6
          pen[k] += $8 * $3; if ($9 > mx[k]) mx[k] = $9
          if ($2 == "full") full_s += $6; order[k] = NR }
        END { for (k in pts)
            printf "total,%s,%d,%d,%.1f,%.6f,%.1f,%.3f,%.3f\n", k, pts[k], meas[k],
                100 * meas[k] / pts[k], s[k], full_s / s[k], pen[k] / pts[k], mx[k] }' "$1" |
        sort -t, -k2,2
}

# bench OUT DESCRIPTION then NAME=JOURNALS... pairs
bench() {
    local out=$1 what=$2
    shift 2
    : > "$tmp/rows"
    : > "$tmp/rows.notes"
    for spec in "$@"; do
        # shellcheck disable=SC2086
        replay "$tmp/rows" "${spec%%=*}" ${spec#*=}
    done
    {
        echo "# $(date -u +%Y-%m-%d) make bench-adaptive (tests/bench/adaptive.sh): $what"
        echo "# build/autotune compare -r RUN --grid adaptive --model results/bench-runs/model-PLATFORM/model.csv, RUN = the journals named merged (tests/bench/journals.sh journal_merge)"
        echo "# rows: full = exhaustive at every point; STRATEGY = the adaptive walk searching each point it measures with STRATEGY;"
        echo "# STRATEGY@uniform = an evenly spaced sub-grid of as many points; penalties over every point against the exhaustive optimum"
        cat "$tmp/rows.notes"
        echo "$header"
        cat "$tmp/rows"
        totals "$tmp/rows"
    } > "$out"
    cat "$out"
}

runs=results/bench-runs
bench results/bench/adaptive.csv \
    "Grig and Frodo full grids (bcast, reduce; procs 2..64, 1 B..1 MiB by 2), measured with the older barrier-separated harness; the walk's parameters were chosen on these" \
    "grig=$runs/search-grig-full/journal $runs/search-grig-full-reduce/journal $runs/search-grig-full-reduce-hi/journal" \
    "frodo=$runs/search-frodo-full/journal"

# family_specs FAMILY: NAME=JOURNAL for each committed run of the family.
family_specs() {
    local journal
    for journal in "$runs/$1"-*/journal; do
        echo "$(basename "$(dirname "$journal")")=$journal"
    done
}

mapfile -t robust < <(family_specs robust)
bench results/bench/adaptive-robust.csv \
    "the 12 generated clusters of make bench-robust (bcast, reduce; dense procs 2..16 and primes to the size, 1 B..256 KiB by 2), held out: not used to choose the walk's parameters" \
    "${robust[@]}"

mapfile -t heldout < <(family_specs heldout)
bench results/bench/adaptive-heldout.csv \
    "4 clusters generated after the walk and the model were developed (tests/bench/gen-platforms.sh 8 7 heldout: bcast, reduce; procs 2..8 (6 only on heldout-01), 11, 13, 16 and up to four larger, 1 B..256 KiB by 2), held out: never used to choose anything" \
    "${heldout[@]}"
