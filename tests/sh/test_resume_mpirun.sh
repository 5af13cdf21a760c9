#!/usr/bin/env bash
# Under Open MPI: kill one worker rank with SIGKILL mid-sweep (a node dying);
# mpirun stops the job, the journal stays whole, and the same command resumes
# without measuring again what was recorded (rank 0, ended by mpirun,
# removed its lock, or the resume takes over the lock it left). Also checks
# export.
set -u
. "$(dirname "$0")/lib.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

cat > "$tmp/t.cfg" <<CFG
output        = "$tmp/run";
collectives   = ["bcast", "reduce"];
procs         = [2, 3];
message_sizes = { min = 1; max = 65536; factor = 2; };
segment_sizes = [0, 1024, 8192];
measure       = { warmup = 1; min_reps = 5; max_reps = 20; rse = 0.02; };
CFG
mpirun -np 3 --oversubscribe build/autotune -c "$tmp/t.cfg" > "$tmp/out1" 2>&1 &
mpirun_pid=$!
# Wait for some records, then kill the rank with the highest pid (a worker).
wait_for_records "$tmp/run/journal" 20 $mpirun_pid
victim=$(pgrep -f "build/autotune -c $tmp/t.cfg" | grep -v "^$mpirun_pid\$" | sort -n | tail -1)
[ -n "$victim" ] && kill -9 "$victim"
wait $mpirun_pid
rc=$?
before=$(records "$tmp/run/journal")
echo "worker $victim killed; mpirun exit $rc; $before records on disk"
[ $rc -ne 0 ] || fail "mpirun finished normally; the kill came too late"
if grep -q "bad checksum\|malformed" "$tmp/out1"; then fail "damaged journal"; fi

mpirun -np 3 --oversubscribe build/autotune -c "$tmp/t.cfg" > "$tmp/out2" 2>&1 ||
    { cat "$tmp/out2"; fail "resumed sweep failed"; }
grep "experiments run\|baseline" "$tmp/out2"
reused=$(sed -n 's/.*, \([0-9]*\) taken from the journal.*/\1/p' "$tmp/out2")
base=$(sed -n 's/.*measured, \([0-9]*\) from the journal.*/\1/p' "$tmp/out2")
[ $((${reused:-0} + ${base:-0})) -eq "$before" ] ||
    fail "the resumed sweep reused ${reused:-0} + ${base:-0} baseline, not the $before recorded experiments"
after=$(records "$tmp/run/journal")
# mpirun ended rank 0 with SIGTERM, which it says and removes its lock
# on; or rank 0 died holding the lock, and the resume took it over.
grep -q "^autotune: interrupted: [0-9]* points done; the same command resumes" "$tmp/out1" ||
    grep -q "which held it, is gone; taking the lock over" "$tmp/out2" ||
    fail "the dead sweep's lock was neither removed nor taken over"
[ -e "$tmp/run/lock" ] && fail "the lock outlived the sweep"
rows=$(($(wc -l < "$tmp/run/optimal.csv") - 1))
[ "$rows" -eq 68 ] || fail "optimal.csv has $rows rows, expected 2 x 2 x 17 = 68"
# Every recorded method is in measurements.csv exactly once, and the
# journal holds none twice (a resume that measured a method again would
# put it in both: a count of lines cannot see that). Whole records only:
# the line being written at the kill may be torn.
[ $(($(wc -l < "$tmp/run/measurements.csv") - 1)) -le "$after" ] || fail "measurements.csv has duplicates"
dups=$(tail -n +2 "$tmp/run/measurements.csv" | cut -d, -f1-6 | sort | uniq -d)
[ -z "$dups" ] || fail "measurements.csv lists methods twice: $(echo $dups)"
dups=$(awk '/^m .* [*][0-9a-f]+$/ { print $2, $3, $4, $5, $6, $7 }' "$tmp/run/journal" | sort | uniq -d)
[ -z "$dups" ] || fail "the journal records methods twice: $(echo "$dups" | head -3 | tr '\n' ';')"

# export: csv is the optimal table; json has one object per row.
build/autotune export -r "$tmp/run" --format csv > "$tmp/x.csv" || fail "export csv"
cmp "$tmp/x.csv" "$tmp/run/optimal.csv" || fail "export csv differs from optimal.csv"
build/autotune export -r "$tmp/run" --format json -o "$tmp/x.json" || fail "export json"
# python3 parses the JSON (CI installs it: missing, the check fails).
n=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))))" "$tmp/x.json") ||
    fail "python3 could not parse the json export (is python3 installed?)"
[ "${n:-0}" -eq 68 ] || fail "export json has ${n:-no} rows"
build/autotune export -r "$tmp/run" --format xml > /dev/null 2> "$tmp/err" && fail "unknown format accepted"
grep -q -- "--format: 'xml' is not an export format (valid: csv json ompi ompi-v2 ompi-json dec mpich)" "$tmp/err" || fail "format error: $(cat "$tmp/err")"
build/autotune export -r "$tmp/none" --format csv > /dev/null 2>&1 && fail "missing run accepted"
echo "$fails failure(s)"
[ $fails -eq 0 ]
