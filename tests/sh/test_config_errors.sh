#!/usr/bin/env bash
# Bad configs are refused before anything is measured or written: one line
# naming file:line and the key, a non-zero exit, no run directory created.
set -u
. "$(dirname "$0")/lib.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fails=0

good='collectives = ["bcast"];
procs = [2];
message_sizes = [1, 1024];
segment_sizes = [0, 512];'

# expect NAME 'expected stderr (a grep -E pattern)' 'config text'
expect() {
    local name=$1 pattern=$2 text=$3 cfg="$tmp/$1.cfg"
    printf 'output = "%s/out-%s";\n%s\n' "$tmp" "$name" "$text" > "$cfg"
    mpirun -np 2 build/autotune -c "$cfg" > "$tmp/out" 2> "$tmp/err"
    local rc=$?
    local first
    first=$(grep -v -E '^(-+|Primary job|a non-zero|mpirun|the job|  Process|  Exit|Per user|$)' "$tmp/err" | head -1)
    if [ $rc -eq 0 ]; then
        echo "FAIL $name: exit status 0"; fails=$((fails + 1))
    elif ! grep -q -E "$pattern" <<< "$first"; then
        echo "FAIL $name: expected /$pattern/, got: $first"; fails=$((fails + 1))
    elif [ -e "$tmp/out-$name" ] && [ "$name" != procs_world ]; then
        echo "FAIL $name: run directory was created"; fails=$((fails + 1))
    else
        echo "ok   $name: $first"
    fi
}

