#!/usr/bin/env bash
# The held-out family of issue 36 (tests/bench/corrected.sh): 4 platforms
# generated after the corrected predictor was written, never tuned on
# (tests/bench/gen-platforms.sh 4 20261128 unseen: conf/platforms/unseen/),
# each swept once (exhaustive, bcast and reduce, as the heldout-NN runs)
# into results/bench-runs/unseen-NN and calibrated (`autotune model`) into
# results/bench-runs/model-unseen-NN; and issue 37's fe32 calibrated into
# results/bench-runs/model-fe32. Journaled: a rerun measures nothing.
#   tests/bench/corrected-sweep.sh [count seed family [lo:hi]]
# sweeps another family the same way (gen-platforms.sh's arguments): the
# final families of session 25, generated before the rules they check were
# fixed and never shown to their developers, are
#   corrected-sweep.sh 4 20261129 final; corrected-sweep.sh 4 20261130 finalfe 0.08:0.2
set -eu -o pipefail
cd "$(dirname "$0")/../.."
. tests/bench/journals.sh
make -s all
count=${1:-4} seed=${2:-20261128} family=${3:-unseen}
[ -s conf/platforms/$family/$family-01.xml ] ||
    tests/bench/gen-platforms.sh "$count" "$seed" "$family" ${4:-} > /dev/null
for xml in conf/platforms/$family/$family-*.xml; do
    name=$(basename "$xml" .xml)
    nodes=$(sed -n 's/.*radical="0-\([0-9]*\)".*/\1/p' "$xml")
    for run in "$name" "model-$name"; do
        sed "s#^output *=.*#output        = \"results/bench-runs/$run\";#" \
            results/bench-runs/heldout-01.cfg > "results/bench-runs/$run.cfg"
    done
    BENCH_SWEEP=yes bench_sweep $((nodes + 1)) "$xml" "results/bench-runs/$name.cfg"
    calibrate="smpirun -np 16 -platform $xml --cfg=smpi/simulate-computation:no --log=root.thres:critical build/autotune-smpi model -c results/bench-runs/model-$name.cfg"
    echo "$calibrate"
    nice -n 10 $calibrate
done
[ "$family" = unseen ] || exit 0
sed 's#^output *=.*#output        = "results/bench-runs/model-fe32";#' \
    results/bench-runs/fe32.cfg > results/bench-runs/model-fe32.cfg
calibrate="smpirun -np 32 -platform results/bench-runs/fe32.xml --cfg=smpi/simulate-computation:no --log=root.thres:critical build/autotune-smpi model -c results/bench-runs/model-fe32.cfg"
echo "$calibrate"
nice -n 10 $calibrate
