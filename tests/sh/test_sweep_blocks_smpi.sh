#!/usr/bin/env bash
# A sweep of scatter, gather and alltoall on a simulated cluster (eager and
# asynchronous small messages, as on real platforms): every collective gets
# its rows, segments up to P blocks are timed for the tree algorithms (they
# send whole subtrees), two_proc is not applicable beyond two ranks, and the
# csv export is the optimal table.
set -u
. "$(dirname "$0")/lib.sh"
command -v smpirun >/dev/null || { echo "smpirun not found (./setup.sh installs simgrid)"; exit 77; }

cat > "$tmp/t.cfg" <<CFG
output        = "$tmp/run";
collectives   = ["scatter", "gather", "alltoall"];
procs         = [3, 8];
message_sizes = [16, 65536];
segment_sizes = [0, 1024, 131072];
search        = "exhaustive";
measure       = { warmup = 0; min_reps = 1; max_reps = 1; rse = 0.5; };
CFG
# SMPI exits 0 after a deadlock: the summary line says the sweep ended.
smpirun -np 8 -platform conf/platforms/frodo.xml --cfg=smpi/simulate-computation:no \
    --log=root.thres:critical build/autotune-smpi -c "$tmp/t.cfg" > "$tmp/out" 2>&1 ||
    fail "sweep exit status"
cat "$tmp/out"
grep -q '^autotune: 12 points,' "$tmp/out" || fail "point count: $(grep points "$tmp/out")"
opt="$tmp/run/optimal.csv"
meas="$tmp/run/measurements.csv"
for c in scatter gather alltoall; do
    [ "$(grep -c "^$c,[38],1,\(16\|65536\)," "$opt")" -eq 4 ] || fail "$c rows: $(grep "^$c," "$opt")"
done
# A 128 KiB segment cuts the 512 KiB of 8 blocks of 64 KiB: timed.
for c in scatter gather; do
    for a in binomial chain binary; do
        grep -q "^$c,8,1,65536,$a,131072," "$meas" || fail "$c/$a/131072 not measured at P=8"
    done
done
grep -q '^alltoall,[38],1,[0-9]*,two_proc,' "$meas" && fail "two_proc measured beyond two ranks"
grep -q '^alltoall,8,1,65536,default,0,' "$meas" || fail "the library's alltoall not timed"
# Four algorithms (two_proc cannot run), and the library's default beside them.
[ "$(grep -c '^alltoall,8,1,65536,' "$meas")" -eq 5 ] ||
    fail "alltoall algorithms at P=8: $(grep '^alltoall,8,1,65536,' "$meas")"
build/autotune export -r "$tmp/run" --format csv > "$tmp/export.csv" || fail "export"
cmp -s "$tmp/export.csv" "$opt" || fail "csv export differs from optimal.csv"
echo "$fails failure(s)"
[ $fails -eq 0 ]
