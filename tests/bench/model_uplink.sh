#!/usr/bin/env bash
# make bench-model-uplink (issue 36.3): the pure model on the generated fat
# trees, before and after the replay shared the switches' uplinks. Each
# platform is calibrated with `autotune model` under smpirun on as many
# ranks as its grid's largest communicator, resumed from the committed
# calibration (results/bench-runs/model-NAME: the shipped ones' predate the
# uplinks and gain only the uplink, lane and hop_rdv rows) in
# build/bench/uplink/model-NAME; "before" is the same model.csv without
# those rows (the replay as it was: an old model.csv shares no uplink).
# Tables: a resumed sweep of a copy of results/bench-runs/NAME (nothing
# measured). Shipped (their worst points examined while developing):
# robust-04, -08, -12, heldout-04, -08; held out: heldout2-04, -08, -12
# (tests/bench/gen-platforms.sh 12 20261128 heldout2, swept once, never
# tuned against; only its fat trees are kept) and heldout3-08, -12
# (gen-platforms.sh 12 20261201 heldout3); final: final-04 and finalfe-04
# (the final held-out families' fat trees, corrected-sweep.sh). Since
# session 27 the committed calibrations of all twelve are the cheaper
# ones (make bench-calibration-cost: 64 KiB lane and uplink flows, the
# flow row), resumed here measuring nothing. Last, Grig (one switch):
# its calibration resumed must be byte for byte the committed one, and its
# predictions the same. Figures in results/bench/model-uplink.txt.
set -eu
cd "$(dirname "$0")/../.."
. tests/bench/journals.sh
out=results/bench/model-uplink.txt
dir=build/bench/uplink
mkdir -p "$dir"
rm -f "$dir/compare.txt"
max_procs() {
    sed -n 's/^procs *= *\[\(.*\)\];/\1/p' "$1" | tr ',' '\n' | sort -n | tail -1 | tr -d ' '
}
calibrate() { # NAME PLATFORM MODEL_DIR: the resumed calibration, printed
    local cfg=$3.cfg
    rm -rf "$3"
    mkdir -p "$3"
    cp "results/bench-runs/model-$1/model.journal" "$3/"
    local src=results/bench-runs/$1.cfg
    [ -f "$src" ] || src=results/bench-runs/model-$1.cfg
    sed "s#^output *=.*#output        = \"$3\";#" "$src" >"$cfg"
    cmd="smpirun -np $(max_procs "$cfg") -platform $2 --cfg=smpi/simulate-computation:no --log=root.thres:critical build/autotune-smpi model -c $cfg"
    nice -n 10 $cmd >"$3.out"
}
all_row() { # RUN MODEL: predict's "all" row, without its name
    nice -n 10 build/autotune predict -r "$1" --model "$2" | awk '$1 == "all" { $1 = ""; print substr($0, 2) }'
}
{
    echo "# tests/bench/model_uplink.sh ($(date -u +%F)): the pure model on the generated fat trees,"
    echo "# before (no uplink, lane, hop_rdv or mix rows) and after the uplinks"
    echo "# calibration: smpirun -np NP -platform conf/platforms/FAMILY/NAME.xml ... build/autotune-smpi model -c $dir/model-NAME.cfg"
    echo "#   (resumed from results/bench-runs/model-NAME/model.journal)"
    echo "# tables: a resumed sweep of a copy of results/bench-runs/NAME; prediction: build/autotune predict -r COPY --model MODEL.csv"
    echo "# targets (issue 36): p90 <= 1.05, max <= 1.25 on every generated fat tree"
    echo "# columns: points median p90 max optimal% ranking% penalty% max_pen%"
    echo "platform set | before | after | placement (after) | calibration cost s before -> after"
    for name in robust-04 robust-08 robust-12 heldout-04 heldout-08 heldout2-04 heldout2-08 heldout2-12 \
        heldout3-08 heldout3-12 final-04 finalfe-04; do
        case $name in
        heldout2-* | heldout3-*) set=held-out ;;
        final*) set=final ;;
        *) set=shipped,dev ;;
        esac
        xml=conf/platforms/${name%-*}/$name.xml
        calibrate "$name" "$xml" "$dir/model-$name"
        grep -v '^uplink,\|^lane,\|^hop_rdv,\|^mix,' "$dir/model-$name/model.csv" >"$dir/model-$name-before.csv"
        run=build/bench/model/tables-$name
        run_tables "$name" "$run"
        cost() { awk -F, 'NR > 1 { s += $7 } END { printf "%.3f", s }' "$1"; }
        echo "$name $set | $(all_row "$run" "$dir/model-$name-before.csv") | $(all_row "$run" "$dir/model-$name/model.csv") |" \
            "$(sed -n 's/^autotune model: placement: //p' "$dir/model-$name.out") |" \
            "$(cost "$dir/model-$name-before.csv") -> $(cost "$dir/model-$name/model.csv")"
        for v in before after; do
            model=$dir/model-$name/model.csv
            [ "$v" = before ] && model=$dir/model-$name-before.csv
            nice -n 10 build/autotune compare -r "$run" --model "$model" 2>/dev/null |
                awk -F, -v name="$name" -v v="$v" '$1 == "model" { printf "%s %s %s\n", name, v, $0 }'
        done >>"$dir/compare.txt"
    done
    # search = "model" replayed by compare on the same tables, the
    # calibration's cost charged.
    echo
    echo "# search = \"model\": build/autotune compare -r COPY --model MODEL.csv (model row: points,experiments,seconds,speedup,mean%,max%,optimal%)"
    cat "$dir/compare.txt"
    # Grig: one switch, nothing more measured, the same predictions. The
    # rows without their ppn column (1 on every row here; a model.csv
    # written before it has none).
    calibrate grig conf/platforms/grig.xml "$dir/model-grig"
    rows() { awk -F, 'NR == 1 { has_ppn = $2 == "ppn" } NR > 1 { print has_ppn ? $1 "," $3 "," $4 "," $5 "," $6 "," $7 : $0 }' "$1"; }
    if grep -q ' 0 observations measured now' "$dir/model-grig.out" &&
        [ -n "$(rows results/bench-runs/model-grig/model.csv)" ] &&
        [ "$(rows "$dir/model-grig/model.csv")" = "$(rows results/bench-runs/model-grig/model.csv)" ]; then
        echo "grig: the resumed calibration measured nothing; its model.csv has the committed one's rows"
    else
        echo "grig: the resumed calibration measured something or its rows DIFFER from the committed ones"
    fi
    run=$dir/grig-wide
    rm -rf "$run"
    mkdir -p "$run"
    cp results/bench-runs/search-grig-wide/{journal,measurements.csv,optimal.csv} "$run/"
    echo "grig wide (results/bench/model-grig.txt's all row, then now):"
    grep '^all' results/bench/model-grig.txt
    nice -n 10 build/autotune predict -r "$run" --model "$dir/model-grig/model.csv" | grep '^all'
} | tee "$out"
