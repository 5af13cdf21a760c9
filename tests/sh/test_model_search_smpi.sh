#!/usr/bin/env bash
# search = "model" in a live simulated sweep: refused without the
# calibration (one line naming it, no run directory made); after `autotune model` it times far
# fewer methods than exhaustive search on the same grid, and its choice at
# every point is within 5 % of the exhaustive optimum (the issue's max
# penalty); killed (kill -9) and resumed it ends byte-identical to an
# uninterrupted sweep.
set -u
. "$(dirname "$0")/lib.sh"
command -v smpirun >/dev/null || { echo "smpirun not found (./setup.sh installs simgrid)"; exit 77; }
np=8
smpi() { # NP ARGS...
    local n=$1
    shift
    smpirun -np "$n" -platform conf/platforms/grig.xml --cfg=smpi/simulate-computation:no \
        --log=root.thres:critical build/autotune-smpi "$@"
}
write_cfg() { # NAME SEARCH
    cat > "$tmp/$1.cfg" <<CFG
output        = "$tmp/$1";
collectives   = ["bcast", "reduce"];
procs         = [3, 4, 5, 8];
message_sizes = { min = 1; max = 65536; factor = 4; };
segment_sizes = [0, 1024, 8192];
search        = "$2";
measure       = { warmup = 0; min_reps = 1; max_reps = 1; rse = 0.5; };
baseline      = false;
CFG
}
write_cfg model model
write_cfg part model
write_cfg exh exhaustive

# Without its calibration the sweep says what to run, and stops.
if smpi $np -c "$tmp/model.cfg" > "$tmp/none.out" 2>&1; then
    fail "a model sweep without model.csv succeeded"
fi
grep -q "model.cfg:[0-9][0-9]*: search: \"model\" needs the calibration .*model.csv.*autotune model -c" "$tmp/none.out" ||
    fail "no line naming the missing calibration: $(head -3 "$tmp/none.out")"
[ -e "$tmp/model" ] && fail "refused, it still made the run directory: $(ls "$tmp/model" | tr '\n' ' ')"

smpi 2 model -c "$tmp/model.cfg" > "$tmp/calib.out" 2>&1 || { cat "$tmp/calib.out"; fail "model"; }
smpi $np -c "$tmp/model.cfg" > "$tmp/model.out" 2>&1 || { cat "$tmp/model.out"; fail "model sweep"; }
smpi $np -c "$tmp/exh.cfg" > "$tmp/exh.out" 2>&1 || { cat "$tmp/exh.out"; fail "exhaustive sweep"; }
grep -q 'search = "model": the calibration of' "$tmp/model.out" || fail "the sweep does not name its calibration"
experiments() { sed -n 's/.* \([0-9]*\) experiments\{0,1\} run.*/\1/p' "$1"; }
echo "model: $(experiments "$tmp/model.out") experiments, exhaustive: $(experiments "$tmp/exh.out")"
[ "$(experiments "$tmp/model.out")" -lt $(($(experiments "$tmp/exh.out") / 3)) ] ||
    fail "the model-guided sweep timed more than a third of exhaustive's experiments"

# The measured time of the model's choice at each point (from the
# exhaustive sweep's measurements) against the exhaustive optimum.
max_penalty "$tmp/exh" "$tmp/model" 0.05 ||
    fail "the model-guided choices lose more than 5 % somewhere"

# Killed at a third of its records, then resumed, with the same calibration.
mkdir -p "$tmp/part"
cp "$tmp/model/model.csv" "$tmp/model/model.journal" "$tmp/part/"
total=$(records "$tmp/model/journal")
killed_at=$(kill_at_records "$tmp/part/journal" $((total / 3)) "$tmp/part1.out" \
    smpi $np -c "$tmp/part.cfg")
[ "$killed_at" -lt "$total" ] || fail "the sweep finished before it could be killed"
smpi $np -c "$tmp/part.cfg" > "$tmp/part2.out" 2>&1 || { cat "$tmp/part2.out"; fail "resumed sweep"; }
echo "killed with $killed_at of $total records"
for t in optimal.csv measurements.csv; do
    cmp "$tmp/model/$t" "$tmp/part/$t" || fail "$t differs from the uninterrupted run"
done

# grid = "adaptive" with the model searching each point the walk measures:
# `compare --grid adaptive` on the exhaustive run replays the walk (the
# model's row charged its calibration) and measures as many points as the
# live sweep, and the same ones.
sed -e "s#$tmp/model\"#$tmp/adaptive\"#" "$tmp/model.cfg" > "$tmp/adaptive.cfg"
echo 'grid          = "adaptive";' >> "$tmp/adaptive.cfg"
mkdir -p "$tmp/adaptive"
cp "$tmp/model/model.csv" "$tmp/model/model.journal" "$tmp/adaptive/"
smpi $np -c "$tmp/adaptive.cfg" > "$tmp/adaptive.out" 2>&1 || { cat "$tmp/adaptive.out"; fail "adaptive model sweep"; }
build/autotune compare -r "$tmp/exh" --grid adaptive --model "$tmp/model/model.csv" > "$tmp/grid.out" 2>&1 ||
    { cat "$tmp/grid.out"; fail "compare --grid adaptive --model"; }
live=$(grep -c ',1$' "$tmp/adaptive/optimal.csv")
replayed=$(awk -F, '$1 == "model" { print $3 }' "$tmp/exh/grid.csv")
echo "adaptive grid with the model: $live points measured live, $replayed replayed"
[ -n "$replayed" ] && [ "$live" -eq "$replayed" ] || fail "the replay measured $replayed points, the live sweep $live"
grep -q '^model@uniform,' "$tmp/exh/grid.csv" || fail "no model@uniform row in grid.csv"
grep -q '^compare: model: .* (calibration .* s, charged to the model strategy)' "$tmp/grid.out" ||
    fail "compare --grid does not name the calibration it charged"

echo "$fails failure(s)"
[ $fails -eq 0 ]
