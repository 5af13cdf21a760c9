#!/usr/bin/env bash
# libautotune runs node-aware methods (collectives/node.h) inside
# applications, under SimGrid SMPI on the nodes of a hostfile: the
# collective test as an application, each collective's results against the
# MPI library's own (odd, even and prime sizes, roots on and off a node's
# leader, MPI_IN_PLACE, a non-commutative user op, derived datatypes), with
# decisions naming each node-aware plan test_collectives -n checks, in
# rounds (tests/sh/lib_runtime.sh), on nodes of 4 + 4, 3 + 3 + 3, one node
# of 5, 7 nodes of one rank, and 4 + 4 + 3 (irregular: the library's).
# A plan whose inter-node phase needs 2 nodes goes to the library on 3,
# AUTOTUNE_VERBOSE saying why; an application whose communicators come and
# go (each with its node communicators) stays right.
source "$(dirname "$0")/lib.sh"
source tests/sh/lib_runtime.sh
for tool in smpicc smpirun; do
    command -v "$tool" >/dev/null || { echo "test_runtime_node_smpi: $tool not found" >&2; exit 77; }
done
coll=build/tests/rt-smpi/test_collectives app=build/tests/rt-smpi/runtime_app
for f in "$coll" "$app"; do
    [ -x "$f" ] || { echo "test_runtime_node_smpi: $f missing (run make tests)" >&2; exit 1; }
done
run() { # HOSTS DEC PROGRAM ARGS...: HOSTS "4 4" is 2 nodes of 4 ranks
    local hosts=$1 dec=$2 np=0 i=0 n; shift 2
    : >"$tmp/hosts"
    for n in $hosts; do
        echo "node-$i:$n" >>"$tmp/hosts"
        i=$((i + 1)) np=$((np + n))
    done
    AUTOTUNE_VERBOSE=1 AUTOTUNE_DECISION=$dec timeout $((300 * ${TEST_TIME_SCALE:-1})) \
        smpirun -np "$np" -hostfile "$tmp/hosts" -platform tests/mpi/cluster64.xml \
        --cfg=smpi/simulate-computation:no --cfg=smpi/async-small-thresh:32768 \
        --cfg=smpi/send-is-detached-thresh:32768 --log=root.thres:warning \
        --log=smpi_kernel.thres:error "$@" >"$tmp/out" 2>"$tmp/err"
}
rounds=$(runtime_node_plans | awk '{ n[$1]++ } END { for (c in n) if (n[c] > m) m = n[c]; print m }')
for k in $(seq 0 $((rounds - 1))); do
    runtime_node_dec "$tmp/n$k.dec" "$k" "1 3 4 5"
    for layout in "4 4:8:regular:2" "3 3 3:9:regular:3" "5:5:regular:1" \
        "1 1 1 1 1 1 1:7:regular:7" "4 4 3:11:irregular:3"; do
        IFS=: read -r hosts np kind n_nodes <<<"$layout"
        run "$hosts" "$tmp/n$k.dec" "$coll" -r -q
        runtime_node_check "round $k, nodes of $hosts" "$np" "$tmp/n$k.dec" "$kind" "$n_nodes"
    done
done
# allgather's inter-node phase two_proc runs on 2 ranks only (its [P = 2]
# in `autotune --list`): on 2 nodes it runs, on 3 the library takes it.
sed 's|^node:linear/0+ring/0+binomial/0/0$|node:linear/0+two_proc/0+binomial/0/0|' \
    "$tmp/n0.dec" >"$tmp/two.dec"
grep -q two_proc "$tmp/two.dec" || fail "two.dec: no two_proc plan"
run "4 4" "$tmp/two.dec" "$coll" -r -q -c allgather
grep -q "^test_collectives: P=8: [0-9]* runs, 0 failed$" "$tmp/out" || fail "two_proc, 2 nodes: results"
grep -qE "^libautotune: allgather: [0-9]+ calls: node:linear/0\+two_proc/0\+binomial/0/0 [0-9]+$" "$tmp/err" ||
    fail "two_proc, 2 nodes: $(grep '^libautotune: allgather' "$tmp/err")"
run "3 3 3" "$tmp/two.dec" "$coll" -r -q -c allgather
grep -q "^test_collectives: P=9: [0-9]* runs, 0 failed$" "$tmp/out" || fail "two_proc, 3 nodes: results"
grep -qE "^libautotune: allgather: ([0-9]+) calls: library \1 \(nodes \1\)$" "$tmp/err" ||
    fail "two_proc, 3 nodes: $(grep '^libautotune: allgather' "$tmp/err")"
# Communicators made and freed in cycles, each running node-aware methods.
run "4 4" "$tmp/n0.dec" "$app"
grep -q "^runtime_app: ok$" "$tmp/out" || { fail "runtime_app's results"; cat "$tmp/out" "$tmp/err"; }
grep -qE "^libautotune: bcast: [0-9]+ calls: node:binomial/0\+binomial/0/0 [1-9]" "$tmp/err" ||
    fail "runtime_app: no node-aware bcast ran: $(cat "$tmp/err")"
grep -qE "^libautotune: node-aware methods: node and leaders' communicators made [1-9][0-9]* times" "$tmp/err" ||
    fail "runtime_app: no node communicators made: $(cat "$tmp/err")"
[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
echo "test_runtime_node_smpi: ok"
