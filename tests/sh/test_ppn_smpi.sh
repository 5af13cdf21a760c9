#!/usr/bin/env bash
# ranks_per_node under SMPI on simulated Grig nodes (hostfile `grig-N:K`):
# two ranks sharing a node talk over its loopback (10 us, 4 Gb/s in
# grig.xml), faster than over the network (Fast Ethernet, 66 us for 1 B),
# so every method at 2 ranks times faster at 2 per node than at 1; a world
# without the nodes a point needs, or a malformed AUTOTUNE_NODE_OF_RANK, is
# refused with one line before anything is recorded; a sweep as launched
# (no ranks_per_node) notes ranks sharing nodes, and is never resumed with
# ranks_per_node, nor the reverse.
set -u
. "$(dirname "$0")/lib.sh"
command -v smpirun >/dev/null || { echo "smpirun not found (apt-get install libsimgrid-dev)"; exit 77; }

platform=conf/platforms/grig.xml
hosts() { # K...: a hostfile with K ranks on each next node
    local n=0
    for k in "$@"; do echo "grig-$n:$k"; n=$((n + 1)); done > "$tmp/hosts"
}
write_cfg() { # NAME PROCS [RANKS_PER_NODE]
    cat > "$tmp/$1.cfg" <<CFG
output        = "$tmp/$1";
collectives   = ["bcast", "reduce", "allreduce"];
procs         = [$2];
message_sizes = { min = 1; max = 65536; factor = 16; };
segment_sizes = [0, 1024];
measure       = { warmup = 0; min_reps = 1; max_reps = 1; rse = 0.5; };
CFG
    [ -z "${3:-}" ] || echo "ranks_per_node = [$3];" >> "$tmp/$1.cfg"
}
sweep() { smpi_hosts_sweep "$@"; } # NP NAME [args]
# The one line a refused sweep said (smpirun's own lines aside).
said() { grep -v -e '^/.*/autotune-smpi ' -e '^Generated unrolled' -e '^Execution failed' "$1"; }

# 2 nodes of 2 ranks: every method at 2 ranks, 1 and 2 per node
hosts 2 2
write_cfg two 2 "1, 2"
sweep 4 two > "$tmp/two.out" 2>&1 || { cat "$tmp/two.out"; fail "sweep at 1 and 2 per node"; }
# columns: 1 collective, 2 procs, 3 ppn, 4 msg_bytes, 5 algorithm,
# 6 segment_bytes, 8 mean_us
awk -F, 'NR > 1 && $2 == 2 { t[$1 " " $4 " " $5 " " $6, $3] = $8 }
    END {
        for (k in t) {
            split(k, key, SUBSEP)
            if (key[2] != 1) continue
            n++
            if (!((key[1], 2) in t)) { print "no 2 per node row: " key[1]; bad++ }
            else if (!(t[key[1], 2] < t[k])) { print "not faster on one node: " key[1] " " t[key[1], 2] " vs " t[k]; bad++ }
        }
        if (n < 20) { print "only " n " methods"; bad++ }
        exit bad > 0
    }' "$tmp/two/measurements.csv" || fail "2 ranks on one node are not faster than on two everywhere"
grep -q 'share' "$tmp/two.out" && fail "a note on shared nodes with ranks_per_node given"

# Too few nodes for a point: one line naming it, before anything is made.
write_cfg four 4 "1"
if sweep 4 four > "$tmp/four.out" 2>&1; then
    fail "4 ranks at 1 per node accepted on 2 nodes"
fi
want="$tmp/four.cfg:7: ranks_per_node: 4 ranks at 1 per node need 4 nodes with >= 1 ranks; the world has 2 such nodes (of 4 ranks on 2 nodes)"
[ "$(said "$tmp/four.out")" = "$want" ] || fail "too few nodes: $(said "$tmp/four.out")"
[ -e "$tmp/four" ] && fail "a refused sweep made its run directory"
# Rank 0's node must hold a point's ranks per node: it is in every one.
hosts 1 3
write_cfg first 2 "2"
if sweep 4 first > "$tmp/first.out" 2>&1; then
    fail "2 per node accepted with rank 0 alone on its node"
fi
want="$tmp/first.cfg:7: ranks_per_node: 2 ranks at 2 per node need rank 0's node (the controller's, in every communicator) to hold >= 2 ranks; it holds 1 (of 4 ranks on 2 nodes)"
[ "$(said "$tmp/first.out")" = "$want" ] || fail "rank 0's node: $(said "$tmp/first.out")"

# A malformed emulation: one line naming it, the journal untouched.
hosts 2 2
before=$(md5sum < "$tmp/two/journal")
for v in block:0 block cyclic:2 'block: 2'; do
    if AUTOTUNE_NODE_OF_RANK=$v sweep 4 two > "$tmp/env.out" 2>&1; then
        fail "AUTOTUNE_NODE_OF_RANK=$v accepted"
    fi
    [ "$(said "$tmp/env.out")" = "autotune: AUTOTUNE_NODE_OF_RANK=$v: not block:K (K >= 1 world ranks on each emulated node)" ] ||
        fail "AUTOTUNE_NODE_OF_RANK=$v: $(said "$tmp/env.out")"
