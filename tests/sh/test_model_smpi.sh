#!/usr/bin/env bash
# The model on a simulated cluster: `autotune model` measures the
# point-to-point parameters on the platform (not from its file) into
# model.csv, journaled (a rerun measures nothing, a cut journal is
# completed into the same table); `autotune predict` predicts every method
# an exhaustive sweep measured, says how accurate it was, and writes
# predicted times for points never measured that tree and export read as
# predictions;
# bad input is one line naming the file and line.
set -u
. "$(dirname "$0")/lib.sh"
command -v smpirun >/dev/null || { echo "smpirun not found (./setup.sh installs simgrid)"; exit 77; }
smpi() { # NP CFG ARGS...
    local np=$1
    shift
    smpirun -np "$np" -platform conf/platforms/grig.xml --cfg=smpi/simulate-computation:no \
        --log=root.thres:critical build/autotune-smpi "$@"
}
cat > "$tmp/t.cfg" <<CFG
output        = "$tmp/run";
collectives   = ["bcast", "reduce"];
procs         = [3, 4, 8];
message_sizes = [1, 4096, 65536];
segment_sizes = [0, 1024, 8192];
search        = "exhaustive";
measure       = { warmup = 0; min_reps = 1; max_reps = 1; rse = 0.5; };
baseline      = false;
CFG
smpi 8 model -c "$tmp/t.cfg" > "$tmp/model.out" 2>&1 || { cat "$tmp/model.out"; fail "model"; }
cat "$tmp/model.out"
m="$tmp/run/model.csv"
[ "$(head -1 "$m")" = "quantity,ppn,msg_bytes,pending,value_us,reps,cost_s" ] || fail "model.csv header"
# One rank on each simulated host: no two ranks share a node, so the
# intra-node set is not measured, and it says so (one line); every row is
# between two nodes (ppn 1).
grep -q "^autotune model: no rank shares rank 0's node: intra-node parameters not measured" "$tmp/model.out" ||
    fail "no line saying the intra-node set is not measured"
awk -F, 'NR > 1 && $2 != 1 { exit 1 }' "$m" || fail "a row of ppn other than 1 on one rank per host"
# 0, powers of two to 65536 / 16, and 8192 and 65536 (16 sizes): each
# with send and stream1 (from the ping-pong's first half), oneway,
# recv_late, streamK, reduce and isend at the pending counts below the
# stream's K (streams of 64 KiB at most, the flow row of pending 1: 0, 1,
# 3, 7, 15 where K is 16; 0, 1, 3, 7 at 8192 bytes, where K is 8; 0, 1 at
# 65536, where K is 2).
sizes=$(awk -F, 'NR > 1 && $1 == "oneway"' "$m" | wc -l)
[ "$sizes" -eq 16 ] || fail "$sizes sizes measured, expected 16"
# On 8 ranks, the backbone: 1 pair, then 4 at once; the placement: the
# neighbours' hops in two rounds (0-1, 2-3, 4-5, 6-7, then 1-2, 3-4, 5-6),
# all alike on Grig (one switch): one set, which may be no two neighbours
# on one switch, so rank 0's hop to each rank it has not met (6), all
# alike too, so nothing more.
[ "$(awk -F, 'NR > 1' "$m" | wc -l)" -eq $((14 * 11 + 10 + 8 + 1 + 2 + 13)) ] || fail "not 11 observations per size (10 at 8192, 8 at 65536), the flow row, 2 pairs and 13 hops"
grep -q '^flow,1,65536,1,' "$m" || fail "no flow row of the streams' 64 KiB: $(grep '^flow' "$m")"
grep -q '^pairs,1,262144,1,' "$m" && grep -q '^pairs,1,262144,4,' "$m" || fail "pairs at 1 and 4 missing"
grep -q '^streamK,1,8192,8,' "$m" && grep -q '^streamK,1,65536,2,' "$m" ||
    fail "streamK at 8192 and 65536: not 8 and 2 messages: $(grep '^streamK,1,\(8192\|65536\),' "$m")"
