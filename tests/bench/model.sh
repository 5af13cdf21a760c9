#!/usr/bin/env bash
# make bench-model: the pure model's accuracy on the wide grids of both
# simulated clusters. The point-to-point parameters are measured with
# `autotune model` under smpirun on each platform, on as many ranks as the
# grid's largest communicator (the backbone's pairs) (results/bench-runs/
# model-CLUSTER/, journaled: a rerun measures nothing again); predict then
# replays every method of the committed exhaustive journals
# (results/bench-runs/search-CLUSTER-wide) and compares the model's choice
# with the measured optimum. Figures in results/bench/model-CLUSTER.txt.
# Then `search = "model"` replayed by compare on the same journals and on
# the 12 generated platforms (results/bench-runs/robust-NN, each calibrated
# on its own platform into results/bench-runs/model-robust-NN): figures in
# results/bench/model-search.txt.
set -eu
cd "$(dirname "$0")/../.."
mkdir -p results/bench build/bench/model
# max_procs CFG: the largest procs of a config's list.
max_procs() {
    sed -n 's/^procs *= *\[\(.*\)\];/\1/p' "$1" | tr ',' '\n' | sort -n | tail -1 | tr -d ' '
}
for cluster in grig frodo; do
    model_run=results/bench-runs/model-$cluster
    cfg=$model_run.cfg
    sed "s#^output *=.*#output        = \"$model_run\";#" \
        results/bench-runs/search-$cluster-wide.cfg >"$cfg"
    calibrate="smpirun -np $(max_procs "$cfg") -platform conf/platforms/$cluster.xml --cfg=smpi/simulate-computation:no --log=root.thres:critical build/autotune-smpi model -c $cfg"
    echo "$calibrate"
    nice -n 10 $calibrate
    # predict writes RUN/predicted.csv: a copy of the committed run's
    # tables, so the benchmark leaves them as they are.
    run=build/bench/model/$cluster
    rm -rf "$run"
    mkdir -p "$run"
    cp results/bench-runs/search-$cluster-wide/{journal,measurements.csv,optimal.csv} "$run/"
    predict="build/autotune predict -r $run --model $model_run/model.csv"
    start=$SECONDS
    out=$(nice -n 10 $predict)
    seconds=$((SECONDS - start))
    {
        echo "# make bench-model ($(date -u +%F)): the pure model on the $cluster wide grid"
        echo "# calibration: $calibrate"
        echo "# prediction ($seconds s of wall time, $(nproc) cores): $predict"
        echo "#   (run = a copy of results/bench-runs/search-$cluster-wide)"
        echo "# targets: median 1.00, p90 <= 1.05, max <= 1.25"
        echo "$out"
    } | tee results/bench/model-$cluster.txt
done

# search = "model": compare on copies of the runs (compare writes
# RUN/compare.csv), the calibration's cost charged to the model row.
search_out=results/bench/model-search.txt
{
    echo "# make bench-model ($(date -u +%F)): search = \"model\" replayed by compare"
    echo "# targets (issue 15, wide grids): speedup >= 100x (calibration included),"
    echo "#   mean penalty <= 0.5 %, max <= 5 %; issue 19: speedup >= 1/3 of the oracle's"
} >"$search_out"
replay() { # name run model.csv
    local run=build/bench/model/search-$1
    rm -rf "$run"
    cp -r "$2" "$run"
    rm -f "$run/compare.csv"
    local cmd="build/autotune compare -r $run --model $3"
    {
        echo
        echo "## $1: $cmd (run = a copy of $2)"
        nice -n 10 $cmd 2>&1 | grep -v '^compare: model:'
    } | tee -a "$search_out"
}
for cluster in grig frodo; do
    replay "$cluster-wide" "results/bench-runs/search-$cluster-wide" \
        "results/bench-runs/model-$cluster/model.csv"
done
for cfg in results/bench-runs/robust-[0-9][0-9].cfg; do
    name=$(basename "$cfg" .cfg)
    model_run=results/bench-runs/model-$name
    sed "s#^output *=.*#output        = \"$model_run\";#" "$cfg" >"$model_run.cfg"
    calibrate="smpirun -np $(max_procs "$cfg") -platform conf/platforms/robust/$name.xml --cfg=smpi/simulate-computation:no --log=root.thres:critical build/autotune-smpi model -c $model_run.cfg"
    echo "$calibrate" | tee -a "$search_out"
    nice -n 10 $calibrate
    replay "$name" "results/bench-runs/$name" "$model_run/model.csv"
done
