#!/usr/bin/env bash
# A sweep of allreduce, allgather and barrier on a simulated cluster: every
# collective gets its rows, the barrier at one message size (0 bytes)
# whatever message_sizes says, and the point count says so.
set -u
. "$(dirname "$0")/lib.sh"
command -v smpirun >/dev/null || { echo "smpirun not found (./setup.sh installs simgrid)"; exit 77; }

cat > "$tmp/t.cfg" <<CFG
output        = "$tmp/run";
collectives   = ["allreduce", "allgather", "barrier"];
procs         = [3, 4];
message_sizes = [16, 4096];
segment_sizes = [0, 1024];
search        = "exhaustive";
measure       = { warmup = 0; min_reps = 1; max_reps = 1; rse = 0.5; };
CFG
smpirun -np 4 -platform conf/platforms/frodo.xml --cfg=smpi/simulate-computation:no \
    --log=root.thres:critical build/autotune-smpi -c "$tmp/t.cfg" > "$tmp/out" 2>&1 ||
    { cat "$tmp/out"; fail "sweep"; }
cat "$tmp/out"
# 2 procs x 2 sizes for allreduce and allgather, 2 procs x 1 for barrier.
grep -q '^autotune: 10 points,' "$tmp/out" || fail "point count: $(grep points "$tmp/out")"
opt="$tmp/run/optimal.csv"
[ "$(grep -c '^barrier,' "$opt")" -eq 2 ] || fail "barrier rows: $(grep '^barrier,' "$opt")"
[ "$(grep -c '^barrier,[0-9]*,1,0,' "$opt")" -eq 2 ] || fail "barrier not at 0 bytes"
for c in allreduce allgather; do
    [ "$(grep -c "^$c,[34],1,\(16\|4096\)," "$opt")" -eq 4 ] || fail "$c rows: $(grep "^$c," "$opt")"
done
# Every barrier algorithm that can run at P=4 is measured, two_proc is not;
# the library's own barrier (default) is timed beside them.
[ "$(grep -c '^barrier,4,1,0,' "$tmp/run/measurements.csv")" -eq 8 ] ||
    fail "barrier measurements at P=4: $(grep '^barrier,4,' "$tmp/run/measurements.csv")"
grep -q '^barrier,4,1,0,default,0,' "$tmp/run/measurements.csv" || fail "the library's barrier not timed"
grep -q '^allgather,4,1,16,neighbor_exchange,' "$tmp/run/measurements.csv" ||
    fail "neighbor_exchange not measured at P=4"
grep -q '^allgather,3,1,[0-9]*,neighbor_exchange,' "$tmp/run/measurements.csv" &&
    fail "neighbor_exchange measured at P=3"
echo "$fails failure(s)"
[ $fails -eq 0 ]