# Grig's one-way latency of a small message is tens of microseconds
# (its file says 66.5 us for its own ping-pong); measured, not read.
awk -F, '$1 == "oneway" && $3 == 1 { exit !($5 > 30 && $5 < 200) }' "$m" || fail "one-way 1 B: $(grep '^oneway,1,1,' "$m")"
# Resumed: nothing measured again, the same table.
cp "$m" "$tmp/model.first"
smpi 8 model -c "$tmp/t.cfg" > "$tmp/model2.out" 2>&1 || fail "model rerun"
grep -q ' 0 observations measured now' "$tmp/model2.out" || fail "rerun measured again: $(cat "$tmp/model2.out")"
cmp -s "$m" "$tmp/model.first" || fail "rerun changed model.csv"
# A journal cut in the middle (between two experiments: a cut within one
# measures it again, its cost on its first missing row) is completed into
# the same table.
head -n 101 "$tmp/run/model.journal" > "$tmp/cut" && mv "$tmp/cut" "$tmp/run/model.journal"
smpi 8 model -c "$tmp/t.cfg" > "$tmp/model3.out" 2>&1 || fail "model resume"
cmp -s "$m" "$tmp/model.first" || fail "resumed model.csv differs"
# A journal measured otherwise (here with another number of repetitions;
# the harness's own settings, model.experiments and model.stream_min, the
# same way) is not resumed: one line naming the setting; --fresh moves it
# to old/1/ and measures the same table again.
grep -q ' model.experiments=oneway,recv_late,streamK,reduce,hop model.stream_min=2' "$tmp/run/model.journal" ||
    fail "the journal does not name its harness: $(sed -n 2p "$tmp/run/model.journal")"
sed 's/max_reps = 1;/max_reps = 2;/' "$tmp/t.cfg" > "$tmp/reps.cfg"
smpi 8 model -c "$tmp/reps.cfg" > "$tmp/model4.out" 2>&1 && fail "a journal measured otherwise was resumed"
grep -q 'model.reps (journal 1, config 2)' "$tmp/model4.out" || fail "settings mismatch: $(cat "$tmp/model4.out")"
# Nor on other ranks: the pairs and the placement are of the ranks and
# hosts it was measured on (one line naming both settings).
smpi 7 model -c "$tmp/t.cfg" > "$tmp/model6.out" 2>&1 && fail "a journal of 8 ranks was resumed on 7"
grep -q "model.world (journal 8, config 7), model.hosts (journal 8-" "$tmp/model6.out" || fail "world mismatch: $(cat "$tmp/model6.out")"
smpi 8 model -c "$tmp/t.cfg" --fresh > "$tmp/model5.out" 2>&1 || { cat "$tmp/model5.out"; fail "model --fresh"; }
[ -f "$tmp/run/old/1/model.journal" ] && [ -f "$tmp/run/old/1/model.csv" ] || fail "--fresh did not keep the old calibration in old/1/"
cmp -s "$m" "$tmp/model.first" || fail "model --fresh: another model.csv"

# The placement on the fat tree (32 nodes a leaf, rank r on node r): the
# neighbours' hops in two rounds, 0-1 .. 62-63 (32), then 1-2 .. 61-62
# (31), each the leaf's but 31-32, the spine's: the two leaves met, 63
# hops.
sed "s#$tmp/run#$tmp/ft#; s/message_sizes.*/message_sizes = [1];/; s/segment_sizes.*/segment_sizes = [0];/" \
    "$tmp/t.cfg" > "$tmp/ft.cfg"
smpirun -np 64 -platform conf/platforms/fattree.xml --cfg=smpi/simulate-computation:no \
    --log=root.thres:critical build/autotune-smpi model -c "$tmp/ft.cfg" > "$tmp/ft.out" 2>&1 ||
    { cat "$tmp/ft.out"; fail "model on the fat tree"; }
awk -F, '$1 == "hop" { n++; key = $3 < 32 && $4 < 32 || $3 >= 32 && $4 >= 32 ? "near" : "far"
        if (!(key in v)) v[key] = $5; else if (v[key] != $5) bad = bad " " $3 "-" $4 }
    END { exit !(n == 63 && bad == "" && v["far"] > v["near"] * 1.2) }' "$tmp/ft/model.csv" ||
    fail "fat tree hops: $(grep -c '^hop' "$tmp/ft/model.csv") rows, not one leaf's hop and one spine's: $(grep '^hop' "$tmp/ft/model.csv" | head -5 | tr '\n' ' ')"

