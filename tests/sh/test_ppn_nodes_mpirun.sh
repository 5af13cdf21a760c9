#!/usr/bin/env bash
# The emulated node map (AUTOTUNE_NODE_OF_RANK=block:K) gives the sweep the
# communicators real nodes give: `mpirun -np 8` on this one machine with
# block:2 and block:4 makes, for every point at 1, 2 and 4 ranks per node,
# the communicators (AUTOTUNE_TRACE_COMMS: their world ranks) that
# smpirun makes on 4 simulated hosts of 2 ranks and 2 hosts of 4; and
# refuses what they refuse with the same line.
set -u
. "$(dirname "$0")/lib.sh"
command -v mpirun >/dev/null || { echo "mpirun not found"; exit 77; }
command -v smpirun >/dev/null || { echo "smpirun not found (apt-get install libsimgrid-dev)"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

write_cfg() { # NAME PROCS RANKS_PER_NODE
    cat > "$tmp/$1.cfg" <<CFG
output         = "$tmp/$1";
collectives    = ["bcast"];
procs          = [$2];
ranks_per_node = [$3];
message_sizes  = [1, 1024];
segment_sizes  = [0];
measure        = { warmup = 0; min_reps = 1; max_reps = 1; rse = 0.5; };
CFG
}
# The communicators a sweep made, sorted.
comms() { # OUT
    grep '^autotune: communicator' "$1" | sort
}
on_mpirun() { # K NAME: 8 ranks, K to an emulated node
    AUTOTUNE_NODE_OF_RANK=block:$1 AUTOTUNE_TRACE_COMMS=1 \
        mpirun --oversubscribe -np 8 -x AUTOTUNE_NODE_OF_RANK -x AUTOTUNE_TRACE_COMMS \
        build/autotune -c "$tmp/$2.cfg" --fresh
}
on_smpi() { # K NAME: 8 ranks, K on each simulated host (from $tmp, where
    # smpirun leaves its unrolled hostfile when the run fails)
    local n top=$PWD
    for n in $(seq 0 $((8 / $1 - 1))); do echo "grig-$n:$1"; done > "$tmp/hosts$1"
    (cd "$tmp" && AUTOTUNE_TRACE_COMMS=1 smpirun -np 8 -hostfile "$tmp/hosts$1" \
        -platform "$top/conf/platforms/grig.xml" --cfg=smpi/simulate-computation:no \
        --log=root.thres:critical "$top/build/autotune-smpi" -c "$tmp/$2.cfg" --fresh)
}

check() { # K NAME PROCS RANKS_PER_NODE
    write_cfg "$2" "$3" "$4"
    on_mpirun "$1" "$2" > "$tmp/$2.mpirun" 2>&1 || { cat "$tmp/$2.mpirun"; fail "$2: mpirun"; }
    on_smpi "$1" "$2" > "$tmp/$2.smpi" 2>&1 || { cat "$tmp/$2.smpi"; fail "$2: smpirun"; }
    comms "$tmp/$2.mpirun" > "$tmp/$2.a"
    comms "$tmp/$2.smpi" > "$tmp/$2.b"
    [ -s "$tmp/$2.a" ] && [ -s "$tmp/$2.b" ] || fail "$2: no communicators said"
    cmp "$tmp/$2.a" "$tmp/$2.b" || { diff "$tmp/$2.a" "$tmp/$2.b"; fail "$2: other communicators"; }
    echo "$2: $(wc -l < "$tmp/$2.a") communicators alike:"
    sed "s/^autotune: communicator of /  /" "$tmp/$2.a"
}
check 2 pairs "2, 4" "1, 2"
check 2 wide "8" "2"
check 4 quads "4, 8" "4"

# A point the nodes cannot hold: the same line on both.
write_cfg big 8 "1"
on_mpirun 4 big > "$tmp/big.mpirun" 2>&1 && fail "mpirun: 8 nodes found among 2 emulated"
on_smpi 4 big > "$tmp/big.smpi" 2>&1 && fail "smpirun: 8 nodes found among 2"
line=$(grep -h 'ranks_per_node:' "$tmp/big.mpirun")
[ -n "$line" ] && [ "$line" = "$(grep -h 'ranks_per_node:' "$tmp/big.smpi")" ] ||
    fail "refusals differ: '$line' / '$(grep -h 'ranks_per_node:' "$tmp/big.smpi")'"

echo "$fails failure(s)"
[ $fails -eq 0 ]
