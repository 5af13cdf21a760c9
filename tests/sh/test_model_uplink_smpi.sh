#!/usr/bin/env bash
# The uplinks on a generated fat tree (issue 36.3): `autotune model` finds,
# from measurements only, which ranks share a leaf switch, which uplink a
# flow takes (its destination's lane) and what an uplink carries, as the
# platform file says they are. heldout-08: 32 nodes, leaves of 4 (node n on
# leaf n / 4), 2 uplinks of the node links' rate each, routed by the
# destination's node number (SimGrid's d-mod-k: lane n mod 2), rendezvous
# at twice the latency. SMPI gives 16 ranks the first 16 host names in
# name order: nodes 0, 1, 10..19, 2, 20, 21, 22, so ranks {0, 1, 12},
# {2, 3}, {4..7}, {8..11}, {13, 14, 15} share leaves 0, 2, 3, 4 and 5.
set -u
. "$(dirname "$0")/lib.sh"
command -v smpirun >/dev/null || { echo "smpirun not found (./setup.sh installs simgrid)"; exit 77; }
cat > "$tmp/t.cfg" <<CFG
output        = "$tmp/run";
collectives   = ["bcast"];
procs         = [16];
message_sizes = [1, 65536];
segment_sizes = [0];
search        = "exhaustive";
measure       = { warmup = 0; min_reps = 1; max_reps = 1; rse = 0.5; };
baseline      = false;
CFG
calibrate() {
    smpirun -np 16 -platform conf/platforms/heldout/heldout-08.xml \
        --cfg=smpi/simulate-computation:no --log=root.thres:critical \
        build/autotune-smpi model -c "$tmp/t.cfg" "$@"
}
calibrate > "$tmp/model.out" 2>&1 || { cat "$tmp/model.out"; fail "model"; }
cat "$tmp/model.out"
m="$tmp/run/model.csv"
# The node of each rank, from the host names in name order.
node_of=$(seq 0 31 | sed 's/^/heldout-08-/' | sort | head -16 | sed 's/heldout-08-//' | tr '\n' ' ')
[ "$node_of" = "0 1 10 11 12 13 14 15 16 17 18 19 2 20 21 22 " ] || fail "host names: $node_of"
# Five leaves, two lanes, each lane's uplink one node link (1 flow; 0.99
# from 64 KiB flows, whose latency is a larger part of them), a
# rendezvous twice the latency of the longer route; a flow out of a leaf
# from a node that receives within it at once goes at two thirds of the
# link's rate (0.66 of a flow: timed apart with plain MPI_Isend/Irecv on
# this platform, 256 KiB from node 1 to node 2 took 307.7 us alone and
# 452.1 while node 0 sent to node 1, of 275 us of work: 275 / (452.1 -
# 307.7 + 275) = 0.66).
grep -Eq '^autotune model: placement: 5 switches, 2 lanes, uplinks carrying (0\.99|1\.00) to (0\.99|1\.00) flows \(0: not limited\), rendezvous hop factor 2\.00, mixed flows 0\.6[4-8]$' \
    "$tmp/model.out" || fail "placement line: $(grep placement "$tmp/model.out")"
# The mixed flows: rank 1 (leaf 0's second) to rank 2 (the first off it),
# alone then with rank 0 sending to rank 1.
[ "$(awk -F, '$1 == "mix" { printf "%s/%s ", $3, $4 }' "$m")" = "2/0 2/1 " ] ||
    fail "mix rows: $(grep '^mix' "$m" | tr '\n' ' ')"
# Each leaf's uplink measured once alone and once with as many flows as
# its ranks, named by its first rank.
[ "$(awk -F, '$1 == "uplink" { printf "%s/%s ", $3, $4 }' "$m")" = "0/1 0/3 2/1 2/2 4/1 4/4 8/1 8/4 13/1 13/3 " ] ||
    fail "uplink rows: $(grep '^uplink' "$m" | tr '\n' ' ')"
# Two flows at once to d and to a lane's representative r were slowed
# (more than 1.5 times the one to r alone) exactly where d and r have node
# numbers of the same parity.
awk -F, -v nodes="$node_of" '
    BEGIN { split(nodes, node, " ") }
    $1 == "lane" && $3 == $4 { alone[$3] = $5 }
    $1 == "lane" && $3 != $4 { n++
        slowed = $5 > 1.5 * alone[$3]
        same = node[$3 + 1] % 2 == node[$4 + 1] % 2
        if (!($3 in alone) || slowed != same) bad = bad " " $3 "-" $4 }
    END { exit !(n >= 14 && bad == "") }' "$m" ||
    fail "lane rows against the node parity: $(grep '^lane' "$m" | tr '\n' ' ')"