# The exhaustive sweep, then the model's predictions of every method.
smpi 8 -c "$tmp/t.cfg" > "$tmp/sweep.out" 2>&1 || { cat "$tmp/sweep.out"; fail "sweep"; }
build/autotune predict -r "$tmp/run" > "$tmp/predict.out" 2>&1 || { cat "$tmp/predict.out"; fail "predict"; }
cat "$tmp/predict.out"
p="$tmp/run/predicted.csv"
[ "$(head -1 "$p")" = "collective,procs,ppn,msg_bytes,algorithm,segment_bytes,predicted_us" ] || fail "predicted.csv header"
[ "$(($(wc -l < "$p") - 1))" -eq "$(($(wc -l < "$tmp/run/measurements.csv") - 1))" ] ||
    fail "predicted.csv: not one row per measured method"
grep -q '^all  *18 ' "$tmp/predict.out" || fail "accuracy over 18 points not printed"
# Every prediction is a positive time.
awk -F, 'NR > 1 && !($7 > 0) { exit 1 }' "$p" || fail "a prediction is not positive"
# Points never measured: a 256-rank communicator, into tables export reads.
build/autotune predict -r "$tmp/run" --procs 64,256 --sizes 1,1024 -o "$tmp/pred" > "$tmp/new.out" 2>&1 ||
    { cat "$tmp/new.out"; fail "predict --procs"; }
[ "$(awk -F, 'NR > 1 { print $1, $2, $3, $4 }' "$tmp/pred/predicted.csv" | sort -u | wc -l)" -eq 8 ] ||
    fail "predicted.csv: not 8 points"
build/autotune export -r "$tmp/pred" --format csv 2>&1 > /dev/null | grep -q "not measurements" ||
    fail "export of the predicted tables does not say they are predictions"
# Progress on stderr (a prediction on 100,000 ranks takes minutes): with
# no interval, a line per algorithm of each of the 8 points; stdout as
# without it.
AUTOTUNE_PROGRESS_INTERVAL=0 build/autotune predict -r "$tmp/run" --procs 64,256 --sizes 1,1024 \
    -o "$tmp/pred2" > "$tmp/new2.out" 2> "$tmp/new2.err" || fail "predict --procs with progress"
grep -q '^autotune predict: 0/8 points, [a-z]* P=64 1 B: algorithm 1 of [0-9]*  elapsed 0:[0-9][0-9]$' "$tmp/new2.err" &&
    grep -q '^autotune predict: 7/8 points, [a-z]* P=256 1024 B: algorithm ' "$tmp/new2.err" ||
    fail "predict's progress: $(head -3 "$tmp/new2.err")"
[ "$(grep -vc '^autotune predict: [0-9]*/8 points' "$tmp/new2.err")" -eq 0 ] || fail "predict's stderr: $(cat "$tmp/new2.err")"
diff <(grep -v '^autotune predict: ' "$tmp/new.out" | sed "s#$tmp/pred\b#PRED#") \
    <(sed "s#$tmp/pred2\b#PRED#" "$tmp/new2.out") > /dev/null || fail "predict's output changed with progress"

# Bad input: one line with file and line, exit 1; usage errors exit 2.
printf 'quantity,msg_bytes,pending,value_us,reps,cost_s\noneway,1,0,abc,9,0.1\n' > "$tmp/bad.csv"
build/autotune predict -r "$tmp/run" --model "$tmp/bad.csv" > /dev/null 2> "$tmp/bad.err"
[ $? -eq 1 ] || fail "bad model.csv: exit status"
grep -q "bad.csv:2: not a model row" "$tmp/bad.err" || fail "bad model.csv: $(cat "$tmp/bad.err")"
build/autotune predict -r "$tmp/run" --procs 4 > /dev/null 2>&1
[ $? -eq 2 ] || fail "--procs without --sizes: exit status"
build/autotune predict -r "$tmp/run" --procs 4,x --sizes 1 > /dev/null 2> "$tmp/bad.err"
[ $? -eq 2 ] || fail "--procs 4,x: exit status"
# One process has nothing to tune (its times are 0: penalties of 0 / 0).
build/autotune predict -r "$tmp/run" --procs 1,4 --sizes 1 -o "$tmp/one" > /dev/null 2> "$tmp/bad.err"
[ $? -eq 2 ] && [ "$(cat "$tmp/bad.err")" = "autotune predict: --procs: 1 is not a communicator size >= 2 (one has nothing to tune)" ] ||
    fail "--procs 1: $(cat "$tmp/bad.err")"
