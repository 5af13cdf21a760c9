#!/usr/bin/env bash
# MPICH 4.0's own parser and node detection choose among the ranks per node
# of an mpich export: tests/export/ppn tunes bcast on 4 processes at 1 rank
# per node (scatter_allgather from 1024 B: MPICH's
# scatter_recursive_doubling_allgather) and at 4 per node
# (scatter_allgather_ring: scatter_ring_allgather), keyed
# "comm_avg_ppn<=1" and "comm_avg_ppn<=4". MPICH computes the average
# ranks per node from the nodes it finds: on one machine all 4 ranks share
# a node (average 4), with MPIR_CVAR_NOLOCAL=1 each rank is a node of its
# own (average 1). Which branch runs is seen by replacing one branch's
# algorithm with another collective's, on which MPICH's bcast dispatcher
# aborts at the first call that branch covers (1024 B), after the 1 B call.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_mpich.sh"

mkdir -p "$tmp/run"
cp tests/export/ppn/optimal.csv "$tmp/run/"
build/autotune export -r "$tmp/run" --format mpich -o "$tmp/sel.json" 2> "$tmp/warn" ||
    fail "export mpich: $(cat "$tmp/warn")"
[ -s "$tmp/sel.json" ] || fail "empty export"
grep -q '"comm_avg_ppn<=1"' "$tmp/sel.json" || fail "no comm_avg_ppn<=1 case"
grep -q '"comm_avg_ppn<=4"' "$tmp/sel.json" || fail "no comm_avg_ppn<=4 case"

rd=MPIR_Bcast_intra_scatter_recursive_doubling_allgather # 1 per node
ring=MPIR_Bcast_intra_scatter_ring_allgather             # 4 per node
sed "s/\"algorithm=$rd\"/\"algorithm=MPIR_Reduce_intra_binomial\"/" "$tmp/sel.json" > "$tmp/no1.json"
sed "s/\"algorithm=$ring\"/\"algorithm=MPIR_Reduce_intra_binomial\"/" "$tmp/sel.json" > "$tmp/no4.json"
cmp -s "$tmp/sel.json" "$tmp/no1.json" && fail "sed changed nothing (1 per node)"
cmp -s "$tmp/sel.json" "$tmp/no4.json" && fail "sed changed nothing (4 per node)"

probe() { # np selection-file output [VAR=value...]
    local np=$1 file=$2 out=$3
    shift 3
    env "$@" MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE="$file" timeout 120 \
        mpirun.mpich -np "$np" "$tmp/probe" > "$out" 2> "$out.err"
}
# Every call runs with the file as exported, on 2 to 4 ranks, both layouts.
for np in 2 3 4; do
    for layout in "" MPIR_CVAR_NOLOCAL=1; do
        probe $np "$tmp/sel.json" "$tmp/ok.$np" $layout ||
            fail "np $np $layout: MPICH refused the export: $(head -3 "$tmp/ok.$np.err")"
        [ "$(wc -l < "$tmp/ok.$np")" -eq $((np * 29)) ] || fail "np $np $layout: not every call reported"
        awk '$4 != 0' "$tmp/ok.$np" | grep -q . && fail "np $np $layout: calls failed"
    done
done

runs_branch() { # label selection-file [VAR=value]: 0 if the file's bcast
    # rule from 1024 B was taken (the run aborted there)
    probe 4 "$2" "$tmp/$1" ${3:-}
    local rc=$?
    grep -q ' bcast 1 0$' "$tmp/$1" || fail "$1: bcast at 1 B did not run"
    if grep -q ' bcast 1024 ' "$tmp/$1"; then
        [ $rc -eq 0 ] || fail "$1: the run failed elsewhere: $(head -3 "$tmp/$1.err")"
        return 1
    fi
    [ $rc -ne 0 ] || fail "$1: bcast 1024 missing but the run succeeded"
    grep -q 'mpir_coll.c' "$tmp/$1.err" || fail "$1: abort not in MPICH's dispatcher: $(head -3 "$tmp/$1.err")"
    return 0
}
# One machine: average 4 ranks per node, the 4-per-node rules.
runs_branch node4 "$tmp/no4.json" || fail "one node (avg ppn 4): the 4-per-node rules were not taken"
runs_branch node4-other "$tmp/no1.json" && fail "one node (avg ppn 4): the 1-per-node rules were taken"
# A node per rank: average 1, the 1-per-node rules.
runs_branch nolocal1 "$tmp/no1.json" MPIR_CVAR_NOLOCAL=1 ||
    fail "a node per rank (avg ppn 1): the 1-per-node rules were not taken"
runs_branch nolocal-other "$tmp/no4.json" MPIR_CVAR_NOLOCAL=1 &&
    fail "a node per rank (avg ppn 1): the 4-per-node rules were taken"

[ $fails -eq 0 ] && echo "all export-ppn-mpich checks passed"
[ $fails -eq 0 ]