# Each rank tried first against the lane after rank d - 1's: with ranks
# mostly in node order and lanes by node parity, at most one pair a rank
# (15 here: every rank but the first, a lane's first alone; trying lane 0
# first took 21).
[ "$(awk -F, '$1 == "lane" && $3 != $4' "$m" | wc -l)" -le 16 ] ||
    fail "lane pairs: $(awk -F, '$1 == "lane" && $3 != $4' "$m" | wc -l), more than one a rank"
# Its uplinks limited, the fit applies no backbone besides: no pairs
# measured (they took 0.0016 s of its 0.0225 before: 0.0185 now, with
# the hops in rounds).
! grep -q '^pairs' "$m" || fail "pairs measured: $(grep '^pairs' "$m" | tr '\n' ' ')"
# The flows measured at MODEL_FLOW_BYTES (64 KiB), said by the flow row
# of kind 0; the streams of at most MODEL_STREAMK_BYTES (64 KiB), said by
# the flow row of kind 1: 2 messages at 65536 bytes (4 in the streams of
# 256 KiB before), 16 at 4096.
[ "$(awk -F, '$1 == "flow" { print $3, $4 }' "$m" | sort | tr '\n' ' ')" = "65536 0 65536 1 " ] ||
    fail "flow rows: $(grep '^flow' "$m" | tr '\n' ' ')"
[ "$(awk -F, '$1 == "streamK" && ($3 == 65536 || $3 == 4096) { print $3, $4 }' "$m" | tr '\n' ' ')" = "4096 16 65536 2 " ] ||
    fail "streams: $(grep '^streamK' "$m" | tr '\n' ' ')"
# recv_late at 1 byte, eager: its receive posted after its one-way time
# and the smallest size's (the ranks' skew leaving the barrier) and 20 us
# more, so that it costs its ping-pong's (a barrier and two one-way times)
# and at most its receive (a one-way time) and 20 us more: under the
# ping-pong's cost, 2 one-way times and 40 us (twice its one-way time and
# 0.1 ms before: 80 us over).
awk -F, '$3 == 1 && $1 == "oneway" { o = $7; v = $5 } $3 == 1 && $1 == "recv_late" { r = $7 }
    END { exit !(o > 0 && r < o + 2 * v * 1e-6 + 40e-6) }' "$m" ||
    fail "recv_late at 1 byte: $(grep '^oneway,1,1,\|^recv_late,1,1,' "$m" | tr '\n' ' ')"
# recv_late at 65536 bytes, a rendezvous here (eager below 65536), waits
# before its receive only as the smallest size's (its cost under 1.5
# times its ping-pong's; twice the one-way time before it: 1.9).
awk -F, '$3 == 65536 && $1 == "oneway" { o = $7 } $3 == 65536 && $1 == "send" { s = $5 } $3 == 65536 && $1 == "recv_late" { r = $7; v = $5 }
    END { exit !(o > 0 && s > 0.5 * v && r < 1.5 * o) }' "$m" ||
    fail "recv_late at 65536 bytes: $(grep '^oneway,1,65536\|^send,1,65536\|^recv_late,1,65536' "$m" | tr '\n' ' ')"