build/autotune model --help | grep -q '^usage: mpirun' || fail "model --help"

# Where the send mode changes between two measured sizes: on Grig (eager
# below 128000 bytes, its file's send-is-detached-thresh) sizes up to
# 262144 measure 16384 eager and 262144 rendezvous; six blocking sends
# between them (mode rows, the send alone: no ping-pong half) leave 127744
# eager and 131584 rendezvous, around the limit, and predict says so;
# resumed, nothing is measured again.
sed "s#$tmp/run#$tmp/eager#; s/message_sizes.*/message_sizes = [1, 262144];/; s/segment_sizes.*/segment_sizes = [0];/" \
    "$tmp/t.cfg" > "$tmp/eager.cfg"
for pass in 1 2; do
    smpi 2 model -c "$tmp/eager.cfg" > "$tmp/eager$pass.out" 2>&1 || { cat "$tmp/eager$pass.out"; fail "model to 262144 bytes"; }
done
[ "$(grep -c '^mode,1,[0-9]*,0,' "$tmp/eager/model.csv")" -eq 6 ] &&
    [ "$(grep -c '^mode,' "$tmp/eager/model.csv")" -eq 6 ] ||
    fail "not 6 mode sends: $(grep '^mode' "$tmp/eager/model.csv" | tr '\n' ' ')"
grep -q '^mode,1,127744,' "$tmp/eager/model.csv" && grep -q '^mode,1,131584,' "$tmp/eager/model.csv" ||
    fail "the bisection did not end at 127744 to 131584: $(grep '^mode' "$tmp/eager/model.csv" | tr '\n' ' ')"
grep -q ' 0 observations measured now' "$tmp/eager2.out" || fail "resumed, the bisection measured again: $(cat "$tmp/eager2.out")"
build/autotune predict -r "$tmp/run" --model "$tmp/eager/model.csv" 2>&1 | grep -q 'eager up to 127744 bytes' ||
    fail "predict does not say eager up to 127744 bytes"

# Two ranks on one simulated host (`host:2` lines: ranks 0 and 1 on
# ndr-0, 2 and 3 on ndr-1): both sets, between rank 0 and rank 2 (ppn 1)
# and between rank 0 and rank 1 (ppn 2); the journal records the pairs.
# On ndr.xml (its file: loopback 0.1 us, a node's link 0.35 us each way
# plus the switch's 0.13) the intra-node 1-byte one-way time is the
# shorter, and its 1 MiB one the longer (25 GB/s of shared memory against
# 50 GB/s of NDR).
printf 'ndr-0:2\nndr-1:2\n' > "$tmp/two.hosts"
sed "s#$tmp/run#$tmp/two#; s/message_sizes.*/message_sizes = [1, 1048576];/; s/segment_sizes.*/segment_sizes = [0];/" \
    "$tmp/t.cfg" > "$tmp/two.cfg"
smpirun -np 4 -hostfile "$tmp/two.hosts" -platform conf/platforms/ndr.xml --cfg=smpi/simulate-computation:no \
    --log=root.thres:critical build/autotune-smpi model -c "$tmp/two.cfg" > "$tmp/two.out" 2>&1 ||
    { cat "$tmp/two.out"; fail "model on two ranks per host"; }
t2="$tmp/two/model.csv"
grep -q "not measured" "$tmp/two.out" && fail "two ranks per host: a set said not measured: $(cat "$tmp/two.out")"
for q in oneway send stream1 streamK recv_late isend; do
    for ppn in 1 2; do
        grep -q "^$q,$ppn,1," "$t2" || fail "two ranks per host: no $q at ppn $ppn"
    done
done
# Resumed: both sets found in the journal, nothing measured again.
smpirun -np 4 -hostfile "$tmp/two.hosts" -platform conf/platforms/ndr.xml --cfg=smpi/simulate-computation:no \
    --log=root.thres:critical build/autotune-smpi model -c "$tmp/two.cfg" > "$tmp/two2.out" 2>&1 &&
    grep -q ' 0 observations measured now' "$tmp/two2.out" || fail "two ranks per host, rerun: $(cat "$tmp/two2.out")"
grep -q ' model.ranks=0,2 model.intra_ranks=0,1 ' "$tmp/two/model.journal" ||
    fail "the journal does not name the pairs: $(sed -n 2p "$tmp/two/model.journal")"
