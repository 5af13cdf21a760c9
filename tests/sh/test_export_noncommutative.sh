#!/usr/bin/env bash
# A file a user loads must not change results: MPI_Reduce (every root) and
# MPI_Allreduce with a non-commutative operation (2x2 matrix products,
# tests/mpi/noncommutative_probe.c) give under the exported Open MPI rules
# file exactly what the library gives without it, and what the product in
# rank order gives; the same for the MPICH selection file. Runs: a committed
# sweep (default-grig: reduce binomial, pipeline, chain between sizes) and
# tests/export/noncommutative (reduce chain, pipeline, binary, binomial,
# allreduce ring, segmented_ring, with order-keeping ones measured at some
# points). With --assume-commutative the tuned algorithms come back, and the
# probe sees their wrong results: it is sensitive to what it checks.
set -u
. "$(dirname "$0")/lib.sh"
if ! command -v ompi_info > /dev/null || ! command -v mpirun > /dev/null; then
    echo "SKIP: Open MPI (ompi_info, mpirun) is not installed"
    exit 77
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
probe=build/tests/mpi/noncommutative_probe
[ -x $probe ] || { echo "FAIL: $probe is not built (make tests)"; exit 1; }

run_ompi() { # np output [rules-file]
    local rules=()
    [ -n "${3:-}" ] && rules=(--mca coll_tuned_use_dynamic_rules 1
        --mca coll_tuned_dynamic_rules_filename "$3")
    timeout 300 mpirun -np "$1" --oversubscribe --mca coll ^han,hcoll \
        "${rules[@]}" $probe > "$2" 2> "$2.err"
}
# Both runs succeeded, printed every call, and agree; nothing wrong.
same_results() { # what rc output np reference
    local lines=$(( $4 * 14 * 2 ))
    [ "$2" -ne 0 ] && { fail "$1: mpirun failed: $(head -3 "$3.err")"; return; }
    [ "$(wc -l < "$3")" -eq $lines ] || { fail "$1: $(wc -l < "$3") lines, not $lines"; return; }
    sort "$3" > "$3.sorted"
    cmp -s "$5.sorted" "$3.sorted" ||
        fail "$1: results differ from the library's own: $(diff "$5.sorted" "$3.sorted" | head -4)"
    awk '$6 != 0' "$3" | grep -q . && fail "$1: wrong results: $(awk '$6 != 0' "$3" | head -3)"
}

for np in 2 3 4; do
    run_ompi $np "$tmp/own.$np" || fail "np $np: the library's own run failed"
    [ "$(wc -l < "$tmp/own.$np")" -eq $((np * 28)) ] || fail "np $np: the library's own run is incomplete"
    awk '$6 != 0' "$tmp/own.$np" | grep -q . && fail "np $np: Open MPI's own results are wrong"
    sort "$tmp/own.$np" > "$tmp/own.$np.sorted"
done

for run in results/bench-runs/default-grig tests/export/noncommutative; do
    name=$(basename $run)
    build/autotune export -r $run --format ompi -o "$tmp/$name.conf" \
        2> "$tmp/$name.warn" || fail "$name: export"
    build/autotune export -r $run --format ompi --assume-commutative \
        -o "$tmp/$name.ac.conf" 2> "$tmp/$name.ac.warn" || fail "$name: export --assume-commutative"
    grep -q "^# Reduce and allreduce rules keep the operand order" "$tmp/$name.conf" ||
        fail "$name: the header does not say the rules keep the operand order"
    grep -q "^# Exported with --assume-commutative" "$tmp/$name.ac.conf" ||
        fail "$name: the header does not state --assume-commutative"
    grep -q "exported as" "$tmp/$name.ac.warn" && fail "$name: --assume-commutative still changed rows"
    for np in 2 3 4; do
        run_ompi $np "$tmp/$name.$np" "$tmp/$name.conf"
        same_results "$name np $np" $? "$tmp/$name.$np" $np "$tmp/own.$np"
        run_ompi $np "$tmp/$name.ac.$np" "$tmp/$name.ac.conf" ||
            fail "$name np $np: --assume-commutative run failed"
        awk '$6 != 0' "$tmp/$name.ac.$np" | wc -l > "$tmp/$name.ac.$np.wrong"
    done
    echo "$name: every reduce and allreduce result as Open MPI's own on 2, 3 and 4 ranks"
done
# The probe sees what the tuned algorithms do to a non-commutative
# operation (default-grig tunes 4 ranks; the other run 2 and 4).
[ "$(cat "$tmp/default-grig.ac.4.wrong")" -gt 0 ] ||
    fail "default-grig --assume-commutative: no wrong result on 4 ranks: the probe does not reach the rules"