done
[ "$(md5sum < "$tmp/two/journal")" = "$before" ] || fail "a refused sweep changed the journal"

# Without ranks_per_node: the ranks as launched (0 and 1, on one node),
# recorded as one rank per node, with one note.
write_cfg launched 2
sweep 4 launched > "$tmp/launched.out" 2>&1 || { cat "$tmp/launched.out"; fail "sweep as launched"; }
[ "$(grep -c 'note' "$tmp/launched.out")" -eq 1 ] &&
    grep -q '^autotune: note: world ranks 0-1 share 1 node; without ranks_per_node the sweep times them as launched and records one rank per node (set ranks_per_node to time real layouts)$' "$tmp/launched.out" ||
    fail "not one note on shared nodes: $(grep note "$tmp/launched.out")"
[ "$(cut -d, -f3 "$tmp/launched/optimal.csv" | sort -u | tr '\n' ' ')" = "1 ppn " ] ||
    fail "as launched: not recorded as one rank per node"
grep -q 'ranks_per_node.placement' "$tmp/launched/journal" && fail "a sweep as launched recorded a placement"
grep -q 'ranks_per_node.launched=2_ranks_on_1_nodes' "$tmp/launched/journal" ||
    fail "a sweep as launched on ranks sharing a node does not record it"
# ... and never resumed with ranks_per_node (even [1]), nor the reverse.
before=$(md5sum < "$tmp/launched/journal")
echo 'ranks_per_node = [1];' >> "$tmp/launched.cfg"
if sweep 4 launched > "$tmp/mixed.out" 2>&1; then
    fail "a sweep as launched resumed with ranks_per_node"
fi
grep -q 'conflicts with the recorded sweep: ranks_per_node.placement (journal (none), config block)' "$tmp/mixed.out" ||
    fail "resume with ranks_per_node: $(said "$tmp/mixed.out")"
[ "$(md5sum < "$tmp/launched/journal")" = "$before" ] || fail "a refused resume changed the journal"
write_cfg two 2
if sweep 4 two > "$tmp/mixed2.out" 2>&1; then
    fail "a sweep on whole nodes resumed as launched"
fi
grep -q 'ranks_per_node.placement (journal block, config (none))' "$tmp/mixed2.out" ||
    fail "resume without ranks_per_node: $(said "$tmp/mixed2.out")"

# As launched on ranks that share a node, never resumed on a launch that
# does not (its one-rank-per-node rows would mix two layouts).
write_cfg shared 2
sweep 4 shared > "$tmp/shared.out" 2>&1 || { cat "$tmp/shared.out"; fail "sweep as launched, shared"; }
hosts 1 1
before=$(md5sum < "$tmp/shared/journal")
if sweep 2 shared > "$tmp/unshared.out" 2>&1; then
    fail "a sweep as launched on a shared node resumed on two nodes"
fi
grep -q 'conflicts with the recorded sweep: ranks_per_node.launched (journal 2_ranks_on_1_nodes, config (none)); use --fresh' "$tmp/unshared.out" ||
    fail "resume on another launch: $(said "$tmp/unshared.out")"
[ "$(md5sum < "$tmp/shared/journal")" = "$before" ] || fail "a refused resume changed the journal"

# Emulated nodes are recorded: a journal of one is not resumed on real
# nodes. One simulated host of 4 ranks, emulated as 2 nodes of 2.
hosts 4
write_cfg emulated 2 "1, 2"
AUTOTUNE_NODE_OF_RANK=block:2 sweep 4 emulated > "$tmp/emulated.out" 2>&1 ||
    { cat "$tmp/emulated.out"; fail "sweep on emulated nodes"; }
grep -q 'ranks_per_node.nodes=block:2' "$tmp/emulated/journal" || fail "emulated nodes not recorded"
hosts 2 2
if sweep 4 emulated > "$tmp/real.out" 2>&1; then
    fail "a sweep on emulated nodes resumed on real ones"
fi
grep -q 'conflicts with the recorded sweep: ranks_per_node.nodes (journal block:2, config (none)); use --fresh' "$tmp/real.out" ||
    fail "resume on real nodes: $(said "$tmp/real.out")"

# A profile's points are placed by their ranks per node, one per node too
# (never as launched): bcast on 2 ranks at 1 per node on 2 nodes of 2 is
# world ranks 0 and 2.
printf 'autotune-profile 1\nranks 4\nbcast 2 1 65536 10 0.5\n' > "$tmp/app.prof"
cat > "$tmp/prof.cfg" <<CFG
output        = "$tmp/prof";
profile       = "$tmp/app.prof";
segment_sizes = [0];
measure       = { warmup = 0; min_reps = 1; max_reps = 1; rse = 0.5; };
CFG
AUTOTUNE_TRACE_COMMS=1 sweep 4 prof > "$tmp/prof.out" 2>&1 || { cat "$tmp/prof.out"; fail "profile sweep"; }
grep -q '^autotune: communicator of 2 ranks, 1 per node: 0 2$' "$tmp/prof.out" ||
    fail "the profile's point at 1 per node: $(grep communicator "$tmp/prof.out")"
grep -q 'as launched' "$tmp/prof.out" && fail "a profile's point timed as launched"

echo "$fails failure(s)"
[ $fails -eq 0 ]
