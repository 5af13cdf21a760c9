#!/usr/bin/env bash
# Loads an exported Open MPI rules file into real Open MPI runs and proves it
# is read: with the valid file every call succeeds; with the same file's
# algorithm numbers replaced by an invalid one exactly the calls its rules
# cover fail (MPI_ERR_ARG), the calls handed back to Open MPI's fixed
# decision still succeed. Also checks what export says about unmapped rows.
set -u
. "$(dirname "$0")/lib.sh"
if ! command -v ompi_info > /dev/null || ! command -v mpirun > /dev/null; then
    echo "SKIP: Open MPI (ompi_info, mpirun) is not installed"
    exit 77
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

mkdir -p "$tmp/run"
cp tests/export/optimal.csv "$tmp/run/"
# --assume-commutative: the reduce and allreduce rows as tuned (the probe
# sums; test_export_noncommutative.sh checks the order-keeping default).
build/autotune export -r "$tmp/run" --format ompi --assume-commutative \
    -o "$tmp/rules.conf" 2> "$tmp/warn" || fail "export ompi"
cat "$tmp/warn"
# The rows Open MPI 4.1 cannot run are named with their line, and only those.
for want in "optimal.csv:7: allreduce P=2 m=1024: allgather_reduce/0" \
            "optimal.csv:8: allreduce P=4 m=1: allgather_reduce/0" \
            "optimal.csv:11: alltoall P=4 m=1: linear_sync/0" \
            "optimal.csv:13: barrier P=2 m=0: tournament/0" \
            "optimal.csv:22: gather P=4 m=1: chain/0" \
            "optimal.csv:29: scatter P=4 m=1: binary/0"; do
    grep -qF "$want not exported" "$tmp/warn" || fail "no warning: $want"
done
[ "$(grep -c 'not exported' "$tmp/warn")" -eq 6 ] || fail "warnings other than the 6 unmapped rows"
# Keys as Open MPI computes them: bcast per-rank bytes, alltoall times P;
# segment sizes and the chain fan-out in their fields; each rule starts
# just above the previous measured key (the cut rule).
grep -q '^2 4 0 1024 ' "$tmp/rules.conf" || fail "bcast split_binary above 1 B, up to 1024, with 1 KiB segments"
grep -q '^4097 2 4 8192 ' "$tmp/rules.conf" || fail "bcast chain with 4 chains, 8 KiB segments, above 4096"
grep -q '^5 3 0 0 ' "$tmp/rules.conf" || fail "alltoall bruck keyed above 1 B x 4 ranks"

# Same file, every algorithm number other than 0 made invalid.
sed -E 's/^([0-9]+) [1-9][0-9]* /\1 99 /' "$tmp/rules.conf" > "$tmp/bad.conf"
cmp -s "$tmp/rules.conf" "$tmp/bad.conf" && fail "sed changed nothing"

# Calls the rules cover (collective and block bytes), per world size.
all4() { for m in 1 1024 4096 65536; do echo "$1 $m"; done; }
expected_np2() {
    all4 allgather; echo "allreduce 1"; all4 alltoall; all4 bcast
    all4 gather; all4 reduce; all4 scatter
}
# 3 ranks take the rules of 4 (the next measured size above), with the
# keys Open MPI computes for 3.
expected_np4() {
    all4 allgather; echo "allreduce 1024"; echo "allreduce 4096"
    echo "allreduce 65536"
    echo "alltoall 1024"; echo "alltoall 4096"; echo "alltoall 65536"
    echo "barrier 0"; all4 bcast; echo "gather 1024"; echo "gather 4096"
    echo "gather 65536"; all4 reduce; echo "scatter 1024"; echo "scatter 4096"
    echo "scatter 65536"
}
expected_np3() { expected_np4; }

probe() { # np rules-file output
    timeout 120 mpirun -np "$1" --oversubscribe --mca coll ^han,hcoll \
        --mca coll_tuned_use_dynamic_rules 1 \
        --mca coll_tuned_dynamic_rules_filename "$2" \
        build/tests/mpi/export_probe > "$3" 2> "$3.err"
}

