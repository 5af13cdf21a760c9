#!/usr/bin/env bash
# make bench-model: the pure model's accuracy on the wide grids of both
# simulated clusters. The point-to-point parameters are measured with
# `autotune model` under smpirun on each platform (results/bench-runs/
# model-CLUSTER/, journaled: a rerun measures nothing again); predict then
# replays every method of the committed exhaustive journals
# (results/bench-runs/search-CLUSTER-wide) and compares the model's choice
# with the measured optimum. Figures in results/bench/model-CLUSTER.txt.
set -eu
cd "$(dirname "$0")/../.."
mkdir -p results/bench build/bench/model
for cluster in grig frodo; do
    model_run=results/bench-runs/model-$cluster
    cfg=$model_run.cfg
    sed "s#^output *=.*#output        = \"$model_run\";#" \
        results/bench-runs/search-$cluster-wide.cfg >"$cfg"
    calibrate="smpirun -np 2 -platform conf/platforms/$cluster.xml --cfg=smpi/simulate-computation:no --log=root.thres:critical build/autotune-smpi model -c $cfg"
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