grep -q '^m p2p 2 2 1 oneway ' "$tmp/two/model.journal" ||
    fail "no intra-node record (procs 2, ppn 2) in the journal"
awk -F, '$1 == "oneway" { v[$2 "," $3] = $5 }
    END { exit !(v["2,1"] < v["1,1"] && v["2,1048576"] > v["1,1048576"]) }' "$t2" ||
    fail "intra-node against inter-node one-way: $(grep '^oneway' "$t2" | tr '\n' ' ')"
# A binomial bcast on 4 ranks (0 -> 2, 0 -> 1, 2 -> 3) crosses nodes three
# times at 1 rank per node, once at 2, never at 4: at 1 byte, where a
# message between nodes is the slower, each step down is faster; at 1 MiB,
# where one inside a node is the slower, 4 per node is slower than 1.
build/autotune predict -r "$tmp/run" --model "$t2" --collectives bcast --procs 4 --sizes 1,1048576 \
    --segments 0 --ppn 1,2,4 -o "$tmp/twopred" > "$tmp/twopred.out" 2>&1 || { cat "$tmp/twopred.out"; fail "predict --ppn 1,2,4"; }
awk -F, '$1 == "bcast" && $5 == "binomial" && $6 == 0 { v[$3 "," $4] = $7 }
    END { exit !(v["4,1"] > 0 && v["4,1"] < v["2,1"] && v["2,1"] < v["1,1"] && v["4,1048576"] > v["1,1048576"]) }' \
    "$tmp/twopred/predicted.csv" || fail "binomial bcast at ppn 1, 2 and 4: $(grep ',binomial,0,' "$tmp/twopred/predicted.csv" | tr '\n' ' ')"
# An old model.csv (no ppn column) reads as the inter-node set: the same
# predictions at ppn 1 as the file it was cut from.
awk -F, -v OFS=, 'NR == 1 { print "quantity,msg_bytes,pending,value_us,reps,cost_s"; next }
    $2 == 1 { $2 = ""; sub(/,,/, ","); print }' "$t2" > "$tmp/legacy.csv"
build/autotune predict -r "$tmp/run" --model "$tmp/legacy.csv" --collectives bcast --procs 4 --sizes 1,1048576 \
    --segments 0 -o "$tmp/legpred" > /dev/null 2>&1 || fail "predict with an old model.csv"
[ -s "$tmp/legpred/predicted.csv" ] && cmp -s <(awk -F, 'NR > 1 && $3 == 1' "$tmp/twopred/predicted.csv") \
    <(tail -n +2 "$tmp/legpred/predicted.csv") || fail "an old model.csv does not predict as its inter-node set"
# A run of two ranks per node values (here the same times at ppn 1 and 2,
# on 4 and 8 ranks): a row of accuracy for each, and one over all.
mkdir -p "$tmp/mix"
for t in measurements.csv optimal.csv; do
    { cat "$tmp/run/$t"; awk -F, -v OFS=, 'NR > 1 && $2 % 2 == 0 { $3 = 2; print }' "$tmp/run/$t"; } > "$tmp/mix/$t"
done
build/autotune predict -r "$tmp/mix" --model "$m" > "$tmp/mix.out" 2>&1 || { cat "$tmp/mix.out"; fail "predict on two ppn"; }
grep -q '^all ppn=1 *18 ' "$tmp/mix.out" && grep -q '^all ppn=2 *12 ' "$tmp/mix.out" && grep -q '^all  *30 ' "$tmp/mix.out" ||
    fail "predict's rows per ppn: $(grep '^all' "$tmp/mix.out" | tr '\n' ' ')"
# --ppn that divides no --procs: one line, exit 2.
build/autotune predict -r "$tmp/run" --procs 4 --sizes 1 --ppn 3 -o "$tmp/p3" > /dev/null 2> "$tmp/bad.err"
[ $? -eq 2 ] && grep -q "^autotune predict: --ppn 3 does not divide --procs 4" "$tmp/bad.err" || fail "--ppn 3: $(cat "$tmp/bad.err")"
build/autotune predict -r "$tmp/run" --ppn 2 > /dev/null 2> "$tmp/bad.err"
[ $? -eq 2 ] || fail "--ppn without --procs: exit status"
exit $((fails > 0))
