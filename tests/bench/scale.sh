#!/usr/bin/env bash
# make bench-scale (issue 18): what the tool costs on large simulated
# clusters. Prints and writes to results/bench/scale.txt, with the commands:
#  1. one exhaustive point (bcast, 64 KiB, segments 0 and 4 KiB: 16
#     experiments) on conf/platforms/fattree.xml at P = 64 .. 1,024: wall
#     time, CPU time and peak memory of the whole smpirun;
#  2. the segmented linear reduce (1 MiB in 512 B segments, one experiment)
#     on conf/platforms/grig.xml at P = 8, 16, 32, 49, each run stopped
#     after SCALE_REDUCE_LIMIT_S (default 300) s of wall time;
#  3. with SCALE_SWEEP=yes, the grid of conf/fattree.cfg with smgd (bcast and reduce,
#     P = 256, 512, 1,024, 8 sizes 1 B..1 MiB) start to finish, into
#     results/bench/scale-sweep.txt (resumes from build/bench/scale/fattree).
# Wall times depend on what else the machine runs: each row says the load.
#   tests/bench/scale.sh            SCALE_PROCS="64 128" tests/bench/scale.sh
set -eu
cd "$(dirname "$0")/../.."
. tests/bench/journals.sh
make -s all
runs=build/bench/scale
out=results/bench/scale.txt
mkdir -p "$runs" results/bench
procs=${SCALE_PROCS:-64 128 256 512 1024}
limit=${SCALE_REDUCE_LIMIT_S:-300}
smpi="smpirun --cfg=smpi/simulate-computation:no --log=root.thres:critical"

load() { cut -d' ' -f1 /proc/loadavg; }

# timed LOG CMD...: runs CMD, output to LOG; prints "wall cpu peak_MB"
# (peak: the largest process's resident set, i.e. the simulation's).
timed() {
    local log=$1; shift
    /usr/bin/time -f '%e %U %S %M' -o "$log.time" "$@" > "$log" 2>&1 || true
    awk 'END { printf "%.1f %.1f %.0f", $1, $2 + $3, $4 / 1024 }' "$log.time"
}

# point_cfg P: one exhaustive point, bcast at 64 KiB, segments 0 and 4 KiB.
point_cfg() {
    sweep_cfg "$runs/point-$1.cfg" "$runs/point-$1" '["bcast"]' "[$1]" "[65536]" "[0, 4096]"
}

# reduce_cfg P: the segmented linear reduce, 1 MiB in 512 B segments.
reduce_cfg() {
    sweep_cfg "$runs/reduce-$1.cfg" "$runs/reduce-$1" '["reduce"]' "[$1]" "[1048576]" "[512]" \
        exhaustive 'algorithms    = { reduce = ["linear"]; };'
}

{
    echo "# make bench-scale ($(date -u +%F), $(nproc) cores; the machine's load"
    echo "# average (1 min) is given with each run: wall time grows with it, CPU time"
    echo "# much less; peak = largest resident set, which counts a shared page"
    echo "# once per rank that maps it: see results.md for the harness's buffers)"
    echo "#"
    echo "# 1. one exhaustive point: bcast, 64 KiB, segments 0 and 4 KiB"
    echo "#    $smpi -np P -platform conf/platforms/fattree.xml build/autotune-smpi -c $runs/point-P.cfg"
    echo "#    (config: tests/bench/scale.sh point_cfg; a fresh run each time)"
    printf "%6s %11s %8s %8s %9s %6s\n" P experiments wall_s cpu_s peak_MB load
} | tee "$out"
for p in $procs; do
    point_cfg "$p"
    rm -rf "$runs/point-$p"
    l=$(load)
    read -r wall cpu peak <<< "$(timed "$runs/point-$p.log" $smpi -np "$p" \
        -platform conf/platforms/fattree.xml build/autotune-smpi -c "$runs/point-$p.cfg")"
    n=$(sed -n 's/.* \([0-9]*\) experiments run.*/\1/p' "$runs/point-$p.log")
    printf "%6s %11s %8s %8s %9s %6s\n" "$p" "${n:-failed}" "$wall" "$cpu" "$peak" "$l" | tee -a "$out"
done

{
    echo "#"
    echo "# 2. segmented linear reduce: 1 MiB in 512 B segments, one experiment"
    echo "#    timeout $limit $smpi -np P -platform conf/platforms/grig.xml build/autotune-smpi -c $runs/reduce-P.cfg"
    printf "%6s %9s %8s %8s %9s %6s\n" P messages wall_s cpu_s peak_MB load
} | tee -a "$out"
for p in 8 16 32 49; do
    reduce_cfg "$p"
    rm -rf "$runs/reduce-$p"
    l=$(load)
    read -r wall cpu peak <<< "$(timed "$runs/reduce-$p.log" timeout "$limit" $smpi -np "$p" \
        -platform conf/platforms/grig.xml build/autotune-smpi -c "$runs/reduce-$p.cfg")"
    # Stopped: smpirun's own process is gone, and with it its figures.
    grep -q ' 1 experiments run' "$runs/reduce-$p.log" || { wall=">$limit"; cpu=-; peak=-; }
    printf "%6s %9s %8s %8s %9s %6s\n" "$p" $(((p - 1) * 2048)) "$wall" "$cpu" "$peak" "$l" | tee -a "$out"
done

if [ "${SCALE_SWEEP:-no}" = yes ]; then
    sweep_out=results/bench/scale-sweep.txt
    sed -e "s#^output .*#output        = \"$runs/fattree\";#" \
        -e 's#^search .*#search        = "smgd";#' conf/fattree.cfg > "$runs/fattree.cfg"
    cmd="$smpi -np 1024 -platform conf/platforms/fattree.xml build/autotune-smpi -c $runs/fattree.cfg"
    l=$(load)
    read -r wall cpu peak <<< "$(timed "$runs/fattree.log" $cmd)"
    {
        echo "# make bench-scale SCALE_SWEEP=yes ($(date -u +%F), $(nproc) cores, load $l at the start)"
        echo "# $cmd  (conf/fattree.cfg with search = smgd, output moved to $runs/fattree)"
        echo "wall ${wall} s, cpu ${cpu} s, peak ${peak} MB"
        grep '^autotune:' "$runs/fattree.log" || tail -3 "$runs/fattree.log"
    } | tee "$sweep_out"
fi