for np in 2 3 4; do
    probe $np "$tmp/rules.conf" "$tmp/good.$np" || fail "np $np: valid rules: mpirun failed"
    [ "$(wc -l < "$tmp/good.$np")" -eq $((np * 29)) ] || fail "np $np: valid rules: not every call reported"
    awk '$4 != 0' "$tmp/good.$np" | grep -q . && fail "np $np: valid rules: calls failed: $(awk '$4 != 0' "$tmp/good.$np" | head -3)"

    probe $np "$tmp/bad.conf" "$tmp/bad.$np" || fail "np $np: invalid rules: mpirun failed"
    [ "$(wc -l < "$tmp/bad.$np")" -eq $((np * 29)) ] || fail "np $np: invalid rules: not every call reported"
    # Every rank fails the same calls, with MPI_ERR_ARG (13).
    awk '$4 != 0 && $4 != 13' "$tmp/bad.$np" | grep -q . && fail "np $np: errors other than MPI_ERR_ARG"
    awk '$4 != 0 {print $2, $3}' "$tmp/bad.$np" | sort | uniq -c |
        awk -v np=$np '$1 != np' | grep -q . && fail "np $np: ranks disagree"
    awk '$4 != 0 {print $2, $3}' "$tmp/bad.$np" | sort -u > "$tmp/got.$np"
    "expected_np$np" | sort > "$tmp/want.$np"
    diff "$tmp/want.$np" "$tmp/got.$np" > "$tmp/diff.$np" ||
        fail "np $np: failing calls differ from the covered ones (< expected, > got): $(cat "$tmp/diff.$np")"
    echo "np $np: $(wc -l < "$tmp/got.$np") covered calls fail with invalid numbers, all succeed with the export"
done

# A real sweep's run directory: export reads the journal's settings (the
# backend, chain_fanout 2 into the chain rules' fan-out).
cat > "$tmp/t.cfg" <<CFG
output        = "$tmp/sweep";
collectives   = ["bcast"];
procs         = [2];
message_sizes = [1, 65536];
segment_sizes = [0, 8192];
algorithms    = { bcast = ["chain"]; };
chain_fanout  = 2;
baseline      = false;
measure       = { warmup = 1; min_reps = 3; max_reps = 5; rse = 0.5; };
CFG
timeout 300 mpirun -np 2 --oversubscribe build/autotune -c "$tmp/t.cfg" > "$tmp/sweep.out" 2>&1 ||
    fail "sweep: $(tail -3 "$tmp/sweep.out")"
build/autotune export -r "$tmp/sweep" --format ompi -o "$tmp/sweep.conf" 2> "$tmp/sweep.warn" ||
    fail "export of the sweep: $(cat "$tmp/sweep.warn")"
grep -v "^note: Open MPI chooses and splits a bcast" "$tmp/sweep.warn" | grep -q . &&
    fail "export of the sweep warned: $(cat "$tmp/sweep.warn")"
grep -Eq '^0 2 2 (0|8192) ' "$tmp/sweep.conf" || fail "chain rule without fan-out 2: $(grep '^0 ' "$tmp/sweep.conf")"
# This machine's release, if older than 4.1.8, ignores ompi-v2 files: said.
build/autotune export -r "$tmp/sweep" --format ompi-v2 -o "$tmp/sweep.v2" 2> "$tmp/v2.warn" ||
    fail "export ompi-v2 of the sweep"
case "$(ompi_info --version 2>/dev/null | head -1)" in
*v4.1.[0-7]|*v4.0.*|*v5.0.[0-6])
    grep -q "ignores rule-file-version-2" "$tmp/v2.warn" || fail "no note that this Open MPI ignores ompi-v2" ;;
esac
probe 2 "$tmp/sweep.conf" "$tmp/sweep.probe" || fail "the sweep's export under mpirun"
awk '$4 != 0' "$tmp/sweep.probe" | grep -q . && fail "calls failed with the sweep's export"

[ $fails -eq 0 ] && echo "all export-ompi checks passed"
[ $fails -eq 0 ]
