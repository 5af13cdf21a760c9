#!/usr/bin/env bash
# grid = "adaptive" with search = "model" under SMPI: the walk follows the
# corrected predictor (the calibration's times corrected by what it
# measured); killed (kill -9) at a third of its records and resumed, it
# ends byte-identical to an uninterrupted sweep; it measures part of the
# grid, and every inferred point carries a predicted time; inferred.csv
# lists exactly the inferred points, each with its uncertainty and the
# penalty its method may lose. The same for the walk that starts from
# the model (grid_options.start = "model"), which measures at most its
# budget's points.
set -u
. "$(dirname "$0")/lib.sh"
command -v smpirun >/dev/null || { echo "smpirun not found (./setup.sh installs simgrid)"; exit 77; }
np=9
points=$((8 * 17))
smpi() { # NP ARGS...
    local n=$1
    shift
    smpirun -np "$n" -platform conf/platforms/grig.xml --cfg=smpi/simulate-computation:no \
        --log=root.thres:critical build/autotune-smpi "$@"
}
write_cfg() { # NAME GRID_OPTIONS
    cat > "$tmp/$1.cfg" <<CFG
output        = "$tmp/$1";
collectives   = ["bcast"];
procs         = [2, 3, 4, 5, 6, 7, 8, 9];
message_sizes = { min = 1; max = 65536; factor = 2; };
segment_sizes = [0, 1024, 8192];
algorithms    = { bcast = ["linear", "binomial", "pipeline", "split_binary", "scatter_allgather"]; };
search        = "model";
grid          = "adaptive";
grid_options  = $2;
measure       = { warmup = 0; min_reps = 1; max_reps = 1; rse = 0.5; };
baseline      = false;
CFG
}
# calibrated once, for both walks
write_cfg calib "{ max_penalty = 0.05; }"
smpi 2 model -c "$tmp/calib.cfg" > "$tmp/calib.out" 2>&1 || { cat "$tmp/calib.out"; fail "model"; }
# NAME GRID_OPTIONS LEAST MOST: the coarse grid alone is procs 2, 3, 4, 5,
# 7, 8, 9 by 1, 16, 256, 4096, 65536 B (35); the seed 3 by 4 (12), the
# budget floor(0.3 x 136) = 40
cases=('corrected|{ max_penalty = 0.05; }|35|135'
       'start|{ start = "model"; budget = 0.3; }|12|40')
for c in "${cases[@]}"; do
    IFS='|' read -r name options least most <<< "$c"
    write_cfg "$name-whole" "$options"
    write_cfg "$name-part" "$options"
    mkdir -p "$tmp/$name-whole" "$tmp/$name-part"
    cp "$tmp/calib/model.csv" "$tmp/calib/model.journal" "$tmp/$name-whole/"
    cp "$tmp/calib/model.csv" "$tmp/calib/model.journal" "$tmp/$name-part/"
    smpi $np -c "$tmp/$name-whole.cfg" > "$tmp/$name-whole.out" 2>&1 || { cat "$tmp/$name-whole.out"; fail "adaptive model sweep"; }
    opt=$tmp/$name-whole/optimal.csv
    rows=$(($(wc -l < "$opt") - 1))
    measured=$(grep -c ',1$' "$opt")
    echo "adaptive with the model ($name): $measured of $rows points measured"
    [ "$rows" -eq $points ] || fail "optimal.csv has $rows rows, expected $points"
    [ "$measured" -ge "$least" ] && [ "$measured" -le "$most" ] || fail "$name: $measured points measured"
    # every inferred point has a predicted time (column 7)
    awk -F, 'NR > 1 && $8 == 0 && !($7 > 0) { bad++ } END { exit bad > 0 }' "$opt" ||
        fail "an inferred point has no predicted time"
    # inferred.csv: the inferred rows of optimal.csv, in its order, each
    # with an uncertainty (>= 0, or -1: none) and a penalty (>= 0, inf
    # unbounded, or -1: none)
    inf=$tmp/$name-whole/inferred.csv
    [ "$(head -1 "$inf")" = "collective,procs,ppn,msg_bytes,algorithm,segment_bytes,predicted_us,uncertainty,penalty" ] ||
        fail "$name: inferred.csv's header: $(head -1 "$inf")"
    diff <(awk -F, 'NR > 1 && $8 == 0 { print $1","$2","$3","$4","$5","$6","$7 }' "$opt") \
        <(awk -F, 'NR > 1 { print $1","$2","$3","$4","$5","$6","$7 }' "$inf") > /dev/null ||
        fail "$name: inferred.csv is not optimal.csv's inferred rows"
    [ "$(($(wc -l < "$inf") - 1))" -eq $((rows - measured)) ] || fail "$name: inferred.csv's row count"
    awk -F, 'NR > 1 && !(($8 >= 0 || $8 == -1) && ($9 == "inf" || $9 >= 0 || $9 == -1)) { bad++ }
        NR > 1 && $8 >= 0 && $9 != -1 { predicted++ }
        END { exit bad > 0 || predicted == 0 }' "$inf" ||
        fail "$name: an inferred row without its uncertainty and penalty, or none predicted"
    echo "$name: inferred.csv: $(awk -F, 'NR > 1 && $9 == "inf"' "$inf" | wc -l) unbounded, $(awk -F, 'NR > 1 && $9 != "inf" && $9 > 0.10' "$inf" | wc -l) over 10 %"

    total=$(records "$tmp/$name-whole/journal")
    killed_at=$(kill_at_records "$tmp/$name-part/journal" $((total / 3)) "$tmp/$name-part1.out" \
        smpi $np -c "$tmp/$name-part.cfg")
    [ "$killed_at" -lt "$total" ] || fail "the sweep finished before it could be killed"
    smpi $np -c "$tmp/$name-part.cfg" > "$tmp/$name-part2.out" 2>&1 || { cat "$tmp/$name-part2.out"; fail "resumed sweep"; }
    echo "killed with $killed_at of $total records"
    for t in optimal.csv measurements.csv inferred.csv; do
        [ -s "$tmp/$name-whole/$t" ] && [ -s "$tmp/$name-part/$t" ] || fail "$t missing or empty"
        cmp "$tmp/$name-whole/$t" "$tmp/$name-part/$t" || fail "$t differs from the uninterrupted run"
    done
done

echo "$fails failure(s)"
[ $fails -eq 0 ]
