#!/usr/bin/env bash
# make bench-model-fattrees (issue 36.3): the pure model on every generated
# fat tree (conf/platforms/FAMILY/NAME.xml with topology FAT_TREE and a
# committed sweep results/bench-runs/NAME), each with its committed
# calibration (results/bench-runs/model-NAME). Tables: a resumed sweep of a
# copy of the sweep's journal (nothing measured). Targets: p90 <= 1.05,
# max <= 1.25 on every one. A family generated after the replay's last
# rule (HELDOUT, default "onward onwardfe") is reported apart. Figures in
# results/bench/model-fattrees.txt.
set -eu
cd "$(dirname "$0")/../.."
. tests/bench/journals.sh
out=results/bench/model-fattrees.txt
heldout=" ${HELDOUT:-onward onwardfe} "
mkdir -p build/bench/fattrees
all_row() { # RUN MODEL: predict's "all" row, without its name
    nice -n 10 build/autotune predict -r "$1" --model "$2" | awk '$1 == "all" { $1 = ""; print substr($0, 2) }'
}
# A calibration without uplink rows predates the switches' uplinks.
has_uplinks() { grep -q '^uplink,' "$1" && echo yes || echo "no (calibrated before uplinks)"; }
row() { # NAME
    local run=build/bench/fattrees/$1 model=results/bench-runs/model-$1/model.csv
    run_tables "$1" "$run" > /dev/null 2>&1
    echo "$1 | $(all_row "$run" "$model") | $(has_uplinks "$model")"
}
{
    echo "# tests/bench/model_fattrees.sh ($(date -u +%F), $(git rev-parse --short HEAD)): the pure model on every generated fat tree"
    echo "# tables: tests/bench/journals.sh run_tables NAME build/bench/fattrees/NAME (a resumed sweep of a copy of results/bench-runs/NAME)"
    echo "# prediction: build/autotune predict -r build/bench/fattrees/NAME --model results/bench-runs/model-NAME/model.csv, its all row"
    echo "# targets (issue 36): p90 <= 1.05, max <= 1.25 on every generated fat tree"
    echo "# name | points median p90 max optimal% ranking% penalty% max_pen% | uplinks calibrated"
    names=$(grep -l 'topology="FAT_TREE"' conf/platforms/*/*.xml | xargs -n 1 basename | sed 's/\.xml$//' | sort)
    late=""
    for name in $names; do
        [ -f "results/bench-runs/$name/journal" ] && [ -f "results/bench-runs/model-$name/model.csv" ] || continue
        case $heldout in *" ${name%-*} "*) late="$late $name"; continue ;; esac
        row "$name"
    done
    if [ -n "$late" ]; then
        echo "# held out: generated and swept after the replay's last rule ($heldout)"
        for name in $late; do row "$name"; done
    fi
} | tee "$out"
