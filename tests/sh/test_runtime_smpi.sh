#!/usr/bin/env bash
# libautotune under SimGrid SMPI, linked statically with the README's link
# line: the collective test as an application of it, a decision forcing
# each algorithm in turn (tests/sh/lib_runtime.sh), on 3, 5 and 8 ranks;
# and an application (split/dup/free cycles, MPI_COMM_SELF, size-1
# communicators, a non-commutative op) with AUTOTUNE_VERBOSE; on hosts of
# 4, 4 and 3 ranks (smpirun -hostfile, the nodes MPI_Comm_split_type
# finds) every call goes to the library, AUTOTUNE_VERBOSE saying why.
source "$(dirname "$0")/lib.sh"
source tests/sh/lib_runtime.sh
for tool in smpicc smpirun; do
    command -v "$tool" >/dev/null || { echo "test_runtime_smpi: $tool not found" >&2; exit 77; }
done
coll=build/tests/rt-smpi/test_collectives app=build/tests/rt-smpi/runtime_app
for f in "$coll" "$app"; do
    [ -x "$f" ] || { echo "test_runtime_smpi: $f missing (run make tests)" >&2; exit 1; }
done
run() { # NP DEC PROGRAM ARGS...: SMPI exits 0 after a deadlock, so callers check the output
    local np=$1 dec=$2; shift 2
    AUTOTUNE_DECISION=$dec timeout $((300 * ${TEST_TIME_SCALE:-1})) smpirun -np "$np" -platform tests/mpi/cluster64.xml \
        --cfg=smpi/simulate-computation:no --cfg=smpi/async-small-thresh:32768 \
        --cfg=smpi/send-is-detached-thresh:32768 --log=root.thres:warning \
        --log=smpi_kernel.thres:error "$@" >"$tmp/out" 2>"$tmp/err"
}
for np in 3 5 8; do
    runtime_check_rounds "$np" "$coll"
done
runtime_round_dec "$tmp/r4.dec" 4 0
AUTOTUNE_VERBOSE=1 run 5 "$tmp/r4.dec" "$app"
grep -q "^runtime_app: ok$" "$tmp/out" || fail "runtime_app's results"
for want in "5 ranks, AUTOTUNE_DECISION=$tmp/r4.dec, AUTOTUNE_OUTSIDE=library; calls summed over ranks" \
    "bcast: [0-9]* calls: split_binary/0 [0-9]*" \
    "allreduce: [0-9]* calls: segmented_ring/0 [0-9]*, library 5 (noncommutative 5)" \
    "allgather: [0-9]* calls: neighbor_exchange/0 [0-9]*, library [0-9]* (procs [0-9]*)"; do
    grep -q "^libautotune: $want$" "$tmp/err" || { fail "verbose line '$want'"; cat "$tmp/err"; }
done
printf 'node-0:4\nnode-1:4\nnode-2:3\n' >"$tmp/hosts"
runtime_round_dec "$tmp/r0.dec" 0 1000
AUTOTUNE_VERBOSE=1 run 11 "$tmp/r0.dec" -hostfile "$tmp/hosts" "$coll" -r -q
grep -q "^test_collectives: P=11: [0-9]* runs, 0 failed$" "$tmp/out" || fail "4, 4, 3 ranks per node: results"
n=0
while read -r c calls; do
    n=$((n + 1))
    grep -qx "libautotune: $c: $calls calls: library $calls (irregular $calls)" "$tmp/err" &&
        grep -qx "libautotune: $c: irregular layout (4, 4, 3 ranks per node): $calls calls to the library" "$tmp/err" ||
        fail "4, 4, 3 ranks per node: $c: $(grep "^libautotune: $c:" "$tmp/err")"
done < <(sed -n 's/^libautotune: \([a-z]*\): \([0-9]*\) calls:.*/\1 \2/p' "$tmp/err")
[ "$n" -eq 8 ] || fail "4, 4, 3 ranks per node: $n collectives counted, not 8: $(cat "$tmp/err")"
[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
echo "test_runtime_smpi: ok"