# A calibration measured before the flow row (tests/model/heldout-08-256k
# .journal: heldout-08's as committed before it, on 32 ranks, its lane and
# uplink flows of 256 KiB; with the mode rows a resumed run of it measured
# later appended, so that they are not what these resumes measure) resumes
# as it was: without its uplink rows, the
# resumed run measures those only, at 256 KiB (the times it had), and
# writes no flow row.
fixture=tests/model/heldout-08-256k.journal
resume_fixture() { # NAME AWK_FILTER: the fixture's rows the filter keeps, resumed into $tmp/NAME
    mkdir -p "$tmp/$1"
    awk "$2" "$fixture" > "$tmp/$1/model.journal"
    sed "s#^output *=.*#output = \"$tmp/$1\";#" results/bench-runs/model-heldout-08.cfg > "$tmp/$1.cfg"
    smpirun -np 32 -platform conf/platforms/heldout/heldout-08.xml \
        --cfg=smpi/simulate-computation:no --log=root.thres:critical \
        build/autotune-smpi model -c "$tmp/$1.cfg" > "$tmp/$1.out" 2>&1 || { cat "$tmp/$1.out"; fail "model (resumed: $1)"; }
}
old=$tmp/old
n_uplinks=$(awk '$6 == "uplink"' "$fixture" | wc -l)
resume_fixture old '$6 != "uplink"'
grep -q " $n_uplinks observations measured now" "$tmp/old.out" || fail "old journal resumed: $(grep measured "$tmp/old.out")"
uplink_rows() { awk -F, '$1 == "uplink" { print $3, $4, $5 }' "$1"; }
[ "$n_uplinks" -gt 0 ] &&
    [ "$(uplink_rows "$old/model.csv")" = "$(awk '$6 == "uplink" { printf "%s %s %.3f\n", $5, $7, $12 }' "$fixture")" ] ||
    fail "old journal's uplink rows: $(uplink_rows "$old/model.csv" | tr '\n' ' ')"
! grep -q '^flow' "$old/model.csv" || fail "old journal gained a flow row"
# Its streams of 256 KiB the same: without its stream at 16384 bytes (16
# messages, 6 rows with the Isends), the resumed run measures those 6 only,
# 16 messages again (4 of 64 KiB at most would be 4 rows), and writes no
# flow row.
stream=$tmp/stream
resume_fixture stream '!($4 == 16384 && ($5 == "streamK" || $5 == "isend"))'
grep -q " 6 observations measured now" "$tmp/stream.out" || fail "old streams resumed: $(grep measured "$tmp/stream.out")"
[ "$(awk -F, '$1 == "streamK" && $3 == 16384 { print $4 }' "$stream/model.csv")" = 16 ] ||
    fail "old stream at 16384 bytes: $(grep '^streamK,1,16384' "$stream/model.csv")"
! grep -q '^flow' "$stream/model.csv" || fail "old streams gained a flow row"
# The placement's hops between ranks other than 0 measured in rounds at
# once (disjoint pairs): from the same journal less those hops, the resumed
# run measures them only (every other row found: the same placement), puts
# each rank with the same others (near: within 10 % of rank 0's least hop,
# joined as the fit joins them, computed here from the rows) and takes
# under half the simulated time the hops one after another took (0.0023 s
# of 0.0064 here).
rounds=$tmp/rounds
resume_fixture rounds '!($5 == "hop" && $4 != 0)'
n_hops=$(awk -F, '$1 == "hop" && $3 != 0' "$rounds/model.csv" | wc -l)
[ "$n_hops" -gt 0 ] && grep -q " $n_hops observations measured now" "$tmp/rounds.out" ||
    fail "hops in rounds: $n_hops hops, $(grep measured "$tmp/rounds.out")"
switches() { # MODEL.csv: each rank's least fellow by near hops
    awk -F, '$1 == "hop" { n++; a[n] = $3; b[n] = $4; v[n] = $5; if ($4 >= top) top = $4 + 1
                           if ($3 == 0 && (least == "" || $5 < least)) least = $5 }
        function root(x) { while (p[x] != x) x = p[x]; return x }
        END { for (r = 0; r < top; r++) p[r] = r
              for (i = 1; i <= n; i++) if (v[i] <= 1.1 * least) { x = root(a[i]); y = root(b[i]); if (x < y) p[y] = x; else p[x] = y }
              for (r = 0; r < top; r++) printf "%d ", root(r) }' "$1"
}
[ -n "$(switches "$old/model.csv")" ] && [ "$(switches "$rounds/model.csv")" = "$(switches "$old/model.csv")" ] ||
    fail "switches: in rounds $(switches "$rounds/model.csv"), one after another $(switches "$old/model.csv")"
[ "$(grep placement "$tmp/rounds.out")" = "$(grep placement "$tmp/old.out")" ] ||
    fail "placement in rounds: $(grep placement "$tmp/rounds.out")"
hops_s() { awk -F, '$1 == "hop" && $3 != 0 { s += $7 } END { print s + 0 }' "$1"; }
awk -v r="$(hops_s "$rounds/model.csv")" -v o="$(hops_s "$old/model.csv")" 'BEGIN { exit !(r > 0 && o > 0 && r < o / 2) }' ||
    fail "hops in rounds took $(hops_s "$rounds/model.csv") s, one after another $(hops_s "$old/model.csv") s"
