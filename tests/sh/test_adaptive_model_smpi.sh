#!/usr/bin/env bash
# grid = "adaptive" with search = "model" under SMPI: the walk follows the
# corrected predictor (the calibration's times corrected by what it
# measured); killed (kill -9) at a third of its records and resumed, it
# ends byte-identical to an uninterrupted sweep; it measures part of the
# grid, and every inferred point carries a predicted time.
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
write_cfg() { # NAME
    cat > "$tmp/$1.cfg" <<CFG
output        = "$tmp/$1";
collectives   = ["bcast"];
procs         = [2, 3, 4, 5, 6, 7, 8, 9];
message_sizes = { min = 1; max = 65536; factor = 2; };
segment_sizes = [0, 1024, 8192];
algorithms    = { bcast = ["linear", "binomial", "pipeline", "split_binary", "scatter_allgather"]; };
search        = "model";
grid          = "adaptive";
grid_options  = { max_penalty = 0.05; };
measure       = { warmup = 0; min_reps = 1; max_reps = 1; rse = 0.5; };
baseline      = false;
CFG
}
write_cfg whole
write_cfg part
smpi 2 model -c "$tmp/whole.cfg" > "$tmp/calib.out" 2>&1 || { cat "$tmp/calib.out"; fail "model"; }
mkdir -p "$tmp/part"
cp "$tmp/whole/model.csv" "$tmp/whole/model.journal" "$tmp/part/"
smpi $np -c "$tmp/whole.cfg" > "$tmp/whole.out" 2>&1 || { cat "$tmp/whole.out"; fail "adaptive model sweep"; }
opt=$tmp/whole/optimal.csv
rows=$(($(wc -l < "$opt") - 1))
measured=$(grep -c ',1$' "$opt")
echo "adaptive with the model: $measured of $rows points measured"
[ "$rows" -eq $points ] || fail "optimal.csv has $rows rows, expected $points"
# the coarse grid alone: procs 2, 3, 4, 5, 7, 8, 9 by 1, 16, 256, 4096, 65536 B
[ "$measured" -ge 35 ] && [ "$measured" -lt $points ] || fail "$measured points measured"
# every inferred point has a predicted time (column 7)
awk -F, 'NR > 1 && $8 == 0 && !($7 > 0) { bad++ } END { exit bad > 0 }' "$opt" ||
    fail "an inferred point has no predicted time"

total=$(records "$tmp/whole/journal")
killed_at=$(kill_at_records "$tmp/part/journal" $((total / 3)) "$tmp/part1.out" \
    smpi $np -c "$tmp/part.cfg")
[ "$killed_at" -lt "$total" ] || fail "the sweep finished before it could be killed"
smpi $np -c "$tmp/part.cfg" > "$tmp/part2.out" 2>&1 || { cat "$tmp/part2.out"; fail "resumed sweep"; }
echo "killed with $killed_at of $total records"
for t in optimal.csv measurements.csv; do
    [ -s "$tmp/whole/$t" ] && [ -s "$tmp/part/$t" ] || fail "$t missing or empty"
    cmp "$tmp/whole/$t" "$tmp/part/$t" || fail "$t differs from the uninterrupted run"
done

echo "$fails failure(s)"
[ $fails -eq 0 ]
