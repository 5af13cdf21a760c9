#!/usr/bin/env bash
# make bench-model-256 and bench-model-fattree (issues 15 and 18): search =
# "model" live on a large simulated cluster, start to finish, against
# exhaustive search at the points it can afford. Per preset (the argument):
#   grig256  conf/platforms/grig.xml stretched to 256 hosts (same links,
#            same backbone): 128, 192 and 256 ranks, 6 message sizes from
#            1 B to 1 MiB, segments 0 and 512 B .. 64 KiB; exhaustive at 1 B,
#            256 B and 4 KiB on 128 and 256 ranks, 64 KiB on 128. About half
#            an hour on 2 cores.
#   fattree  conf/platforms/fattree.xml, the grid of conf/fattree.cfg (256,
#            512 and 1,024 ranks, 8 sizes from 1 B to 1 MiB, segments 0, 1,
#            8 and 64 KiB); exhaustive at every size up to 64 KiB on 256
#            and 512 ranks, and at 1 B and 2 KiB on 1,024.
# bcast and reduce; the calibration on the platform's largest communicator;
# figures in results/bench/model-PRESET-sweep.txt with the commands.
set -eu
cd "$(dirname "$0")/../.."
. tests/bench/journals.sh
make -s all
preset=${1:-grig256}
dir=build/bench/model-$preset
rm -rf "$dir"
mkdir -p "$dir" results/bench
out=results/bench/model-$preset-sweep.txt
# cfg NAME SEARCH PROCS SIZES: a sweep of bcast and reduce into $dir/NAME.cfg.
cfg() {
    sweep_cfg "$dir/$1.cfg" "$dir/$1" '["bcast", "reduce"]' "[$3]" "[$4]" "$segments" "$2"
}
case $preset in
grig256)
    platform=$dir/grig-256.xml
    about="conf/platforms/grig.xml with radical 0-255 ($platform)"
    sed 's/radical="0-63"/radical="0-255"/' conf/platforms/grig.xml >"$platform"
    np=256
    segments=""
    cfg model model "128, 192, 256" "1, 16, 256, 4096, 65536, 1048576"
    cfg exhaustive exhaustive "128, 256" "1, 256, 4096"
    cfg exhaustive-2 exhaustive "128" "65536"
    ;;
fattree)
    platform=conf/platforms/fattree.xml
    about=$platform
    np=1024
    segments="[0, 1024, 8192, 65536]"
    cfg model model "256, 512, 1024" "1, 16, 256, 2048, 16384, 65536, 262144, 1048576"
    cfg exhaustive exhaustive "256, 512" "1, 16, 256, 2048, 16384, 65536"
    cfg exhaustive-2 exhaustive "1024" "1, 2048"
    ;;
*)
    echo "usage: $0 grig256|fattree" >&2
    exit 2
    ;;
esac
smpi="smpirun --cfg=smpi/simulate-computation:no --log=root.thres:critical -np $np -platform $platform build/autotune-smpi"
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
    echo "# tests/bench/model_sweep.sh $preset ($(date -u +%F), $(nproc) cores)"
    echo "# platform: $about"
    echo "# calibration: $smpi model -c $dir/model.cfg"
    echo "#   $(timed calibration model -c "$dir/model.cfg")"
    echo "#   $(tail -1 "$dir/calibration.log")"
    echo "# sweep: $smpi -c $dir/model.cfg"
    echo "#   $(timed model -c "$dir/model.cfg")"
    echo "#   $(grep ' points, ' "$dir/model.log")"
    echo "# exhaustive: $smpi -c $dir/exhaustive.cfg, then -c $dir/exhaustive-2.cfg"
    echo "#   $(timed exhaustive -c "$dir/exhaustive.cfg")"
    echo "#   $(timed exhaustive-2 -c "$dir/exhaustive-2.cfg")"
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
                printf "%s,%s,%d,%.6f,%s,%.2f,%d,%.6f\n", k, choice, mn[k], ms[k], opt[k],
                       100 * (t[k, choice] / best[k] - 1), xn[k], xs[k]
            } else {
                printf "%s,%s,%d,%.6f,,,,\n", k, choice, mn[k], ms[k]
            }
        }' "$dir/exhaustive/journal" "$dir/exhaustive-2/journal" "$dir/model/journal" \
        "$dir/model/optimal.csv"
} | tee "$out"
