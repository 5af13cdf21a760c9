#!/usr/bin/env bash
# make bench-model-256 (issue 15): search = "model" on 128, 192 and 256
# ranks of a 256-node stretch of Grig (conf/platforms/grig.xml with 256
# hosts: same links, same backbone), bcast and reduce, 6 message sizes
# from 1 B to 1 MiB, segments 0 and 512 B .. 64 KiB: the calibration on
# 256 ranks, the model-guided sweep start to finish (wall time), then an
# exhaustive sweep of the points it can afford (1 B, 256 B and 4 KiB at
# 128 and 256 ranks; 64 KiB at 128) and the model's penalty there.
# About half an hour of wall time on 2 cores; figures in
# results/bench/model-grig-256-sweep.txt with the commands.
set -eu
cd "$(dirname "$0")/../.."
. tests/bench/journals.sh
make -s all
dir=build/bench/model256
rm -rf "$dir"
mkdir -p "$dir" results/bench
out=results/bench/model-grig-256-sweep.txt
sed 's/radical="0-63"/radical="0-255"/' conf/platforms/grig.xml >"$dir/grig-256.xml"
# cfg NAME SEARCH PROCS SIZES: a sweep of bcast and reduce into $dir/NAME.cfg.
cfg() {
    sweep_cfg "$dir/$1.cfg" "$dir/$1" '["bcast", "reduce"]' "[$3]" "[$4]" "" "$2"
}
cfg model model "128, 192, 256" "1, 16, 256, 4096, 65536, 1048576"
cfg exhaustive exhaustive "128, 256" "1, 256, 4096"
cfg exhaustive-64k exhaustive "128" "65536"
smpi="smpirun --cfg=smpi/simulate-computation:no --log=root.thres:critical -np 256 -platform $dir/grig-256.xml build/autotune-smpi"
# timed NAME ARGS...: runs smpirun with ARGS, log in $dir/NAME.log; prints
# the wall seconds and the load average at the start.
timed() {
    local name=$1 load start
    shift
    load=$(cut -d' ' -f1 /proc/loadavg)
    start=$(date +%s)
    $smpi "$@" >"$dir/$name.log" 2>&1
    echo "$(($(date +%s) - start)) s of wall time (load $load at the start)"
}
{
    echo "# make bench-model-256 ($(date -u +%F), $(nproc) cores): tests/bench/model256.sh"
    echo "# platform: conf/platforms/grig.xml with radical 0-255 ($dir/grig-256.xml)"
    echo "# calibration: $smpi model -c $dir/model.cfg"
    echo "#   $(timed calibration model -c "$dir/model.cfg")"
    echo "#   $(tail -1 "$dir/calibration.log")"
    echo "# sweep: $smpi -c $dir/model.cfg"
    echo "#   $(timed model -c "$dir/model.cfg")"
    echo "#   $(grep ' points, ' "$dir/model.log")"
    echo "# exhaustive: $smpi -c $dir/exhaustive.cfg, then -c $dir/exhaustive-64k.cfg"
    echo "#   $(timed exhaustive -c "$dir/exhaustive.cfg")"
    echo "#   $(timed exhaustive-64k -c "$dir/exhaustive-64k.cfg")"
    echo "# the model sweep's choices (optimal.csv) and, where the exhaustive sweeps measured"
    echo "# the point, the optimum, the penalty and both strategies' experiment seconds there"
    echo "collective,procs,msg_bytes,model_choice,model_experiments,model_seconds,optimum,penalty_pct,exhaustive_experiments,exhaustive_seconds"
    awk '
        FNR == 1 { file++ }
        file <= 2 && $1 == "m" {            # the exhaustive journals
            k = $2 "," $3 "," $4
            t[k, $5 "/" $6] = $9
            if (!(k in best) || $9 < best[k]) { best[k] = $9; opt[k] = $5 "/" $6 }
            xn[k]++; xs[k] += $(NF - 1)
        }
        file == 3 && $1 == "m" {            # the model sweep journal
            k = $2 "," $3 "," $4
            mn[k]++; ms[k] += $(NF - 1)
        }
        file == 4 && FNR > 1 {              # its optimal.csv
            split($0, f, ",")
            k = f[1] "," f[2] "," f[3]
            choice = f[4] "/" f[5]
            if (k in best) {
                printf "%s,%s,%d,%.3f,%s,%.2f,%d,%.3f\n", k, choice, mn[k], ms[k], opt[k],
                       100 * (t[k, choice] / best[k] - 1), xn[k], xs[k]
            } else {
                printf "%s,%s,%d,%.3f,,,,\n", k, choice, mn[k], ms[k]
            }
        }' "$dir/exhaustive/journal" "$dir/exhaustive-64k/journal" "$dir/model/journal" \
        "$dir/model/optimal.csv"
} | tee "$out"
