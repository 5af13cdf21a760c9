#!/usr/bin/env bash
# make bench-model-ppn (issue 34.6): the model's accuracy at many ranks per
# node. The exhaustive SMPI sweeps of make bench-ppn
# (results/bench-runs/ppn-PLAT-P-N: P ranks, N per simulated node; recorded
# as ppn 1, as they predate the ppn field: the directory name gives N) are
# joined here with their real ppn column, one run per N, and the model
# predicts every method of each at its N. Calibrations on the same
# platform (results/bench-runs/model-ppn-PLAT-*/, journaled):
#   one:  one rank on each of P hosts: no intra-node set (what the model
#         measured before issue 34; its predictions at N per node still
#         share each node's link among its ranks)
#   two:  two ranks on the first host, one on each of the P - 1 others
#         (P + 1 ranks): both sets, and the backbone and placement over P
#         nodes, as the ppn-1 sweeps ran
#   half: two ranks on each of P / 2 hosts: both sets, the backbone over
#         P / 2 nodes
# "before" is the model as it was (ppn-blind): the one calibration
# predicting every point at one rank per node. Per ppn, over the points of
# bcast, reduce, allreduce and allgather: how often the model's choice is
# the measured optimum, and the mean and max penalty of its choice
# (autotune predict's table, model/accuracy.c). Figures:
# results/bench/model-ppn.txt.
set -eu
cd "$(dirname "$0")/../.."
b=build/bench/model-ppn
rm -rf "$b"
mkdir -p "$b" results/bench
out=results/bench/model-ppn.txt
# tables SRC DST PPN: SRC's tables with the ppn column PPN after procs
tables() {
    mkdir -p "$2"
    for t in measurements.csv optimal.csv; do
        awk -F, -v OFS=, -v ppn="$3" '{ $2 = $2 OFS (NR == 1 ? "ppn" : ppn); print }' \
            "$1/$t" >"$2/$t"
    done
}
# calibrate PLAT NAME NP HOSTFILE-LINES...
calibrate() {
    local plat=$1 name=$2 np=$3
    shift 3
    local run=results/bench-runs/model-ppn-$plat-$name
    printf '%s\n' "$@" >"$run.hosts"
    sed "s#^output *=.*#output        = \"$run\";#" "results/bench-runs/ppn-$plat-1.cfg" >"$run.cfg"
    local cmd="smpirun -np $np -hostfile $run.hosts -platform conf/platforms/${plat%-*}.xml --cfg=smpi/simulate-computation:no --log=root.thres:critical build/autotune-smpi model -c $run.cfg"
    echo "# calibration $name: $cmd" >>"$out"
    nice -n 10 $cmd | sed 's/^/#   /' >>"$out"
}
# all_row RUN MODEL: predict's row over every point: optimal% mean max
all_row() {
    nice -n 10 build/autotune predict -r "$1" --model "$2" |
        awk '$1 == "all" && NF == 9 { printf "%6.1f %7.2f %7.2f", $6, $8, $9 }'
}
{
    echo "# make bench-model-ppn ($(date -u +%F)): the model at many ranks per node"
    echo "# runs: results/bench-runs/ppn-PLAT-N (exhaustive SMPI sweeps), each predicted at its real ppn N"
    echo "# prediction: build/autotune predict -r RUN --model results/bench-runs/model-ppn-PLAT-CAL/model.csv"
    echo "# columns per calibration: optimal% (the model's choice is the measured optimum),"
    echo "#   mean and max penalty (%) of its choice; before = the ppn-blind model (calibration one, every point at ppn 1)"
} >"$out"
for spec in ndr-32:1,8,32 ddr-16:1,8; do
    plat=${spec%%:*}
    procs=${plat#*-}
    host=${plat%-*}
    ones=() rest=() pairs=()
    for ((i = 0; i < procs; i++)); do ones+=("$host-$i:1"); done
    for ((i = 1; i < procs; i++)); do rest+=("$host-$i:1"); done
    for ((i = 0; i < procs / 2; i++)); do pairs+=("$host-$i:2"); done
    calibrate "$plat" one "$procs" "${ones[@]}"
    calibrate "$plat" two $((procs + 1)) "$host-0:2" "${rest[@]}"
    calibrate "$plat" half "$procs" "${pairs[@]}"
    echo "platform ppn points | before: opt% mean max | one: opt% mean max | two: opt% mean max | half: opt% mean max" >>"$out"
    for n in $(echo "${spec#*:}" | tr , " "); do
        src=results/bench-runs/ppn-$plat-$n
        tables "$src" "$b/$plat-$n" "$n"
        tables "$src" "$b/$plat-$n-blind" 1
        m=results/bench-runs/model-ppn-$plat
        points=$(($(wc -l <"$b/$plat-$n/optimal.csv") - 1))
        printf '%-8s %3s %6s | %s | %s | %s | %s\n' "$plat" "$n" "$points" \
            "$(all_row "$b/$plat-$n-blind" "$m-one/model.csv")" \
            "$(all_row "$b/$plat-$n" "$m-one/model.csv")" \
            "$(all_row "$b/$plat-$n" "$m-two/model.csv")" \
            "$(all_row "$b/$plat-$n" "$m-half/model.csv")" >>"$out"
    done
done
cat "$out"