# No two neighbours in node order on one leaf (a hostfile taking the
# leaves in turn: rank r on node (r mod 8) * 4 + r / 8, on leaf r mod 8):
# the hops between neighbours all look alike, so rank 0's hop to every
# rank is measured too, and each rank shares a switch with r mod 8 alone.
for r in $(seq 0 15); do echo "heldout-08-$(((r % 8) * 4 + r / 8))"; done > "$tmp/cyclic.hosts"
sed "s#^output *=.*#output = \"$tmp/cyclic\";#" "$tmp/t.cfg" > "$tmp/cyclic.cfg"
smpirun -np 16 -hostfile "$tmp/cyclic.hosts" -platform conf/platforms/heldout/heldout-08.xml \
    --cfg=smpi/simulate-computation:no --log=root.thres:critical \
    build/autotune-smpi model -c "$tmp/cyclic.cfg" > "$tmp/cyclic.out" 2>&1 || { cat "$tmp/cyclic.out"; fail "model (leaves in turn)"; }
[ "$(switches "$tmp/cyclic/model.csv")" = "0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 " ] &&
    grep -q 'placement: 8 switches' "$tmp/cyclic.out" ||
    fail "leaves in turn: switches $(switches "$tmp/cyclic/model.csv"), $(grep placement "$tmp/cyclic.out")"
# Those flows told to their ranks only, point to point, and started as
# soon as their commands arrive: a flow alone costs its time and under 6
# of rank 0's longest hops (the commands, twice their lateness, the times
# back; 12 with a broadcast to the 32 ranks and a reduction, 26 with a
# barrier and three broadcasts besides, 923-1034 us of 306 in the journal).
hop_max=$(awk -F, '$1 == "hop" && $3 == 0 && $5 > h { h = $5 } END { print h + 0 }' "$old/model.csv")
awk -F, -v hop="$hop_max" '$1 == "uplink" && $4 == 1 { n++; if ($7 * 1e6 > $5 + 6 * hop) bad++ }
    END { exit !(n > 0 && hop > 0 && bad == 0) }' "$old/model.csv" ||
    fail "a flow alone costs more than its time and 6 hops of $hop_max us: $(awk -F, '$1 == "uplink" && $4 == 1' "$old/model.csv" | head -3 | tr '\n' ' ')"
# A rerun measures nothing: every uplink and lane observation is journaled.
calibrate > "$tmp/model2.out" 2>&1 || { cat "$tmp/model2.out"; fail "model again"; }
grep -q ' 0 observations measured now' "$tmp/model2.out" || fail "the rerun measured again: $(head -1 "$tmp/model2.out")"
# A model.csv without the uplink, lane, hop_rdv and mix rows (as written before
# they were measured) reads and shares no uplink. Both without the pairs
# (where uplinks are limited the backbone is not applied besides), every
# method of bcast at 16 ranks and 64 KiB is predicted no slower without
# them than with them, some faster.
grep -v '^pairs' "$m" > "$tmp/new.csv"
grep -v '^uplink\|^lane\|^hop_rdv\|^mix' "$tmp/new.csv" > "$tmp/old.csv"
for v in old new; do
    model=$tmp/$v.csv
    build/autotune predict -r "$tmp/run" --model "$model" --collectives bcast --procs 16 --sizes 65536 \
        -o "$tmp/pred-$v" > "$tmp/pred-$v.out" 2>&1 || { cat "$tmp/pred-$v.out"; fail "predict ($v)"; }
done
[ -s "$tmp/pred-old/predicted.csv" ] && [ -s "$tmp/pred-new/predicted.csv" ] || fail "no predictions"
paste -d, "$tmp/pred-old/predicted.csv" "$tmp/pred-new/predicted.csv" |
    awk -F, 'NR > 1 { n++; if ($14 < $7 - 1e-6 || $5 != $12) bad++; if ($14 > $7 * 1.01) slower++ }
             END { exit !(n > 5 && bad == 0 && slower > 0) }' ||
    fail "predictions with the uplinks not all at least those without: $(paste -d, "$tmp/pred-old/predicted.csv" "$tmp/pred-new/predicted.csv" | head -5)"
[ "$fails" -eq 0 ] || exit 1
echo "PASS"
