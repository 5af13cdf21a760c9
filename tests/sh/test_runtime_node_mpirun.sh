#!/usr/bin/env bash
# libautotune runs node-aware methods under mpirun, on nodes emulated on
# this machine (AUTOTUNE_NODE_OF_RANK=block:K): the collective test as an
# application of the preloaded library, each collective's results against
# the MPI library's own (odd, even and prime sizes, roots on and off a
# node's leader, MPI_IN_PLACE, a non-commutative user op, derived
# datatypes, one with a non-zero lower bound without -q), with decisions
# naming each node-aware plan test_collectives -n checks, in rounds
# (tests/sh/lib_runtime.sh), on nodes of 4 + 4, 3 + 3 + 3, 2 + 2 + 2,
# 7 of one rank, and 4 + 4 + 3 (irregular: the library's). A decision
# naming a plan of an unknown algorithm is one line, and the library's
# collectives run.
source "$(dirname "$0")/lib.sh"
source tests/sh/lib_runtime.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
lib=$PWD/build/libautotune.so coll=build/tests/mpi/test_collectives
app=build/tests/rt/runtime_app
for f in "$lib" "$coll" "$app"; do
    [ -e "$f" ] || { echo "test_runtime_node_mpirun: $f missing (run make tests)" >&2; exit 1; }
done
run() { # NP BLOCK DEC PROGRAM ARGS...: stdout and stderr in $tmp/out, $tmp/err
    local np=$1 block=$2 dec=$3; shift 3
    timeout $((120 * ${TEST_TIME_SCALE:-1})) mpirun --oversubscribe -np "$np" -x LD_PRELOAD="$lib" \
        -x AUTOTUNE_DECISION="$dec" -x AUTOTUNE_VERBOSE=1 \
        -x AUTOTUNE_NODE_OF_RANK="block:$block" "$@" >"$tmp/out" 2>"$tmp/err"
}
rounds=$(runtime_node_plans | awk '{ n[$1]++ } END { for (c in n) if (n[c] > m) m = n[c]; print m }')
for k in $(seq 0 $((rounds - 1))); do
    runtime_node_dec "$tmp/n$k.dec" "$k" "1 2 3 4"
    for layout in "8:4:regular:2" "9:3:regular:3" "6:2:regular:3" "7:1:regular:7" \
        "11:4:irregular:3"; do
        IFS=: read -r np block kind n_nodes <<<"$layout"
        run "$np" "$block" "$tmp/n$k.dec" "$coll" -r -q || fail "round $k, $np ranks, block:$block: exit status"
        runtime_node_check "round $k, $np ranks, block:$block" "$np" "$tmp/n$k.dec" "$kind" "$n_nodes"
    done
done
run 8 4 "$tmp/n0.dec" "$coll" -r || fail "all cases: exit status"
runtime_node_check "all cases, 8 ranks, block:4" 8 "$tmp/n0.dec" regular 2
# A decision whose bcast label is LABEL: one line from rank 0 saying WHY,
# the library's collectives.
refused() { # CASE LABEL WHY
    sed "s|^node:binomial/0+binomial/0/0\$|$2|" "$tmp/n0.dec" >"$tmp/bad.dec"
    run 8 4 "$tmp/bad.dec" "$app" || fail "$1: exit status"
    grep -q "^runtime_app: ok$" "$tmp/out" || fail "$1: results"
    [ "$(grep -c "collectives run$" "$tmp/err")" -eq 1 ] &&
        grep -qxF "libautotune: AUTOTUNE_DECISION=$tmp/bad.dec: bcast: method '$2': $3; the MPI library's collectives run" "$tmp/err" ||
        fail "$1: $(cat "$tmp/err")"
}
# A phase of no algorithm.
refused "bad plan" "node:binomial/0+nosuch/0/0" "no bcast algorithm 'nosuch'"
# A node-aware label without its "/0": its last phase's segment is not
# taken for the method's (node:binomial/0+binomial with 1024 ignored).
refused "label without /0" "node:binomial/0+binomial/1024" \
    "a node-aware method's segment sizes are in its phases (expected 'node:binomial/0+binomial/1024/0')"
[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
echo "test_runtime_node_mpirun: ok"
