#!/usr/bin/env bash
# make bench-calibration-cost (issue 36, the adaptive grid's 300x): what
# the model's calibration (`autotune model`, bcast and reduce together,
# charged once per run) costs on the generated fat trees, before (the
# calibration committed before session 28's placement in rounds, commit
# $CALCOST_BEFORE's results/bench-runs/model-NAME/model.journal, default
# 5028e31, resumed into build/bench/calcost/before-NAME: nothing is
# measured, its placement whole; 7c4a21f's, before session 27's cheaper
# flows, gain their mix rows, at 256 KiB) and after
# (measured afresh by this build into build/bench/calcost/model-NAME),
# against the exhaustive sweep's experiment seconds (results/bench/
# adaptive-bound.txt's 0.10,NAME,total row): the factor ceiling
# exhaustive / calibration (the walk must reach 300x with its measured
# points charged too: about 450x for the calibration alone). And the pure
# model's accuracy with each (build/autotune predict's all row: p90 and
# max against the sweep's tables, targets p90 <= 1.05, max <= 1.25).
# CALCOST_FATTREES: the fat trees (default: the 14 generated ones).
# Figures in results/bench/calibration-cost.txt.
set -eu -o pipefail
cd "$(dirname "$0")/../.."
. tests/bench/journals.sh
out=results/bench/calibration-cost.txt
dir=build/bench/calcost
mkdir -p "$dir"
before_commit=${CALCOST_BEFORE:-5028e31}
fattrees=${CALCOST_FATTREES:-robust-04 robust-08 robust-12 heldout-04 heldout-08 heldout2-04 heldout2-08 heldout2-12 heldout3-08 heldout3-12 final-04 finalfe-04 last-04 lastfe-04}
max_procs() {
    sed -n 's/^procs *= *\[\(.*\)\];/\1/p' "$1" | tr ',' '\n' | sort -n | tail -1 | tr -d ' '
}
calibrate() { # NAME MODEL_DIR [JOURNAL]: a calibration on NAME's platform, afresh or resumed from JOURNAL
    local src=results/bench-runs/$1.cfg
    [ -f "$src" ] || src=results/bench-runs/model-$1.cfg
    rm -rf "$2"
    mkdir -p "$2"
    [ -z "${3:-}" ] || cp "$3" "$2/model.journal"
    sed "s#^output *=.*#output        = \"$2\";#" "$src" >"$2.cfg"
    nice -n 10 smpirun -np "$(max_procs "$2.cfg")" -platform "conf/platforms/${1%-*}/$1.xml" \
        --cfg=smpi/simulate-computation:no --log=root.thres:critical \
        build/autotune-smpi model -c "$2.cfg" >"$2.out" 2>&1
}
cost() { awk -F, 'NR > 1 { s += $7 } END { printf "%.4f", s }' "$1"; }
by_quantity() { # MODEL.csv: each quantity's seconds, the dearest first
    awk -F, 'NR > 1 && $7 > 0 { s[$1] += $7 } END { for (q in s) printf "%s %.3f\n", q, s[q] }' "$1" |
        sort -k2 -rn | awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2 }'
}
p90_max() { # RUN MODEL: predict's all row's p90/max
    nice -n 10 build/autotune predict -r "$1" --model "$2" | awk '$1 == "all" { printf "%s/%s", $4, $5 }'
}
{
    echo "# tests/bench/calibration_cost.sh ($(date -u +%F)): the model's calibration on the generated fat trees, before -> after"
    echo "# before: $before_commit's results/bench-runs/model-NAME/model.journal resumed into $dir/before-NAME (nothing measured where it holds every row); after: this build, afresh:"
    echo "#   smpirun -np NP -platform conf/platforms/FAMILY/NAME.xml --cfg=smpi/simulate-computation:no build/autotune-smpi model -c $dir/model-NAME.cfg"
    echo "# exhaustive_s: results/bench/adaptive-bound.txt (0.10,NAME,total); ceiling = exhaustive_s / calibration_s"
    echo "#   (300x needs about 450x from the calibration alone: the walk's measured points cost too)"
    echo "# model: build/autotune predict -r TABLES --model MODEL.csv, all row p90/max (targets 1.05/1.25);"
    echo "#   TABLES: a resumed sweep of a copy of results/bench-runs/NAME (tests/bench/journals.sh run_tables)"
    echo "fattree | exhaustive_s | calibration_s before -> after | ceiling before -> after | p90/max before -> after | placement after"
    for name in $fattrees; do
        git show "$before_commit:results/bench-runs/model-$name/model.journal" >"$dir/before-$name.journal"
        calibrate "$name" "$dir/before-$name" "$dir/before-$name.journal"
        calibrate "$name" "$dir/model-$name"
        run=build/bench/model/tables-$name
        run_tables "$name" "$run"
        ex=$(awk -F, -v n="$name" '$1 == "0.10" && $2 == n && $3 == "total" { print $19 }' results/bench/adaptive-bound.txt)
        before=$(cost "$dir/before-$name/model.csv")
        after=$(cost "$dir/model-$name/model.csv")
        echo "$name | $ex | $before -> $after |" \
            "$(awk -v e="$ex" -v b="$before" -v a="$after" 'BEGIN { if (e > 0) printf "%.1f -> %.1f", e / b, e / a; else printf "- -> -" }') |" \
            "$(p90_max "$run" "$dir/before-$name/model.csv") -> $(p90_max "$run" "$dir/model-$name/model.csv") |" \
            "$(sed -n 's/^autotune model: placement: //p' "$dir/model-$name.out")"
        echo "#   $name seconds before: $(by_quantity "$dir/before-$name/model.csv")"
        echo "#   $name seconds after:  $(by_quantity "$dir/model-$name/model.csv")"
    done
} | tee "$out"
