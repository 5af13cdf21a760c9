#!/usr/bin/env bash
# Progress and plan on a simulated sweep: inside a point, progress names the
# experiments done and the method being timed; `plan` counts the
# experiments an exhaustive sweep runs, and estimates what is left of a
# larger grid from the journal, saying the seconds are simulated.
set -u
. "$(dirname "$0")/lib.sh"
command -v smpirun >/dev/null || { echo "smpirun not found (apt-get install libsimgrid-dev)"; exit 77; }

write_cfg() { # NAME PROCS MAX
    cat > "$tmp/$1.cfg" <<CFG
output        = "$tmp/run";
collectives   = ["bcast", "reduce"];
procs         = $2;
message_sizes = { min = 1; max = $3; factor = 16; };
segment_sizes = [0, 1024];
measure       = { warmup = 1; min_reps = 3; max_reps = 10; rse = 0.05; };
CFG
}
write_cfg small "[2, 4]" 4096
write_cfg large "[2, 4, 8]" 65536
field() { sed -n "s/^$1: *\\([0-9]*\\) .*/\\1/p" "$2"; }

build/autotune plan -c "$tmp/small.cfg" > "$tmp/plan-before" || fail "plan before the sweep"
grep -q "^estimate: *none: $tmp/run/journal does not exist" "$tmp/plan-before" ||
    fail "plan before the sweep: $(cat "$tmp/plan-before")"
planned=$(field experiments "$tmp/plan-before")

AUTOTUNE_PROGRESS_INTERVAL=0 smpirun -np 4 -platform conf/platforms/grig.xml \
    --cfg=smpi/simulate-computation:no --log=root.thres:critical \
    build/autotune-smpi -c "$tmp/small.cfg" > "$tmp/out" 2> "$tmp/err" ||
    { cat "$tmp/out" "$tmp/err"; fail "the sweep"; }

# With no interval, every experiment that starts prints a line: at least
# one per point, naming the point, the experiments done and the method.
inside=$(grep -c -E '^\[autotune\] [0-9]+/16 points .* (bcast|reduce) P=[24] [0-9]+ B: [0-9]+ experiments? done, timing [a-z_]+/[0-9]+  elapsed [0-9:]+  left ~' "$tmp/err")
[ "$inside" -ge 16 ] || fail "progress inside points: $inside lines"
grep -q -E 'bcast P=4 4096 B: 0 experiments done, timing linear/0' "$tmp/err" ||
    fail "no line for the first experiment of bcast P=4 4096 B"
grep -q -E 'bcast P=4 4096 B: [0-9]+ experiments done, timing pipeline/1024' "$tmp/err" ||
    fail "no line naming a segmented method"
# Once a point was measured there is an estimate.
grep -q -E '^\[autotune\] 1/16 points .* left ~[0-9]+:[0-9]{2}$' "$tmp/err" ||
    fail "no estimate after the first point"
grep -q '^\[autotune\] 16/16 points (100%)' "$tmp/err" || fail "no final line"
ran=$(sed -n 's/^autotune: 16 points, \([0-9]*\) experiments run.*/\1/p' "$tmp/out")
[ -n "$planned" ] && [ "$planned" = "$ran" ] ||
    fail "plan said $planned experiments, the exhaustive sweep ran $ran"
echo "plan: $planned experiments; the sweep ran $ran"

build/autotune plan -c "$tmp/small.cfg" > "$tmp/plan-after" || fail "plan after"
grep -q -E "^journal: +$((ran + 16)) of these $((ran + 16)) experiments recorded \([0-9.]+ simulated seconds\)" "$tmp/plan-after" ||
    fail "plan after: $(cat "$tmp/plan-after")"
grep -q "^estimate: *nothing left" "$tmp/plan-after" || fail "plan after: $(cat "$tmp/plan-after")"
grep -q -E "^searched: +16 of the 16 points complete with [a-z]+$" "$tmp/plan-after" ||
    fail "plan after: no 16 of 16 points searched: $(cat "$tmp/plan-after")"
# A segment size added after the sweep: every point's search is complete,
# and the new experiments are still counted, not "nothing left".
sed 's/segment_sizes = \[0, 1024\]/segment_sizes = [0, 256, 1024]/' "$tmp/small.cfg" > "$tmp/grown.cfg"
build/autotune plan -c "$tmp/grown.cfg" > "$tmp/plan-grown" || fail "plan grown"
n=$(sed -n 's/^estimate: *\([0-9]*\) experiments left.*/\1/p' "$tmp/plan-grown")
[ -n "$n" ] && [ "$n" -gt 0 ] &&
    grep -q "every point's search is complete: a resumed sweep times only what the config added since (algorithms, segment sizes, search options), at most the $n experiments below" "$tmp/plan-grown" ||
    fail "plan of a grown config: $(cat "$tmp/plan-grown")"

build/autotune plan -c "$tmp/large.cfg" > "$tmp/plan-large" || fail "plan large"
total=$(field experiments "$tmp/plan-large")
left=$((total + 30 - ran - 16))
grep -q -E "^estimate: +$left experiments left, about [0-9:]+ \([0-9]+ simulated seconds\)" "$tmp/plan-large" ||
    fail "plan large: expected $left left: $(cat "$tmp/plan-large")"
grep -q "every point's search is complete" "$tmp/plan-large" &&
    fail "plan large says every point's search is complete"
grep -q -E "^searched: +16 of the 30 points complete" "$tmp/plan-large" ||
    fail "plan large: not 16 of 30 points searched: $(cat "$tmp/plan-large")"
grep -q "the journal was simulated (SMPI, platform grig)" "$tmp/plan-large" ||
    fail "plan large does not say the seconds are simulated"
cat "$tmp/plan-large"

# One point of one method: singular, in plan and in the sweep.
cat > "$tmp/one.cfg" <<CFG
output        = "$tmp/one";
collectives   = ["bcast"];
procs         = [2];
message_sizes = [8];
segment_sizes = [0];
algorithms    = { bcast = ["linear"]; };
baseline      = false;
measure       = { warmup = 0; min_reps = 1; max_reps = 1; rse = 0.5; };
CFG
build/autotune plan -c "$tmp/one.cfg" > "$tmp/plan-one" || fail "plan one"
grep -q "^collectives: *bcast (1 algorithm)$" "$tmp/plan-one" &&
    grep -q "^message sizes: *8 bytes (1 size)$" "$tmp/plan-one" ||
    fail "plan of one method: $(cat "$tmp/plan-one")"
smpirun -np 2 -platform conf/platforms/grig.xml --cfg=smpi/simulate-computation:no \
    --log=root.thres:critical build/autotune-smpi -c "$tmp/one.cfg" > "$tmp/one.out" 2>&1 ||
    { cat "$tmp/one.out"; fail "the sweep of one experiment"; }
grep -q "^autotune: 1 point, 1 experiment run (" "$tmp/one.out" ||
    fail "one experiment: $(grep '^autotune: ' "$tmp/one.out" | head -1)"
sed 's/\["linear"\]/["linear", "chain"]/' "$tmp/one.cfg" > "$tmp/two.cfg"
build/autotune plan -c "$tmp/two.cfg" > "$tmp/plan-two" || fail "plan two"
grep -q "^journal: *1 of these 2 experiments recorded" "$tmp/plan-two" &&
    grep -q "at most the 1 experiment below$" "$tmp/plan-two" &&
    grep -q -E "^estimate: +1 experiment left, about" "$tmp/plan-two" ||
    fail "plan with one experiment left: $(cat "$tmp/plan-two")"
echo "$fails failure(s)"
[ $fails -eq 0 ]
