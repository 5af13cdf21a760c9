#!/usr/bin/env bash
# The node-aware compositions (collectives/node.h) against the MPI
# library's own collectives (test_collectives -n): under smpirun on
# simulated hosts holding 2 x 4, 3 x 3, (4, 4, 3), (4, 3, 4) and 1 x 5
# ranks, and under mpirun on emulated nodes (AUTOTUNE_NODE_OF_RANK=block:K)
# of the same shapes and one rank per node; each on the communicator as
# launched and with its ranks dealt round the nodes. A run passes only with
# its summary line (SMPI exits 0 after a deadlock) and, on uneven nodes,
# the compositions of P blocks run (their node blocks padded: (4, 3, 4)
# puts the padding between nodes).
set -u
. "$(dirname "$0")/lib.sh"
command -v mpirun >/dev/null || { echo "test_coll_node: mpirun not found"; exit 1; }
command -v smpirun >/dev/null || { echo "test_coll_node: smpirun not found (apt-get install libsimgrid-dev)"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
bin=build/tests/mpi/test_collectives
sbin=build/tests/smpi/test_collectives
for b in "$bin" "$sbin"; do
    [ -x "$b" ] || { echo "test_coll_node: $b missing (run make tests)"; exit 1; }
done
top=$PWD
limit=$((120 * ${TEST_TIME_SCALE:-1}))

# OUT NP SHAPE: the run's summary says it ran everything it could, none
# failed, and the nodes it saw are SHAPE ("4 4 3").
check() {
    local out=$1 np=$2 shape=$3
    printf '%s\n' "$out" | grep -v '^note:'
    grep -q "^node-aware: P=$np on [0-9]* nodes of $shape ranks, as launched$" <<<"$out" ||
        fail "P=$np ($shape): nodes not seen as $shape"
    grep -q "^test_collectives: P=$np: [1-9][0-9]* runs, 0 failed$" <<<"$out" ||
        fail "P=$np ($shape): a composition failed or the run did not end"
    if grep -q CHECK <<<"$out"; then
        fail "P=$np ($shape): a check of the node communicators failed"
    fi
}

# smpirun: K ranks on each next simulated host, from $tmp, where smpirun
# leaves its unrolled hostfile when a run fails.
for shape in "4 4" "3 3 3" "4 4 3" "4 3 4" "5"; do
    np=0 i=0
    : >"$tmp/hosts"
    for k in $shape; do
        echo "node-$i:$k" >>"$tmp/hosts"
        np=$((np + k)) i=$((i + 1))
    done
    out=$(cd "$tmp" && timeout "$limit" smpirun -np $np -hostfile "$tmp/hosts" \
        -platform "$top/tests/mpi/cluster64.xml" \
        --cfg=smpi/simulate-computation:no \
        --cfg=smpi/async-small-thresh:32768 \
        --cfg=smpi/send-is-detached-thresh:32768 --log=root.thres:warning \
        --log=smpi_kernel.thres:error "$top/$sbin" -n -q 2>&1)
    echo "smpirun hosts: $shape"
    check "$out" $np "$shape"
done

# mpirun on this machine, K world ranks to an emulated node.
for run in "8 4 4 4" "9 3 3 3 3" "11 4 4 4 3" "5 5 5" "7 1 1 1 1 1 1 1 1"; do
    set -- $run
    np=$1 k=$2
    shift 2
    out=$(AUTOTUNE_NODE_OF_RANK=block:$k timeout "$limit" mpirun --oversubscribe \
        -np $np -x AUTOTUNE_NODE_OF_RANK "$bin" -n -q 2>&1)
    echo "mpirun block:$k"
    check "$out" $np "$*"
done

# Uneven nodes: each composition of P blocks ran.
for c in allgather gather scatter alltoall; do
    out=$(AUTOTUNE_NODE_OF_RANK=block:4 timeout "$limit" mpirun --oversubscribe \
        -np 11 -x AUTOTUNE_NODE_OF_RANK "$bin" -n -q -c $c 2>&1)
    grep -q "^test_collectives: P=11: [1-9][0-9]* runs, 0 failed$" <<<"$out" ||
        fail "$c on nodes of 4, 4, 3 ranks did not run: $out"
done

[ $fails -eq 0 ] && echo "test_coll_node: ok"
exit $((fails > 0))