expect unknown_key   "$tmp/unknown_key.cfg:6: segment_size: unknown key" "$good
segment_size = [0];"
expect wrong_type    "procs.cfg|wrong_type.cfg:3: procs: expected a number of processes" 'collectives = ["bcast"];
procs = ["two"];
message_sizes = [1];
segment_sizes = [0];'
expect negative_seg  "negative_seg.cfg:5: segment_sizes: -1 is not a segment size" 'collectives = ["bcast"];
procs = [2];
message_sizes = [1];
segment_sizes = [0, -1];'
expect zero_msg      "zero_msg.cfg:4: message_sizes: 0 is not a message size" 'collectives = ["bcast"];
procs = [2];
message_sizes = [0, 8];
segment_sizes = [0];'
expect zero_procs    "zero_procs.cfg:3: procs: 0 is not a number of processes" 'collectives = ["bcast"];
procs = [0];
message_sizes = [1];
segment_sizes = [0];'
expect one_proc      "one_proc.cfg:3: procs: 1 is not a number of processes >= 2 \\(one has nothing to tune\\)" 'collectives = ["bcast"];
procs = [1, 2];
message_sizes = [1];
segment_sizes = [0];'
expect bad_factor    "bad_factor.cfg:4: message_sizes.factor: 1 is not an integer factor" 'collectives = ["bcast"];
procs = [2];
message_sizes = { min = 1; max = 64; factor = 1; };
segment_sizes = [0];'
expect unknown_alg   "unknown_alg.cfg:6: algorithms.bcast: bcast has no algorithm 'fastest' \(valid: linear" "$good
algorithms = { bcast = [\"binomial\", \"fastest\"]; };"
expect unknown_coll  "unknown_coll.cfg:2: collectives: unknown collective 'bcats'" 'collectives = ["bcats"];
procs = [2];
message_sizes = [1];
segment_sizes = [0];'
expect unknown_search "unknown_search.cfg:6: search: unknown strategy 'random' \(valid: exhaustive" "$good
search = \"random\";"
expect steep_rise "steep_rise.cfg:6: search_options.steep_rise: -0.1 is not a fraction >= 0" "$good
search_options = { steep_rise = -0.1; };"
expect grid_penalty "grid_penalty.cfg:6: grid_options.max_penalty: 0 is not a fraction > 0" "$good
grid_options = { max_penalty = 0.0; };"
expect grid_key "grid_key.cfg:6: grid_options.bound: unknown key \(valid: max_penalty, start, budget\)" "$good
grid_options = { bound = 0.1; };"
expect grid_start "grid_start.cfg:6: grid_options.start: unknown start 'coarse' \(valid: grid, model\)" "$good
grid_options = { start = \"coarse\"; };"
expect grid_budget "grid_budget.cfg:6: grid_options.budget: 1.5 is not a fraction > 0 and <= 1" "$good
grid_options = { start = \"model\"; budget = 1.5; };"
expect grid_budget_start 'grid_budget_start.cfg:6: grid_options.budget: needs start = "model" \(the walk of the coarse grid has no budget\)' "$good
grid_options = { budget = 0.1; };"
expect bad_rse       "bad_rse.cfg:6: measure.rse: 2 is not a fraction" "$good
measure = { rse = 2.0; };"
expect reps_order    "reps_order.cfg:6: measure: max_reps 3 is below min_reps 5" "$good
measure = { min_reps = 5; max_reps = 3; };"
expect arrival_name  'arrival_name.cfg:6: measure.arrival: "staggered" is not an arrival pattern \(valid: "together", "barrier", "profile" \(with profile = \.\.\.\) or \{ spread_us = 50.0; shape = "uniform"; \} with shape one of uniform, root_last, root_first, one_late\)' "$good
measure = { arrival = \"staggered\"; };"
expect arrival_profile 'arrival_profile.cfg:6: measure.arrival: "profile" needs profile = "app.prof"' "$good
measure = { arrival = \"profile\"; };"
expect arrival_type  "arrival_type.cfg:6: measure.arrival: expected a string or a group" "$good
measure = { arrival = 3; };"
expect arrival_shape 'arrival_shape.cfg:7: measure.arrival.shape: "diagonal" is not a shape \(valid: uniform, root_last, root_first, one_late\)' "$good
measure = { arrival = { spread_us = 50.0;
                        shape = \"diagonal\"; }; };"
expect arrival_spread "arrival_spread.cfg:6: measure.arrival.spread_us: -5 is not a delay in \[0, 1e\+06\] microseconds" "$good
measure = { arrival = { spread_us = -5.0; shape = \"uniform\"; }; };"
expect arrival_missing "arrival_missing.cfg:6: measure.arrival: spread_us missing" "$good
measure = { arrival = { shape = \"root_last\"; }; };"
expect arrival_key   "arrival_key.cfg:6: measure.arrival: unknown key spread \(valid: spread_us, shape\)" "$good
measure = { arrival = { spread = 5.0; shape = \"root_last\"; }; };"
expect missing_key   "missing_key.cfg: procs: missing \(required\)" 'collectives = ["bcast"];
message_sizes = [1];
segment_sizes = [0];'
expect syntax        "syntax.cfg:4: syntax error" 'collectives = ["bcast"];
procs = [2
message_sizes = [1];'
expect procs_world   "procs_world.cfg:3: procs: 4 is larger than the MPI world \(2 processes\)" 'collectives = ["bcast"];
procs = [2, 4];
message_sizes = [1];
segment_sizes = [0];'
# Integers past 32 bits are read whole (libconfig alone wraps them).
expect big_procs     "big_procs.cfg:3: procs: 4294967297 is not a number of processes" 'collectives = ["bcast"];
procs = [4294967297];
message_sizes = [1];
segment_sizes = [0];'
expect huge_msg      "huge_msg.cfg:4: message_sizes: 99999999999999999999 does not fit in 64 bits" 'collectives = ["bcast"];
procs = [2];
message_sizes = [1, 99999999999999999999];
segment_sizes = [0];'
expect int_count     "int_count.cfg:4: message_sizes: bcast at 4294967296 bytes on 2 processes needs a 4294967296-byte buffer; the algorithms count bytes in an MPI int" 'collectives = ["bcast"];
procs = [2];
message_sizes = { min = 1; max = 4294968320; factor = 2; };
segment_sizes = [0];'
expect bad_backend   "bad_backend.cfg:6: backend: unknown backend 'fast' \(valid: own, native\)" "$good
backend = \"fast\";"
expect bad_baseline  "bad_baseline.cfg:6: baseline: expected true or false" "$good
baseline = 1;"
# profile = "app.prof": the file, each of its lines, and no procs or
# message_sizes beside it.
printf 'autotune-profile 1\nranks 2\nbcast 2 1 64 10 0.5\nbcast 2 1 -8 1 0.1\n' >"$tmp/bad.prof"
printf 'autotune-profile 1\nranks 2\nbcast 2 1 64 10 0.5\n' >"$tmp/good.prof"
expect profile_missing "profile_missing.cfg:2: profile: cannot read '$tmp/none.prof'" "profile = \"$tmp/none.prof\";
segment_sizes = [0];"
expect profile_line "$tmp/bad.prof:4: msg_bytes is not a size in bytes" "profile = \"$tmp/bad.prof\";
segment_sizes = [0];"
# A profile's collective autotune does not tune: refused alike by the
# config and by `autotune profile` (which used to print it).
printf 'autotune-profile 1\nranks 2\nbcast 2 1 64 10 0.5\nbcats 2 1 8 1 0.1\n' >"$tmp/coll.prof"
expect profile_coll "^$tmp/coll.prof:4: unknown collective 'bcats'" "profile = \"$tmp/coll.prof\";
segment_sizes = [0];"
build/autotune profile "$tmp/coll.prof" >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc -ne 1 ] || [ "$(cat "$tmp/err")" != "$tmp/coll.prof:4: unknown collective 'bcats' (autotune --list names them)" ]; then
    echo "FAIL profile_coll: autotune profile exit $rc: $(cat "$tmp/err")"; fails=$((fails + 1))
else
    echo "ok   profile_coll: autotune profile: $(cat "$tmp/err")"
fi
# measure.arrival = "profile" with a profile of an older libautotune (no
# arrival line): the profile's point named by its line.
expect arrival_profile_old "^$tmp/good.prof:3: bcast on 2 ranks, 64 bytes: no arrival line, which measure.arrival = \"profile\" \(.*arrival_profile_old.cfg\) needs" "profile = \"$tmp/good.prof\";
segment_sizes = [0];
measure = { arrival = \"profile\"; };"
expect profile_procs "profile_procs.cfg:3: procs: not with profile" "profile = \"$tmp/good.prof\";
procs = [2];
segment_sizes = [0];"
expect profile_grid "profile_grid.cfg:3: grid: adaptive not with profile" "profile = \"$tmp/good.prof\";
grid = \"adaptive\";
segment_sizes = [0];"
expect profile_colls "profile_colls.cfg:3: profile: .*good.prof has no point of the configured collectives" "collectives = [\"reduce\"];
profile = \"$tmp/good.prof\";
segment_sizes = [0];"
# expect_output NAME OUTPUT 'expected first stderr line (grep -x)': a
# good config whose output cannot be used.
expect_output() {
    printf 'output = "%s";\n%s\n' "$2" "$good" > "$tmp/$1.cfg"
    if mpirun -np 2 build/autotune -c "$tmp/$1.cfg" >/dev/null 2>"$tmp/err"; then
        echo "FAIL $1: exit status 0"; fails=$((fails + 1))
    elif ! grep -qx "$3" "$tmp/err"; then
        echo "FAIL $1: $(head -1 "$tmp/err")"; fails=$((fails + 1))
    else
        echo "ok   $1: $(head -1 "$tmp/err")"
    fi
}
# An unwritable output directory: even root cannot create one under /proc.
expect_output unwritable /proc/autotune-test/run "/proc/autotune-test: cannot create directory: .*"
# An output that is a regular file: said so, not "Permission denied".
touch "$tmp/afile"
expect_output output_file "$tmp/afile" "$tmp/afile: exists and is not a directory"
# A missing file.
if mpirun -np 1 build/autotune -c "$tmp/none.cfg" >/dev/null 2>"$tmp/err" ||
   ! grep -q "none.cfg: cannot read the file" "$tmp/err"; then
    echo "FAIL missing file: $(head -1 "$tmp/err")"; fails=$((fails + 1))
else
    echo "ok   missing file"
fi
echo "$fails failure(s)"
[ $fails -eq 0 ]
