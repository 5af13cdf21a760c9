#!/usr/bin/env bash
# Runs MPICH (Debian's mpich: mpicc.mpich, mpirun.mpich) with the exported
# selection file: MPICH accepts it and every call succeeds. Proves the file
# is read and its rules applied: a misspelt algorithm makes MPICH abort at
# start-up, and one rule's algorithm swapped for one that cannot run on these
# communicators aborts exactly at the first call that rule covers. Where the
# run's method cannot be mapped, the file keeps MPICH's own size-based
# choice: test_export_agree checks the export against the in-memory decision
# on off-grid points with MPICH's compiled-in selection (taken from the
# installed libmpich) as the library's choice, and a real run shows a row
# MPICH cannot run switching algorithm with the message size.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_mpich.sh"

mkdir -p "$tmp/run"
cp tests/export/optimal.csv "$tmp/run/"
build/autotune export -r "$tmp/run" --format mpich -o "$tmp/sel.json" \
    2> "$tmp/warn" || fail "export mpich"
cat "$tmp/warn"
grep -qF "optimal.csv:18: bcast P=4 m=1024: split_binary/1024 not exported: MPICH has no bcast algorithm like it" \
    "$tmp/warn" || fail "no warning for the bcast split_binary row"
grep -q '"collective=ineighbor_alltoallw"' "$tmp/sel.json" || fail "not every collective listed"
grep -q '"algorithm=MPIR_Bcast_intra_scatter_ring_allgather"' "$tmp/sel.json" ||
    fail "bcast scatter_allgather_ring not mapped"

# MPICH's own selection, compiled into libmpich as a JSON string: our
# record of it must agree, and with it the export and the decision.
lib=$(ldd "$tmp/probe" | awk '/libmpich/ { print $3; exit }')
strings -n 8 "$lib" | grep -m1 '^{"collective=.*"algorithm=MPIR_Bcast_intra_binomial"' \
    > "$tmp/mpich-own.json"
if [ -s "$tmp/mpich-own.json" ]; then
    MPICH_SELECTION_JSON="$tmp/mpich-own.json" build/tests/unit/test_export_agree \
        > "$tmp/agree" 2>&1 || fail "export, decision and MPICH's own choice disagree: $(grep -v '^ok' "$tmp/agree" | head -5)"
    cat "$tmp/agree"
    grep -q "points compared with its compiled-in file" "$tmp/agree" ||
        fail "MPICH's compiled-in file was not compared"
else
    # Debian's libmpich has it (CI installs it): not finding it means the
    # comparison above never ran, which must not pass silently.
    fail "no selection JSON found in ${lib:-libmpich (ldd found none)}: MPICH's own choice not compared"
fi

probe() { # np selection-file output
    MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE="$2" timeout 120 \
        mpirun.mpich -np "$1" "$tmp/probe" > "$3" 2> "$3.err"
}

for np in 2 3 4; do
    probe $np "$tmp/sel.json" "$tmp/out.$np" || fail "np $np: MPICH refused the export: $(head -3 "$tmp/out.$np.err")"
    [ "$(wc -l < "$tmp/out.$np")" -eq $((np * 29)) ] || fail "np $np: not every call reported"
    awk '$4 != 0' "$tmp/out.$np" | grep -q . && fail "np $np: calls failed"
done
echo "MPICH ran every call on 2, 3 and 4 processes with the export"

# A misspelt algorithm: MPICH reads the file at start-up and aborts.
sed 's/"algorithm=MPIR_Bcast_intra_binomial"/"algorithm=MPIR_Bcast_intra_bogus"/' \
    "$tmp/sel.json" > "$tmp/bogus.json"
probe 2 "$tmp/bogus.json" "$tmp/bogus" && fail "MPICH accepted a misspelt algorithm"
grep -q "MPIR_Bcast_intra_bogus" "$tmp/bogus.err" || fail "MPICH did not name the bad key: $(head -3 "$tmp/bogus.err")"
[ -s "$tmp/bogus" ] && fail "calls ran with a misspelt file"

# The rule for bcast on 4+ ranks from 4096 B on, swapped for the SMP
# algorithm (it asserts on a communicator without node hierarchy): the calls
# before it run, MPICH aborts at that call; on 2 ranks the rule is not used.
sed 's/"algorithm=MPIR_Bcast_intra_scatter_ring_allgather"/"algorithm=MPIR_Bcast_intra_smp"/' \
    "$tmp/sel.json" > "$tmp/smp.json"
probe 2 "$tmp/smp.json" "$tmp/smp.2" || fail "np 2: a rule for 4+ ranks broke a 2-rank run"
probe 4 "$tmp/smp.json" "$tmp/smp.4" && fail "np 4: the swapped rule was not applied"
grep -q ' bcast 1024 0$' "$tmp/smp.4" || fail "np 4: bcast below the rule did not run"
grep -q ' bcast 4096 ' "$tmp/smp.4" && fail "np 4: bcast at 4096 ran despite the swapped rule"
grep -q 'bcast_intra_smp' "$tmp/smp.4.err" || fail "np 4: abort not in the SMP bcast: $(head -3 "$tmp/smp.4.err")"

# reduce on 2 ranks from 4096 B is binomial/1024, which MPICH cannot run:
# MPICH's own choice applies, binomial up to 2048 B and
# reduce_scatter_gather above. With that one swapped for a bcast algorithm
# (MPICH's reduce dispatcher asserts on it), the 1024 B call runs and the
# 4096 B call aborts: the size-based choice is in force, not one algorithm
# at every size.
grep -qF "reduce P=2 m=4096: binomial/1024 not exported: MPICH's MPIR_Reduce_intra_binomial takes no segment size; MPICH's own size-based choice applies there" \
    "$tmp/warn" || fail "no warning for the segmented reduce row"
sed 's/"algorithm=MPIR_Reduce_intra_reduce_scatter_gather"/"algorithm=MPIR_Bcast_intra_smp"/' \
    "$tmp/sel.json" > "$tmp/rsg.json"
probe 2 "$tmp/rsg.json" "$tmp/rsg.2" && fail "np 2: MPICH's size-based reduce choice not in force"
grep -q ' reduce 1024 0$' "$tmp/rsg.2" || fail "np 2: reduce at 1024 (binomial) did not run"
grep -q ' reduce 4096 ' "$tmp/rsg.2" && fail "np 2: reduce at 4096 ran despite the swapped algorithm"
grep -q 'mpir_coll.c' "$tmp/rsg.2.err" || fail "np 2: abort not in MPICH's dispatcher: $(head -3 "$tmp/rsg.2.err")"

[ $fails -eq 0 ] && echo "all export-mpich checks passed"
[ $fails -eq 0 ]