for np in 2 3 4; do
    [ "$(cat "$tmp/noncommutative.ac.$np.wrong")" -gt 0 ] ||
        fail "noncommutative --assume-commutative: no wrong result on $np ranks"
done

# What export says: each changed row, what replaced it and what it costs.
w="$tmp/noncommutative.warn"
for want in \
    "optimal.csv:3: allreduce P=2 m=1024: ring/0 exported as recursive_doubling/0: Open MPI's allreduce 4 combines the operands of non-commutative operations out of rank order; 22.000 us against the tuned 20.000 us (+10.0 %)" \
    "optimal.csv:11: reduce P=2 m=16384: pipeline/1024 exported as in_order_binary/1024: " \
    "optimal.csv:15: reduce P=4 m=1024: binary/0 exported as in_order_binary/0: " \
    "optimal.csv:17: reduce P=4 m=262144: pipeline/4096 exported as in_order_binary/4096: " \
    "optimal.csv:7: allreduce P=4 m=65536" \
    "optimal.csv:9: reduce P=2 m=16: binomial/0 exported as linear/0: " \
    "optimal.csv:10: reduce P=2 m=1024: chain/0 exported as Open MPI's fixed decision: Open MPI's reduce 2 combines the operands of non-commutative operations out of rank order; no method that keeps it was measured there"; do
    case "$want" in
    *"m=65536") grep -qF "$want" "$w" && fail "an order-keeping row (rabenseifner) was changed" ;;
    *) grep -qF "$want" "$w" || fail "no line: $want" ;;
    esac
done
grep -q "^note: 13 reduce and allreduce rows exported with an algorithm that keeps the operand order" "$w" ||
    fail "no count of the changed rows: $(grep '^note' "$w")"
grep -q "^note: Open MPI chooses and splits a bcast" "$tmp/default-grig.warn" ||
    fail "no note on bcasts with different counts per rank"

# MPICH: its reduce and allreduce algorithms in the file keep the order or
# are guarded (is_op_built_in=yes before reduce_scatter_gather and
# reduce_scatter_allgather); MPICH does not check itself: forced on a user
# operation, reduce_scatter_gather aborts.
if command -v mpicc.mpich > /dev/null && command -v mpirun.mpich > /dev/null &&
    mpicc.mpich -O2 -o "$tmp/probe.mpich" tests/mpi/noncommutative_probe.c 2> "$tmp/cc.err"; then
    build/autotune export -r tests/export/noncommutative --format mpich \
        -o "$tmp/sel.json" 2> /dev/null || fail "export mpich"
    grep -q "MPIR_Reduce_intra_reduce_scatter_gather" "$tmp/sel.json" ||
        fail "the MPICH file does not use reduce_scatter_gather: nothing to check"
    build/autotune export -r tests/export/noncommutative --format mpich \
        --assume-commutative -o "$tmp/sel.ac.json" 2> "$tmp/sel.ac.warn" || fail "export mpich --assume-commutative"
    cmp -s "$tmp/sel.json" "$tmp/sel.ac.json" || fail "--assume-commutative changed the MPICH file"
    grep -q "^note: --assume-commutative changes nothing in a mpich file" "$tmp/sel.ac.warn" ||
        fail "export did not say --assume-commutative changes nothing for MPICH"
    run_mpich() { # np output [selection-file]
        MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=${3:-} timeout 300 \
            mpirun.mpich -np "$1" "$tmp/probe.mpich" > "$2" 2> "$2.err"
    }
    for np in 2 3 4; do
        run_mpich $np "$tmp/mpich-own.$np" || fail "MPICH np $np: own run failed"
        sort "$tmp/mpich-own.$np" > "$tmp/mpich-own.$np.sorted"
        run_mpich $np "$tmp/mpich.$np" "$tmp/sel.json"
        same_results "MPICH np $np" $? "$tmp/mpich.$np" $np "$tmp/mpich-own.$np"
    done
    sed 's/"algorithm=MPIR_Reduce_intra_binomial"/"algorithm=MPIR_Reduce_intra_reduce_scatter_gather"/g' \
        "$tmp/sel.json" > "$tmp/unguarded.json"
    run_mpich 4 "$tmp/unguarded" "$tmp/unguarded.json" &&
        fail "MPICH ran reduce_scatter_gather on a user operation"
    grep -q "HANDLE_IS_BUILTIN" "$tmp/unguarded.err" ||
        fail "MPICH did not stop at its assertion: $(head -2 "$tmp/unguarded.err")"
    echo "MPICH: every reduce and allreduce result as its own on 2, 3 and 4 ranks"
else
    fail "MPICH (mpicc.mpich, mpirun.mpich, libmpich-dev) is not installed: CI installs it"
fi

[ $fails -eq 0 ] && echo "all export-noncommutative checks passed"
[ $fails -eq 0 ]
